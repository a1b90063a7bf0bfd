import DeviceInterface
import Dispatch
import Foundation

/// How `proximity` ranks the pairs (docs/airtime.md).
package struct ProximitySettings: Sendable, Equatable {
    /// A pair wants an update every `shortestInterval` at or under `nearDistance` (the distance it may be touching
    /// at), an interval growing with the square of the distance beyond, up to `longestInterval`.
    package var nearDistance = 0.15
    package var shortestInterval = 0.1
    package var longestInterval = 20.0
    /// The same for a pair whose device is walking to the other: it wants every round within 0.2 m (the end of the
    /// gesture and the touch), and at least one update every `targetLongestInterval` on the way, so that its
    /// closing speed is known.
    package var targetNearDistance = 0.2
    package var targetLongestInterval = 1.0
    /// How fast two people not walking to each other may have closed since the latest estimate: the sum of the two
    /// devices' own speeds (a phone's motion sensors tell whether and how fast its holder walks), or, where those
    /// are unknown, this speed, m/s. An old estimate counts as nearer than it read, so that a pair not ranged for a
    /// while comes back up before it could touch, and two people standing still are left alone.
    package var assumedClosingSpeed = 1.0
    /// Seconds after a bump during which the pair wants no more than one update.
    package var afterBump = 2.0
    /// Updates a closing pair should get before it could touch.
    package var updatesBeforeContact = 4.0
    /// For this long after two phones felt one knock, their pair (when it may be within `tapReach` metres) wants
    /// every round and goes first: the reference app asks to range a peer whose phone was knocked with its own, so
    /// that a touch is confirmed by range while the phones still touch.
    package var tapWindow = 1.0
    package var tapReach: Float = 1.0
    /// Two taps this close in time, seconds, are one knock both phones felt (the bump detector's coincidence).
    package var tapCoincidence = 0.03

    package init() {}
}

