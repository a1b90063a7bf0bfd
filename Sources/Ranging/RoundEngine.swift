import Bump
import DeviceInterface
import Dispatch
import Estimation
import Geometry
import Planning
import Radio
import Sessions
import Synchronization

/// A bump as the pair's initiator fired it.
package struct RangingBump: Sendable, Equatable {
    /// The initiator (lower peer id), who fired, and the responder.
    package let initiator: Int
    package let responder: Int
    package let time: Double
    package let estimate: Float
    package let trueDistance: Double
    /// The fused detector's: the two phones' jolts it fired on.
    package let jolts: BumpJolts?

    package init(initiator: Int, responder: Int, time: Double, estimate: Float, trueDistance: Double,
                 jolts: BumpJolts? = nil) {
        self.initiator = initiator
        self.responder = responder
        self.time = time
        self.estimate = estimate
        self.trueDistance = trueDistance
        self.jolts = jolts
    }
}

/// One received exchange at the run's `time`: the truth, the raw measurement, and the update each side's app received,
/// stamped with that side's own clock (``RoundEngine/clocks``) at the moment it held the exchange's timestamps: the
/// responder's at the final's arrival, the initiator's at its report's, none when that report was lost.
package struct RangingExchange: Sendable {
    /// The pair's index in ``RoundEngine/pairs``.
    package let pair: Int
    package let initiator: Int
    package let responder: Int
    package let time: Double
    /// The true geometry, A the initiator.
    package let truth: PairGeometry
    package let measurement: RangingMeasurement
    package let atInitiator: NearbyUpdate?
    package let atResponder: NearbyUpdate
}

/// What one round produced, in plan order.
package struct RoundResult: Sendable {
    package var bumps: [RangingBump] = []
    /// Every received exchange, when the round was asked to record them (for a trace or an observer).
    package var exchanges: [RangingExchange] = []
}

/// The run-long statistics of the updates, folded in the workers as they range (millions of values a run: the
/// summary reads these instead of a stream of update events).
package struct RangingStatistics: Sendable {
    package internal(set) var raw = Histogram(binWidth: 0.001, bins: 10_000)
    package internal(set) var filtered = Histogram(binWidth: 0.001, bins: 10_000)
    /// Direction errors as half the chord between the estimated and the true unit vectors, sin(angle / 2): a
    /// square root instead of an arc cosine per update; turned back into degrees when quantiles are read.
    package internal(set) var direction = Histogram(binWidth: 0.0002, bins: 5_001)
    package internal(set) var directionMissing = 0
    package internal(set) var updates = 0
    package internal(set) var exchanges = 0
    package internal(set) var received = 0
    /// Sums of squared errors and their counts, for the root mean square (added in pair order by ``RoundEngine``).
    package internal(set) var rawSquares = 0.0
    package internal(set) var rawCount = 0
    package internal(set) var filteredSquares = 0.0
    package internal(set) var filteredCount = 0
    /// Pairs whose sessions were replaced, and whose estimators and detector started afresh.
    package internal(set) var sessionsRenewed = 0
    /// Exchanges received, by the pair's true distance band (``RoundEngine/bandLimits``); a fixed vector, not an
    /// array, so that counting one costs no uniqueness check.
    var bandCounts = SIMD8<Int>()
    package var receivedByBand: [Int] { (0..<RoundEngine.bandLimits.count).map { bandCounts[$0] } }

    mutating func merge(_ o: RangingStatistics) {
        raw.merge(o.raw)
        filtered.merge(o.filtered)
        direction.merge(o.direction)
        directionMissing += o.directionMissing
        updates += o.updates
        exchanges += o.exchanges
        received += o.received
        bandCounts &+= o.bandCounts
    }
}

/// What one worker produced in a round and over the run.
private struct WorkerOutput {
    var statistics = RangingStatistics()
    var round = RoundResult()
    /// Keeps the next worker's counters off this one's cache lines: side by side in one array, the two workers'
    /// counters, written at every exchange, shared lines and made the cores trade them back and forth.
    private var separation = SIMD16<UInt64>()
}

