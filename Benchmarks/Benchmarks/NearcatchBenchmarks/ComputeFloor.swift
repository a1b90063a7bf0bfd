import Dispatch
import Estimation
import GSL
import Radio
import RangingBench
import Simulation

/// The compute floor: the same arithmetic as a pipeline round (the radio's random draws: link state, loss, distance
/// noise and four phase draws; both sides' range filter and direction smoother), in a flat loop over an array of
/// structs on the same workers, and nothing else: no geometry, no timestamps, no scoring, no detector.
final class ComputeFloor {
    private struct Slot {
        let random: RandomSource
        var filterA = RangeFilter()
        var filterB = RangeFilter()
        var directionA = DirectionSmoother()
        var directionB = DirectionSmoother()
        let distance: Double
    }

    private var slots: [Slot]
    private let workers: Int
    private var time = 0.0

    init(peers: Int, workers: Int) throws {
        let poses = RangingRoom.standingPoses(peers: peers, seed: 1)
        var slots: [Slot] = []
        for a in 0..<peers {
            for b in (a + 1)..<peers {
                slots.append(Slot(random: try RandomSource(runSeed: 1, stream: .pair(UInt64(a), UInt64(b))),
                                  distance: (poses[a].position - poses[b].position).length))
            }
        }
        self.slots = slots
        self.workers = workers
    }

    func round() -> Int {
        time += 0.1
        let time = self.time
        let count = slots.count
        let workers = self.workers
        slots.withUnsafeMutableBufferPointer { buffer in
            let shared = Shared(buffer: buffer)
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                for p in (count * w / workers)..<(count * (w + 1) / workers) {
                    Self.update(&shared.buffer[p], at: time)
                }
            }
        }
        return count
    }

    @inline(__always)
    private static func update(_ slot: inout Slot, at time: Double) {
        let r = slot.random
        _ = r.uniform()
        guard !r.bernoulli(0.02) else { return }
        let d = slot.distance + r.gaussian(sigma: 0.09)
        slot.filterA.update(d, at: time)
        slot.filterB.update(d, at: time)
        let a = AngleMeasurement(horizontalCosine: r.gaussian(sigma: 0.1), verticalCosine: r.gaussian(sigma: 0.1))
        let b = AngleMeasurement(horizontalCosine: r.gaussian(sigma: 0.1), verticalCosine: r.gaussian(sigma: 0.1))
        slot.directionA.update(a, at: time)
        slot.directionB.update(b, at: time)
    }

    private struct Shared: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<Slot>
    }
}
