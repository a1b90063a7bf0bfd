import DeviceInterface
import GSL

/// Where a planner puts the exchanges it chose, in the order it chose them.
package protocol ExchangePlacer {
    /// Starts the round of `context`, and empties `plan` of the previous round's exchanges.
    mutating func begin(_ context: PlanningContext, into plan: inout RangingPlan)
    /// Places pair `p`, adding it to `plan`; whether it was placed. `urgent`: the devices know it may touch now (a
    /// knock both felt, a walk's end, a pair a touch apart).
    mutating func place(_ p: Int32, urgent: Bool, _ context: PlanningContext, into plan: inout RangingPlan) -> Bool
    /// Whether the round's air is taken, as far as a planner need try.
    var isSaturated: Bool { get }
    /// Whether the exchanges placed wrap around the round's end (sessions on their own timers).
    var roundIsCircular: Bool { get }
    /// What ``place(_:urgent:_:into:)`` could still accept this round of the sessions each device's chip controls
    /// (by device; `nil`: any), as ``begin(_:into:)`` left the placer: the answer may only narrow as pairs are
    /// placed, so that a pair it rules out is one `place` would refuse, and a planner need not rank it.
    func placeability(_ context: PlanningContext) -> [Placeable]?
}

/// What a placer could still accept, in a round, of the sessions one chip controls.
package enum Placeable: Sendable {
    case no
    case ifUrgent
    case yes
}

extension ExchangePlacer {
    package func placeability(_ context: PlanningContext) -> [Placeable]? { nil }
}

extension RangingPlan {
    /// Empties the plan of the previous round's exchanges, channels and collisions, for a round on `channels`.
    package mutating func emptyExchanges(channels: Int) {
        exchanges.removeAll(keepingCapacity: true)
        self.channels.removeAll(keepingCapacity: true)
        collided.removeAll(keepingCapacity: true)
        collided.append(contentsOf: repeatElement(0, count: channels))
    }
}

extension AirAllocator: ExchangePlacer {
    package var roundIsCircular: Bool { false }

    /// The room-wide map places by priority alone.
    package mutating func place(_ p: Int32, urgent: Bool, _ context: PlanningContext,
                                into plan: inout RangingPlan) -> Bool {
        place(p, context, into: &plan)
    }
}

