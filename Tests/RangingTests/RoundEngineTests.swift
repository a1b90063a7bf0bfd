import Bump
import DeviceInterface
import Estimation
import Geometry
import Radio
import Planning
import Ranging
import Sessions
import Testing
import TestSupport

/// The round engine on two or three devices with a noiseless radio: who initiates, what a new session resets, what
/// the planner hands it.
@Suite struct RoundEngineTests {
    private static func pose(x: Double, facing target: Double) -> Pose {
        let position = Vector3(x, 0, 1.2)
        return Pose(position: position, orientation: .facing(Vector3(target, 0, 1.2), from: position))
    }

    private static func engine(
        ids: [UInt64], view: RunningSessions? = nil, radio: RadioConfiguration = Fixtures.noiseless
    ) throws -> RoundEngine {
        try RoundEngine(peerIDs: ids, settings: PairSettings(seed: 3, radio: radio, estimator: EstimatorConfiguration(),
                                                             bump: BumpConfiguration()),
                        workers: 2, view: view ?? RunningSessions(peers: ids.count))
    }

    private static func plan(_ engine: RoundEngine, _ sessions: RunningSessions.Snapshot) throws -> RangingPlan {
        try engine.adoptMeetings()
        var planner = EveryRunningPair()
        var plan = RangingPlan()
        planner.plan(PlanningContext(time: 0, interval: 0.1, sessions: sessions, pairs: engine.table),
                     into: &plan)
        return plan
    }

    private static func bothRunning(_ running: RunningSessions, _ a: Int, _ b: Int) {
        running.began(a, b)
        running.began(b, a)
    }

    /// The lower peer id initiates, whatever its index: device 1 (id 3) before device 0 (id 5).
    @Test func theLowerPeerIDInitiates() throws {
        let running = RunningSessions(peers: 3)
        let engine = try Self.engine(ids: [5, 3, 9], view: running)
        Self.bothRunning(running, 0, 1)
        running.began(0, 2)
        running.began(2, 1)
        let sessions = running.snapshot()
        try engine.adoptMeetings()
        #expect(engine.pairs.count == 3)
        #expect(engine.initiator(ofPair: try #require(engine.pairIndex(0, 1))) == 1)
        #expect(engine.initiator(ofPair: try #require(engine.pairIndex(0, 2))) == 0)
        #expect(engine.initiator(ofPair: try #require(engine.pairIndex(2, 1))) == 1)
        let poses = [Self.pose(x: 0, facing: 1), Self.pose(x: 1, facing: 0), Self.pose(x: 5, facing: 0)]
        let result = engine.round(try Self.plan(engine, sessions), at: 0.1, poses: poses, sessions: sessions, record: true)
        let exchange = try #require(result.exchanges.first)
        #expect(result.exchanges.count == 1)
        #expect(exchange.initiator == 1 && exchange.responder == 0)
        #expect(abs(exchange.truth.distance - 1) < 1e-9)
    }

