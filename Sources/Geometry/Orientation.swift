import Foundation

/// How a device is turned in the world: its own axes expressed in world coordinates.
///
/// The device frame is the phone's: x toward its right edge, y toward its top, z out of the screen. The ranging
/// boresight is the normal of the back of the phone, the device's -z axis. The world frame is x east, y north, z up.
public struct Orientation: Sendable, Equatable {
    /// The device's x axis (right edge) in world coordinates.
    public let right: Vector3
    /// The device's y axis (top edge) in world coordinates.
    public let top: Vector3
    /// The device's z axis (out of the screen) in world coordinates.
    public let screen: Vector3

    /// The boresight (out of the back of the phone) in world coordinates.
    @inlinable
    public var boresight: Vector3 { -screen }

    /// An orientation from three orthonormal, right-handed axes.
    public init(right: Vector3, top: Vector3, screen: Vector3) {
        self.right = right
        self.top = top
        self.screen = screen
    }

    /// A phone whose back faces `heading`, tilted by `pitch` and rolled by `roll` (all radians).
    ///
    /// - Parameters:
    ///   - heading: compass direction of the boresight in the horizontal plane, counter-clockwise from east.
    ///   - pitch: elevation of the boresight above the horizon; -pi/2 is a phone lying screen-up on a table.
    ///   - roll: rotation about the boresight; positive turns the top of the phone toward its former right edge.
    public init(heading: Double, pitch: Double = 0, roll: Double = 0) {
        // An angle of +0 has sine +0 and cosine 1 exactly: most orientations made (a holder's body, a phone held
        // upright) have no pitch and no roll, and their four functions were half the work of making one.
        @inline(__always) func sineAndCosine(_ angle: Double) -> (Double, Double) {
            angle.bitPattern == 0 ? (0, 1) : (sin(angle), cos(angle))
        }
        let (sinPitch, cosPitch) = sineAndCosine(pitch), (sinRoll, cosRoll) = sineAndCosine(roll)
        let forward = Vector3(cosPitch * cos(heading), cosPitch * sin(heading), sinPitch)
        // The top edge is the world's up direction tilted with the boresight; written out so that it stays defined
        // at pitch = +-90 degrees, where "up projected on the screen plane" would vanish.
        let top0 = Vector3(-sinPitch * cos(heading), -sinPitch * sin(heading), cosPitch)
        let screen = -forward
        let right0 = top0.cross(screen)
        self.right = right0 * cosRoll - top0 * sinRoll
        self.top = right0 * sinRoll + top0 * cosRoll
        self.screen = screen
    }

    /// A phone held upright in portrait with its back facing `target` from `position` (no roll).
    public static func facing(_ target: Vector3, from position: Vector3) -> Orientation {
        let d = target - position
        let horizontal = (d.x * d.x + d.y * d.y).squareRoot()
        return Orientation(heading: atan2(d.y, d.x), pitch: atan2(d.z, horizontal))
    }

    /// Expresses a world-frame vector in the device frame.
    @inlinable
    public func toDevice(_ world: Vector3) -> Vector3 {
        Vector3(right.dot(world), top.dot(world), screen.dot(world))
    }

    /// Expresses a device-frame vector in the world frame.
    @inlinable
    public func toWorld(_ device: Vector3) -> Vector3 {
        right * device.x + top * device.y + screen * device.z
    }

    /// This orientation turned by `rotation`: about its direction (world frame) by its length, radians (Rodrigues).
    public func turned(by rotation: Vector3) -> Orientation {
        let angle = rotation.length
        guard angle > 1e-15 else { return self }
        let axis = rotation / angle, c = cos(angle), s = sin(angle)
        func turn(_ v: Vector3) -> Vector3 { v * c + axis.cross(v) * s + axis * (axis.dot(v) * (1 - c)) }
        return Orientation(right: turn(right), top: turn(top), screen: turn(screen))
    }

    /// The rate a phone turned at from `before` to this orientation over `interval` seconds, radians a second about
    /// the device's own axes (as a gyroscope reads it): the rotation between the two, taken as turned evenly.
    public func rotationRate(since before: Orientation, over interval: Double) -> Vector3 {
        guard interval > 0 else { return .zero }
        // The skew part of the rotation from `before` to this, in `before`'s device frame: its axis times the sine
        // of its angle.
        let skew = Vector3(before.screen.dot(top) - before.top.dot(screen),
                           before.right.dot(screen) - before.screen.dot(right),
                           before.top.dot(right) - before.right.dot(top)) / 2
        let sine = skew.length
        guard sine > 1e-15 else { return .zero }
        let angle = asin(min(sine, 1))
        return skew * (angle / sine / interval)
    }
}