/// Each phone's chip schedules only the sessions it controls, as phones range: nothing is shared between the chips
/// of different phones (docs/airtime.md, "The phones' own air").
///
/// A pair's session is controlled by its initiator's chip (``PlanningContext/initiators``). A chip's round is its
/// own: it begins at a phase of the chip's clock, drawn once (phones' clocks are not aligned), and holds one
/// position per exchange's length (10 of 10 ms at 10 Hz). The chip gives each session it runs this round one of
/// its free positions, drawn at random (FiRa's round hopping: which round of its block a session uses changes from
/// block to block by a pseudo-random sequence, so that two sessions that collided once need not collide again), so
/// that its own exchanges never overlap one another.
///
/// A phone spends only its share of the air it believes there is: with n peers in session, it takes them all to be in
/// hearing and to range too, and controls at most one n + 1-th of a channel's positions a round (10 / (n + 1) at
/// 10 Hz), carried from round to round as a credit of at most one round's positions. Two phones range each other
/// every round; in a hall of 100 each phone controls one exchange a second, and together they ask for about the
/// one channel there is, at instants no one coordinates. A session the phone knows may touch soon (urgent: a knock
/// both phones felt, a walk's end that is due, a pair that wants an update within four rounds) ranges beyond the
/// share, in debt. Each chip ranges on one channel of its own. What a chip cannot know is when its peer's radio is busy in another
/// phone's session, or who else is on the air: the world's air decides that (the `Air` module), the round taken as
/// circular.
package struct ChipScheduler: ExchangePlacer {
    private let exchangeDuration: Double
    private let channels: Int
    private let perBlock: Int?
    private let blockDuration: Double
    private let peers: Int
    private let hopping: RandomSource
    /// Each chip's phase, as a share of the round, and its channel.
    private let phase: [Double]
    private let channel: [UInt8]
    private var positions = 0
    private var interval = 0.1
    /// Whether each chip's position is taken this round (chip × positions + position), and how many are.
    private var taken: [Bool] = []
    private var takenCount: [UInt16] = []
    /// Each chip's credit of positions, and the sessions each device holds running this round.
    private var credit: [Double] = []
    private var sessions: [Int32] = []
    /// The sessions' version `sessions` was counted for: while no session changes, the counts stand (counting went
    /// through every pair in session, 4,950 a round at 100 peers).
    private var countedFor: UInt64?
    private var spent = 0
    private var spenders = 0

    private let sharesTheAir: Bool

    /// - Parameter sharesTheAir: whether a phone keeps to its share of the air; otherwise each chip ranges as many
    ///   sessions as its round holds.
    /// - Throws: a GSL allocation error.
    package init(medium: Medium, scheme: RangingScheme, peers: Int, seed: UInt64, sharesTheAir: Bool = true) throws {
        self.sharesTheAir = sharesTheAir
        exchangeDuration = medium.exchangeDuration(scheme)
        channels = medium.channels
        perBlock = medium.exchangesPerDevicePerBlock
        blockDuration = medium.blockDuration
        self.peers = peers
        hopping = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .planner, first: 3, second: 0))
        let clocks = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .planner, first: 2, second: 0))
        var phase: [Double] = []
        var channel: [UInt8] = []
        for _ in 0..<peers {
            phase.append(clocks.uniform())
            let c = Int(clocks.uniform() * Double(medium.channels))
            channel.append(UInt8(min(c, medium.channels - 1)))
        }
        self.phase = phase
        self.channel = channel
        takenCount = [UInt16](repeating: 0, count: peers)
        credit = [Double](repeating: 0, count: peers)
        sessions = [Int32](repeating: 0, count: peers)
    }

    package var roundIsCircular: Bool { true }

    /// Whether every chip with a session has spent its share or filled its round.
    package var isSaturated: Bool { spent >= spenders }

    package mutating func begin(_ context: PlanningContext, into plan: inout RangingPlan) {
        plan.emptyExchanges(channels: channels)
        interval = context.interval
        positions = max(1, Int((context.interval / exchangeDuration + 1e-9).rounded(.down)))
        // A chip's limit by block (``Medium/exchangesPerDevicePerSecond``), over the round's share of a block.
        if let perBlock {
            let share = Int((Double(perBlock) * interval / blockDuration + 1e-9).rounded(.down))
            positions = min(positions, max(1, share))
        }
        if taken.count != peers * positions { taken = [Bool](repeating: false, count: peers * positions) }
        else { for k in taken.indices { taken[k] = false } }
        for d in 0..<peers { takenCount[d] = 0 }
        if countedFor != context.sessions.version {
            countedFor = context.sessions.version
            for d in 0..<peers { sessions[d] = 0 }
            context.forEachRunningPair { _, pair in
                sessions[Int(pair.low)] += 1
                sessions[Int(pair.high)] += 1
            }
        }
        spent = 0
        spenders = 0
        for d in 0..<peers where sessions[d] > 0 {
            credit[d] = sharesTheAir
                ? min(credit[d] + Double(positions) / Double(sessions[d] + 1), Double(positions)) : Double(positions)
            if credit[d] >= 1 { spenders += 1 }
        }
    }

    /// A chip's credit and free positions only fall as the round's sessions are placed: a chip without a whole
    /// position of credit takes urgent sessions alone, and one at the depth of its debt none (at 100 peers, nine
    /// rounds in ten for every chip).
    package func placeability(_ context: PlanningContext) -> [Placeable]? {
        (0..<peers).map { chip in
            guard positions - Int(takenCount[chip]) > 0 else { return .no }
            if credit[chip] >= 1 { return .yes }
            return credit[chip] > 1 - Double(positions) ? .ifUrgent : .no
        }
    }

    /// An urgent session ranges beyond the chip's share, in debt of at most a round's positions.
    @discardableResult
    package mutating func place(_ p: Int32, urgent: Bool = false, _ context: PlanningContext,
                                into plan: inout RangingPlan) -> Bool {
        let chip = context.initiator(of: Int(p))
        let free = positions - Int(takenCount[chip])
        guard free > 0, credit[chip] >= 1 || (urgent && credit[chip] > 1 - Double(positions)) else { return false }
        // Round hopping: one of the chip's free positions, at random.
        var pick = min(Int(hopping.uniform() * Double(free)), free - 1)
        var k = 0
        while true {
            if !taken[chip * positions + k] {
                if pick == 0 { break }
                pick -= 1
            }
            k += 1
        }
        taken[chip * positions + k] = true
        takenCount[chip] += 1
        let before = credit[chip]
        credit[chip] -= 1
        if before >= 1 && (credit[chip] < 1 || Int(takenCount[chip]) == positions) { spent += 1 }
        var offset = (phase[chip] * interval + Double(k) * exchangeDuration)
        if offset >= interval { offset -= interval }
        plan.exchanges.append(PlannedExchange(pair: Int(p), offset: Float(offset)))
        plan.channels.append(channel[chip])
        return true
    }
}
