import DeviceInterface

/// Who ranges when (docs/airtime.md), each policy beside its planner.
package enum RangingPolicy: String, Sendable, CaseIterable {
    /// Every pair of running sessions every round, whatever the air: a world that does not exist, to compare with.
    case ideal
    /// Every session on its own timer; the world's medium loses the exchanges that overlap in hearing.
    case uncoordinated
    /// A fair share of the air for every running pair.
    case roundRobin = "round-robin"
    /// The pairs that matter first, by what the devices know (the default).
    case proximity
    /// `proximity` told the true positions and who walks to whom: an upper bound no phone can reach.
    case oracle

    /// Whether the policy reads the world's truth (an upper bound, never a default).
    package var isOracle: Bool { self == .oracle }

    /// The policy's name as the summary, the trace and the report show it: an oracle says it is one.
    package var label: String { isOracle ? "\(rawValue) (upper bound: reads the truth)" : rawValue }

    /// The policy's planner for `peers` devices.
    ///
    /// - Parameters:
    ///   - workers: threads that share the ranking of the pairs (`proximity`, `oracle`).
    ///   - hearingMargin: how far beyond the interference range a pair is taken to be in hearing (``AirAllocator``).
    /// - Throws: a GSL allocation error.
    package func makePlanner(
        medium: Medium, scheme: RangingScheme, peers: Int, seed: UInt64,
        proximity: ProximitySettings = ProximitySettings(), workers: Int = 1,
        hearingMargin: Float
    ) throws -> any RangingPlanner {
        switch self {
        case .ideal: EveryRunningPair()
        case .uncoordinated: try Uncoordinated(medium: medium, scheme: scheme, peers: peers, seed: seed)
        case .roundRobin: RoundRobin(medium: medium, scheme: scheme, peers: peers, hearingMargin: hearingMargin)
        case .proximity, .oracle: Proximity(medium: medium, scheme: scheme, peers: peers, settings: proximity,
                                            workers: workers, hearingMargin: hearingMargin)
        }
    }
}
