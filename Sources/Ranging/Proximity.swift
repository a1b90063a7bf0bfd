import Foundation
import GSL
import Radio

/// How `proximity` ranks the pairs (docs/airtime.md).
public struct ProximitySettings: Sendable, Equatable {
    /// A pair wants an update every `shortestInterval` at or under `nearDistance` (the distance it may be touching
    /// at), an interval growing with the square of the distance beyond, up to `longestInterval`.
    public var nearDistance = 0.15
    public var shortestInterval = 0.1
    public var longestInterval = 20.0
    /// The same for a pair whose device is walking to the other: it wants every round within 0.2 m (the end of the
    /// gesture and the touch), and at least one update every `targetLongestInterval` on the way, so that its
    /// closing speed is known.
    public var targetNearDistance = 0.2
    public var targetLongestInterval = 1.0
    /// The speed two people not walking to each other may have closed at since the latest estimate, m/s (a walking
    /// pace): an old estimate counts as nearer than it read, so that a pair not ranged for a while comes back up
    /// before it could touch.
    public var assumedClosingSpeed = 1.0
    /// Seconds after a bump during which the pair wants no more than one update.
    public var afterBump = 2.0
    /// Updates a closing pair should get before it could touch.
    public var updatesBeforeContact = 4.0
    /// The Bluetooth signal strength pairs without an estimate are ranked by: log-distance path loss with this
    /// exponent and shadowing of this spread, dB, read once a second and smoothed over readings with this weight
    /// for the newest, as apps smooth it (the signal's reference power cancels out of the distance it gives).
    public var bluetoothExponent = 2.0
    public var bluetoothSigmaDB = 6.0
    public var bluetoothSmoothing = 0.3

    public init() {}
}

/// Ranges the pairs that matter first. Each round, every running pair wants an update interval from its distance as
/// last estimated (brought forward by its closing speed, and by an assumed closing speed for the estimate's age), or,
/// without an estimate, from a simulated Bluetooth signal strength. Its priority is how overdue it is: the time since
/// it last ranged over the interval it wants, squared (so that a pair wanting 10 Hz outranks a far one that waited
/// long). The pairs whose device is walking to the other go first when due, then every pair by priority, each placed
/// in the round's air (``AirAllocator``) until it is taken.
public struct Proximity: RangingPlanner {
    private let settings: ProximitySettings
    private let random: RandomSource
    private var air: AirAllocator
    private var limit: SessionLimit?
    private var running: [Int32] = []
    private var plannedFor: UInt64?
    /// When each pair last ranged, seconds (-∞ never), and its Bluetooth distance (NaN none yet).
    private var lastRanged: [Float]
    private var bluetooth: [Float]
    private var smoothedLoss: [Float]
    private var bluetoothRead = -Double.infinity
    /// Pairs by priority, in half-octave buckets: the upper half for walking pairs that are due, the lower for all
    /// others.
    private var buckets: [[Int32]] = Array(repeating: [], count: 2 * Self.tierBuckets)
    private static let tierBuckets = 64

