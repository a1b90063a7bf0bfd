import DeviceInterface
import Foundation
import Geometry

/// The world's side of the air: of the exchanges the devices asked for in a round, which collide and are lost,
/// decided frame by frame at each receiver (docs/airtime.md, "Frames and capture").
///
/// An exchange is a frame at the start of each of its slots (``Medium/initiatorSends(_:)`` says who sends which).
/// Two exchanges whose windows overlap
/// - and share a device: that device's one radio is taken by the one that began first, and the other is lost;
/// - otherwise, on one channel: each frame that overlaps a frame of the other in time is received only if it arrives
///   at least ``Medium/captureThreshold`` stronger than the sum of the frames overlapping it (capture), the levels
///   from the devices' true positions by the radio's path loss; a transmitter farther than the interference range
///   from a receiver is not heard there.
///
/// An exchange that loses a frame before the report is lost; one that loses only its report reaches the responder,
/// and the initiator does not read it (``RangingPlan/reportLost``). Every exchange asked for sends its frames, lost or
/// not: a device does not know that its peer's radio was taken.
///
/// The devices' planners place exchanges by what they believe; only here are the true positions read, so a planner
/// that believes wrong loses exchanges, as it would in a room.
package struct AirPhysics {
    let exchangeDuration: Double
    let slot: Double
    let frame: Double
    let senders: [Bool]
    /// The frame that carries the responder's report (the last of a double-sided exchange), -1 for none.
    let reportFrame: Int
    /// Whether a frame survives what overlaps it: the rule every face of the air shares.
    let reception: FrameReception
    private var lost: [Bool] = []
    private var interference: [Double] = []
    private var order: [Int32] = []
    private var keptExchanges: [PlannedExchange] = []
    private var keptChannels: [UInt8] = []
    private var keptReports: [Bool] = []

    /// - Parameters:
    ///   - pathLossExponent: how the level falls with distance (the radio's own).
    ///   - nearestDistance: the distance under which the level grows no more (the radio's own), metres.
    package init(medium: Medium, scheme: RangingScheme, pathLossExponent: Double = 2, nearestDistance: Double = 0.02) {
        exchangeDuration = medium.exchangeDuration(scheme)
        slot = medium.slotDuration
        frame = medium.frameDuration
        senders = medium.initiatorSends(scheme)
        reportFrame = scheme == .doubleSided && senders.count >= 5 && !senders[senders.count - 1]
            ? senders.count - 1 : -1
        reception = FrameReception(medium: medium, pathLossExponent: pathLossExponent, nearestDistance: nearestDistance)
    }

    /// Takes the collided exchanges out of `plan`, counts them in its `collided` by channel, and marks those that
    /// lost only their report (``RangingPlan/reportLost``).
    ///
    /// - Parameters:
    ///   - pairs: every pair, by index ...
    ///   - initiators: ... and the device of each that initiates its exchanges (empty: the lower).
    ///   - positions: every device's true position at the round's start.
    ///   - interval: the round's length, seconds.
    ///   - circular: whether the round wraps around (sessions on their own timers, each once a round: an exchange
    ///     starting near the end overlaps one starting near the start); otherwise exchanges past the round's end
    ///     overlap nothing of its start.
    package mutating func resolve(
        _ plan: inout RangingPlan, pairs: [RangingPair], initiators: [Int32] = [], positions: [Vector3],
        interval: Double, circular: Bool
    ) {
        let m = plan.exchanges.count
        plan.reportLost.removeAll(keepingCapacity: true)
        guard m > 1, plan.channels.count == m else { return }
        let frames = senders.count
        lost.removeAll(keepingCapacity: true)
        lost.append(contentsOf: repeatElement(false, count: m))
        interference.removeAll(keepingCapacity: true)
        interference.append(contentsOf: repeatElement(0, count: m * frames))
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: (0..<Int32(m)))
        // By start, then by index: of two that start together the first in the plan keeps a shared radio.
        order.sort { a, b in
            let x = plan.exchanges[Int(a)].offset, y = plan.exchanges[Int(b)].offset
            return x < y || (x == y && a < b)
        }
        for s in 0..<m {
            let i = Int(order[s])
            let start = Double(plan.exchanges[i].offset)
            var step = 1
            while step < m {
                var t = s + step
                var wrap = 0.0
                if t >= m {
                    guard circular else { break }
                    t -= m
                    wrap = interval
                }
                let j = Int(order[t])
                let gap = Double(plan.exchanges[j].offset) + wrap - start
                // Offsets are single precision: two positions one exchange apart must not overlap by a rounding.
                guard gap < exchangeDuration - 1e-6 else { break }
                step += 1
                let p = pairs[Int(plan.exchanges[i].pair)], q = pairs[Int(plan.exchanges[j].pair)]
                if p.sharesADevice(with: q) {
                    lost[j] = true
                    continue
                }
                guard plan.channels[i] == plan.channels[j] else { continue }
                overlapFrames(i, p, j, q, gap: gap, plan, initiators, positions)
            }
        }
        var anyReport = false
        keptReports.removeAll(keepingCapacity: true)
        keptReports.append(contentsOf: repeatElement(false, count: m))
        for i in 0..<m where !lost[i] {
            let base = i * frames
            guard (0..<frames).contains(where: { interference[base + $0] > 0 }) else { continue }
            let pair = pairs[Int(plan.exchanges[i].pair)]
            let signal = reception.level(positions[Int(pair.low)], positions[Int(pair.high)])
            for k in 0..<frames where !reception.survives(signal: signal, interference: interference[base + k]) {
                if k == reportFrame {
                    keptReports[i] = true
                    anyReport = true
                } else {
                    lost[i] = true
                    break
                }
            }
            if lost[i] { keptReports[i] = false }
        }
        guard lost.contains(true) else {
            if anyReport { swap(&plan.reportLost, &keptReports) }
            return
        }
        keptExchanges.removeAll(keepingCapacity: true)
        keptChannels.removeAll(keepingCapacity: true)
        plan.reportLost.removeAll(keepingCapacity: true)
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
                if anyReport { plan.reportLost.append(keptReports[i]) }
            }
        }
        swap(&plan.exchanges, &keptExchanges)
        swap(&plan.channels, &keptChannels)
    }

    /// Adds to each frame of `i` and of `j`, which begins `gap` seconds after `i`, the level of the other's frames
    /// that overlap it in time, heard at its receiver.
    @inline(__always)
    private mutating func overlapFrames(
        _ i: Int, _ p: RangingPair, _ j: Int, _ q: RangingPair, gap: Double,
        _ plan: RangingPlan, _ initiators: [Int32], _ positions: [Vector3]
    ) {
        let frames = senders.count
        // Frame k of i at k slots, frame l of j at gap + l slots: they overlap when |gap − (k − l) slots| is under a
        // frame.
        let nearest = (gap / slot).rounded()
        guard abs(gap - nearest * slot) < frame - 1e-12 else { return }
        let shift = Int(nearest)
        let (ia, ib) = roles(p, plan.exchanges[i].pair, initiators)
        let (ja, jb) = roles(q, plan.exchanges[j].pair, initiators)
        for k in max(0, shift)..<min(frames, frames + shift) {
            let l = k - shift
            // Frame k of i: sent by ia when the initiator sends it, received by the other; likewise l of j.
            let iFrom = senders[k] ? ia : ib, iTo = senders[k] ? ib : ia
            let jFrom = senders[l] ? ja : jb, jTo = senders[l] ? jb : ja
            interference[i * frames + k] += reception.heard(positions[jFrom], positions[iTo])
            interference[j * frames + l] += reception.heard(positions[iFrom], positions[jTo])
        }
    }

    /// The initiator and the responder of pair `p` (index `index`).
    @inline(__always)
    func roles(_ p: RangingPair, _ index: Int32, _ initiators: [Int32]) -> (Int, Int) {
        let low = Int(p.low), high = Int(p.high)
        guard Int(index) < initiators.count, Int(initiators[Int(index)]) == high else { return (low, high) }
        return (high, low)
    }
}
