import DeviceInterface
import Foundation
import Geometry
import Planning
import Testing
import TestSupport

/// `proximity` ranks only the pairs its placer could still accept: a pair whose initiator's chip has spent its share
/// and that is not urgent is left out of the ranking. Leaving it out must change no plan.
@Suite struct PlaceableTests {
    /// The placer's calls, counted across the copies the planner makes of it.
    final class Calls: @unchecked Sendable {
        var place = 0
    }

    /// Phones' chips, with or without telling the planner what they could accept.
    struct Chips: ExchangePlacer {
        var chips: ChipScheduler
        let answers: Bool
        let calls: Calls

        mutating func begin(_ context: PlanningContext, into plan: inout RangingPlan) { chips.begin(context, into: &plan) }

        mutating func place(_ p: Int32, urgent: Bool, _ context: PlanningContext, into plan: inout RangingPlan) -> Bool {
            calls.place += 1
            return chips.place(p, urgent: urgent, context, into: &plan)
        }

        func placeability(_ context: PlanningContext) -> [Placeable]? {
            answers ? chips.placeability(context) : nil
        }

        var isSaturated: Bool { chips.isSaturated }
        var roundIsCircular: Bool { chips.roundIsCircular }
    }

    /// 36 phones on a grid 0.25 m apart (neighbours want an update every 0.28 s, 4 cm over the shortest interval's
    /// reach) with knocks felt together by pairs (0, 1) and (14, 15), 200 rounds: every round's exchanges, their
    /// instants and channels, are the same whether or not the planner skips the pairs the chips would refuse, and it
    /// asks the chips to place a fraction of the pairs.
    @Test func leavingOutWhatAChipWouldRefuseChangesNoPlan() throws {
        func run(answers: Bool) throws -> (plans: [[PlannedExchange]], channels: [[UInt8]], calls: Int) {
            var crowd = try Crowd.grid(36, spacing: 0.25)
            let medium = Medium()
            let calls = Calls()
            let chips = Chips(chips: try ChipScheduler(medium: medium, scheme: .doubleSided, peers: 36, seed: 7),
                              answers: answers, calls: calls)
            var planner = Proximity(placer: chips, medium: medium, peers: 36, workers: 2)
            var plan = RangingPlan()
            var plans: [[PlannedExchange]] = []
            var channels: [[UInt8]] = []
            for k in 0..<200 {
                var taps = [Float](repeating: -.infinity, count: 36)
                var heard = [[PeerTap]](repeating: [], count: 36)
                if k >= 50 && k < 60 {
                    for (a, b) in [(0, 1), (14, 15)] {
                        (taps[a], taps[b]) = (5.0, 5.01)
                        heard[a] = [PeerTap(peer: Int32(b), time: 5.01)]
                        heard[b] = [PeerTap(peer: Int32(a), time: 5.0)]
                    }
                }
                crowd.round(k, &planner, &plan, speeds: [Float](repeating: 0.2, count: 36), taps: taps,
                            peerTaps: heard)
                plans.append(plan.exchanges)
                channels.append(plan.channels)
            }
            return (plans, channels, calls.place)
        }
        let skipping = try run(answers: true)
        let ranking = try run(answers: false)
        #expect(skipping.plans == ranking.plans)
        #expect(skipping.channels == ranking.channels)
        let exchanges = skipping.plans.map(\.count).reduce(0, +)
        // 630 pairs, all offered every round without the answers but in the rounds every chip has spent its share
        // and the planner stops (124,110 of 126,000 offers).
        #expect(ranking.calls > 630 * 190 && ranking.calls <= 630 * 200, "\(ranking.calls)")
        #expect(exchanges > 2_000, "\(exchanges)")
        // 3,892 offers for 2,181 exchanges.
        #expect(skipping.calls < ranking.calls / 20, "\(skipping.calls) of \(ranking.calls)")
        #expect(skipping.calls >= exchanges)
    }

