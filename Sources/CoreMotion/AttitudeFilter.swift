import Foundation

/// A phone's own estimate of its attitude from its accelerometer and gyroscope (no magnetometer): the gyroscope's
/// rates integrated, the vertical pulled toward the accelerometer's while it reads about 1 g (Mahony's
/// complementary filter; Mahony, Hamel & Pflimlin, IEEE TAC 2008). The device side's: it reads only samples.
struct AttitudeFilter {
    /// The turn from the phone's frame to the reference frame (w, x, y, z).
    private(set) var q = (w: 1.0, x: 0.0, y: 0.0, z: 0.0)
    private var lastTime: Double?
    /// How fast the vertical follows the accelerometer's, 1/s: a tilt error halves in about 0.35 s, slow enough
    /// that a bump's jolt barely moves it, fast enough to hold the gyroscope's bias (a few mrad/s) under a degree.
    static let gain = 2.0

    static let gravity = 9.80665

    /// The vertical, "up", in the phone's frame as the filter has it.
    var up: (x: Double, y: Double, z: Double) {
        (2 * (q.x * q.z - q.w * q.y), 2 * (q.y * q.z + q.w * q.x), 1 - 2 * (q.x * q.x + q.y * q.y))
    }

    /// Takes one pair of samples: `a` the specific force (m/s², up is positive), `w` the rates (rad/s), at `time`
    /// on the phone's clock.
    mutating func update(a: (x: Double, y: Double, z: Double), w: (x: Double, y: Double, z: Double), time: Double) {
        let norm = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
        guard let last = lastTime else {
            lastTime = time
            if norm > 0 { level(to: (a.x / norm, a.y / norm, a.z / norm)) }
            return
        }
        lastTime = time
        let dt = max(0, min(time - last, 0.1))
        var (wx, wy, wz) = w
        // Only a reading near 1 g says where up is; a jolt or a fall says nothing of it.
        if norm > 0.5 * Self.gravity, norm < 1.5 * Self.gravity {
            let m = (a.x / norm, a.y / norm, a.z / norm), v = up
            wx += Self.gain * (m.1 * v.z - m.2 * v.y)
            wy += Self.gain * (m.2 * v.x - m.0 * v.z)
            wz += Self.gain * (m.0 * v.y - m.1 * v.x)
        }
        let h = 0.5 * dt
        let (qw, qx, qy, qz) = q
        q = (qw - h * (qx * wx + qy * wy + qz * wz),
             qx + h * (qw * wx + qy * wz - qz * wy),
             qy + h * (qw * wy - qx * wz + qz * wx),
             qz + h * (qw * wz + qx * wy - qy * wx))
        normalize()
    }

    /// Starts from the turn that takes the measured up, `u` (a unit vector in the phone's frame), to the reference
    /// frame's z by the shortest arc: yaw is arbitrary, as in Core Motion's `xArbitraryZVertical`.
    private mutating func level(to u: (Double, Double, Double)) {
        // The axis u × z, the angle between them: q = (1 + u·z, u × z), normalised.
        let (ux, uy, uz) = u
        if uz < -0.999999 {
            q = (0, 1, 0, 0)
            return
        }
        q = (1 + uz, uy, -ux, 0)
        normalize()
    }

    private mutating func normalize() {
        let n = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).squareRoot()
        guard n > 0 else {
            q = (1, 0, 0, 0)
            return
        }
        q = (q.w / n, q.x / n, q.y / n, q.z / n)
    }
}
