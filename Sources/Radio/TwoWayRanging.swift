import DeviceInterface
import Foundation

/// One two-way ranging exchange simulated at the level of the chips' timestamps.
///
/// Each device timestamps with its own drifting clock, quantised to ticks, in a counter that wraps at 2^40 ticks as
/// on real chips. The distance is then computed from the timestamps alone, exactly as firmware would.
package enum TwoWayRanging {
    /// Speed of light in air, close enough to vacuum for centimetre work.
    package static let speedOfLight = 299_792_458.0
    /// The timestamp counters are 40 bits wide.
    package static let counterModulus = 1_099_511_627_776.0
    static let counterMask: Int64 = (1 << 40) - 1

    /// The timestamps of one exchange, wrapped to 40 bits: poll sent (1), poll received (2), response sent (3),
    /// response received (4), final sent (5), final received (6). Single-sided ranging uses 1 to 4.
    package struct Timestamps: Sendable, Equatable {
        package var t1, t2, t3, t4, t5, t6: Int64
    }

    /// Simulates the timestamps of one exchange that starts at global time `start`.
    ///
    /// - Parameters:
    ///   - initiator: the device that sends the poll and the final message.
    ///   - responder: the device that answers.
    ///   - start: global time of the poll, seconds.
    ///   - flightTime: the effective one-way propagation time, seconds, including channel and antenna errors.
    ///   - responderReplyDelay, initiatorReplyDelay: scheduled delays, in each device's own clock, seconds.
    ///   - tick: the tick duration, seconds.
    ///   - jitter: the receive-timestamp errors of the poll, response and final, seconds.
    package static func timestamps(
        initiator: DeviceRadio, responder: DeviceRadio, start: Double, flightTime: Double,
        responderReplyDelay: Double, initiatorReplyDelay: Double, tick: Double,
        jitter: (poll: Double, response: Double, final: Double) = (0, 0, 0)
    ) -> Timestamps {
        let rateA = (1 + initiator.clockOffset) / tick
        let rateB = (1 + responder.clockOffset) / tick
        // Counter readings at the exchange's start; intervals are then taken from small offsets so that a large
        // global time never costs precision in the picoseconds that matter.
        let baseA = wrapCounter(initiator.clockPhaseTicks + start * rateA)
        let baseB = wrapCounter(responder.clockPhaseTicks + start * rateB)
        // Receive timestamps are the nearest tick to the detected first path: rounding, unlike truncation, adds no
        // bias; each reading errs by up to half a tick, which bounds one exchange's distance error at about 2.3 mm.
        @inline(__always) func readA(_ dt: Double) -> Int64 { Int64((baseA + dt * rateA).rounded()) }
        @inline(__always) func readB(_ dt: Double) -> Int64 { Int64((baseB + dt * rateB).rounded()) }

        let t1 = readA(0)
        // Sending is scheduled on the sender's counter; the message leaves when the counter reaches that value.
        let sentAt1 = (Double(t1) - baseA) / rateA
        let t2 = readB(sentAt1 + flightTime + jitter.poll)
        let t3 = t2 + Int64((responderReplyDelay / tick).rounded())
        let sentAt3 = (Double(t3) - baseB) / rateB
        let t4 = readA(sentAt3 + flightTime + jitter.response)
        let t5 = t4 + Int64((initiatorReplyDelay / tick).rounded())
        let sentAt5 = (Double(t5) - baseA) / rateA
        let t6 = readB(sentAt5 + flightTime + jitter.final)
        return Timestamps(
            t1: t1 & counterMask, t2: t2 & counterMask, t3: t3 & counterMask,
            t4: t4 & counterMask, t5: t5 & counterMask, t6: t6 & counterMask
        )
    }

    /// A counter reading reduced modulo 2^40. The modulus is a power of two, so the division, the floor and the
    /// product are exact in floating point, and cheaper than `fmod`.
    @inline(__always)
    static func wrapCounter(_ ticks: Double) -> Double {
        ticks - (ticks / counterModulus).rounded(.down) * counterModulus
    }

    /// An interval between two wrapped counter readings, in ticks.
    @inline(__always)
    static func interval(from a: Int64, to b: Int64) -> Double {
        Double((b &- a) & counterMask)
    }

    /// The time of flight by asymmetric double-sided two-way ranging, in ticks:
    /// (Tround1 x Tround2 - Treply1 x Treply2) / (Tround1 + Tround2 + Treply1 + Treply2).
    package static func doubleSidedTimeOfFlight(_ t: Timestamps) -> Double {
        let round1 = interval(from: t.t1, to: t.t4)
        let reply1 = interval(from: t.t2, to: t.t3)
        let round2 = interval(from: t.t3, to: t.t6)
        let reply2 = interval(from: t.t4, to: t.t5)
        return (round1 * round2 - reply1 * reply2) / (round1 + round2 + reply1 + reply2)
    }

    /// The time of flight by single-sided two-way ranging, in ticks: (Tround1 - Treply1) / 2.
    package static func singleSidedTimeOfFlight(_ t: Timestamps) -> Double {
        (interval(from: t.t1, to: t.t4) - interval(from: t.t2, to: t.t3)) / 2
    }

    /// The distance, metres, from the timestamps by the given scheme.
    package static func distance(
        _ t: Timestamps, scheme: RadioConfiguration.RangingScheme, tick: Double
    ) -> Double {
        let flight = scheme == .doubleSided ? doubleSidedTimeOfFlight(t) : singleSidedTimeOfFlight(t)
        return flight * tick * speedOfLight
    }
}