/// Ranges the pairs that matter first, from what the devices know. Each round, every running pair wants an update
/// interval from its distance as last estimated (brought forward by its closing speed, and by the holders' own speeds
/// for the estimate's age), or, without an estimate, from its Bluetooth distance. Its priority is how overdue it is: the time since
/// it last ranged over the interval it wants, squared (so that a pair wanting 10 Hz outranks a far one that waited
/// long). A pair whose phones just felt one knock goes first, and a pair whose app chose to walk to the other when
/// due; then every pair by priority, each placed by its `Placer`: by its initiator's chip within the chip's share of
/// the air, as phones range (``ChipScheduler``), or in a room-wide slot map until the round's air is taken
/// (``AirAllocator``). A pair
/// whose exchanges keep failing is tried less and less often.
package struct Proximity<Placer: ExchangePlacer>: RangingPlanner {
    private let settings: ProximitySettings
    private var air: Placer
    private var admitted: AdmittedPairs
    /// When each pair last ranged, seconds (-∞ never), and the exchanges in a row since that gave it no estimate.
    private var lastRanged: [Float]
    private var failures: [UInt8]
    /// By pair, until when it cannot be urgent, as found when it was last ranked (``Calm``), and the closing speed
    /// and Bluetooth floor those bounds were found under: a faster crowd or another floor forgets them all.
    private var calm: [Calm] = []
    private var calmClosing: Float = -.infinity
    private var calmFloor: Float = .nan
    private var reranked = -Double.infinity
    /// The pairs passed over: by admitted pair (``AdmittedPairs/pairs``'s order), until when its ``Calm`` bound is
    /// known to hold, found when the scan last checked or rebuilt it and forgotten (-∞) when anything it was found
    /// from may have changed since; and, in the same order, the pair's ends and the device whose chip controls it.
    /// A pair whose chip takes only urgent sessions is then passed over from these alone, in admitted order: the
    /// scan read five of the pair's arrays at random places (by pair index) each round to find the same.
    private var dozing = Dozing()
    /// How many times a pair was passed over so, over the run.
    package private(set) var passedOver = 0
    /// Pairs by priority, in half-octave buckets, each by its place among the admitted pairs: the upper half for
    /// knocked pairs and walking pairs that are due, the lower for all others.
    private var buckets: [[[Int32]]]
    private static var tierBuckets: Int { ScanState.tierBuckets }

    /// - Parameters:
    ///   - placer: where the pairs chosen go in the air: each chip on its own, or a room-wide slot map.
    ///   - workers: threads that share the ranking of the pairs (the plan is the same whatever it is).
    package init(placer: Placer, medium: Medium, peers: Int, settings: ProximitySettings = ProximitySettings(),
                workers: Int = 1) {
        buckets = Array(repeating: Array(repeating: [], count: 2 * Self.tierBuckets), count: max(1, workers))
        self.settings = settings
        air = placer
        admitted = AdmittedPairs(medium: medium, peers: peers)
        lastRanged = []
        failures = []
    }

    package var roundIsCircular: Bool { air.roundIsCircular }

    package mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        plan.suspensions.removeAll(keepingCapacity: true)
        if lastRanged.count < context.pairs.count {
            let more = context.pairs.count - lastRanged.count
            lastRanged += repeatElement(-.infinity, count: more)
            failures += repeatElement(0, count: more)
        }
        if calm.count < context.pairs.count {
            calm += repeatElement(Calm(), count: context.pairs.count - calm.count)
        }
        // A speed that is not a number bounds nothing: the bounds then hold until the estimate's own time.
        let closing = context.speeds.isEmpty ? Float(settings.assumedClosingSpeed)
            : 2 * context.speeds.reduce(0) { $1.isFinite ? max($0, $1) : .infinity }
        if closing > calmClosing || context.bluetoothFloor != calmFloor {
            calmClosing = max(closing, calmClosing)
            calmFloor = context.bluetoothFloor
            for k in calm.indices { calm[k] = Calm() }
            dozing.forgetAll()
        }
        let t = context.time
        let rerank = t - reranked >= 1 - 1e-9
        if rerank { reranked = t }
        let rebuilt: Bool
        if admitted.limit != nil {
            // Each device keeps the sessions whose pairs want the shortest intervals, re-ranked once a second from
            // the settings alone (a copy of the planner alive while its arrays are written would make each write
            // copy its array).
            let settings = settings
            rebuilt = admitted.refresh(context, rerank: rerank, score: { d, e in
                guard let p = context.table.index(d, e) else { return 0 }
                return 1 / settings.wantedInterval(p, walking: settings.isWalkingPair(p, context), context)
            }, into: &plan.suspensions)
        } else {
            rebuilt = admitted.refresh(context, into: &plan.suspensions)
        }
        dozing.take(context, admitted: admitted.pairs, rebuilt: rebuilt)
        air.begin(context, into: &plan)
        // Every running pair's priority, on the workers in contiguous chunks of the running pairs, each into its own
        // buckets; read back chunk after chunk, so that a bucket holds its pairs in pair order whatever the count.
        var parts = buckets
        buckets = []
        let workers = parts.count
        let count = admitted.pairs.count
        // The view holds copies of the planner's arrays: it ends with the scan, before `lastRanged` is written, so
        // that the write copies nothing.
        do {
            let chips = air.placeability(context)
            let (settings, pairs, calmClosing) = (settings, admitted.pairs, calmClosing)
            let (lastRanged, failures) = (lastRanged, failures)
            let (ends, chipOf, passes) = (dozing.ends, dozing.chipOf, dozing.passes)
            var passed = [Int](repeating: 0, count: workers)
            calm.withUnsafeMutableBufferPointer { calm in
                dozing.until.withUnsafeMutableBufferPointer { until in
                    let scan = ScanState(settings: settings, pairs: pairs, lastRanged: lastRanged,
                                         failures: failures, chips: chips, context: context, calm: calm,
                                         calmClosing: calmClosing,
                                         dozing: passes ? DozingView(until: until, ends: ends, chipOf: chipOf) : nil)
                    parts.withUnsafeMutableBufferPointer { buffer in
                        passed.withUnsafeMutableBufferPointer { passed in
                            let shared = WorkerBuckets(buffer: buffer, passed: passed)
                            DispatchQueue.concurrentPerform(iterations: workers) { w in
                                shared.buffer[w].withUnsafeMutableBufferPointer { mine in
                                    for k in mine.indices { mine[k].removeAll(keepingCapacity: true) }
                                    var over = 0
                                    for i in (count * w / workers)..<(count * (w + 1) / workers) {
                                        if scan.passesOver(i) {
                                            over += 1
                                        } else if let (key, p) = scan.bucket(i) {
                                            mine[key].append(p)
                                        }
                                    }
                                    shared.passed[w] = over
                                }
                            }
                        }
                    }
                }
            }
            passedOver += passed.reduce(0, +)
        }
        buckets = parts
        place: for k in (0..<(2 * Self.tierBuckets)).reversed() {
            for w in 0..<workers {
                for entry in buckets[w][k] {
                    if air.isSaturated { break place }
                    let i = Int(entry & ~Self.urgentBit)
                    let pair = admitted.pairs[i]
                    if air.place(pair, urgent: entry & Self.urgentBit != 0, context, into: &plan) {
                        ranged(Int(pair), at: Float(t), context)
                        // Its estimate may change in the round.
                        dozing.forget(i)
                    }
                }
            }
        }
    }

    /// Notes that pair `p` ranges at `t`: an exchange before it that gave no estimate (lost to distance, a body, a
    /// phone turned away, a collision) counts one more failure in a row.
    @inline(__always)
    private mutating func ranged(_ p: Int, at t: Float, _ context: PlanningContext) {
        let before = lastRanged[p]
        let heard = !context.estimates.isEmpty && context.estimates[p].time >= before
        failures[p] = before.isFinite && !heard ? min(failures[p] + 1, Self.backoffLimit) : 0
        lastRanged[p] = t
    }

    private static var urgentBit: Int32 { ScanState.urgentBit }

    /// Failures in a row beyond which the interval grows no more (2^5: 32 times).
    private static var backoffLimit: UInt8 { 5 }
}

