import FrameworkEnums
import Foundation

/// An acceleration, in g (9.80665 m/s²), along the phone's axes (x right, y top, z out of the screen), as Core
/// Motion gives it: a phone lying screen-up at rest reads z = −1.
public struct CMAcceleration: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init() { self.init(x: 0, y: 0, z: 0) }

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A rate of turn, rad/s, about the phone's axes, counter-clockwise positive looking down the axis.
public struct CMRotationRate: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init() { self.init(x: 0, y: 0, z: 0) }

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A unit quaternion.
public struct CMQuaternion: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public var w: Double

    public init() { self.init(x: 0, y: 0, z: 0, w: 1) }

    public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }
}

/// A 3×3 rotation matrix, row by row.
public struct CMRotationMatrix: Sendable, Equatable {
    public var m11: Double, m12: Double, m13: Double
    public var m21: Double, m22: Double, m23: Double
    public var m31: Double, m32: Double, m33: Double

    public init() { self.init(m11: 1, m12: 0, m13: 0, m21: 0, m22: 1, m23: 0, m31: 0, m32: 0, m33: 1) }

    public init(m11: Double, m12: Double, m13: Double, m21: Double, m22: Double, m23: Double,
                m31: Double, m32: Double, m33: Double) {
        (self.m11, self.m12, self.m13) = (m11, m12, m13)
        (self.m21, self.m22, self.m23) = (m21, m22, m23)
        (self.m31, self.m32, self.m33) = (m31, m32, m33)
    }
}

/// A magnetic field, microtesla.
public struct CMMagneticField: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init() {
        x = 0
        y = 0
        z = 0
    }
}

/// Core Motion's names for the accuracy of a calibrated field (declared in C, as Apple's are: non-frozen).
public typealias CMMagneticFieldCalibrationAccuracy = FrameworkEnums.CMMagneticFieldCalibrationAccuracy
/// Where the device-motion's sensors are.
public typealias CMDeviceMotionSensorLocation = FrameworkEnums.CMDeviceMotionSensorLocation

extension FrameworkEnums.CMMagneticFieldCalibrationAccuracy: @retroactive @unchecked Sendable {}
extension FrameworkEnums.CMDeviceMotionSensorLocation: @retroactive @unchecked Sendable {}

/// A magnetic field with the accuracy of its calibration.
public struct CMCalibratedMagneticField: Sendable {
    public var field: CMMagneticField
    public var accuracy: CMMagneticFieldCalibrationAccuracy

    public init() {
        field = CMMagneticField()
        accuracy = .uncalibrated
    }
}

/// The frame a device-motion's attitude is measured against.
public struct CMAttitudeReferenceFrame: OptionSet, Sendable {
    public let rawValue: UInt

    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// z vertical, x arbitrary in the horizontal plane (where the phone pointed when updates started).
    public static let xArbitraryZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 0)
    /// The same, with the magnetometer correcting yaw's drift (the simulated phones have none: as the plain one).
    public static let xArbitraryCorrectedZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 1)
    /// x toward magnetic north: needs a magnetometer.
    public static let xMagneticNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 2)
    /// x toward true north: needs a magnetometer and a location.
    public static let xTrueNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 3)
}

/// Core Motion's error domain and the codes the face gives.
public let CMErrorDomain = "CMErrorDomain"
/// The service asked for is not available on this device (Core Motion's `CMErrorNotAvailable`).
public let CMErrorNotAvailable = 109

/// A sample of one of the motion sensors, stamped on the phone's own clock: seconds since it started, as
/// `ProcessInfo.systemUptime` reads on a phone (in the room, `SimulatedDevice.uptime`; the machine's
/// `systemUptime` is not the phone's).
open class CMLogItem: NSObject, @unchecked Sendable {
    public let timestamp: TimeInterval

    init(timestamp: TimeInterval) {
        self.timestamp = timestamp
    }
}

/// One accelerometer sample: gravity and the phone's own acceleration together.
open class CMAccelerometerData: CMLogItem, @unchecked Sendable {
    public let acceleration: CMAcceleration

    init(timestamp: TimeInterval, acceleration: CMAcceleration) {
        self.acceleration = acceleration
        super.init(timestamp: timestamp)
    }
}

/// One gyroscope sample, raw (with the chip's bias).
open class CMGyroData: CMLogItem, @unchecked Sendable {
    public let rotationRate: CMRotationRate

    init(timestamp: TimeInterval, rotationRate: CMRotationRate) {
        self.rotationRate = rotationRate
        super.init(timestamp: timestamp)
    }
}

/// One device-motion sample: the phone's attitude and the accelerometer's reading split into gravity and the
/// user's own acceleration, from the two sensors fused on the phone (the room's phones have no magnetometer).
open class CMDeviceMotion: CMLogItem, @unchecked Sendable {
    public let attitude: CMAttitude
    public let rotationRate: CMRotationRate
    public let gravity: CMAcceleration
    public let userAcceleration: CMAcceleration
    /// Uncalibrated and zero: no magnetometer.
    public let magneticField = CMCalibratedMagneticField()
    /// −1: no magnetometer, so no heading.
    public let heading: Double = -1
    public let sensorLocation = CMDeviceMotionSensorLocation.default

    init(timestamp: TimeInterval, attitude: CMAttitude, rotationRate: CMRotationRate, gravity: CMAcceleration,
         userAcceleration: CMAcceleration) {
        self.attitude = attitude
        self.rotationRate = rotationRate
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        super.init(timestamp: timestamp)
    }
}

public typealias CMAccelerometerHandler = (CMAccelerometerData?, Error?) -> Void
public typealias CMGyroHandler = (CMGyroData?, Error?) -> Void
public typealias CMDeviceMotionHandler = (CMDeviceMotion?, Error?) -> Void
