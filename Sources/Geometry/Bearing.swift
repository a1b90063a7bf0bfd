import Foundation

/// A direction seen from a device, in its own frame.
public struct Bearing: Sendable, Equatable {
    /// Unit vector toward the other device, device frame (x right, y top, z out of the screen).
    public let direction: Vector3

    /// Wraps a device-frame direction; it is normalised.
    public init(direction: Vector3) {
        self.direction = direction.normalized
    }

    /// Wraps a direction the caller knows to be of unit length, without normalising it again (the pair geometry
    /// rotates a unit vector, which stays one; normalising twice per pair and round was 6% of a ranging round).
    @inlinable
    public init(unitDirection: Vector3) {
        self.direction = unitDirection
    }

    /// A bearing from azimuth and elevation (radians) as this type defines them.
    public init(azimuth: Double, elevation: Double) {
        self.direction = Vector3(cos(elevation) * sin(azimuth), sin(elevation), -cos(elevation) * cos(azimuth))
    }

    /// Angle right of the boresight in the device's horizontal (x, -z) plane, radians in (-pi, pi].
    @inlinable
    public var azimuth: Double { atan2(direction.x, -direction.z) }

    /// Angle above the device's horizontal plane, toward its top edge, radians in [-pi/2, pi/2].
    @inlinable
    public var elevation: Double { asin(min(max(direction.y, -1), 1)) }

    /// Angle between the direction and the boresight, radians in [0, pi]; the field of view is a cone on it.
    @inlinable
    public var offBoresight: Double { acos(min(max(-direction.z, -1), 1)) }

    /// The angle between two bearings, radians in [0, pi].
    @inlinable
    public func angle(to other: Bearing) -> Double {
        acos(min(max(direction.dot(other.direction), -1), 1))
    }
}
