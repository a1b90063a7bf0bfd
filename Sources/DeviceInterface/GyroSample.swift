/// One gyroscope reading as a phone's app gets it: the rate the phone turns at about its own axes (x right, y top,
/// z out of the screen; counter-clockwise positive, as Core Motion and Android report it), rad/s, stamped on the
/// phone's own clock at the same instants as its accelerometer's samples. The world makes it; the device reads it.
public struct GyroSample: Sendable, Equatable {
    public let timestamp: Double
    public let x: Float
    public let y: Float
    public let z: Float

    public init(timestamp: Double, x: Float, y: Float, z: Float) {
        self.timestamp = timestamp
        self.x = x
        self.y = y
        self.z = z
    }
}
