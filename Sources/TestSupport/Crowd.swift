import Air
import Bump
import DeviceInterface
import Estimation
import Geometry
import Radio
import Planning
import Ranging

/// A crowd for the planners: `peers` devices at the positions given, every one running a session with every other,
/// ranged by a noiseless engine so that the planners see estimates as in a run.
package struct Crowd {
    package let running: RunningSessions
    package let engine: RoundEngine
    package var poses: [Pose]
    private var air: AirPhysics?

    /// - Parameter medium: the world's air that decides what collides (none: nothing does).
    package init(positions: [Vector3], medium: Medium? = nil) throws {
        air = medium.map { AirPhysics(medium: $0, scheme: .doubleSided) }
        running = RunningSessions(peers: positions.count)
        for a in positions.indices { for b in positions.indices where a != b { running.began(a, b) } }
        engine = try RoundEngine(peerIDs: (1...UInt64(positions.count)).map { $0 },
                                 settings: PairSettings(seed: 1, radio: Fixtures.noiseless,
                                                        estimator: EstimatorConfiguration(), bump: BumpConfiguration()),
                                 workers: 2, view: running)
        try engine.adoptMeetings()
        poses = positions.map { Pose(position: $0, orientation: Orientation(heading: 0)) }
    }

    /// `count` devices on a square grid `spacing` metres apart, starting at the origin.
    package static func grid(_ count: Int, spacing: Double, medium: Medium? = nil) throws -> Crowd {
        let side = Int(Double(count).squareRoot().rounded(.up))
        return try Crowd(positions: (0..<count).map { Vector3(Double($0 % side) * spacing, Double($0 / side) * spacing, 1.2) }, medium: medium)
    }

    /// Whether the devices read every pair's Bluetooth distance, without error (so that what they believe of who
    /// hears whom is never farther than the truth); otherwise they know only their estimates.
    package var hearsBluetooth = true
    /// The least share of its Bluetooth distance the devices take a pair to be at (0: anywhere nearer).
    package var bluetoothFloor: Float = 1

    /// Rounds between two Bluetooth readings in ``round(_:_:_:interval:speeds:taps:peerTaps:)``: in between the
    /// devices keep the last.
    package var bluetoothEvery = 1
    /// Whether ``round(_:_:_:interval:speeds:taps:peerTaps:)`` tells the planner what changed outside its plan
    /// (``PlanningContext/outsideChanges``): a count of the readings that changed a distance, and of the estimates
    /// started afresh.
    package var tellsChanges = false
    private var heard: [Float]?
    private var changedReadings = 0

    /// The Bluetooth distances the devices would read now.
    private func reading() -> [Float] {
        !hearsBluetooth ? [] : engine.pairs.map { Float((poses[Int($0.low)].position - poses[Int($0.high)].position).length) }
    }

    /// What the devices know at round `k`.
    package func context(round k: Int, interval: Double = 0.1, speeds: [Float] = [],
                         taps: [Float] = [], peerTaps: [[PeerTap]] = []) -> PlanningContext {
        context(round: k, interval: interval, speeds: speeds, taps: taps, peerTaps: peerTaps, bluetooth: reading(),
                outsideChanges: nil)
    }

    private func context(round k: Int, interval: Double, speeds: [Float], taps: [Float], peerTaps: [[PeerTap]],
                         bluetooth: [Float], outsideChanges: Int?) -> PlanningContext {
        PlanningContext(time: Double(k) * interval, interval: interval, sessions: running.snapshot(),
                        pairs: engine.table, estimates: engine.estimates, bluetooth: bluetooth,
                        bluetoothFloor: bluetoothFloor, speeds: speeds, taps: taps, peerTaps: peerTaps,
                        initiators: engine.initiators, outsideChanges: outsideChanges)
    }

    /// Plans round `k` and ranges it.
    package mutating func round(_ k: Int, _ planner: inout some RangingPlanner, _ plan: inout RangingPlan,
                               interval: Double = 0.1, speeds: [Float] = [], taps: [Float] = [],
                               peerTaps: [[PeerTap]] = []) {
        if heard == nil || k % max(bluetoothEvery, 1) == 0 || heard?.isEmpty == hearsBluetooth {
            let now = reading()
            let before = heard ?? []
            if now.count < before.count || zip(before, now).contains(where: { $0.bitPattern != $1.bitPattern }) {
                changedReadings += 1
            }
            heard = now
        }
        let context = context(round: k, interval: interval, speeds: speeds, taps: taps, peerTaps: peerTaps,
                              bluetooth: heard ?? [],
                              outsideChanges: tellsChanges ? changedReadings + engine.estimatesRestarted : nil)
        planner.plan(context, into: &plan)
        air?.resolve(&plan, pairs: engine.pairs, initiators: engine.initiators, positions: poses.map(\.position),
                     interval: interval,
                     circular: planner.roundIsCircular)
        _ = engine.round(plan, at: context.time, poses: poses, sessions: context.sessions, record: false)
    }
}