/// Ranges the exchanges a planner chose, split into contiguous chunks across workers.
///
/// Each worker touches only its own slots and its own output, so a round takes no lock, makes no actor hop and
/// allocates nothing per measurement (recorded exchanges aside). Outputs are merged in plan order, so the result is
/// the same whatever the number of workers. Pure: no clock, no file, no socket; time and poses come in.
package final class RoundEngine {
    /// A pair of devices, `low` < `high`.
    package typealias Pair = RangingPair

    /// The slots of the pairs that have begun a session, in the order they did, and each pair's slot (-1: none
    /// yet): a pair found but never in session takes a few bytes, not a slot.
    @exclusivity(unchecked) private var slots: [PairSlot] = []
    @exclusivity(unchecked) private var slotOf: [Int32] = []
    /// Each pair's latest estimate, by pair index.
    @exclusivity(unchecked) package private(set) var estimates: [PairEstimate] = []
    /// The device that initiates each pair's exchanges (the lower peer id), by pair index: its chip controls the
    /// session.
    @exclusivity(unchecked) package private(set) var initiators: [Int32] = []
    @exclusivity(unchecked) private var outputs: [WorkerOutput]
    private let settings: PairSettings
    /// The radio's, the estimators' and the detectors' settings, one copy for all the slots.
    private let sharedRadio: SharedRadioConfiguration
    private let sharedEstimator: SharedEstimatorConfiguration
    private let sharedBump: BumpDetector.Settings
    private let devices: [DeviceRadio]
    private let peerIDs: [UInt64]
    private let view: RunningSessions
    @exclusivity(unchecked) private var sessionsRenewed = 0
    /// How many pairs' estimates were started afresh (a session replaced): besides a new pair's, the only writes to
    /// ``estimates`` but a round's.
    package var estimatesRestarted: Int { sessionsRenewed }
    /// The pairs whose devices have found each other: the devices' Bluetooth readings and estimates are kept by
    /// their indices.
    package let table: PairTable
    /// Every pair found, by index (``table``).
    package var pairs: [Pair] { table.pairs }
    package let peers: Int
    /// Each device's own clock: its updates are stamped with it.
    package let clocks: [DeviceClock]
    package let workers: Int

    /// An engine for `peerIDs.count` devices ranging under the sessions of `view`: each pair that begins a session
    /// gets a slot, the one of the two with the lower peer id initiating.
    ///
    /// - Throws: a radio configuration or GSL allocation error.
    package init(peerIDs: [UInt64], settings: PairSettings, workers: Int, view: RunningSessions) throws {
        peers = peerIDs.count
        self.peerIDs = peerIDs
        self.view = view
        self.settings = settings
        devices = try DeviceRadio.room(count: peers, runSeed: settings.seed, configuration: settings.radio)
        clocks = devices.map(\.clock)
        sharedRadio = try SharedRadioConfiguration(settings.radio)
        sharedEstimator = SharedEstimatorConfiguration(settings.estimator)
        sharedBump = BumpDetector.Settings(settings.bump)
        table = PairTable(peers: peers)
        self.workers = max(1, workers)
        outputs = Array(repeating: WorkerOutput(), count: self.workers)
    }

    /// Takes the discoveries and sessions begun since the last call: a pair found by either side joins ``table``
    /// (the pairs the devices know), a pair's first session gets it its slot, and a later one (a restart, a repair)
    /// starts its estimators and detector afresh, nothing of the old session's filter state carrying over. Called
    /// before each round is planned, so that the planner sees every pair that may range.
    ///
    /// - Throws: a GSL allocation error (a new slot's random stream).
    package func adoptMeetings() throws {
        let meetings = view.takeMeetings()
        guard !meetings.isEmpty else { return }
        let estimator = sharedEstimator, bump = sharedBump
        for meeting in meetings {
            let low = Int(meeting.pair.low), high = Int(meeting.pair.high)
            let (p, added) = table.add(low, high)
            if added {
                slotOf.append(-1)
                estimates.append(PairEstimate())
                initiators.append(Int32(peerIDs[low] < peerIDs[high] ? low : high))
            }
            guard meeting.began else { continue }
            guard slotOf[p] >= 0 else {
                slotOf[p] = Int32(slots.count)
                table.markInSession(p)
                slots.append(try PairSlot(low: low, high: high, lowInitiates: peerIDs[low] < peerIDs[high],
                                          devices: devices, settings: settings, radio: sharedRadio,
                                          estimator: estimator, bump: bump))
                continue
            }
            let s = Int(slotOf[p])
            // A pair whose estimators hold nothing has nothing to start afresh (the two halves of a first meeting,
            // a round apart, are one session).
            guard slots[s].hasState else { continue }
            sessionsRenewed += 1
            estimates[p] = PairEstimate()
            slots[s].estimatorI = SessionEstimator(shared: estimator)
            slots[s].estimatorR = SessionEstimator(shared: estimator)
            slots[s].bump = BumpDetector(settings: bump)
        }
        table.sortNewPairs()
    }

    /// The upper ends of the true distance bands the update rates are reported by, metres: 0-0.5, 0.5-1, 1-2, 2-5 and
    /// 5-9 m (beyond 9 m the link has mostly faded: more than half the exchanges are lost facing each other).
    package static let bandLimits: [Double] = [0.5, 1, 2, 5, 9]

    /// What a band sample found: running pairs in each distance band, those of them whose app holds no estimate yet,
    /// and the ages of the estimates the others hold (seconds since the measurement).
    package struct BandSample: Sendable {
        package var pairs: [Int]
        package var withoutEstimate: [Int]
        package var ages: [Histogram]

        package init() {
            pairs = [Int](repeating: 0, count: RoundEngine.bandLimits.count)
            withoutEstimate = pairs
            ages = Array(repeating: Histogram(binWidth: 0.01, bins: 10_000), count: RoundEngine.bandLimits.count)
        }

        package mutating func merge(_ o: BandSample) {
            for b in pairs.indices {
                pairs[b] += o.pairs[b]
                withoutEstimate[b] += o.withoutEstimate[b]
                ages[b].merge(o.ages[b])
            }
        }
    }

    /// Adds to `sample` the running pairs in each distance band at `time` and the poses given, and the ages of
    /// their estimates: one pass over the pairs, shared by the workers. Returns the pairs in each band this time.
    ///
    /// Into the caller's sample: a sample of its own per worker (five histograms of 10,000 bins each), made, zeroed
    /// and merged once a simulated second, was a twentieth of a 100-peer run.
    @discardableResult
    package func sampleBands(
        at time: Double, poses: [Pose], sessions: RunningSessions.Snapshot, into sample: inout BandSample
    ) -> [Int] {
        let workers = self.workers
        let pairs = self.pairs
        let estimates = self.estimates
        let bands = RoundEngine.bandLimits.count
        // Per worker: pairs and pairs without an estimate by band, and the (band, age) of each estimate held.
        let found = Mutex([(counts: [Int], ages: [(Int, Double)])](repeating: ([], []), count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var counts = [Int](repeating: 0, count: 2 * bands)
            var ages: [(Int, Double)] = []
            for p in (pairs.count * w / workers)..<(pairs.count * (w + 1) / workers) {
                let a = Int(pairs[p].low), b = Int(pairs[p].high)
                guard sessions.ranges(a, b),
                      let band = bandIndex((poses[a].position - poses[b].position).length) else { continue }
                counts[band] += 1
                if estimates[p].distance.isFinite {
                    ages.append((band, time - Double(estimates[p].time)))
                } else {
                    counts[bands + band] += 1
                }
            }
            found.withLock { $0[w] = (counts, ages) }
        }
        var inBands = [Int](repeating: 0, count: bands)
        found.withLock { all in
            for (counts, ages) in all {
                for b in 0..<bands {
                    inBands[b] += counts[b]
                    sample.pairs[b] += counts[b]
                    sample.withoutEstimate[b] += counts[bands + b]
                }
                for (band, age) in ages { sample.ages[band].add(age) }
            }
        }
        return inBands
    }

    /// The pair index of devices `i` and `j` (either order), `nil` if they never began a session.
    package func pairIndex(_ i: Int, _ j: Int) -> Int? { table.index(i, j) }

    /// The initiator of pair `p`: the device with the lower peer id.
    package func initiator(ofPair p: Int) -> Int {
        let pair = table[p]
        return peerIDs[Int(pair.low)] < peerIDs[Int(pair.high)] ? Int(pair.low) : Int(pair.high)
    }

    /// Ranges the plan's exchanges of the round starting at `time`, at the poses given.
    ///
    /// - Parameters:
    ///   - poses: every device's pose at the round's start.
    ///   - end: every device's pose at the round's end, `interval` seconds later: an exchange at an offset into the
    ///     round measures the positions at its instant, between the two (the nearer one's orientation). Without it
    ///     (an empty array) every exchange measures the start's geometry.
    ///   - impacts: every device's recent accelerometer peaks, oldest first, for the fused detector (empty: none
    ///     felt).
    ///   - heard: every device's jolts received from its peers over the data channel (empty: the phones compare
    ///     each other's jolts directly, on one clock).
    ///   - record: keep every received exchange in the result (for a trace or an observer).
    package func round(
        _ plan: RangingPlan, at time: Double, poses: [Pose], end: [Pose] = [], interval: Double = 0,
        sessions: RunningSessions.Snapshot, impacts: [[Impact]] = [], heard: [[HeardImpact]] = [], record: Bool
    ) -> RoundResult {
        precondition(end.isEmpty || (end.count == poses.count && interval > 0), "the round's end poses need its interval")
        let count = plan.exchanges.count
        let workers = self.workers
        // The bodies stand where the round starts: in a tenth of a second a walker moves 14 cm, under a body's
        // width.
        let obstacles = settings.radio.linkModel == .geometry
            ? Obstacles(holdersOf: poses, walls: settings.walls) : Obstacles.none
        let context = RoundContext(poses: poses, end: end, interval: interval, sessions: sessions, record: record,
                                   settings: settings, clocks: clocks, obstacles: obstacles,
                                   impacts: impacts.count == peers ? impacts : [],
                                   heard: heard.count == peers ? heard : [],
                                   fused: settings.bump.method == .fused)
        let slotOf = self.slotOf
        let reportLost = plan.reportLost
        // What makes sharing the buffers below safe, checked where the tests run (debug builds): a planner that
        // names a pair twice would have two workers write one slot and one estimate at once.
        assert(sharingBreach(plan) == nil, sharingBreach(plan) ?? "")
        plan.exchanges.withUnsafeBufferPointer { planned in
            slots.withUnsafeMutableBufferPointer { slotBuffer in
                estimates.withUnsafeMutableBufferPointer { estimateBuffer in
                    outputs.withUnsafeMutableBufferPointer { outputBuffer in
                        let shared = SharedBuffers(planned: planned, slots: slotBuffer, estimates: estimateBuffer,
                                                   outputs: outputBuffer)
                        DispatchQueue.concurrentPerform(iterations: workers) { w in
                            let range = (count * w / workers)..<(count * (w + 1) / workers)
                            for e in range {
                                let exchange = shared.planned[e]
                                let p = Int(exchange.pair)
                                let slot = Int(slotOf[p])
                                precondition(slot >= 0, "a planned pair holds sessions")
                                Self.range(&shared.slots[slot], &shared.estimates[p], p, at: time,
                                           offset: Double(exchange.offset),
                                           reportLost: e < reportLost.count && reportLost[e],
                                           into: &shared.outputs[w], context)
                            }
                        }
                    }
                }
            }
        }
        var result = RoundResult()
        for w in 0..<workers {
            result.bumps += outputs[w].round.bumps
            result.exchanges += outputs[w].round.exchanges
            outputs[w].round.bumps.removeAll(keepingCapacity: true)
            outputs[w].round.exchanges.removeAll(keepingCapacity: true)
        }
        return result
    }

    /// Why `plan` may not be ranged on shared buffers, or `nil` when it may: every exchange names a pair of the
    /// engine's that holds a slot, no pair twice and no slot twice, so that each worker writes only slots, estimates
    /// and an output no other worker touches (``SharedBuffers``).
    ///
    /// - Complexity: O(pairs + exchanges).
    package func sharingBreach(_ plan: RangingPlan) -> String? {
        var pairTaken = [Bool](repeating: false, count: slotOf.count)
        var slotTaken = [Bool](repeating: false, count: slots.count)
        for (k, exchange) in plan.exchanges.enumerated() {
            let p = Int(exchange.pair)
            guard p >= 0, p < slotOf.count else {
                return "exchange \(k) names pair \(p), and the engine knows \(slotOf.count) pairs"
            }
            guard !pairTaken[p] else { return "exchange \(k) names pair \(p) a second time in one round" }
            pairTaken[p] = true
            let slot = Int(slotOf[p])
            guard slot >= 0 else { return "exchange \(k) names pair \(p), which holds no session" }
            guard !slotTaken[slot] else { return "exchange \(k) reaches slot \(slot) a second time in one round" }
            slotTaken[slot] = true
        }
        return nil
    }

    /// One pair's exchange, both sides' updates, scoring against the truth and the bump detector.
    @inline(__always)
    private static func range(
        _ slot: inout PairSlot, _ latest: inout PairEstimate, _ pair: Int, at start: Double, offset: Double,
        reportLost: Bool = false, into out: inout WorkerOutput, _ context: RoundContext
    ) {
        let i = slot.initiator
        let r = slot.responder
        let time = start + offset
        out.statistics.exchanges += 1
        let poseI = context.pose(i, at: offset), poseR = context.pose(r, at: offset)
        let truth = PairGeometry(poseI, poseR)
        // Beyond the maximum range nothing is measured, whatever stands in the way.
        let path = truth.distance > context.settings.radio.maximumRange
            ? PathObstruction.clear : context.obstacles.between(poseI.position, poseR.position)
        guard let m = slot.radio.exchange(geometry: truth, at: time, path: path) else {
            // An app whose chip fails negative flights reads a failure right after closing in as "right here".
            if slot.failureMayBeNear, context.settings.detectsBumps, let near = slot.bump.failedExchange(at: time) {
                detect(near, measured: false, towardResponder: nil, towardInitiator: nil, estimate: near, &slot,
                       &latest, truth: truth, at: time, into: &out, context)
            }
            return
        }
        out.statistics.received += 1
        if let band = bandIndex(truth.distance) { out.statistics.bandCounts[band] += 1 }
        if let d = m.distance {
            let e = d - truth.distance
            slot.rawSquares += e * e
            slot.rawCount += 1
            out.statistics.raw.add(abs(e))
        }
        // Each phone filters its own reading when it holds the timestamps: the responder at the final's arrival, the
        // initiator at the responder's report, when that arrives (its own draw, and the air's).
        // Two delays, not a copy of the radio's configuration (its profiles' array and table) each exchange.
        let responderDelay = context.settings.radio.responderReadingDelay
        let initiatorDelay = context.settings.radio.initiatorReadingDelay
        let ur = slot.estimatorR.update(distance: m.distance, angle: m.angleAtResponder, at: time + responderDelay)
        score(ur, truth: truth.distance, bearing: truth.bearingFromB, &slot, &out.statistics)
        out.statistics.updates += 1
        var ui: NearbyUpdate?
        if m.reachedInitiator && !reportLost {
            let u = slot.estimatorI.update(distance: m.distance, angle: m.angleAtInitiator,
                                           at: time + initiatorDelay)
            score(u, truth: truth.distance, bearing: truth.bearingFromA, &slot, &out.statistics)
            out.statistics.updates += 1
            if slot.estimatorI.distanceIsFresh, let d = u.distance { latest.take(d, at: Float(time)) }
            ui = u
        }
        // The reference app's detector reads the initiator's phone, as its app would. A held estimate (its
        // measurement refused) is not a new reading: counting it again would let one stale low value make up
        // "2 of 3".
        let fresh = ui != nil && slot.estimatorI.distanceIsFresh ? ui?.distance : nil
        if context.settings.detectsBumps {
            // The direction each phone's app holds is its update's own: none where the peer is outside the antennas'
            // field of view, however the pair stood before (a smoothed bearing from before the phones turned side-on
            // pointed the push check at where the peer had been).
            detect(fresh, measured: true, towardResponder: ui?.direction, towardInitiator: ur.direction,
                   estimate: ui?.distance, &slot, &latest, truth: truth, at: time, into: &out, context)
        }
        if context.record {
            // Each side's app reads the time of its update on its own clock.
            var atI = ui, atR = ur
            atI?.timestamp = context.clocks[i].reading(at: time + initiatorDelay)
            atR.timestamp = context.clocks[r].reading(at: time + responderDelay)
            out.round.exchanges.append(RangingExchange(pair: pair, initiator: i, responder: r, time: time, truth: truth,
                                                       measurement: m, atInitiator: atI, atResponder: atR))
        }
    }

    /// The reference app's detector on one reading of the initiator's phone (`fresh`, `nil` for none; `measured`
    /// false for a failed exchange read as "right here"), and the bump it fires, if any.
    @inline(__always)
    private static func detect(
        _ fresh: Float?, measured: Bool, towardResponder: SIMD3<Float>?, towardInitiator: SIMD3<Float>?,
        estimate: Float?, _ slot: inout PairSlot, _ latest: inout PairEstimate, truth: PairGeometry, at time: Double,
        into out: inout WorkerOutput, _ context: RoundContext
    ) {
        let i = slot.initiator, r = slot.responder
        let fires: Bool
        var jolts: BumpJolts?
        if context.fused {
            jolts = context.impacts.isEmpty ? nil : slot.bump.fire(
                distance: fresh, at: time, initiator: context.impacts[i], responder: context.impacts[r],
                channel: context.heard.isEmpty ? nil : ImpactChannel(
                    initiator: Int32(i), responder: Int32(r),
                    heardByInitiator: context.heard[i], heardByResponder: context.heard[r]),
                towardResponder: towardResponder, towardInitiator: towardInitiator, measured: measured)
            fires = jolts != nil
        } else {
            fires = slot.bump.update(distance: fresh, measuredAt: measured ? time : nil)
        }
        if fires, let estimate = estimate ?? (latest.distance.isFinite ? latest.distance : nil) ?? fresh {
            latest.bumped = Float(time)
            out.round.bumps.append(RangingBump(initiator: i, responder: r, time: time, estimate: estimate,
                                               trueDistance: truth.distance, jolts: jolts))
        }
    }

    @inline(__always)
    private static func score(
        _ u: NearbyUpdate, truth: Double, bearing: Bearing, _ slot: inout PairSlot, _ out: inout RangingStatistics
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

    /// Exchanges received so far by true distance band, without the rest of ``statistics``.
    package var receivedByBand: [Int] {
        var counts = SIMD8<Int>()
        for o in outputs { counts &+= o.statistics.bandCounts }
        return (0..<Self.bandLimits.count).map { counts[$0] }
    }

    /// All workers' run-long statistics, merged; the squared-error sums added in pair order, so that the figures do
    /// not depend on how the pairs were split between workers.
    package var statistics: RangingStatistics {
        var total = RangingStatistics()
        for o in outputs { total.merge(o.statistics) }
        total.sessionsRenewed = sessionsRenewed
        for p in table.inSession {
            let slot = slots[Int(slotOf[Int(p)])]
            total.rawSquares += slot.rawSquares
            total.rawCount += slot.rawCount
            total.filteredSquares += slot.filteredSquares
            total.filteredCount += slot.filteredCount
        }
        return total
    }
}

/// The band of a true distance (``RoundEngine/bandLimits``), `nil` beyond the last.
@inline(__always)
private func bandIndex(_ distance: Double) -> Int? {
    RoundEngine.bandLimits.firstIndex { distance < $0 }
}

/// What every exchange of a round reads.
private struct RoundContext: Sendable {
    let poses: [Pose]
    let end: [Pose]
    let interval: Double
    let sessions: RunningSessions.Snapshot
    let record: Bool
    let settings: PairSettings
    let clocks: [DeviceClock]
    let obstacles: Obstacles
    let impacts: [[Impact]]
    let heard: [[HeardImpact]]
    let fused: Bool

    /// Device `d`'s pose `offset` seconds into the round.
    @inline(__always)
    func pose(_ d: Int, at offset: Double) -> Pose {
        guard offset > 0, !end.isEmpty else { return poses[d] }
        let f = min(offset / interval, 1)
        return Pose(position: poses[d].position + (end[d].position - poses[d].position) * f,
                    orientation: f < 0.5 ? poses[d].orientation : end[d].orientation)
    }
}

/// The round's buffers, handed to the workers of `concurrentPerform`. Each worker writes only the slots of its own
/// range of the plan (a plan names a pair at most once a round) and its own output, which is what makes sharing the
/// pointers safe.
private struct SharedBuffers: @unchecked Sendable {
    let planned: UnsafeBufferPointer<PlannedExchange>
    let slots: UnsafeMutableBufferPointer<PairSlot>
    let estimates: UnsafeMutableBufferPointer<PairEstimate>
    let outputs: UnsafeMutableBufferPointer<WorkerOutput>
}

