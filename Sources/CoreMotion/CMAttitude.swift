import Foundation

/// The phone's orientation against the reference frame (z up): as a quaternion that turns the phone's axes into the
/// reference frame's, as its rotation matrix (the reference frame's axes in the phone's frame, row by row, so that
/// gravity is −(m13, m23, m33) as with Apple's), and as Euler angles in Apple's order: yaw about z, then pitch about
/// x (the top raised is positive), then roll about y (the right edge lowered is positive).
open class CMAttitude: NSObject, NSCopying, @unchecked Sendable {
    public private(set) var quaternion: CMQuaternion

    init(quaternion: CMQuaternion) {
        self.quaternion = quaternion
    }

    public func copy(with zone: NSZone? = nil) -> Any { CMAttitude(quaternion: quaternion) }

    /// The rotation from the phone's frame to the reference frame, as a matrix (r[i][j]: reference axis i, phone
    /// axis j).
    private var toReference: [[Double]] {
        let q = quaternion
        let (x, y, z, w) = (q.x, q.y, q.z, q.w)
        return [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    }

    public var rotationMatrix: CMRotationMatrix {
        let r = toReference
        return CMRotationMatrix(m11: r[0][0], m12: r[1][0], m13: r[2][0],
                                m21: r[0][1], m22: r[1][1], m23: r[2][1],
                                m31: r[0][2], m32: r[1][2], m33: r[2][2])
    }

    public var pitch: Double { asin(max(-1, min(1, toReference[2][1]))) }
    public var roll: Double {
        let r = toReference
        return atan2(-r[2][0], r[2][2])
    }
    public var yaw: Double {
        let r = toReference
        return atan2(-r[0][1], r[1][1])
    }

    /// Makes this attitude relative to `attitude`: afterwards it is the turn from `attitude` to this one (an
    /// attitude made relative to itself is the identity).
    public func multiply(byInverseOf attitude: CMAttitude) {
        let a = attitude.quaternion, b = quaternion
        // conj(a) ⊗ b
        let (ax, ay, az, aw) = (-a.x, -a.y, -a.z, a.w)
        quaternion = CMQuaternion(
            x: aw * b.x + ax * b.w + ay * b.z - az * b.y,
            y: aw * b.y - ax * b.z + ay * b.w + az * b.x,
            z: aw * b.z + ax * b.y - ay * b.x + az * b.w,
            w: aw * b.w - ax * b.x - ay * b.y - az * b.z
        )
    }
}
