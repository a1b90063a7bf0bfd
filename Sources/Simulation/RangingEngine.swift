import Bump
import Dispatch
import Estimation
import Geometry
import Radio

/// One bump as the initiator's detector fired it.
struct BumpRecord: Sendable {
    let a: Int
    let b: Int
    let time: Double
    let estimate: Float
    let trueDistance: Double
}

/// The state of one pair: its radio link (with its own random stream), each side's estimator, the bump detector,
/// and its share of the error sums. The initiator `a` is the side with the lower peer id.
struct PairSlot {
    let a: Int
    let b: Int
    var radio: PairRadio
    var estimatorA: SessionEstimator
    var estimatorB: SessionEstimator
    var bump: BumpDetector
    var lastTraced = -Double.infinity
    var rawSquares = 0.0
    var rawCount = 0
    var filteredSquares = 0.0
    var filteredCount = 0
}

extension PairSlot {
    /// One slot for every pair of `peers` peers, the lower index the initiator, each with its own radio stream.
    static func all(peers: Int, settings: SimulationSettings) throws -> [PairSlot] {
        let estimator = settings.tunedEstimator
        var slots: [PairSlot] = []
        slots.reserveCapacity(peers * (peers - 1) / 2)
        for a in 0..<peers {
            for b in (a + 1)..<peers {
                slots.append(PairSlot(
                    a: a, b: b,
                    radio: try PairRadio(initiatorID: UInt64(a), responderID: UInt64(b), runSeed: settings.seed,
                                         configuration: settings.radio),
                    estimatorA: SessionEstimator(configuration: estimator),
                    estimatorB: SessionEstimator(configuration: estimator),
                    bump: BumpDetector(configuration: settings.bump)))
            }
        }
        return slots
    }
}

/// What one worker produced in a round and over the run.
struct WorkerOutput {
    var raw = Histogram(binWidth: 0.001, bins: 10_000)
    var filtered = Histogram(binWidth: 0.001, bins: 10_000)
    /// Direction errors as half the chord between the estimated and the true unit vectors, sin(angle / 2): a
    /// square root instead of an arc cosine per update; turned back into degrees when quantiles are read.
    var direction = Histogram(binWidth: 0.0002, bins: 5_001)
    var directionMissing = 0
    var updates = 0
    var exchanges = 0
    var received = 0
    /// This round's bumps and trace lines, in pair order.
    var bumps: [BumpRecord] = []
    var lines: [String] = []
    /// Keeps the next worker's counters off this one's cache lines: side by side in one array, the two workers'
    /// counters, written at every exchange, shared lines and made the cores trade them back and forth.
    private var separation = SIMD16<UInt64>()
}

/// What a round needs to know besides the pairs.
struct RoundInput {
    let time: Double
    let poses: [Pose]
    let sessions: SessionMatrix.Snapshot
    /// The peer each peer is walking to or touching (for haptics).
    let targets: [Int?]
    let haptics: HapticCurve
    /// Whether to write update and haptic lines, and how often per session.
    let trace: Bool
    let traceInterval: Double
}

/// Ranges every pair of running sessions once per round, the pairs split into contiguous chunks across workers.
///
/// Each worker touches only its own slots and its own output, so a round takes no lock, makes no actor hop and
/// allocates nothing per measurement (trace lines aside, when a trace is asked for). Outputs are merged in pair
/// order, so the result is the same whatever the number of workers.
final class RangingEngine {
    private(set) var slots: [PairSlot]
    private(set) var outputs: [WorkerOutput]
    let workers: Int

    init(slots: [PairSlot], workers: Int) {
        self.slots = slots
        self.workers = max(1, min(workers, max(slots.count, 1)))
        outputs = Array(repeating: WorkerOutput(), count: self.workers)
    }

    /// Runs one round and returns its bumps and trace lines, in pair order.
    func round(_ input: RoundInput) -> (bumps: [BumpRecord], lines: [String]) {
        let count = slots.count
        let workers = self.workers
        slots.withUnsafeMutableBufferPointer { slotBuffer in
            outputs.withUnsafeMutableBufferPointer { outputBuffer in
                let shared = SharedBuffers(slots: slotBuffer, outputs: outputBuffer)
                DispatchQueue.concurrentPerform(iterations: workers) { w in
                    let range = (count * w / workers)..<(count * (w + 1) / workers)
                    for p in range { Self.range(&shared.slots[p], into: &shared.outputs[w], input) }
                }
            }
        }
        var bumps: [BumpRecord] = []
        var lines: [String] = []
        for w in 0..<workers {
            bumps += outputs[w].bumps
            lines += outputs[w].lines
            outputs[w].bumps.removeAll(keepingCapacity: true)
            outputs[w].lines.removeAll(keepingCapacity: true)
        }
        return (bumps, lines)
    }