    /// Device d's position at round k: the pairs (2i, 2i + 1) close from 1.2 m to 4 cm and part, each pair on its own
    /// phase, 1.4 m from the next pair: near enough that two walkers' speeds bring an old estimate of their devices
    /// within a touch in half a second.
    static func closingPairs(_ k: Int, count: Int) -> [Vector3] {
        (0..<count).map { d in
            let pair = d / 2
            let base = Vector3(Double(pair % 7) * 1.4, Double(pair / 7) * 1.4, 1.2)
            let phase = Double((k + 17 * pair) % 40) / 40
            let gap = 0.04 + 1.16 * abs(2 * phase - 1)
            return base + Vector3(d % 2 == 0 ? -gap / 2 : gap / 2, 0, 0)
        }
    }

    /// Each device's own speed at round k: a third of them walking at a time, one at 2.5 m/s for a while.
    static func speeds(_ k: Int, count: Int) -> [Float] {
        (0..<count).map { d in
            if d == 5 && (150..<170).contains(k) { return 2.5 }
            return (k / 20 + d) % 3 == 0 ? 1.4 : 0
        }
    }

    /// A planner on phones' chips (seed 11), two workers, telling it or not what the chips could accept.
    static func planner(answers: Bool, count: Int) throws -> Proximity<Chips> {
        let medium = Medium()
        let chips = Chips(chips: try ChipScheduler(medium: medium, scheme: .doubleSided, peers: count, seed: 11),
                          answers: answers, calls: Calls())
        return Proximity(placer: chips, medium: medium, peers: count, workers: 2)
    }

    /// Pairs that close on each other and part again, devices whose speeds come and go (one at 2.5 m/s for a
    /// while, past every bound found before), Bluetooth distances that follow: the bounds under which the planner
    /// passes over a pair that cannot be urgent (its estimate, its Bluetooth distance and the crowd's speeds
    /// unchanged) change no plan either, round for round, against ranking every pair in full. A bound twice as late
    /// changes round 19; one that outlives a new estimate, round 14.
    @Test func passingOverPairsThatCannotBeUrgentChangesNoPlan() throws {
        let count = 100
        func positions(_ k: Int) -> [Vector3] { Self.closingPairs(k, count: count) }
        func speeds(_ k: Int) -> [Float] { Self.speeds(k, count: count) }
        func run(answers: Bool) throws -> (plans: [[PlannedExchange]], channels: [[UInt8]], urgent: Int) {
            var crowd = try Crowd(positions: positions(0))
            var planner = try Self.planner(answers: answers, count: count)
            var plan = RangingPlan()
            var plans: [[PlannedExchange]] = []
            var channels: [[UInt8]] = []
            var near = 0
            // Bluetooth tells little (a pair may be as near as a tenth of its distance), and for a while nothing.
            crowd.bluetoothFloor = 0.1
            for k in 0..<300 {
                crowd.hearsBluetooth = !(200..<250).contains(k)
                crowd.poses = positions(k).map { Pose(position: $0, orientation: Orientation(heading: 0)) }
                crowd.round(k, &planner, &plan, speeds: speeds(k))
                plans.append(plan.exchanges)
                channels.append(plan.channels)
                near += plan.exchanges.filter { exchange in
                    let pair = crowd.engine.pairs[Int(exchange.pair)]
                    return pair.low / 2 == pair.high / 2
                }.count
            }
            return (plans, channels, near)
        }
        let passing = try run(answers: true)
        let ranking = try run(answers: false)
        let differing = passing.plans.indices.first {
            passing.plans[$0] != ranking.plans[$0] || passing.channels[$0] != ranking.channels[$0]
        }
        #expect(differing == nil, "round \(differing ?? -1) differs")
        let exchanges = passing.plans.map(\.count).reduce(0, +)
        #expect(exchanges > 1_000, "\(exchanges)")
        // The closing pairs range more than their share of the 630 pairs (each chip controls one in 18 or so).
        #expect(passing.urgent > exchanges / 10, "\(passing.urgent) of \(exchanges)")
    }