    /// A pair ranged at 1 m for 3 s, then at 3 m: under the same sessions the filter's gate refuses the jump and
    /// holds near 1 m; under a new session (a peer restarted) the estimators start afresh at 3 m.
    @Test(arguments: [false, true])
    func aNewSessionStartsWithFreshEstimators(_ renewed: Bool) throws {
        let running = RunningSessions(peers: 2)
        let engine = try Self.engine(ids: [1, 2], view: running)
        Self.bothRunning(running, 0, 1)
        var sessions = running.snapshot()
        let near = [Self.pose(x: 0, facing: 1), Self.pose(x: 1, facing: 0)]
        for k in 1...30 {
            _ = engine.round(try Self.plan(engine, sessions), at: Double(k) / 10, poses: near, sessions: sessions, record: false)
        }
        if renewed { running.began(1, 0) }
        sessions = running.snapshot()
        let far = [Self.pose(x: 0, facing: 3), Self.pose(x: 3, facing: 0)]
        let result = engine.round(try Self.plan(engine, sessions), at: 3.1, poses: far, sessions: sessions, record: true)
        let update = try #require(result.exchanges.first?.atInitiator)
        let distance = Double(try #require(update.distance))
        #expect(engine.statistics.sessionsRenewed == (renewed ? 1 : 0))
        if renewed {
            #expect(abs(distance - 3) < 0.01, "\(distance)")
        } else {
            #expect(distance < 1.5, "\(distance)")
        }
    }

    /// A suspension and its end are the same session: nothing is logged for the engine; a session begun on either
    /// side is, once, pair by pair.
    @Test func suspensionKeepsTheSession() throws {
        let running = RunningSessions(peers: 2)
        Self.bothRunning(running, 0, 1)
        let before = running.snapshot()
        let pair = RangingPair(low: 0, high: 1)
        let began = RunningSessions.Meeting(pair: pair, began: true)
        #expect(running.takeMeetings() == [began, began])
        running.set(0, 1, running: false)
        let suspended = running.snapshot()
        running.set(0, 1, running: true)
        let resumed = running.snapshot()
        #expect(before.ranges(0, 1) && !suspended.ranges(0, 1) && resumed.ranges(0, 1))
        #expect(suspended.holds(1, 0) && !suspended.holds(0, 1))
        #expect(running.takeMeetings().isEmpty)
        #expect(before.version != suspended.version && suspended.version != resumed.version)
        #expect(resumed.count == 2)
        running.began(1, 0)
        let renewed = running.snapshot()
        #expect(running.takeMeetings() == [began])
        #expect(running.takeMeetings().isEmpty)
        // Setting what is already so changes nothing a planner must see.
        running.set(0, 1, running: true)
        #expect(running.snapshot().version == renewed.version)
    }

    /// The ideal planner plans exactly the pairs whose two sides both run, in pair order, and keeps its plan while
    /// no session changes.
    @Test func everyRunningPairPlansThePairsBothSidesRun() throws {
        let running = RunningSessions(peers: 4)
        let engine = try Self.engine(ids: [1, 2, 3, 4], view: running)
        Self.bothRunning(running, 0, 3)
        Self.bothRunning(running, 1, 2)
        running.began(0, 1)
        var planner = EveryRunningPair()
        var plan = RangingPlan()
        func replan() throws {
            try engine.adoptMeetings()
            planner.plan(PlanningContext(time: 0, interval: 0.1, sessions: running.snapshot(), pairs: engine.table),
                                         into: &plan)
        }
        func index(_ a: Int, _ b: Int) throws -> Int32 { Int32(try #require(engine.pairIndex(a, b))) }
        try replan()
        // Indices in the order the pairs met; the plan in the order of the pairs.
        #expect(try [index(0, 3), index(1, 2), index(0, 1)] == [0, 1, 2])
        #expect(try plan.exchanges.map(\.pair) == [index(0, 3), index(1, 2)])
        #expect(plan.exchanges.allSatisfy { $0.offset == 0 })
        // Kept while nothing changed (a planner may keep the previous plan), rebuilt when something did.
        plan.exchanges.append(PlannedExchange(pair: 5))
        try replan()
        #expect(plan.exchanges.count == 3)
        running.began(1, 0)
        try replan()
        #expect(try plan.exchanges.map(\.pair) == [index(0, 1), index(0, 3), index(1, 2)])
    }

    /// An exchange planned 60 ms into a 100-ms round in which the devices close from 1 m to 0.5 m measures them
    /// 0.7 m apart at its own instant; without the round's end poses, the start's geometry.
    @Test(arguments: [true, false])
    func anExchangeMeasuresThePositionsAtItsInstant(_ withEnd: Bool) throws {
        let running = RunningSessions(peers: 2)
        let engine = try Self.engine(ids: [1, 2], view: running)
        Self.bothRunning(running, 0, 1)
        let sessions = running.snapshot()
        try engine.adoptMeetings()
        var plan = RangingPlan()
        plan.exchanges = [PlannedExchange(pair: 0, offset: 0.06)]
        let start = [Self.pose(x: 0, facing: 1), Self.pose(x: 1, facing: 0)]
        let end = [Self.pose(x: 0.25, facing: 1), Self.pose(x: 0.75, facing: 0)]
        let result = engine.round(plan, at: 2, poses: start, end: withEnd ? end : [], interval: 0.1, sessions: sessions,
                                  record: true)
        let exchange = try #require(result.exchanges.first)
        #expect(abs(exchange.time - 2.06) < 1e-6)
        #expect(abs(exchange.truth.distance - (withEnd ? 0.7 : 1)) < 1e-6, "\(exchange.truth.distance)")
        #expect(abs(Double(try #require(exchange.measurement.distance)) - (withEnd ? 0.7 : 1)) < 0.01)
    }

    /// A pair gets its index when either side finds the other or begins a session, in the order pairs meet, and
    /// its slot at its first session; a pair that never met has none.
    @Test func pairsGetSlotsInTheOrderTheyMeet() throws {
        let running = RunningSessions(peers: 7)
        let engine = try Self.engine(ids: Array(1...7), view: running)
        try engine.adoptMeetings()
        #expect(engine.pairs.isEmpty)
        let met = [(6, 2), (0, 1), (2, 6), (5, 3), (1, 0), (4, 0)]
        for (a, b) in met { running.began(a, b) }
        running.found(3, 6)
        try engine.adoptMeetings()
        #expect(engine.pairs.count == 5)
        for (p, (a, b)) in [(6, 2), (0, 1), (5, 3), (4, 0), (3, 6)].enumerated() {
            #expect(engine.pairIndex(a, b) == p && engine.pairIndex(b, a) == p)
        }
        #expect(engine.pairIndex(0, 2) == nil)
        #expect(engine.table.ordered == [1, 3, 0, 2, 4])
        #expect(engine.estimates.count == 5)
        // Only the pairs in session range: a pair found but never in session has no slot, and ranges once it has.
        Self.bothRunning(running, 3, 6)
        let sessions = running.snapshot()
        let plan = try Self.plan(engine, sessions)
        // (0,1), (2,6) and (3,6) run on both sides, planned in the pairs' order.
        #expect(plan.exchanges.map(\.pair) == [1, 0, 4])
        let poses = (0..<7).map { Self.pose(x: Double($0) * 0.2, facing: 10) }
        let ranged = engine.round(plan, at: 0.1, poses: poses, sessions: sessions, record: true).exchanges
        #expect(!ranged.isEmpty && ranged.allSatisfy { [1, 0, 4].contains($0.pair) })
    }

    /// Three devices all in session: the engine's three pairs, planned by every running pair.
    private static func threeInSession() throws -> (RoundEngine, RunningSessions.Snapshot, RangingPlan) {
        let running = RunningSessions(peers: 3)
        let engine = try Self.engine(ids: [5, 3, 9], view: running)
        Self.bothRunning(running, 0, 1)
        Self.bothRunning(running, 0, 2)
        Self.bothRunning(running, 1, 2)
        let sessions = running.snapshot()
        return (engine, sessions, try Self.plan(engine, sessions))
    }

    /// The promise that makes the round's shared buffers safe (each pair, and so each slot, at most once a round)
    /// is checked: a plan that breaks it is named for what it breaks, a plan that keeps it passes.
    @Test func aPlanThatNamesAPairTwiceIsRefusedByTheSharingCheck() throws {
        let (engine, _, plan) = try Self.threeInSession()
        #expect(plan.exchanges.count == 3)
        #expect(engine.sharingBreach(plan) == nil)
        var twice = plan
        twice.exchanges.append(PlannedExchange(pair: Int(plan.exchanges[1].pair), offset: 0.05))
        #expect(engine.sharingBreach(twice) == "exchange 3 names pair \(plan.exchanges[1].pair) a second time in one round")
        var unknown = plan
        unknown.exchanges.append(PlannedExchange(pair: 7))
        #expect(engine.sharingBreach(unknown) == "exchange 3 names pair 7, and the engine knows 3 pairs")
    }

    /// In a debug build (the tests'), ranging a plan that names a pair twice stops the process before any worker
    /// touches the shared buffers.
    @Test func aFaultyPlanTripsTheDebugCheckWhereTheBuffersAreShared() async {
        await #expect(processExitsWith: .failure) {
            let (engine, sessions, plan) = try Self.threeInSession()
            var twice = plan
            twice.exchanges.append(plan.exchanges[0])
            let poses = [Self.pose(x: 0, facing: 1), Self.pose(x: 1, facing: 0), Self.pose(x: 0.5, facing: 0)]
            _ = engine.round(twice, at: 0.1, poses: poses, sessions: sessions, record: false)
        }
    }
}

/// The air's arithmetic: FiRa's 2 ms slots in 200 ms blocks carry 100 double-sided exchanges a second a channel (5
/// slots each) and 165 single-sided ones (3 slots, 33 whole exchanges a block): the 80 to 170 of the published
/// figures.
@Suite struct MediumTests {
    @Test func oneChannelCarriesAHundredDoubleSidedExchangesASecond() throws {
        var medium = Medium()
        try medium.validate()
        #expect(medium.exchangesPerSecondPerChannel(.doubleSided) == 100)
        #expect(abs(medium.exchangesPerSecondPerChannel(.singleSided) - 165) < 1e-9)
        medium.channels = 3
        #expect(medium.capacityPerSecond(.doubleSided) == 300)
        // 100 peers, every pair at 10 Hz: 49,500 exchanges a second, 495 times one channel.
        #expect(Double(4_950 * 10) / Medium().capacityPerSecond(.doubleSided) == 495)
    }

    @Test(arguments: [
        ("channels", "--channels must be between 1 and 16"),
        ("range", "--interference-range must be between 0 and 1000 metres"),
        ("sessions", "--sessions-per-device must be between 1 and 10000"),
        ("rate", "--exchanges-per-device must be at least one a block (5.0 a second) and at most 10000"),
        ("slot", "medium slotDuration must be between 0.0001 and 0.1 s"),
        ("block", "medium blockDuration must be at least one slot and at most 10 s"),
        ("slots", "medium doubleSidedSlots must be between 1 and the slots of a block (100)"),
    ])
    func badMediaAreNamed(_ field: String, _ message: String) {
        var m = Medium()
        switch field {
        case "channels": m.channels = 0
        case "slot": m.slotDuration = 0
        case "block": m.blockDuration = 0.001
        case "range": m.interferenceRange = -1
        case "sessions": m.sessionsPerDevice = 0
        case "rate": m.exchangesPerDevicePerSecond = 4
        default: m.doubleSidedSlots = 101
        }
        let error = #expect(throws: MediumError.self) { try m.validate() }
        #expect(error?.description == message)
    }
}
