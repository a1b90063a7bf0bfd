/// A point or direction in metres, in the world frame (x east, y north, z up) or a device frame.
public typealias Vector3 = SIMD3<Double>

extension SIMD3 where Scalar == Double {
    /// The dot product.
    @inlinable
    public func dot(_ other: Self) -> Double {
        (self * other).sum()
    }

    /// The cross product, right-handed.
    @inlinable
    public func cross(_ other: Self) -> Self {
        Self(
            y * other.z - z * other.y,
            z * other.x - x * other.z,
            x * other.y - y * other.x
        )
    }

    /// The Euclidean length.
    @inlinable
    public var length: Double {
        dot(self).squareRoot()
    }

    /// The square of the length: comparing it with a squared bound needs no square root.
    @inlinable
    public var lengthSquared: Double { dot(self) }

    /// The vector scaled to length 1; the zero vector stays zero.
    @inlinable
    public var normalized: Self {
        let l = length
        return l > 0 ? self / l : self
    }
}

/// Degrees and radians, spelled out at call sites where an angle crosses a user-facing boundary.
public enum Angle {
    /// Converts degrees to radians.
    @inlinable
    public static func radians(fromDegrees degrees: Double) -> Double { degrees * .pi / 180 }

    /// Converts radians to degrees.
    @inlinable
    public static func degrees(fromRadians radians: Double) -> Double { radians * 180 / .pi }
}
