import Dispatch
import Estimation
import Geometry
import Radio
import Simulation

/// The compute floor: the arithmetic of a pipeline round and nothing else. Every pair's exchange at the same poses
/// as `round-N-peers-pipeline`, with the same settings: the round's bodies indexed, the obstacle walk between the
/// two phones, the link budget and its draws, the six timestamps and the phase-difference angles (the radio's own
/// `exchange`), and both sides' estimators; in a flat loop over an array of structs on the same workers. What the
/// pipeline does besides, the floor leaves out: the plan and its session checks, the per-round context, scoring
/// against the truth, the band statistics, the records. (The benchmark rooms feel no accelerometer impacts, so the
/// fused detector does no work in either.) The ratio of the two is then what the pipeline's design costs.
public final class ComputeFloor {
    private struct Slot {
        let initiator: Int
        let responder: Int
        var radio: PairRadio
        var estimatorI: SessionEstimator
        var estimatorR: SessionEstimator
    }

    private var slots: [Slot]
    private let poses: [Pose]
    private let maximumRange: Double
    private let workers: Int
    private var time = 0.0

    public init(peers: Int, workers: Int, areaPerPeer: Double = 4) throws {
        var settings = SimulationSettings()
        settings.mingle.areaPerPeer = areaPerPeer
        poses = try RangingRoom.standingPoses(peers: peers, settings: settings)
        let devices = try DeviceRadio.room(count: peers, runSeed: settings.seed, configuration: settings.radio)
        let radio = try SharedRadioConfiguration(settings.radio)
        let estimator = SharedEstimatorConfiguration(settings.tunedEstimator)
        var slots: [Slot] = []
        slots.reserveCapacity(peers * (peers - 1) / 2)
        for a in 0..<peers {
            for b in (a + 1)..<peers {
                slots.append(Slot(
                    initiator: a, responder: b,
                    radio: try PairRadio(initiator: devices[a], responder: devices[b], stream: (UInt64(a), UInt64(b)),
                                         runSeed: settings.seed, shared: radio),
                    estimatorI: SessionEstimator(shared: estimator),
                    estimatorR: SessionEstimator(shared: estimator)))
            }
        }
        self.slots = slots
        maximumRange = settings.radio.maximumRange
        self.workers = workers
    }

    /// Ranges every pair once; returns the exchanges received.
    public func round() -> Int {
        time += 0.1
        let time = self.time
        let count = slots.count
        let workers = self.workers
        let poses = self.poses
        let maximumRange = self.maximumRange
        let obstacles = Obstacles(holdersOf: poses, walls: [])
        var received = [Int](repeating: 0, count: workers)
        slots.withUnsafeMutableBufferPointer { buffer in
            received.withUnsafeMutableBufferPointer { counts in
                let shared = Shared(buffer: buffer, counts: counts)
                DispatchQueue.concurrentPerform(iterations: workers) { w in
                    var n = 0
                    for p in (count * w / workers)..<(count * (w + 1) / workers) {
                        if Self.update(&shared.buffer[p], poses, obstacles, maximumRange, at: time) { n += 1 }
                    }
                    shared.counts[w] = n
                }
            }
        }
        return received.reduce(0, +)
    }

    @inline(__always)
    private static func update(
        _ slot: inout Slot, _ poses: [Pose], _ obstacles: Obstacles, _ maximumRange: Double, at time: Double
    ) -> Bool {
        let a = poses[slot.initiator], b = poses[slot.responder]
        let truth = PairGeometry(a, b)
        let path = truth.distance > maximumRange ? PathObstruction.clear : obstacles.between(a.position, b.position)
        guard let m = slot.radio.exchange(geometry: truth, at: time, path: path) else { return false }
        _ = slot.estimatorR.update(distance: m.distance, angle: m.angleAtResponder, at: time)
        if m.reachedInitiator { _ = slot.estimatorI.update(distance: m.distance, angle: m.angleAtInitiator, at: time) }
        return true
    }

    private struct Shared: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<Slot>
        let counts: UnsafeMutableBufferPointer<Int>
    }
}
