import DeviceInterface
import Foundation
import Geometry

/// The one rule of the air, for every face of the simulator (a run's planned exchanges, the UCI room's rounds):
/// whether a frame is received at its receiver among the frames that overlap it in time on its channel
/// (docs/airtime.md, "Frames and capture").
///
/// A transmitter farther than the medium's interference range from a receiver is not heard there; nearer, its frame
/// arrives at the level the radio's path loss gives. A frame is received when nothing overlaps it, or when it
/// arrives at least the medium's capture threshold stronger than the sum of what overlaps it (without a threshold,
/// never). A device's one radio, busy with another frame, hears nothing else: the callers decide that, as only they
/// know who sends and listens when.
package struct FrameReception: Sendable {
    let rangeSquared: Double
    /// Linear power ratio a frame needs over its interference; +∞ without capture.
    let capture: Double
    let exponent: Double
    let nearestSquared: Double

    /// - Parameters:
    ///   - pathLossExponent: how the level falls with distance (the radio's own).
    ///   - nearestDistance: the distance under which the level grows no more (the radio's own), metres.
    package init(medium: Medium, pathLossExponent: Double = 2, nearestDistance: Double = 0.02) {
        rangeSquared = medium.interferenceRange * medium.interferenceRange
        capture = medium.captureThreshold.map { Self.ratio(dB: $0) } ?? .infinity
        exponent = pathLossExponent
        nearestSquared = nearestDistance * nearestDistance
    }

    private static func ratio(dB: Double) -> Double { pow(10, dB / 10) }

    /// The level at `b` of a frame from `a`, relative to one from 1 m; 0 beyond the interference range.
    @inline(__always)
    package func heard(_ a: Vector3, _ b: Vector3) -> Double {
        (a - b).lengthSquared > rangeSquared ? 0 : level(a, b)
    }

    /// The level at `b` of a frame from `a`, relative to one from 1 m.
    @inline(__always)
    package func level(_ a: Vector3, _ b: Vector3) -> Double {
        let d2 = max((a - b).lengthSquared, nearestSquared)
        return exponent == 2 ? 1 / d2 : pow(d2, -exponent / 2)
    }

    /// Whether a frame arriving at `signal` is received over `interference`, the summed levels of the frames that
    /// overlap it (both as ``level(_:_:)`` gives them).
    @inline(__always)
    package func survives(signal: Double, interference: Double) -> Bool {
        interference <= 0 || signal >= capture * interference
    }
}
