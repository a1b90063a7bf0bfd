import DeviceInterface
import Geometry

extension AirPhysics {
    /// The share of a round's exchanges the air should leave (their reports aside), worked out rather than drawn:
    /// the frame-level figure the simulated air is checked against (docs/airtime.md, "Frames and capture").
    ///
    /// Each exchange's start relative to the others' is taken as uniform over the round, as sessions on their own
    /// timers have it: every exchange alone (`grouped` false, `uncoordinated`), or each initiator's exchanges
    /// together at their planned offsets from one another, its chip's phase uniform (`grouped` true: each chip
    /// schedules its own sessions, and its exchanges never overlap one another). Exchange i is lost to a group's
    /// phase u when an exchange of it that shares a device began within one exchange before i, or when a frame of
    /// it overlaps a frame of i whose receiver it alone drowns (pairwise: the simulated air adds the levels of all
    /// the frames overlapping one). The groups' phases are independent, so i survives with the product over them
    /// of 1 − (the measure of the phases that lose it) / the round.
    ///
    /// Call it on the plan as asked, before ``resolve(_:pairs:initiators:positions:interval:circular:)``.
    ///
    /// - Parameter victims: at most this many exchanges are worked out (every k-th), to bound the work in crowds.
    /// - Returns: the sum of the survivals worked out, and their count.
    package func expectedSurvival(
        _ plan: RangingPlan, pairs: [RangingPair], initiators: [Int32] = [], positions: [Vector3],
        interval: Double, grouped: Bool, victims: Int = .max
    ) -> (sum: Double, count: Int) {
        let m = plan.exchanges.count
        guard m > 0, plan.channels.count == m else { return (0, 0) }
        // Each exchange's group (its initiator, or itself), and the groups' members in one array, by group in index
        // order (a counting sort: no array a group).
        let groups = grouped ? positions.count : m
        let groupOf = (0..<m).map { i in
            grouped ? roles(pairs[Int(plan.exchanges[i].pair)], plan.exchanges[i].pair, initiators).0 : i
        }
        var groupStart = [Int](repeating: 0, count: groups + 1)
        for g in groupOf { groupStart[g + 1] += 1 }
        for g in 0..<groups { groupStart[g + 1] += groupStart[g] }
        var members = [Int](repeating: 0, count: m)
        var fill = groupStart
        for (i, g) in groupOf.enumerated() {
            members[fill[g]] = i
            fill[g] += 1
        }
        let wanted = max(victims, 1)
        let stride = wanted >= m ? 1 : (m + wanted - 1) / wanted
        var sum = 0.0, count = 0
        var intervals: [(Double, Double)] = []
        for i in Swift.stride(from: 0, to: m, by: stride) {
            let p = plan.exchanges[i].pair
            let pair = pairs[Int(p)]
            let (ia, ib) = roles(pair, p, initiators)
            let signal = reception.level(positions[ia], positions[ib])
            // Whether a frame from `a` heard at `b` drowns one of i's there.
            func drowns(_ a: Vector3, _ b: Vector3) -> Bool {
                !reception.survives(signal: signal, interference: reception.heard(a, b))
            }
            let start = Double(plan.exchanges[i].offset)
            var survival = 1.0
            for g in 0..<groups where g != groupOf[i] && groupStart[g] < groupStart[g + 1] {
                intervals.removeAll(keepingCapacity: true)
                for j in members[groupStart[g]..<groupStart[g + 1]] {
                    let q = plan.exchanges[j].pair
                    let other = pairs[Int(q)]
                    let base = start - Double(plan.exchanges[j].offset)
                    if pair.sharesADevice(with: other) {
                        add(base - exchangeDuration, exchangeDuration, interval, &intervals)
                        continue
                    }
                    guard plan.channels[i] == plan.channels[j] else { continue }
                    let (ja, jb) = roles(other, q, initiators)
                    // Whether a frame of j drowns one of i, by who sends j's (its initiator or not) and who
                    // receives i's.
                    let responderToInitiator = drowns(positions[jb], positions[ia])
                    let responderToResponder = drowns(positions[jb], positions[ib])
                    let initiatorToInitiator = drowns(positions[ja], positions[ia])
                    let initiatorToResponder = drowns(positions[ja], positions[ib])
                    guard responderToInitiator || responderToResponder || initiatorToInitiator
                        || initiatorToResponder else { continue }
                    for k in senders.indices where k != reportFrame {
                        for l in senders.indices {
                            // i's frame k is received by its responder when its initiator sends it.
                            let drowned = senders[l]
                                ? (senders[k] ? initiatorToResponder : initiatorToInitiator)
                                : (senders[k] ? responderToResponder : responderToInitiator)
                            guard drowned else { continue }
                            add(base + Double(k - l) * slot - frame, 2 * frame, interval, &intervals)
                        }
                    }
                }
                survival *= 1 - Self.union(&intervals) / interval
            }
            sum += survival
            count += 1
        }
        return (sum, count)
    }

    /// Adds the span from `start`, `length` long, taken around a circle of `period`.
    private func add(_ start: Double, _ length: Double, _ period: Double, _ list: inout [(Double, Double)]) {
        var a = start.truncatingRemainder(dividingBy: period)
        if a < 0 { a += period }
        if a + length <= period {
            list.append((a, a + length))
        } else {
            list.append((a, period))
            list.append((0, a + length - period))
        }
    }

    /// The measure of the spans' union.
    private static func union(_ list: inout [(Double, Double)]) -> Double {
        guard !list.isEmpty else { return 0 }
        list.sort { $0.0 < $1.0 }
        var total = 0.0
        var (lo, hi) = list[0]
        for (a, b) in list.dropFirst() {
            if a > hi {
                total += hi - lo
                (lo, hi) = (a, b)
            } else {
                hi = max(hi, b)
            }
        }
        return total + hi - lo
    }
}
