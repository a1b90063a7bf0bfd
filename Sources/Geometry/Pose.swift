/// Where a device is and how it is turned, at one instant.
public struct Pose: Sendable, Equatable {
    /// Position in metres, world frame.
    public var position: Vector3
    public var orientation: Orientation

    public init(position: Vector3, orientation: Orientation) {
        self.position = position
        self.orientation = orientation
    }
}
