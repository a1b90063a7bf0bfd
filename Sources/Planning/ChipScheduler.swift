import DeviceInterface
import GSL

/// Where a planner puts the exchanges it chose, in the order it chose them.
package protocol ExchangePlacer {
    /// Starts the round of `context`, and empties `plan` of the previous round's exchanges.
    mutating func begin(_ context: PlanningContext, into plan: inout RangingPlan)
    /// Places pair `p`, adding it to `plan`; whether it was placed.
    mutating func place(_ p: Int32, _ context: PlanningContext, into plan: inout RangingPlan) -> Bool
    /// Whether the round's air is taken, as far as a planner need try.
    var isSaturated: Bool { get }
    /// Whether the exchanges placed wrap around the round's end (sessions on their own timers).
    var roundIsCircular: Bool { get }
    /// Whether only the sessions due take the air: a phone's session ranges at its own rate, and a chip does not
    /// know that the room's air is free; a room-wide map fills the air it has by priority.
    var placesOnlyDuePairs: Bool { get }
}

extension AirAllocator: ExchangePlacer {
    package var roundIsCircular: Bool { false }
    package var placesOnlyDuePairs: Bool { false }
}

/// Each phone's chip schedules only the sessions it controls, as phones range: nothing is shared between the chips
/// of different phones (docs/airtime.md, "The phones' own air").
///
/// A pair's session is controlled by its initiator's chip (``PlanningContext/initiators``). A chip's round is its
/// own: it begins at a phase of the chip's clock, drawn once (phones' clocks are not aligned), and holds one
/// position per exchange's length (10 of 10 ms at 10 Hz). The chip gives each session it runs this round one of
/// its free positions, drawn at random (FiRa's round hopping: which round of its block a session uses changes from
/// block to block by a pseudo-random sequence, so that two sessions that collided once need not collide again), so
/// that its own exchanges never overlap one another; a chip with no free position runs no more sessions this round.
/// Each chip ranges on one channel of its own. What a chip cannot know is when its peer's radio is busy in another
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
    private var fullChips = 0

    /// - Throws: a GSL allocation error.
    package init(medium: Medium, scheme: RangingScheme, peers: Int, seed: UInt64) throws {
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
    }

    package var roundIsCircular: Bool { true }
    package var placesOnlyDuePairs: Bool { true }

    package var isSaturated: Bool { fullChips >= peers }

    package mutating func begin(_ context: PlanningContext, into plan: inout RangingPlan) {
        plan.exchanges.removeAll(keepingCapacity: true)
        plan.channels.removeAll(keepingCapacity: true)
        plan.collided.removeAll(keepingCapacity: true)
        plan.collided.append(contentsOf: repeatElement(0, count: channels))
        interval = context.interval
        positions = max(1, Int((context.interval / exchangeDuration + 1e-9).rounded(.down)))
        // A chip's limit by block (``Medium/exchangesPerDevicePerSecond``), over the round's share of a block.
        if let perBlock {
            positions = min(positions, max(1, Int((Double(perBlock) * interval / blockDuration + 1e-9).rounded(.down))))
        }
        if taken.count != peers * positions { taken = [Bool](repeating: false, count: peers * positions) }
        else { for k in taken.indices { taken[k] = false } }
        for d in 0..<peers { takenCount[d] = 0 }
        fullChips = 0
    }

    @discardableResult
    package mutating func place(_ p: Int32, _ context: PlanningContext, into plan: inout RangingPlan) -> Bool {
        let chip = context.initiator(of: Int(p))
        let free = positions - Int(takenCount[chip])
        guard free > 0 else { return false }
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
        if Int(takenCount[chip]) == positions { fullChips += 1 }
        var offset = (phase[chip] * interval + Double(k) * exchangeDuration)
        if offset >= interval { offset -= interval }
        plan.exchanges.append(PlannedExchange(pair: Int(p), offset: Float(offset)))
        plan.channels.append(channel[chip])
        return true
    }
}
