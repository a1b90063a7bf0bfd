import Geometry
import Sessions

/// One thing that happened in a run, produced once and handed to every consumer (the trace, the summary, and any
/// observer: pictures, the app library). Devices are named by their index in the run; for a pair, `device` is the
/// side the event belongs to and `peer` the other (for contacts and near misses, which belong to both, `device` is
/// the lower index).
package struct RunEvent: Sendable {
    /// Seconds on the run's clock.
    package let time: Double
    package let kind: Kind

    package init(time: Double, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    package enum Kind: Sendable {
        /// `device` discovered `peer` (this incarnation of it).
        case found(device: Int, peer: Int)
        /// `device` lost `peer`: a goodbye (`peerEnded`) or silence (`timeout`).
        case lost(device: Int, peer: Int, reason: SessionRemovalReason)
        /// A change in `device`'s session with `peer`, as the app's delegate hears it: began, suspended, resumed,
        /// removed, invalidated, and every estimate (`didUpdate`, with the reading behind it in ``Reading``).
        case session(device: Int, peer: Int, event: SessionEvent, reading: Reading?)
        /// `device`, the pair's initiator, fired a bump with `peer`.
        case bump(device: Int, peer: Int, estimate: Float, trueDistance: Double)
        /// The phones' bodies began to touch, or parted again (with the least distance between their centres while
        /// they touched).
        case contactStarted(device: Int, peer: Int)
        case contactEnded(device: Int, peer: Int, minimumDistance: Double)
        /// The phones' bodies came within 25 cm without touching; `time` is when they were closest. The least
        /// distance between the centres, and the bodies' closest approach (`gap`, surface to surface).
        case nearMiss(device: Int, peer: Int, minimumDistance: Double, gap: Double)
        /// Where `device` was, and how it was turned.
        case pose(device: Int, pose: Pose)
        /// `device` received `peer`'s profile after a bump.
        case profile(device: Int, peer: Int, bytes: Int)
        /// The haptic intensity `device` plays for `peer`, the peer it holds nearest (0 to 1), at each update.
        case haptic(device: Int, peer: Int, intensity: Double)
        /// The air used in the second up to `time`, by channel: exchanges attempted and those lost to collisions
        /// (from the policies that model the air), and exchanges received by true distance band.
        case air(exchanges: [Int], collided: [Int], receivedByBand: [Int])
    }

    /// What lay behind one update: the raw measurement the estimator was given and the truth it is scored against,
    /// both from the side of the device that received the update.
    package struct Reading: Sendable, Equatable {
        /// The pair's measured distance, metres; `nil` when out of range.
        package let rawDistance: Double?
        /// This side's measured horizontal angle, radians (right of the boresight); `nil` when none was measured.
        package let rawHorizontalAngle: Double?
        package let trueDistance: Double
        /// The unit vector toward the peer in this device's frame (x right, y top, z out of the screen).
        package let trueDirection: Vector3
        /// Whether this side initiated the exchange (the lower peer id).
        package let initiator: Bool
    }
}