    /// The same crowd with its Bluetooth read once a second, knocks felt by pairs (0, 1) and (14, 15) for a while,
    /// and the planner told what changes outside its plan: the pairs it then passes over without reading anything of
    /// their own (their chip takes only urgent sessions, and their bound is known to hold) change no plan, round
    /// for round, against ranking every pair in full, through sessions suspended and resumed; most pairs most rounds
    /// are passed over so. Told nothing, it passes over none.
    @Test func passingOverPairsFromWhatChangedChangesNoPlan() throws {
        let count = 100
        func positions(_ k: Int) -> [Vector3] {
            var at = Self.closingPairs(k, count: count)
            // One walks through the crowd at 0.5 m/s, in and out of everyone's Bluetooth bounds.
            at[count - 1] = Vector3(-2 + 0.05 * Double(k % 240), 3 * 1.4 + 0.3, 1.2)
            return at
        }
        func speeds(_ k: Int) -> [Float] { Self.speeds(k, count: count) }
        func run(answers: Bool, tells: Bool) throws -> (plans: [[PlannedExchange]], channels: [[UInt8]], passed: Int) {
            var crowd = try Crowd(positions: positions(0))
            var planner = try Self.planner(answers: answers, count: count)
            var plan = RangingPlan()
            var plans: [[PlannedExchange]] = []
            var channels: [[UInt8]] = []
            crowd.bluetoothFloor = 0.1
            crowd.bluetoothEvery = 10
            crowd.tellsChanges = tells
            for k in 0..<300 {
                crowd.hearsBluetooth = !(200..<250).contains(k)
                crowd.poses = positions(k).map { Pose(position: $0, orientation: Orientation(heading: 0)) }
                var taps = [Float](repeating: -.infinity, count: count)
                var heard = [[PeerTap]](repeating: [], count: count)
                // Two phones a pair apart, and two 4.4 m apart walking (a knock a bump app would range at once:
                // they may have closed 2 m since they last ranged).
                for (a, b, rounds) in [(14, 15, 50..<60), (3, 24, 63..<73), (3, 24, 183..<193)] where rounds.contains(k) {
                    let at = Float(rounds.lowerBound) / 10 + 0.05
                    (taps[a], taps[b]) = (at, at + 0.01)
                    heard[a] = [PeerTap(peer: Int32(b), time: at + 0.01)]
                    heard[b] = [PeerTap(peer: Int32(a), time: at)]
                }
                // Device 10's sessions are suspended for a while, then resumed: the pairs after them in the
                // admitted order move down, then back.
                if k == 103 || k == 163 {
                    for d in 0..<count where d != 10 { crowd.running.set(10, d, running: k == 163) }
                }
                crowd.round(k, &planner, &plan, speeds: speeds(k), taps: taps, peerTaps: heard)
                plans.append(plan.exchanges)
                channels.append(plan.channels)
            }
            return (plans, channels, planner.passedOver)
        }
        let dozing = try run(answers: true, tells: true)
        let passing = try run(answers: true, tells: false)
        let ranking = try run(answers: false, tells: true)
        for other in [passing, ranking] {
            let differing = dozing.plans.indices.first {
                dozing.plans[$0] != other.plans[$0] || dozing.channels[$0] != other.channels[$0]
            }
            #expect(differing == nil, "round \(differing ?? -1) differs")
        }
        let exchanges = dozing.plans.map(\.count).reduce(0, +)
        #expect(exchanges > 1_000, "\(exchanges)")
        // 4,950 pairs a round for 300 rounds.
        #expect(dozing.passed > 4_950 * 300 / 2, "\(dozing.passed)")
        #expect(passing.passed == 0 && ranking.passed == 0)
    }

    /// A placer whose chips answer as scripted, round by round, and that places whatever it is given.
    struct Scripted: ExchangePlacer {
        let answers: [Placeable]
        var round = -1

