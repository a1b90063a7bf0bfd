/// How the time of flight is computed from the timestamps.
public enum RangingScheme: String, Sendable, CaseIterable {
    /// Asymmetric double-sided two-way ranging: three messages, clock drift cancels almost entirely.
    case doubleSided = "ds"
    /// Single-sided two-way ranging: two messages, errs by about (eB - eA) x reply / 2.
    case singleSided = "ss"
}
