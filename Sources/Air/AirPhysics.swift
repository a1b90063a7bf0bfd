import DeviceInterface
import Geometry

/// The world's side of the air: of the exchanges the devices asked for in a round, which collide and are lost. Two
/// exchanges that overlap in time collide, and both are lost, when they share a device (one radio), or when they use
/// the same channel and a device of one is truly within the interference range of a device of the other.
///
/// The devices' planners place exchanges by what they believe of who hears whom (their estimates, Bluetooth signal
/// strength); only here are the true positions read, so a planner that believes wrong loses exchanges, as it would
/// in a room.
package struct AirPhysics {
    private let exchangeDuration: Double
    private let rangeSquared: Double
    private var lost: [Bool] = []
    /// The attempts sorted into buckets one exchange long (counting sort): only neighbouring buckets can overlap.
    private var bucketStart: [Int] = []
    private var order: [Int32] = []
    private var fill: [Int] = []
    private var keptExchanges: [PlannedExchange] = []
    private var keptChannels: [UInt8] = []

    package init(medium: Medium, scheme: RangingScheme) {
        exchangeDuration = medium.exchangeDuration(scheme)
        rangeSquared = medium.interferenceRange * medium.interferenceRange
    }

    /// Takes the collided exchanges out of `plan` and counts them in its `collided`, by channel.
    ///
    /// - Parameters:
    ///   - pairs: every pair, by index.
    ///   - positions: every device's true position at the round's start.
    ///   - interval: the round's length, seconds.
    ///   - circular: whether the round wraps around (sessions on their own timers, each once a round: an exchange
    ///     starting near the end overlaps one starting near the start); otherwise exchanges past the round's end
    ///     overlap nothing of its start.
    package mutating func resolve(
        _ plan: inout RangingPlan, pairs: [RangingPair], positions: [Vector3], interval: Double, circular: Bool
    ) {
        let m = plan.exchanges.count
        guard m > 1, plan.channels.count == m else { return }
        sortIntoBuckets(plan.exchanges, period: interval)
        let buckets = bucketStart.count - 1
        lost.removeAll(keepingCapacity: true)
        lost.append(contentsOf: repeatElement(false, count: m))
        var anyLost = false
        for i in 0..<m where !lost[i] {
            let bucket = bucketOf(plan.exchanges[i].offset, buckets: buckets, period: interval)
            search: for shift in -1...1 {
                var k = bucket + shift
                if k < 0 || k >= buckets {
                    guard circular, buckets >= 3 else { continue }
                    k = (k + buckets) % buckets
                }
                for slot in bucketStart[k]..<bucketStart[k + 1] {
                    let j = Int(order[slot])
                    guard j != i,
                          overlaps(plan.exchanges[i].offset, plan.exchanges[j].offset, period: interval, circular),
                          conflict(plan, i, j, pairs, positions) else { continue }
                    lost[i] = true
                    lost[j] = true
                    anyLost = true
                    break search
                }
            }
        }
        guard anyLost else { return }
        keptExchanges.removeAll(keepingCapacity: true)
        keptChannels.removeAll(keepingCapacity: true)
        for i in 0..<m {
            if lost[i] {
                let channel = Int(plan.channels[i])
                if plan.collided.count <= channel {
                    plan.collided.append(contentsOf: repeatElement(0, count: channel + 1 - plan.collided.count))
                }
                plan.collided[channel] += 1
            } else {
                keptExchanges.append(plan.exchanges[i])
                keptChannels.append(plan.channels[i])
            }
        }
        swap(&plan.exchanges, &keptExchanges)
        swap(&plan.channels, &keptChannels)
    }

    private func bucketOf(_ start: Float, buckets: Int, period: Double) -> Int {
        min(max(Int(Double(start) / period * Double(buckets)), 0), buckets - 1)
    }

    /// Buckets at least one exchange long, so that an exchange overlaps only those of its bucket and the two beside.
    private mutating func sortIntoBuckets(_ exchanges: [PlannedExchange], period: Double) {
        let buckets = max(1, Int(period / exchangeDuration))
        bucketStart.removeAll(keepingCapacity: true)
        bucketStart.append(contentsOf: repeatElement(0, count: buckets + 1))
        for x in exchanges { bucketStart[bucketOf(x.offset, buckets: buckets, period: period) + 1] += 1 }
        for k in 0..<buckets { bucketStart[k + 1] += bucketStart[k] }
        fill.removeAll(keepingCapacity: true)
        fill.append(contentsOf: bucketStart)
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: repeatElement(0, count: exchanges.count))
        for (i, x) in exchanges.enumerated() {
            let k = bucketOf(x.offset, buckets: buckets, period: period)
            order[fill[k]] = Int32(i)
            fill[k] += 1
        }
    }

    /// Whether exchanges starting at `x` and `y` overlap; offsets are single precision, so two slots one exchange
    /// apart must not count as overlapping by a rounding.
    @inline(__always)
    private func overlaps(_ x: Float, _ y: Float, period: Double, _ circular: Bool) -> Bool {
        let d = abs(Double(x) - Double(y))
        return (circular ? min(d, period - d) : d) < exchangeDuration - 1e-6
    }

    @inline(__always)
    private func conflict(
        _ plan: RangingPlan, _ i: Int, _ j: Int, _ pairs: [RangingPair], _ positions: [Vector3]
    ) -> Bool {
        let p = pairs[Int(plan.exchanges[i].pair)], q = pairs[Int(plan.exchanges[j].pair)]
        if p.low == q.low || p.low == q.high || p.high == q.low || p.high == q.high { return true }
        guard plan.channels[i] == plan.channels[j] else { return false }
        let a = positions[Int(p.low)], b = positions[Int(p.high)]
        let c = positions[Int(q.low)], d = positions[Int(q.high)]
        return (a - c).lengthSquared <= rangeSquared || (a - d).lengthSquared <= rangeSquared
            || (b - c).lengthSquared <= rangeSquared || (b - d).lengthSquared <= rangeSquared
    }
}