    /// One pair's exchange, both sides' updates, scoring against the truth, the bump detector and the trace.
    @inline(__always)
    private static func range(_ slot: inout PairSlot, into out: inout WorkerOutput, _ input: RoundInput) {
        let a = slot.a
        let b = slot.b
        guard input.sessions.ranges(a, b) else { return }
        out.exchanges += 1
        let truth = PairGeometry(input.poses[a], input.poses[b])
        guard let m = slot.radio.exchange(geometry: truth, at: input.time) else { return }
        out.received += 1
        if let d = m.distance {
            let e = d - truth.distance
            slot.rawSquares += e * e
            slot.rawCount += 1
            out.raw.add(abs(e))
        }
        // The initiator filters the pair's distance once; the responder shows that estimate with its own angle.
        let ua = slot.estimatorA.update(distance: m.distance, angle: m.angleAtInitiator, at: input.time)
        let ub = slot.estimatorB.update(filteredDistance: ua.distance, fresh: slot.estimatorA.distanceIsFresh,
                                        angle: m.angleAtResponder, at: input.time)
        out.updates += 2
        score(ua, truth: truth.distance, bearing: truth.bearingFromA, &slot, &out)
        score(ub, truth: truth.distance, bearing: truth.bearingFromB, &slot, &out)
        // A held estimate (its measurement refused) is not a new reading: counting it again would let one stale
        // low value make up "2 of 3".
        if slot.bump.update(distance: slot.estimatorA.distanceIsFresh ? ua.distance : nil), let estimate = ua.distance {
            out.bumps.append(BumpRecord(a: a, b: b, time: input.time, estimate: estimate, trueDistance: truth.distance))
        }
        guard input.trace else { return }
        let t = TraceFormat.time(input.time)
        if input.targets[a] == b {
            out.lines.append(#"{"t":\#(t),"type":"haptic","node":\#(a),"target":\#(b),"intensity":\#(String(format: "%.3f", input.haptics.intensity(at: ua.distance)))}"#)
        }
        if input.targets[b] == a {
            out.lines.append(#"{"t":\#(t),"type":"haptic","node":\#(b),"target":\#(a),"intensity":\#(String(format: "%.3f", input.haptics.intensity(at: ub.distance)))}"#)
        }
        if input.time - slot.lastTraced >= input.traceInterval - 1e-9 {
            slot.lastTraced = input.time
            out.lines.append(updateLine(t, node: a, peer: b, ua, truth: truth.distance))
            out.lines.append(updateLine(t, node: b, peer: a, ub, truth: truth.distance))
        }
    }

    @inline(__always)
    private static func score(
        _ u: NearbyUpdate, truth: Double, bearing: Bearing, _ slot: inout PairSlot, _ out: inout WorkerOutput
    ) {
        if let d = u.distance {
            let e = Double(d) - truth
            slot.filteredSquares += e * e
            slot.filteredCount += 1
            out.filtered.add(abs(e))
        }
        if let direction = u.direction {
            let v = Vector3(Double(direction.x), Double(direction.y), Double(direction.z))
            out.direction.add((v.normalized - bearing.direction).length / 2)
        } else {
            out.directionMissing += 1
        }
    }

    private static func updateLine(_ t: String, node: Int, peer: Int, _ u: NearbyUpdate, truth: Double) -> String {
        #"{"t":\#(t),"type":"update","node":\#(node),"peer":\#(peer),"distance":\#(TraceFormat.metres(u.distance)),"#
            + #""direction":\#(TraceFormat.vector(u.direction)),"horizontalAngle":\#(TraceFormat.angle(u.horizontalAngle)),"#
            + #""vertical":"\#(u.verticalEstimate.rawValue)","trueDistance":\#(TraceFormat.metres(truth))}"#
    }

    /// All workers' run-long statistics, merged.
    var merged: WorkerOutput {
        var total = WorkerOutput()
        for o in outputs {
            total.raw.merge(o.raw)
            total.filtered.merge(o.filtered)
            total.direction.merge(o.direction)
            total.directionMissing += o.directionMissing
            total.updates += o.updates
            total.exchanges += o.exchanges
            total.received += o.received
        }
        return total
    }
}

/// The round's buffers, handed to the workers of `concurrentPerform`. Each worker writes only its own range of
/// slots and its own output, which is what makes sharing the pointers safe.
private struct SharedBuffers: @unchecked Sendable {
    let slots: UnsafeMutableBufferPointer<PairSlot>
    let outputs: UnsafeMutableBufferPointer<WorkerOutput>
}
