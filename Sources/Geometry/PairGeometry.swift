/// The true geometry between two devices A and B: the distance, and each one's bearing to the other in its own
/// frame. This is the truth the radio model samples from and the scoring compares against.
public struct PairGeometry: Sendable, Equatable {
    /// Distance between the two devices' positions, metres.
    public let distance: Double
    /// Where B is, seen from A in A's frame.
    public let bearingFromA: Bearing
    /// Where A is, seen from B in B's frame.
    public let bearingFromB: Bearing

    /// Computes the geometry of two poses. Coincident positions give a zero distance and boresight bearings.
    @inlinable
    public init(_ a: Pose, _ b: Pose) {
        let ab = b.position - a.position
        let distance = ab.length
        self.distance = distance
        if distance > 0 {
            let unit = ab / distance
            self.bearingFromA = Bearing(unitDirection: a.orientation.toDevice(unit))
            self.bearingFromB = Bearing(unitDirection: b.orientation.toDevice(-unit))
        } else {
            self.bearingFromA = Bearing(direction: Vector3(0, 0, -1))
            self.bearingFromB = Bearing(direction: Vector3(0, 0, -1))
        }
    }
}
