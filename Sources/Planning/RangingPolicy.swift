import DeviceInterface

/// Who ranges when (docs/airtime.md), each policy beside its planner. The command line's `--ranging-policy` help
/// and `NearbySimulator`'s `RoomConfiguration.Policy` are made from these cases and their ``explanation``.
public enum RangingPolicy: String, Sendable, CaseIterable {
    /// Every pair of running sessions every round, whatever the air: a world that does not exist, to compare with.
    case ideal
    /// Every session on its own timer, every round; the world's air loses the frames that overlap in hearing.
    case uncoordinated
    /// A fair share of the air for every running pair, in a room-wide slot map.
    case roundRobin = "round-robin"
    /// The pairs that matter first, by what the devices know, each phone's chip scheduling its own sessions (the
    /// default).
    case proximity
    /// `proximity`'s choice placed in a room-wide slot map: a coordination phones do not have, for what a crowd
    /// protocol would buy.
    case coordinated
    /// `coordinated` told the true positions and who walks to whom: an upper bound no phone can reach.
    case oracle

    /// What the policy does, in a phrase, as the command line's help says it.
    package var explanation: String {
        switch self {
        case .ideal: "every pair of running sessions every round, whatever the air: 495 times one channel at 100 peers"
        case .uncoordinated: "every session every round on its own timer, no chip scheduling; frames collide"
        case .roundRobin: "a fair share of the air for every running pair, in a room-wide slot map phones do not have"
        case .proximity: "the pairs that matter first, by what the devices know; each phone's chip schedules its own sessions"
        case .coordinated: "proximity in a room-wide slot map: a coordination phones do not have (what a crowd protocol would buy)"
        case .oracle: "coordinated told the true positions and who walks to whom: an upper bound no phone can reach, never a default"
        }
    }

    /// The air the policy's exchanges meet, as the summary says it: whether anything shares a schedule.
    package var air: String {
        switch self {
        case .ideal: "none (no air)"
        case .uncoordinated: "phones' sessions, each on its own timer"
        case .proximity: "phones' own chips, each scheduling its own sessions"
        case .roundRobin, .coordinated, .oracle: "room-wide slot map (a coordination phones do not have)"
        }
    }

    /// Whether the world's medium decides which of the policy's exchanges collide: every policy but `ideal`, which
    /// has no air.
    package var modelsTheAir: Bool { self != .ideal }

    /// Whether the policy reads the world's truth (an upper bound, never a default).
    package var isOracle: Bool { self == .oracle }

    /// The policy's name as the summary, the trace and the report show it: an oracle says it is one.
    package var label: String { isOracle ? "\(rawValue) (upper bound: reads the truth)" : rawValue }

    /// Whether the round's exchanges wrap around (sessions on their own timers), so that the frame-level analytic
    /// survival applies (``AirPhysics/expectedSurvival``); `chips` when each initiator's exchanges share its phase.
    package var ownTimers: (applies: Bool, chips: Bool) {
        switch self {
        case .uncoordinated: (true, false)
        case .proximity: (true, true)
        default: (false, false)
        }
    }

    /// The policy's planner for `peers` devices.
    ///
    /// - Parameters:
    ///   - workers: threads that share the ranking of the pairs (`proximity`, `coordinated`, `oracle`).
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
        case .proximity: try Proximity(medium: medium, scheme: scheme, peers: peers, seed: seed, settings: proximity,
                                       workers: workers)
        case .coordinated, .oracle: Proximity(medium: medium, scheme: scheme, peers: peers, settings: proximity,
                                              workers: workers, hearingMargin: hearingMargin)
        }
    }
}
