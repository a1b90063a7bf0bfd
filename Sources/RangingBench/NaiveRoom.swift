import Estimation
import Geometry
import Radio
import Simulation

/// The naive design an app with one framework session per peer would have: every session is an actor with its own
/// task, which sleeps until its next ranging instant, then ranges for itself (each side of a pair runs its own
/// exchange) and updates its estimator behind an actor hop.
public final class NaiveRoom: Sendable {
    private let sessions: [NaiveSession]

    public init(peers: Int) throws {
        let poses = RangingRoom.standingPoses(peers: peers, seed: 1)
        var sessions: [NaiveSession] = []
        for a in 0..<peers {
            for b in 0..<peers where a != b {
                sessions.append(try NaiveSession(me: a, peer: b, geometry: PairGeometry(poses[a], poses[b])))
            }
        }
        self.sessions = sessions
    }

    /// One round: every session's task wakes at the round's instant and updates.
    public func round() async {
        await withTaskGroup(of: Void.self) { group in
            let instant = ContinuousClock.now
            for session in sessions {
                group.addTask {
                    try? await Task.sleep(until: instant, clock: .continuous)
                    await session.update()
                }
            }
        }
    }
}

actor NaiveSession {
    private var radio: PairRadio
    private var estimator = SessionEstimator()
    private let geometry: PairGeometry
    private var time = 0.0

    init(me: Int, peer: Int, geometry: PairGeometry) throws {
        radio = try PairRadio(initiatorID: UInt64(me), responderID: UInt64(peer), runSeed: 1,
                              configuration: RadioConfiguration())
        self.geometry = geometry
    }

    func update() {
        time += 0.1
        guard let m = radio.exchange(geometry: geometry, at: time) else { return }
        _ = estimator.update(distance: m.distance, angle: m.angleAtInitiator, at: time)
    }
}