/// What a pair wants, from the settings and what the devices know: read by the workers that rank the pairs, with
/// nothing of the planner's generic type (through it, each reading of a setting went by its type's metadata).
fileprivate extension ProximitySettings {
    /// By device, the peers whose tap it has heard of, over the data channel, at the instant of its own (within
    /// `tapCoincidence`) when its own came in the last `tapWindow` seconds; none for the others. Found once a round
    /// from each device's list, not once for each of its pairs (a knocked phone's list read by its hundred pairs).
    func knockedPeers(_ context: PlanningContext) -> Knocked {
        var knocked = Knocked()
        guard !context.taps.isEmpty, !context.peerTaps.isEmpty else { return knocked }
        let t = Float(context.time)
        let window = Float(tapWindow), coincidence = Float(tapCoincidence)
        knocked.start.reserveCapacity(context.peerTaps.count + 1)
        for own in context.peerTaps.indices {
            knocked.start.append(Int32(knocked.peers.count))
            guard own < context.taps.count else { continue }
            let mine = context.taps[own]
            guard t - mine <= window else { continue }
            for tap in context.peerTaps[own] where abs(tap.time - mine) <= coincidence { knocked.peers.append(tap.peer) }
        }
        knocked.start.append(Int32(knocked.peers.count))
        return knocked
    }

    /// Whether one device of pair `p` felt a tap in the last `tapWindow` seconds and has heard from the other, over
    /// the data channel, of a tap at the same instant (within `tapCoincidence`: `knocked`, ``knockedPeers(_:)``), and
    /// the pair may be near enough to have touched: brought forward from its estimate by how fast it may have closed
    /// since, and no nearer than its Bluetooth distance allows (and it did not just bump). The devices tell each
    /// other of their taps, as a bump app does; a tap whose message is late or lost is not known.
    @inline(__always)
    func isTappedPair(_ p: Int, knocked: Knocked, _ context: PlanningContext) -> Bool {
        guard !knocked.peers.isEmpty else { return false }
        let pair = context.pairs[p]
        let t = Float(context.time)
        guard knocked.has(pair.low, heard: pair.high) || knocked.has(pair.high, heard: pair.low) else { return false }
        var near = -Float.infinity
        if !context.estimates.isEmpty {
            let e = context.estimates[p]
            if t - e.bumped < Float(afterBump) { return false }
            if e.distance.isFinite {
                near = e.distance - (max(e.closing, 0) + Float(mayClose(p, context))) * max(0, t - e.time)
            }
        }
        if p < context.bluetooth.count, context.bluetooth[p].isFinite {
            near = max(near, context.nearestByBluetooth(p))
        }
        return near <= tapReach
    }

    /// Whether a device of pair `p` is walking to the other (its app's chosen target; the true partner under
    /// `oracle`).
    func isWalkingPair(_ p: Int, _ context: PlanningContext) -> Bool {
        guard !context.targets.isEmpty else { return false }
        let pair = context.pairs[p]
        return context.targets[Int(pair.low)] == pair.high || context.targets[Int(pair.high)] == pair.low
    }

    /// The speed at which the devices of pair `p` may be closing, whatever the last estimate said.
    @inline(__always)
    func mayClose(_ p: Int, _ context: PlanningContext) -> Double {
        guard !context.speeds.isEmpty else { return assumedClosingSpeed }
        let pair = context.pairs[p]
        return Double(context.speeds[Int(pair.low)] + context.speeds[Int(pair.high)])
    }

    /// The interval pair `p` wants between updates, seconds.
    func wantedInterval(_ p: Int, walking: Bool, _ context: PlanningContext) -> Double {
        let t = context.time
        var distance: Double
        var closing = 0.0
        let longest = walking ? targetLongestInterval : longestInterval
        if !context.estimates.isEmpty, context.estimates[p].distance.isFinite {
            let e = context.estimates[p]
            // A pair that just bumped has nothing more to find until its phones part.
            if t - Double(e.bumped) < afterBump { return min(afterBump, longest) }
            let age = max(0, t - Double(e.time))
            closing = Double(e.closing)
            // A walking pair's way is known (its closing speed, an update a second); any other pair could have
            // started toward each other since.
            distance = Double(e.distance) - max(closing, 0) * age - (walking ? 0 : mayClose(p, context) * age)
            // Not nearer than its Bluetooth signal allows.
            if !walking { distance = max(distance, Double(context.nearestByBluetooth(p))) }
        } else if p < context.bluetooth.count, context.bluetooth[p].isFinite {
            distance = Double(context.bluetooth[p])
        } else {
            return longest
        }
        let near = walking ? targetNearDistance : nearDistance
        let ratio = max(distance, near) / near
        var wanted = shortestInterval * ratio * ratio
        if closing > 0.1 {
            // A walking pair needs an update before it reaches the gesture's distance, where it wants every round;
            // any other pair several before it could touch.
            wanted = min(wanted, walking ? max(distance - near, 0) / closing
                : max(distance, 0) / closing / updatesBeforeContact)
        }
        return min(max(wanted, shortestInterval), longest)
    }
}

