import Geometry

/// One point-to-point movement of a hand holding a phone, on the path people make: the minimum-jerk profile, the
/// smoothest path between two points at rest, which Flash and Hogan (1985) found to match measured unconstrained
/// reaching (straight paths, bell-shaped speed). The phone's acceleration is this path's second derivative: the
/// world differentiates motion, it never labels it.
package struct MinimumJerkMove: Sendable, Equatable {
    package let from: Vector3
    package let to: Vector3
    /// World time the move starts, seconds.
    package let start: Double
    /// How long it lasts, seconds.
    package let duration: Double

    /// The peak speed of a minimum-jerk move is this many times its mean speed.
    package static let peakSpeedFactor = 1.875
    /// The peak acceleration is this many times distance / duration², at a fifth of the way in time
    /// ((3 - √3) / 6), and again, braking, at four fifths.
    package static let peakAccelerationFactor = 10 / 3.0.squareRoot()

    package init(from: Vector3, to: Vector3, start: Double, duration: Double) {
        precondition(duration > 0, "a move takes time")
        self.from = from
        self.to = to
        self.start = start
        self.duration = duration
    }

    /// The move that covers `distance` metres from `from` along `direction` with the given peak speed.
    package init(from: Vector3, direction: Vector3, distance: Double, peakSpeed: Double, start: Double) {
        self.init(from: from, to: from + direction.normalized * distance, start: start,
                  duration: Self.peakSpeedFactor * distance / peakSpeed)
    }

    package var distance: Double { (to - from).length }
    package var end: Double { start + duration }
    package var peakSpeed: Double { Self.peakSpeedFactor * distance / duration }
    package var peakAcceleration: Double { Self.peakAccelerationFactor * distance / (duration * duration) }

    /// The fraction of the way covered, its rate and its second rate at world time `t` (held at the ends).
    @inline(__always)
    private func profile(_ t: Double) -> (s: Double, ds: Double, dds: Double) {
        let u = (t - start) / duration
        guard u > 0 else { return (0, 0, 0) }
        guard u < 1 else { return (1, 0, 0) }
        let u2 = u * u, u3 = u2 * u
        let s = u3 * (10 - 15 * u + 6 * u2)
        let ds = 30 * u2 * (1 - u) * (1 - u) / duration
        let dds = 60 * u * (1 - 3 * u + 2 * u2) / (duration * duration)
        return (s, ds, dds)
    }

    package func position(at t: Double) -> Vector3 { from + (to - from) * profile(t).s }
    package func velocity(at t: Double) -> Vector3 { (to - from) * profile(t).ds }
    package func acceleration(at t: Double) -> Vector3 { (to - from) * profile(t).dds }
}