    /// - Throws: a GSL allocation error.
    public init(medium: Medium, scheme: RadioConfiguration.RangingScheme, peers: Int, seed: UInt64,
                settings: ProximitySettings = ProximitySettings()) throws {
        self.settings = settings
        random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .planner, first: 2, second: 0))
        air = AirAllocator(medium: medium, scheme: scheme, peers: peers)
        limit = medium.sessionsPerDevice.map { SessionLimit(limit: $0, peers: peers) }
        let pairs = peers * (peers - 1) / 2
        lastRanged = [Float](repeating: -.infinity, count: pairs)
        bluetooth = [Float](repeating: .nan, count: pairs)
        smoothedLoss = bluetooth
    }

    public mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        plan.suspensions.removeAll(keepingCapacity: true)
        let t = context.time
        let readBluetooth = t - bluetoothRead >= 1 - 1e-9
        if readBluetooth { bluetoothRead = t }
        if plannedFor != context.sessions.version || (readBluetooth && limit != nil) {
            plannedFor = context.sessions.version
            if var l = limit {
                // Each device keeps the sessions whose pairs want the shortest intervals (ranked by a copy of the
                // planner: the score is read while the limit changes).
                let ranking = self
                l.update(context.sessions, score: { d, e in
                    let p = RunningSessions.pairIndex(d, e, peers: context.sessions.peers)
                    return 1 / ranking.wantedInterval(p, walking: ranking.isWalkingPair(p, context), context)
                }, into: &plan.suspensions)
                limit = l
            }
            running.removeAll(keepingCapacity: true)
            context.forEachRunningPair { p in
                let pair = context.pairs[p]
                if limit?.allows(Int(pair.low), Int(pair.high)) ?? true { running.append(Int32(p)) }
            }
        }
        if readBluetooth { readSignals(context) }
        air.begin(context, into: &plan)
        for k in buckets.indices { buckets[k].removeAll(keepingCapacity: true) }
        for p in running {
            let walking = isWalkingPair(Int(p), context)
            let wanted = wantedInterval(Int(p), walking: walking, context)
            // A pair never ranged counts as having waited the longest interval: its Bluetooth distance, not its
            // newness, decides when it first ranges.
            let waited = min(t - Double(lastRanged[Int(p)]), settings.longestInterval)
            let priority = waited / (wanted * wanted)
            // Within a bucket, pair order.
            let k = min(max(Self.halfOctave(priority) + 40, 0), Self.tierBuckets - 1)
            buckets[walking && waited >= wanted - 1e-6 ? Self.tierBuckets + k : k].append(p)
        }
        place: for k in buckets.indices.reversed() {
            for p in buckets[k] {
                if air.isSaturated { break place }
                if air.place(p, context, into: &plan) { lastRanged[Int(p)] = Float(t) }
            }
        }
    }

    /// ⌊2 log2(x)⌋ from the number's exponent and significand, without a logarithm (500,000 pairs a round at 1,000
    /// peers).
    @inline(__always)
    private static func halfOctave(_ x: Double) -> Int {
        let v = max(x, 1e-12)
        return 2 * Int(v.exponent) + (v.significand >= 1.4142135623730951 ? 1 : 0)
    }

    /// The Bluetooth distance of every running pair without an estimate, in pair order: each reading's loss is the
    /// true distance's, 10 n log10(d), plus X ~ N(0, σ) dB; the smoothed loss gives the distance.
    private mutating func readSignals(_ context: PlanningContext) {
        let n = settings.bluetoothExponent
        let alpha = Float(settings.bluetoothSmoothing)
        for p in running where context.estimates.isEmpty || !context.estimates[Int(p)].distance.isFinite {
            let pair = context.pairs[Int(p)]
            let d2 = (context.poses[Int(pair.low)].position - context.poses[Int(pair.high)].position).lengthSquared
            // Beyond 15 m no reading could rank a pair sooner than the longest interval (it would take 8 standard
            // deviations of smoothed shadowing to read it under 2 m), so none is drawn.
            guard d2 < 225 else { continue }
            let d = d2.squareRoot()
            let loss = Float(10 * n * log10(max(d, 0.01)) + random.gaussian(sigma: settings.bluetoothSigmaDB))
            smoothedLoss[Int(p)] = smoothedLoss[Int(p)].isFinite ? alpha * loss + (1 - alpha) * smoothedLoss[Int(p)] : loss
            bluetooth[Int(p)] = Float(pow(10, Double(smoothedLoss[Int(p)]) / (10 * n)))
        }
    }

    /// Whether a device of pair `p` is walking to the other.
    private func isWalkingPair(_ p: Int, _ context: PlanningContext) -> Bool {
        guard !context.targets.isEmpty else { return false }
        let pair = context.pairs[p]
        return context.targets[Int(pair.low)] == pair.high || context.targets[Int(pair.high)] == pair.low
    }

    /// The interval pair `p` wants between updates, seconds.
    private func wantedInterval(_ p: Int, walking: Bool, _ context: PlanningContext) -> Double {
        let t = context.time
        var distance: Double
        var closing = 0.0
        let longest = walking ? settings.targetLongestInterval : settings.longestInterval
        if !context.estimates.isEmpty, context.estimates[p].distance.isFinite {
            let e = context.estimates[p]
            // A pair that just bumped has nothing more to find until its phones part.
            if t - Double(e.bumped) < settings.afterBump { return min(settings.afterBump, longest) }
            let age = max(0, t - Double(e.time))
            closing = Double(e.closing)
            // A walking pair's way is known (its closing speed, an update a second); any other pair could have
            // started toward each other since.
            distance = Double(e.distance) - max(closing, 0) * age - (walking ? 0 : settings.assumedClosingSpeed * age)
        } else if bluetooth[p].isFinite {
            distance = Double(bluetooth[p])
        } else {
            return longest
        }
        let near = walking ? settings.targetNearDistance : settings.nearDistance
        let ratio = max(distance, near) / near
        var wanted = settings.shortestInterval * ratio * ratio
        if closing > 0.1 {
            // A walking pair needs an update before it reaches the gesture's distance, where it wants every round;
            // any other pair several before it could touch.
            wanted = min(wanted, walking ? max(distance - near, 0) / closing
                : max(distance, 0) / closing / settings.updatesBeforeContact)
        }
        return min(max(wanted, settings.shortestInterval), longest)
    }
}