/// A read-only view of the planner for the workers that rank the pairs: each reads, none writes.
private struct ScanState: @unchecked Sendable {
    let settings: ProximitySettings
    /// The running pairs, and when each pair last ranged and its failures in a row, by pair.
    let pairs: [Int32]
    let lastRanged: [Float]
    let failures: [UInt8]
    /// What the placer could accept of each device's sessions (``ExchangePlacer/placeability(_:)``): all, `nil`.
    let chips: [Placeable]?
    let context: PlanningContext
    /// ``ProximitySettings/knockedPeers(_:)``, found once for the round.
    let knocked: Knocked
    /// Each pair's ``Calm``, written for the pair by the one worker that ranks it, and the most two devices may
    /// close at, as far as their speeds go, that its bounds hold for.
    let calm: UnsafeMutableBufferPointer<Calm>
    let calmClosing: Float
    /// The least interval any pair can want, seconds, and the longest a pair waits as far as its rank goes.
    let shortestWanted: Double
    let longestInterval: Double
    /// The pairs passed over (``Dozing``): `nil` when the caller does not say what changed outside the plan.
    let dozing: DozingView?

    init(settings: ProximitySettings, pairs: [Int32], lastRanged: [Float], failures: [UInt8], chips: [Placeable]?,
         context: PlanningContext, calm: UnsafeMutableBufferPointer<Calm>, calmClosing: Float,
         dozing: DozingView?) {
        self.calm = calm
        self.dozing = dozing
        self.calmClosing = calmClosing
        shortestWanted = min(settings.shortestInterval, settings.targetLongestInterval, settings.longestInterval,
                             settings.afterBump)
        longestInterval = settings.longestInterval
        self.settings = settings
        self.pairs = pairs
        self.lastRanged = lastRanged
        self.failures = failures
        self.chips = chips
        self.context = context
        knocked = settings.knockedPeers(context)
    }

