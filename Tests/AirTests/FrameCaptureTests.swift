import Air
import DeviceInterface
import GSL
import Geometry
import Planning
import Ranging
import Testing
import TestSupport

/// The air frame by frame (docs/airtime.md, "Frames and capture"): frames of 160 µs at the start of each 2-ms slot,
/// received when 6 dB stronger than what overlaps them at their receiver; a shared radio kept by the exchange that
/// began first.
@Suite struct FrameCaptureTests {
    /// Pairs 0-1 and 2-3, and 1-2, which shares a device with each.
    static let pairs = [RangingPair(low: 0, high: 1), RangingPair(low: 2, high: 3), RangingPair(low: 1, high: 2)]

    static func resolve(_ exchanges: [(pair: Int, at: Double)], _ positions: [Vector3],
                        medium: Medium = Medium()) -> RangingPlan {
        var plan = RangingPlan()
        plan.exchanges = exchanges.map { PlannedExchange(pair: $0.pair, offset: Float($0.at)) }
        plan.channels = exchanges.map { _ in 0 }
        plan.collided = [0]
        var air = AirPhysics(medium: medium, scheme: .doubleSided)
        air.resolve(&plan, pairs: pairs, positions: positions, interval: 0.1, circular: true)
        return plan
    }

    /// Two pairs 1 m apart side by side: a frame's interferer is √2 m from its receiver, 3 dB under it.
    static let square = [Vector3(0, 0, 1), Vector3(1, 0, 1), Vector3(0, 1, 1), Vector3(1, 1, 1)]

    @Test func framesThatMeetAreLostUnlessOneIsStrongEnough() {
        // 50 µs apart, every frame meets its twin: 3 dB is under the 6 dB of capture, both lost.
        let met = Self.resolve([(0, 0), (1, 0.000_05)], Self.square)
        #expect(met.exchanges.isEmpty && met.collided == [2])
        // The same without capture.
        var none = Medium()
        none.captureThreshold = nil
        #expect(Self.resolve([(0, 0), (1, 0.000_05)], Self.square, medium: none).collided == [2])
        // At 0 dB of capture the stronger frame is received: 3 dB suffices.
        var weak = Medium()
        weak.captureThreshold = 0
        #expect(Self.resolve([(0, 0), (1, 0.000_05)], Self.square, medium: weak).collided == [0])
    }

    @Test func windowsThatOverlapWithoutTheirFramesMeetingBothArrive() {
        // 1 ms apart: frames at 0, 2, 4 ... ms and 1, 3, 5 ... ms, 160 µs each, never meet.
        let plan = Self.resolve([(0, 0), (1, 0.001)], Self.square)
        #expect(plan.exchanges.count == 2 && plan.collided == [0])
    }

    @Test func aStrongerFrameIsCaptured() {
        // Pair 0-1 0.3 m apart, pair 2-3 3 m apart, 2 m away: the near pair's frames are 16 dB over the far pair's,
        // the far pair's 1.6 dB over the near pair's at device 3.
        let positions = [Vector3(0, 0, 1), Vector3(0.3, 0, 1), Vector3(0, 2, 1), Vector3(3, 2, 1)]
        let plan = Self.resolve([(0, 0), (1, 0.000_05)], positions)
        #expect(plan.exchanges.map(\.pair) == [0] && plan.collided == [1])
        // Two pairs 0.5 m long 5 m apart: 20 dB each way, both received.
        let apart = [Vector3(0, 0, 1), Vector3(0.5, 0, 1), Vector3(5, 0, 1), Vector3(5.5, 0, 1)]
        #expect(Self.resolve([(0, 0), (1, 0.000_05)], apart).collided == [0])
    }

    @Test func aSharedRadioIsKeptByTheExchangeThatBeganFirst() {
        // Pair 1-2 begins 5 ms after pair 0-1, listed first: device 1 is taken, 1-2 is lost.
        let plan = Self.resolve([(2, 0.005), (0, 0)], Self.square)
        #expect(plan.exchanges.map(\.pair) == [0] && plan.collided == [1])
        // Across the round's end: 0-1 at 98 ms runs into the next round's 3 ms, where 1-2 begins.
        let wrapped = Self.resolve([(0, 0.098), (2, 0.003)], Self.square)
        #expect(wrapped.exchanges.map(\.pair) == [0] && wrapped.collided == [1])
        // One exchange after the other, both kept.
        #expect(Self.resolve([(0, 0), (2, 0.010)], Self.square).collided == [0])
    }

    @Test func aLostReportLeavesTheResponderItsReading() throws {
        // 8.05 ms apart: 0-1's report (its fifth frame, at 8 ms) meets 2-3's control: 0-1 loses its report only,
        // 2-3 its control and with it the exchange.
        let plan = Self.resolve([(0, 0), (1, 0.008_05)], Self.square)
        #expect(plan.exchanges.map(\.pair) == [0] && plan.collided == [1] && plan.reportLost == [true])
        // In the engine the responder reads it, the initiator does not.
        let crowd = try Crowd(positions: [Vector3(0, 0, 1), Vector3(1, 0, 1)])
        var lost = RangingPlan()
        lost.exchanges = [PlannedExchange(pair: 0)]
        lost.reportLost = [true]
        let poses = crowd.poses, sessions = crowd.running.snapshot()
        let without = crowd.engine.round(lost, at: 0.1, poses: poses, sessions: sessions, record: true)
        #expect(without.exchanges.count == 1 && without.exchanges[0].atInitiator == nil)
        let responderRead = try #require(without.exchanges[0].atResponder.distance)
        #expect(responderRead > 0.9 && responderRead < 1.3)
        lost.reportLost = []
        let with = crowd.engine.round(lost, at: 0.2, poses: poses, sessions: sessions, record: true)
        // With its report the initiator reads what the responder did (a noiseless radio, the same geometry).
        #expect(abs(try #require(with.exchanges[0].atInitiator?.distance) - responderRead) < 0.01)
    }
}

