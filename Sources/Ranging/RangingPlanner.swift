import Geometry
import Radio

/// One exchange a planner chose: the pair (its index in ``RoundEngine/pairs``) and the instant it ranges at, in
/// seconds after the round's start (within the round's interval). Eight bytes: a plan of 500,000 pairs is read
/// every round.
public struct PlannedExchange: Sendable, Equatable {
    public var pair: Int32
    public var offset: Float

    public init(pair: Int, offset: Float = 0) {
        self.pair = Int32(pair)
        self.offset = offset
    }
}

/// The exchanges of one round, in the order the engine reports them. A pair appears at most once a round.
public struct RangingPlan: Sendable {
    public var exchanges: [PlannedExchange] = []

    public init() {}
}

/// What a planner may know when it plans a round: the round's span, who holds running sessions with whom, the
/// pairs, and the true poses (for policies that model the air, where distance decides who may share a slot).
public struct PlanningContext {
    /// The round's start, seconds, and its length (1 / the rate).
    public let time: Double
    public let interval: Double
    public let sessions: RunningSessions.Snapshot
    /// Every pair, by index: the lower and the higher device index.
    public let pairs: [RoundEngine.Pair]
    public let poses: [Pose]

    public init(time: Double, interval: Double, sessions: RunningSessions.Snapshot, pairs: [RoundEngine.Pair],
                poses: [Pose]) {
        self.time = time
        self.interval = interval
        self.sessions = sessions
        self.pairs = pairs
        self.poses = poses
    }

    /// Calls `body` with the index of every pair whose two devices both hold a running session, in pair order.
    @inline(__always)
    public func forEachRunningPair(_ body: (Int) -> Void) {
        for (p, pair) in pairs.enumerated() where sessions.ranges(Int(pair.low), Int(pair.high)) { body(p) }
    }
}

/// Decides, each round, which pairs range and at which instant: the seam where the air's limits (channels, slots,
/// per-device session limits) and a policy come in. The engine ranges exactly what the plan says.
public protocol RangingPlanner {
    /// Sets `plan` to the round's exchanges. The plan holds the previous round's, which a planner may keep.
    mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan)
}

/// Every pair of running sessions at the start of every round, in pair order: the ideal world, with no limit of
/// air. At 100 peers that is 4,950 exchanges a round, which no real channel carries.
public struct EveryRunningPair: RangingPlanner {
    /// The sessions' version the plan was made for: while no session changes, the plan stays as it is.
    private var plannedFor: UInt64?

    public init() {}

    public mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        let sessions = context.sessions
        guard plannedFor != sessions.version else { return }
        plannedFor = sessions.version
        plan.exchanges.removeAll(keepingCapacity: true)
        context.forEachRunningPair { plan.exchanges.append(PlannedExchange(pair: $0)) }
    }
}

/// A fair share of the air for every pair of running sessions: each round, as many exchanges as the medium carries
/// in one room (its capacity over the round, the fractions carried over), taken in turn from the list of running
/// pairs and spaced one exchange's slots apart. Every pair waits its turn, close or far: at 100 peers on one channel
/// a pair ranges about once every 50 s.
public struct RoundRobin: RangingPlanner {
    /// Exchanges the medium carries in a second, and the seconds one exchange occupies.
    private let capacityPerSecond: Double
    private let exchangeDuration: Double
    private var credit = 0.0
    private var next = 0
    private var running: [Int32] = []
    private var plannedFor: UInt64?

    public init(medium: Medium, scheme: RadioConfiguration.RangingScheme) {
        capacityPerSecond = medium.capacityPerSecond(scheme)
        exchangeDuration = Double(medium.slotsPerExchange(scheme)) * medium.slotDuration
            / Double(max(medium.channels, 1))
    }

    public mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        let sessions = context.sessions
        if plannedFor != sessions.version {
            plannedFor = sessions.version
            running.removeAll(keepingCapacity: true)
            context.forEachRunningPair { running.append(Int32($0)) }
            if next >= running.count { next = 0 }
        }
        plan.exchanges.removeAll(keepingCapacity: true)
        credit += capacityPerSecond * context.interval
        let count = min(Int(credit.rounded(.down)), running.count)
        credit -= Double(count)
        // Air not used this round (fewer running pairs than slots) is not saved for later.
        if count == running.count { credit = min(credit, 1) }
        for k in 0..<count {
            plan.exchanges.append(PlannedExchange(pair: Int(running[(next + k) % running.count]),
                                                  offset: Float(Double(k) * exchangeDuration)))
        }
        if !running.isEmpty { next = (next + count) % running.count }
    }
}
