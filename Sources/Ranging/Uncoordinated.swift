import GSL
import Radio

/// Every session on its own timer, as independent phone sessions range: each round, every running pair starts an
/// exchange at an instant of its own, uniform over the round, on a channel of its own choosing, with no regard for
/// anyone else. Two exchanges that overlap in time collide, and both are lost, when they share a device (one radio),
/// or when they use the same channel and a device of one is within the interference range of a device of the other.
///
/// A round is taken as circular (an exchange starting near its end overlaps one starting near the start), which
/// keeps a round's outcome its own and gives each other session in hearing the same chance, 2τ/T, of overlapping
/// an exchange (τ its length, T the round): with m sessions all in hearing on one channel an exchange survives with
/// probability (1 − 2τ/T)^(m−1).
public struct Uncoordinated: RangingPlanner {
    private let random: RandomSource
    private let exchangeDuration: Double
    private let rangeSquared: Double
    private let channels: Int
    private var admitted: AdmittedPairs
    private var starts: [Double] = []
    private var channelOf: [UInt8] = []
    private var lost: [Bool] = []
    /// The attempts sorted into buckets one exchange long (counting sort): only neighbouring buckets can overlap.
    private var bucketStart: [Int] = []
    private var order: [Int32] = []
    private var fill: [Int] = []

    /// - Throws: a GSL allocation error.
    public init(medium: Medium, scheme: RadioConfiguration.RangingScheme, peers: Int, seed: UInt64) throws {
        random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .planner, first: 1, second: 0))
        exchangeDuration = medium.exchangeDuration(scheme)
        rangeSquared = medium.interferenceRange * medium.interferenceRange
        channels = medium.channels
        admitted = AdmittedPairs(medium: medium, peers: peers)
    }

    public mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        plan.suspensions.removeAll(keepingCapacity: true)
        admitted.refresh(context, into: &plan.suspensions)
        let running = admitted.pairs
        plan.exchanges.removeAll(keepingCapacity: true)
        plan.channels.removeAll(keepingCapacity: true)
        plan.collided.removeAll(keepingCapacity: true)
        plan.collided.append(contentsOf: repeatElement(0, count: channels))
        let m = running.count
        guard m > 0 else { return }
        let period = context.interval
        starts.removeAll(keepingCapacity: true)
        channelOf.removeAll(keepingCapacity: true)
        for _ in 0..<m {
            starts.append(random.uniform() * period)
            channelOf.append(channels == 1 ? 0 : UInt8(min(Int(random.uniform() * Double(channels)), channels - 1)))
        }
        sortIntoBuckets(period: period)
        let buckets = bucketStart.count - 1
        lost.removeAll(keepingCapacity: true)
        lost.append(contentsOf: repeatElement(false, count: m))
        for i in 0..<m where !lost[i] {
            let bucket = bucketOf(starts[i], buckets: buckets, period: period)
            search: for shift in -1...1 where buckets >= 3 || shift == 0 || buckets == 2 && shift == 1 {
                let k = (bucket + shift + buckets) % buckets
                for slot in bucketStart[k]..<bucketStart[k + 1] {
                    let j = Int(order[slot])
                    guard j != i, overlaps(starts[i], starts[j], period: period),
                          conflict(i, j, running, context) else { continue }
                    lost[i] = true
                    lost[j] = true
                    break search
                }
            }
        }
        for i in 0..<m {
            if lost[i] {
                plan.collided[Int(channelOf[i])] += 1
            } else {
                plan.exchanges.append(PlannedExchange(pair: Int(running[i]), offset: Float(starts[i])))
                plan.channels.append(channelOf[i])
            }
        }
    }

    private func bucketOf(_ start: Double, buckets: Int, period: Double) -> Int {
        min(Int(start / period * Double(buckets)), buckets - 1)
    }

    /// Buckets at least one exchange long, so that an exchange overlaps only those of its bucket and the two beside.
    private mutating func sortIntoBuckets(period: Double) {
        let buckets = max(1, Int(period / exchangeDuration))
        bucketStart.removeAll(keepingCapacity: true)
        bucketStart.append(contentsOf: repeatElement(0, count: buckets + 1))
        for s in starts { bucketStart[bucketOf(s, buckets: buckets, period: period) + 1] += 1 }
        for k in 0..<buckets { bucketStart[k + 1] += bucketStart[k] }
        fill.removeAll(keepingCapacity: true)
        fill.append(contentsOf: bucketStart)
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: repeatElement(0, count: starts.count))
        for (i, s) in starts.enumerated() {
            let k = bucketOf(s, buckets: buckets, period: period)
            order[fill[k]] = Int32(i)
            fill[k] += 1
        }
    }

    @inline(__always)
    private func overlaps(_ x: Double, _ y: Double, period: Double) -> Bool {
        let d = abs(x - y)
        return min(d, period - d) < exchangeDuration
    }

    @inline(__always)
    private func conflict(_ i: Int, _ j: Int, _ running: [Int32], _ context: PlanningContext) -> Bool {
        let p = context.pairs[Int(running[i])], q = context.pairs[Int(running[j])]
        if p.low == q.low || p.low == q.high || p.high == q.low || p.high == q.high { return true }
        return channelOf[i] == channelOf[j] && context.inHearing(p, q, rangeSquared: rangeSquared)
    }
}