        mutating func begin(_ context: PlanningContext, into plan: inout RangingPlan) {
            round += 1
            plan.exchanges.removeAll()
        }

        mutating func place(_ p: Int32, urgent: Bool, _ context: PlanningContext, into plan: inout RangingPlan) -> Bool {
            plan.exchanges.append(PlannedExchange(pair: Int(p)))
            return true
        }

        func placeability(_ context: PlanningContext) -> [Placeable]? {
            [Placeable](repeating: answers[round], count: 2)
        }

        var isSaturated: Bool { false }
        var roundIsCircular: Bool { false }
    }

    /// A pair passed over stops being passed over once it ranges: two phones 5 m apart by estimate and Bluetooth
    /// (a bound that holds for ever: passed over in round 1), ranged in round 2 when the chip has credit, whose new
    /// estimate says 0.2 m: in rounds 3 and 4 the pair is due and urgent and ranges, its chip taking only urgent
    /// sessions, as when every pair is looked at. (Kept passed over on the old bound, it would not range.)
    @Test func aPairThatRangedIsLookedAtAgain() {
        var far = PairEstimate(), near = PairEstimate()
        (far.distance, far.time) = (5, 0)
        (near.distance, near.time) = (0.2, 0.25)
        let rounds = (0..<5).map { k in (answer: k == 2 ? Placeable.yes : .ifUrgent, estimate: k < 3 ? far : near,
                                         bluetooth: [Float(5)]) }
        let told = Self.scripted(rounds, tells: true), untold = Self.scripted(rounds, tells: false)
        #expect(told.ranged == [2, 3, 4])
        #expect(untold.ranged == told.ranged)
        #expect(told.passed == 1, "\(told.passed)")
        #expect(untold.passed == 0)
    }

    /// A pair is not passed over before its first Bluetooth reading, which comes as the distances grow by the pairs
    /// met since the last reading, not as an outside change: two phones never ranged, heard at 10 cm in round 2, are
    /// urgent then. (Passed over on the bound found without a reading, for ever, it would not range.)
    @Test func aPairIsLookedAtOnItsFirstBluetoothReading() {
        let rounds = (0..<4).map { k in (answer: Placeable.ifUrgent, estimate: PairEstimate(),
                                         bluetooth: k < 2 ? [Float]() : [0.1]) }
        let told = Self.scripted(rounds, tells: true), untold = Self.scripted(rounds, tells: false)
        #expect(told.ranged == [2, 3])
        #expect(untold.ranged == told.ranged)
        #expect(told.passed == 0 && untold.passed == 0)
    }

    /// Rounds of two phones in session, each with what the chip answers, the pair's estimate and its Bluetooth
    /// distances (Bluetooth floor 0.01), the planner told of outside changes (none) or not: the rounds the pair
    /// ranged, and how many times it was passed over.
    static func scripted(_ rounds: [(answer: Placeable, estimate: PairEstimate, bluetooth: [Float])],
                         tells: Bool) -> (ranged: [Int], passed: Int) {
        let running = RunningSessions(peers: 2)
        running.began(0, 1)
        running.began(1, 0)
        let table = PairTable.everyPair(of: 2)
        var planner = Proximity(placer: Scripted(answers: rounds.map(\.answer)), medium: Medium(), peers: 2)
        var plan = RangingPlan()
        var ranged: [Int] = []
        for (k, round) in rounds.enumerated() {
            planner.plan(PlanningContext(time: Double(k) / 10, interval: 0.1, sessions: running.snapshot(),
                                         pairs: table, estimates: [round.estimate], bluetooth: round.bluetooth,
                                         bluetoothFloor: 0.01, outsideChanges: tells ? 0 : nil),
                         into: &plan)
            if !plan.exchanges.isEmpty { ranged.append(k) }
        }
        return (ranged, planner.passedOver)
    }
}
