/// What an app receives for one peer after one measurement, shaped like the phone framework's nearby object.
public struct NearbyUpdate: Sendable, Equatable {
    /// Estimated distance, metres; `nil` out of range.
    public var distance: Float?
    /// Unit vector toward the peer in this device's frame (x right, y top, z out of the screen); `nil` outside
    /// the field of view, in non line of sight, or without a vertical antenna pair.
    public var direction: SIMD3<Float>?
    /// Angle right of the boresight measured by the horizontal antenna pair, radians; `nil` when no angle was
    /// measured.
    public var horizontalAngle: Float?
    /// Where the peer is in height.
    public var verticalEstimate: VerticalEstimate
    /// Time of the measurement, seconds.
    public var timestamp: Double

    public init(
        distance: Float?, direction: SIMD3<Float>?, horizontalAngle: Float?,
        verticalEstimate: VerticalEstimate, timestamp: Double
    ) {
        self.distance = distance
        self.direction = direction
        self.horizontalAngle = horizontalAngle
        self.verticalEstimate = verticalEstimate
        self.timestamp = timestamp
    }
}