    /// Buckets of each half: 64 half octaves of priority.
    static let tierBuckets = 64
    /// Marks an urgent pair's index in the buckets (pair indices stay under 2^30).
    static let urgentBit: Int32 = 1 << 30

    /// Whether the `i`th running pair may be passed over from what ``Dozing`` keeps alone.
    @inline(__always)
    func passesOver(_ i: Int) -> Bool {
        guard let dozing else { return false }
        return dozing.passesOver(i, chips: chips, knocked: knocked, context)
    }

    /// The bucket of the `i`th running pair: its priority, the time since it last ranged over the interval it wants,
    /// squared, in half octaves; in the upper half when it is a knocked pair, or a walking pair that is due. None
    /// when the placer would refuse the pair whatever its rank (its initiator's chip has spent its share and the
    /// pair is not urgent): leaving it out changes no plan, and most pairs of a crowd are such most rounds.
    @inline(__always)
    func bucket(_ i: Int) -> (Int, Int32)? {
        let p = pairs[i]
        let placeable = chips.map { $0[context.initiator(of: Int(p))] } ?? .yes
        if case .no = placeable { return nil }
        // A pair never ranged counts as having waited the longest interval: its Bluetooth distance, not its
        // newness, decides when it first ranges.
        let waited = min(context.time - Double(lastRanged[Int(p)]), longestInterval)
        // An urgent pair is due, and no pair wants less than the shortest of the intervals.
        if case .ifUrgent = placeable, waited < shortestWanted - 1e-6 { return nil }
        let tapped = settings.isTappedPair(Int(p), knocked: knocked, context)
        let walking = tapped || settings.isWalkingPair(Int(p), context)
        // Only urgent pairs count here, and a pair that was found unable to be urgent before a time, from what the
        // devices knew, still cannot be while they know the same: most pairs of a crowd most rounds.
        let calmPair: Bool
        if case .ifUrgent = placeable, !walking { calmPair = true } else { calmPair = false }
        if calmPair, calm[Int(p)].holds(at: context.time, Int(p), context) {
            if let dozing { dozing.until[i] = dozing.bound(calm[Int(p)], pair: Int(p), context) }
            return nil
        }
        // A pair whose exchanges keep failing is tried less and less often (doubling the interval each time).
        let wanted = tapped ? settings.shortestInterval
            : min(settings.wantedInterval(Int(p), walking: walking, context) * Double(1 << Int(failures[Int(p)])),
                  walking ? settings.targetLongestInterval : settings.longestInterval)
        let due = waited >= wanted - 1e-6
        // Urgent: a knocked pair, a walking pair that is due, a pair due that wants an update within four rounds
        // (within 30 cm, or closing on a touch).
        let urgent = due && (walking || wanted <= 4 * settings.shortestInterval + 1e-9)
        if calmPair {
            if !urgent { calm[Int(p)] = Calm(Int(p), context, closing: calmClosing, settings: settings) }
            if let dozing { dozing.until[i] = urgent ? -.infinity : dozing.bound(calm[Int(p)], pair: Int(p), context) }
        }
        if case .ifUrgent = placeable, !urgent { return nil }
        let priority = waited / (wanted * wanted)
        let k = min(max(Self.halfOctave(priority) + 40, 0), Self.tierBuckets - 1)
        return (walking && due ? Self.tierBuckets + k : k, urgent ? Int32(i) | Self.urgentBit : Int32(i))
    }

