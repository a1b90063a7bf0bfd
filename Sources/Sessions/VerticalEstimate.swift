/// Where the other device is in height, as the phone framework words it.
public enum VerticalEstimate: String, Sendable, CaseIterable, Codable {
    /// Nothing is known yet, or the device has no vertical antenna pair.
    case unknown
    /// Roughly at the same level.
    case same
    /// Clearly above.
    case above
    /// Clearly below.
    case below
    /// Off the level, but the sign is not yet significant.
    case aboveOrBelow
}
