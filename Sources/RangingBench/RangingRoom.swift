import Air
import Bump
import DeviceInterface
import Estimation
import Geometry
import Radio
import Simulation
import Planning
import Ranging
import World

/// A room of peers with every session running and everyone standing still, ranged round after round under the
/// settings' ranging policy: the planning and the ranging pipeline (radio draws, both sides' estimators, the bump
/// detector, scoring) without discovery or movement. It is what the benchmarks measure, and what a run spends its
/// rounds on.
package final class RangingRoom {
    private let engine: RoundEngine
    private var planner: any RangingPlanner
    private var plan = RangingPlan()
    private var air: AirPhysics?
    private let oracle: Bool
    private let sessions: RunningSessions.Snapshot
    private let poses: [Pose]
    private let interval: Double
    /// Pairs ranged each round.
    package let pairs: Int

    /// A room of `peers` peers standing where the mingle scenario starts them (a hall of 4 m² per peer, so that,
    /// as in a run, far pairs fade and those beyond 15 m measure nothing).
    ///
    /// - Throws: ``SimulationSettingsError`` or a radio error for bad settings.
    package init(peers: Int, workers: Int, settings: SimulationSettings = SimulationSettings()) throws {
        var s = settings
        s.peers = peers
        s.workers = workers
        s.scenario = .mingle
        // No network: a room ranges in memory, so the UDP limit on peers does not apply.
        s.transport = .memory
        s.clock = .virtual
        try s.validate()
        let world = try World(scenario: .mingle, peers: peers, seed: s.seed, mingle: s.mingle)
        // (A denser hall, through `settings.mingle.areaPerPeer`, puts more pairs within range.)
        let running = RunningSessions(peers: peers)
        engine = try RoundEngine(
            peerIDs: (0..<peers).map(UInt64.init),
            settings: PairSettings(seed: s.seed, radio: s.radio, estimator: s.tunedEstimator, bump: s.bump),
            workers: workers, view: running)
        for a in 0..<peers { for b in 0..<peers where a != b { running.began(a, b) } }
        try engine.adoptMeetings()
        pairs = engine.pairs.count
        planner = try s.makePlanner(peers: peers)
        air = s.makeAir()
        oracle = s.rangingPolicy.isOracle
        sessions = running.snapshot()
        poses = world.poses
        interval = 1 / s.rate
    }

    /// Where the mingle scenario starts `peers` peers: the room's standing positions, for references that must
    /// range the same geometry.
    package static func standingPoses(peers: Int, seed: UInt64) -> [Pose] {
        (try? World(scenario: .mingle, peers: peers, seed: seed))?.poses ?? []
    }

    /// Where a room of `peers` peers made with `settings` stands (its seed, its hall's area per peer).
    package static func standingPoses(peers: Int, settings: SimulationSettings) throws -> [Pose] {
        try World(scenario: .mingle, peers: peers, seed: settings.seed, mingle: settings.mingle).poses
    }

    /// Plans the round at `time` (seconds, after the previous round's) and ranges what the plan says.
    ///
    /// - Returns: the bumps fired in the round.
    @discardableResult
    package func round(at time: Double) -> Int {
        plan(at: time)
        return engine.round(plan, at: time, poses: poses, sessions: sessions, record: false).bumps.count
    }

    /// Plans the round at `time` without ranging it, and lets the world's medium take out what collides: what the
    /// policy's planning costs.
    ///
    /// - Returns: the exchanges planned that did not collide.
    @discardableResult
    package func plan(at time: Double) -> Int {
        planner.plan(PlanningContext(time: time, interval: interval, sessions: sessions, pairs: engine.table,
                                     estimates: engine.estimates, initiators: engine.initiators,
                                     truth: oracle ? poses : nil), into: &plan)
        air?.resolve(&plan, pairs: engine.pairs, initiators: engine.initiators, positions: poses.map(\.position),
                     interval: interval,
                     circular: planner.roundIsCircular)
        return plan.exchanges.count
    }

    /// Updates delivered so far (two per received exchange).
    package var updatesDelivered: Int { engine.statistics.updates }

    /// Exchanges received so far (not lost).
    package var exchangesReceived: Int { engine.statistics.received }
}