    /// ⌊2 log2(x)⌋ from the number's bits, without a logarithm (500,000 pairs a round at 1,000
    /// peers).
    @inline(__always)
    private static func halfOctave(_ x: Double) -> Int {
        // From the bits: the biased exponent, and whether the fraction is at least √2 − 1 (0x6A09E667F3BCD / 2^52).
        let bits = max(x, 1e-12).bitPattern
        return 2 * (Int(truncatingIfNeeded: (bits >> 52) & 0x7FF) - 1023) + (bits & 0xF_FFFF_FFFF_FFFF >= 0x6_A09E_667F_3BCD ? 1 : 0)
    }
}

extension Proximity where Placer == AirAllocator {
    /// The pairs placed in a room-wide slot map (``AirAllocator``): the coordination phones do not have.
    ///
    /// - Parameter hearingMargin: how far beyond the interference range a pair is taken to be in hearing.
    package init(medium: Medium, scheme: RangingScheme, peers: Int,
                settings: ProximitySettings = ProximitySettings(), workers: Int = 1,
                hearingMargin: Float) {
        self.init(placer: AirAllocator(medium: medium, scheme: scheme, peers: peers, hearingMargin: hearingMargin),
                  medium: medium, peers: peers, settings: settings, workers: workers)
    }
}

extension Proximity where Placer == ChipScheduler {
    /// The pairs placed by their initiators' chips, each on its own (``ChipScheduler``), as phones range.
    ///
    /// - Throws: a GSL allocation error.
    package init(medium: Medium, scheme: RangingScheme, peers: Int, seed: UInt64,
                settings: ProximitySettings = ProximitySettings(), workers: Int = 1) throws {
        self.init(placer: try ChipScheduler(medium: medium, scheme: scheme, peers: peers, seed: seed),
                  medium: medium, peers: peers, settings: settings, workers: workers)
    }
}

/// By device, the peers whose knock it felt with its own (``ProximitySettings/knockedPeers(_:)``): device `d`'s are
/// `peers[start[d]..<start[d + 1]]`. One list for all, so that looking at a device's costs no reference count.
struct Knocked {
    var peers: [Int32] = []
    var start: [Int32] = []

    /// Whether device `own` felt `other`'s knock with its own.
    @inline(__always)
    func has(_ own: Int32, heard other: Int32) -> Bool {
        guard Int(own) + 1 < start.count else { return false }
        for k in Int(start[Int(own)])..<Int(start[Int(own) + 1]) where peers[k] == other { return true }
        return false
    }
}

/// Until when a pair that no device walks to or knocked cannot be urgent (want an update within four rounds), from
/// what the devices knew when it was ranked: its estimate and its Bluetooth distance, kept to tell whether they
/// changed since. The bound takes the pair to close at the most its devices' speeds allow (``Proximity`` forgets
/// every bound when that grows), and leaves out what only makes a pair less urgent (a bump just felt, failures in a
/// row), so that a pair it passes over is one the full ranking would have passed over too.
struct Calm {
    private(set) var until = -Double.infinity
    private var distance: Float = .nan
    private var time: Float = .nan
    private var closing: Float = .nan
    private var bluetooth: Float = .nan

    init() {}

