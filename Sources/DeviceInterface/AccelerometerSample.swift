/// One accelerometer reading as a phone's app gets it: the specific force (what the proof mass feels: gravity's
/// reaction plus the phone's own acceleration), m/s², in the phone's frame (x right, y top, z out of the screen; a
/// phone lying screen-up reads +9.8 on z), stamped on the phone's own clock. The world makes it; the device reads it.
public struct AccelerometerSample: Sendable, Equatable {
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

    public var magnitude: Float { (x * x + y * y + z * z).squareRoot() }
}