/// Every running pair once every `every` rounds (pair p in the rounds k where p + k is a multiple of it), each given
/// a position by its initiator's chip (``ChipScheduler``), or, without chips, at an instant of its own uniform over
/// the round: sessions at a fixed rate, with no priority.
struct EveryPairAtItsRate: RangingPlanner {
    var chips: ChipScheduler?
    let random: RandomSource
    let every: Int
    var roundIsCircular: Bool { true }

    mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        let round = Int((context.time / context.interval).rounded())
        if chips != nil {
            chips!.begin(context, into: &plan)
        } else {
            plan.exchanges.removeAll(keepingCapacity: true)
            plan.channels.removeAll(keepingCapacity: true)
            plan.collided = [0]
        }
        context.forEachRunningPair { p, _ in
            guard (p + round) % every == 0 else { return }
            if chips != nil {
                _ = chips!.place(Int32(p), context, into: &plan)
            } else {
                plan.exchanges.append(PlannedExchange(pair: p, offset: Float(random.uniform() * context.interval)))
                plan.channels.append(0)
            }
        }
    }
}

/// The simulated air against the frame-level analytic survival (``AirPhysics/expectedSurvival``), in rooms of 8 and
/// 30 phones at random in 10 m × 10 m, every pair in session, default capture: at 8 phones every pair asks every
/// round (10 Hz), at 30 one round in ten (1 Hz: at 10 Hz an exchange would share a device with 56 others and
/// survive 0.9^56 = 0.3% of the time, a figure too small to compare).
@Suite struct AirSurvivalTests {
    /// The mean simulated and worked-out survival over `seeds` rooms of `rounds` rounds each.
    static func survival(phones n: Int, chips: Bool, every: Int, seeds: ClosedRange<UInt64>, rounds: Int) throws
        -> (simulated: Double, expected: Double, attempts: Int) {
        let medium = Medium()
        var attempts = 0, kept = 0
        var expectedSum = 0.0, expectedCount = 0
        for seed in seeds {
            let random = try RandomSource(seed: seed)
            let positions = (0..<n).map { _ in Vector3(random.uniform() * 10, random.uniform() * 10, 1.2) }
            let crowd = try Crowd(positions: positions)
            var air = AirPhysics(medium: medium, scheme: .doubleSided)
            var planner = EveryPairAtItsRate(
                chips: chips ? try ChipScheduler(medium: medium, scheme: .doubleSided, peers: n, seed: seed,
                                                sharesTheAir: false) : nil,
                random: try RandomSource(seed: seed + 1_000), every: every)
            var plan = RangingPlan()
            for k in 1...rounds {
                let context = crowd.context(round: k)
                planner.plan(context, into: &plan)
                let worked = air.expectedSurvival(plan, pairs: crowd.engine.pairs, initiators: crowd.engine.initiators,
                                                  positions: positions, interval: 0.1, grouped: chips)
                expectedSum += worked.sum
                expectedCount += worked.count
                let asked = plan.exchanges.count
                air.resolve(&plan, pairs: crowd.engine.pairs, initiators: crowd.engine.initiators,
                            positions: positions, interval: 0.1, circular: true)
                attempts += asked
                kept += plan.exchanges.count
            }
        }
        return (Double(kept) / Double(attempts), expectedSum / Double(expectedCount), attempts)
    }

    @Test(arguments: [(8, false), (30, false), (8, true), (30, true)])
    func simulatedSurvivalIsTheAnalyticOne(_ phones: Int, _ chips: Bool) throws {
        // Chips keep their phases for a run: many rooms, so that the phases' draw averages out.
        let (seeds, rounds): (ClosedRange<UInt64>, Int) = phones == 8 ? (1...24, 40) : (1...6, 40)
        let every = phones == 8 ? 1 : 10
        let s = try Self.survival(phones: phones, chips: chips, every: every, seeds: seeds, rounds: rounds)
        #expect(abs(s.simulated - s.expected) < 0.03,
                "\(phones) phones, chips \(chips): simulated \(s.simulated), expected \(s.expected), \(s.attempts) asked")
        // Every pair's exchange is asked for at its rate, but for the chips' ten positions.
        let asked = phones * (phones - 1) / 2 * rounds / every * seeds.count
        #expect(chips ? s.attempts <= asked && s.attempts > asked * 9 / 10 : s.attempts == asked)
        // The air loses some and keeps some: neither figure is trivially 0 or 1.
        #expect(s.expected > 0.05 && s.expected < 0.98, "expected \(s.expected)")
    }
}