    /// Within a pair's wanted interval of `wanted` at most (an urgent pair's: four rounds), the distance it is at
    /// is under the larger of these: the interval's square law (`0.1 (d / 0.15)^2`), and four updates at its
    /// closing speed. Slightly over, as a bound must be.
    private static func urgentWithin(_ settings: ProximitySettings, closing: Double) -> Double {
        let wanted = 4 * settings.shortestInterval + 1e-9
        let squareLaw = settings.nearDistance * (wanted / settings.shortestInterval).squareRoot()
        let closingLaw = closing > 0.1 ? wanted * settings.updatesBeforeContact * closing : 0
        return max(squareLaw, closingLaw) * (1 + 1e-6) + 1e-6
    }

    /// The bound for pair `p` as the devices know it now.
    init(_ p: Int, _ context: borrowing PlanningContext, closing speeds: Float, settings: borrowing ProximitySettings) {
        bluetooth = p < context.bluetooth.count ? context.bluetooth[p] : .nan
        if !context.estimates.isEmpty, context.estimates[p].distance.isFinite {
            let e = context.estimates[p]
            (distance, time, closing) = (e.distance, e.time, e.closing)
            let near = Self.urgentWithin(settings, closing: Double(e.closing))
            let nearest = Double(context.nearestByBluetooth(p))
            guard nearest <= near else {
                until = .infinity
                return
            }
            let speed = Double(max(e.closing, 0)) + Double(speeds)
            let ahead = Double(e.distance) - near
            guard ahead > 0 else { return }
            until = speed > 0 ? Double(e.time) + ahead / speed * (1 - 1e-6) - 1e-6 : .infinity
        } else if bluetooth.isFinite {
            // From its Bluetooth distance alone, which time does not bring nearer.
            if Double(bluetooth) > Self.urgentWithin(settings, closing: 0) { until = .infinity }
        } else {
            until = .infinity
        }
    }

    /// Whether pair `p` still cannot be urgent at `t`: before the bound, with the same estimate and Bluetooth
    /// distance (compared as bits: the same value or not; none heard is none heard).
    @inline(__always)
    func holds(at t: Double, _ p: Int, _ context: PlanningContext) -> Bool {
        guard t < until else { return false }
        let heard = p < context.bluetooth.count ? context.bluetooth[p] : .nan
        guard heard.bitPattern == bluetooth.bitPattern || (heard.isNaN && bluetooth.isNaN) else { return false }
        if context.estimates.isEmpty { return distance.isNaN }
        let e = context.estimates[p]
        if !e.distance.isFinite { return distance.isNaN }
        return e.distance.bitPattern == distance.bitPattern && e.time.bitPattern == time.bitPattern
            && e.closing.bitPattern == closing.bitPattern
    }
}

/// The workers' buckets: worker `w` writes element `w` only.
private struct WorkerBuckets: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<[[Int32]]>
    let passed: UnsafeMutableBufferPointer<Int>
}

/// The pairs ``Proximity`` may pass over, by admitted pair (the order of ``AdmittedPairs/pairs``): until when each
/// one's ``Calm`` bound is known to hold (-∞: unknown), its ends and its initiator. A bound is forgotten when anything
/// it was found from may have changed: the pair ranged (its estimate), a reading of Bluetooth distances there were
/// already or an estimate started afresh (the caller's ``PlanningContext/outsideChanges``), fewer Bluetooth distances
/// than before, every bound forgotten (a faster crowd, another floor); a pair without a Bluetooth distance yet is not
/// passed over (its first reading comes without an outside change). Kept across a rebuild of the admitted pairs by
/// pair.
struct Dozing {
    fileprivate(set) var until: [Double] = []
    private(set) var ends: [RangingPair] = []
    private(set) var chipOf: [Int32] = []
    /// Whether pairs may be passed over this round: the caller says what changes outside the plan.
    private(set) var passes = false
    /// The admitted pairs the arrays are in the order of.
    private var admitted: [Int32] = []
    private var outsideChanges: Int?
    private var bluetoothCount = 0
    private var estimatesKnown = false

    mutating func forgetAll() {
        for i in until.indices { until[i] = -.infinity }
    }

    /// Forgets the bound of the `i`th admitted pair.
    @inline(__always)
    mutating func forget(_ i: Int) {
        if i < until.count { until[i] = -.infinity }
    }

    /// Brings the pairs up to the round's `context` and its `admitted` pairs (`rebuilt`: they may have changed).
    mutating func take(_ context: PlanningContext, admitted pairs: [Int32], rebuilt: Bool) {
        passes = context.outsideChanges != nil
        guard passes else {
            outsideChanges = nil
            (admitted, until, ends, chipOf) = ([], [], [], [])
            return
        }
        if rebuilt || admitted.count != pairs.count { follow(pairs, context) }
        if context.outsideChanges != outsideChanges || context.bluetooth.count < bluetoothCount
            || context.estimates.isEmpty == estimatesKnown {
            forgetAll()
        }
        outsideChanges = context.outsideChanges
        bluetoothCount = context.bluetooth.count
        estimatesKnown = !context.estimates.isEmpty
    }

    /// Takes the admitted pairs rebuilt as `pairs`, keeping what is known of those admitted before. Both lists are in
    /// the pairs' own order (their devices'), so one walk along both finds each kept pair; a pair's devices are read
    /// only where the lists differ (a pair at random in a table of half a million, where a session began or ended).
    private mutating func follow(_ pairs: [Int32], _ context: PlanningContext) {
        var (keptUntil, keptEnds, keptChips) = ([Double](), [RangingPair](), [Int32]())
        keptUntil.reserveCapacity(pairs.count)
        keptEnds.reserveCapacity(pairs.count)
        keptChips.reserveCapacity(pairs.count)
        var j = 0
        for p in pairs {
            if j < admitted.count, admitted[j] != p {
                let pair = context.pairs[Int(p)]
                // Those before it in the pairs' order are no longer admitted.
                while j < admitted.count, admitted[j] != p, Self.precedes(ends[j], pair) { j += 1 }
            }
            if j < admitted.count, admitted[j] == p {
                keptUntil.append(until[j])
                keptEnds.append(ends[j])
                keptChips.append(chipOf[j])
                j += 1
            } else {
                keptUntil.append(-.infinity)
                keptEnds.append(context.pairs[Int(p)])
                keptChips.append(Int32(context.initiator(of: Int(p))))
            }
        }
        (admitted, until, ends, chipOf) = (pairs, keptUntil, keptEnds, keptChips)
    }

    @inline(__always)
    private static func precedes(_ a: RangingPair, _ b: RangingPair) -> Bool {
        (a.low, a.high) < (b.low, b.high)
    }
}

/// ``Dozing`` as the scan's workers see it: each writes the bounds of its own admitted pairs.
struct DozingView {
    let until: UnsafeMutableBufferPointer<Double>
    let ends: [RangingPair]
    let chipOf: [Int32]

    /// Until when pair `p`'s bound `calm` may be taken to hold: not at all while the pair has no Bluetooth distance
    /// (``Dozing``).
    @inline(__always)
    func bound(_ calm: Calm, pair p: Int, _ context: PlanningContext) -> Double {
        p < context.bluetooth.count ? calm.until : -.infinity
    }

    /// Whether the `i`th admitted pair may be passed over: its chip takes none, or only urgent sessions and its bound
    /// is known to hold and no device walks to the other or knocked it (what the full ranking would find the same).
    @inline(__always)
    func passesOver(_ i: Int, chips: [Placeable]?, knocked: Knocked, _ context: PlanningContext) -> Bool {
        guard let chips else { return false }
        switch chips[Int(chipOf[i])] {
        case .no: return true
        case .yes: return false
        case .ifUrgent: break
        }
        guard context.time < until[i] else { return false }
        let e = ends[i]
        if !knocked.peers.isEmpty, knocked.has(e.low, heard: e.high) || knocked.has(e.high, heard: e.low) {
            return false
        }
        if !context.targets.isEmpty {
            if context.targets[Int(e.low)] == e.high || context.targets[Int(e.high)] == e.low { return false }
        }
        return true
    }
}
