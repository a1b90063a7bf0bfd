import Foundation
import Geometry
import Testing

@Suite struct PairGeometryTests {
    let a = Pose(position: .zero, orientation: Orientation(heading: 0))

    private func degrees(_ r: Double) -> Double { Angle.degrees(fromRadians: r) }

    @Test func straightAhead() {
        let b = Pose(position: Vector3(2, 0, 0), orientation: Orientation(heading: .pi))
        let g = PairGeometry(a, b)
        #expect(g.distance == 2)
        #expect(abs(g.bearingFromA.azimuth) < 1e-12 && abs(g.bearingFromA.elevation) < 1e-12)
        #expect(g.bearingFromB.offBoresight < 1e-12)
    }

    /// East-facing A has its right edge to the south: a device south-east of it is 45 degrees to the right.
    @Test func rightAndAbove() {
        let b = Pose(position: Vector3(2, -2, 0), orientation: Orientation(heading: 0))
        #expect(abs(degrees(PairGeometry(a, b).bearingFromA.azimuth) - 45) < 1e-9)
        let c = Pose(position: Vector3(1, 0, 1), orientation: Orientation(heading: 0))
        let g = PairGeometry(a, c)
        #expect(abs(degrees(g.bearingFromA.elevation) - 45) < 1e-9)
        #expect(abs(g.distance - 2.0.squareRoot()) < 1e-12)
        // C faces east too, so A is behind it: 180 degrees off its boresight less the 45 degree climb.
        #expect(abs(degrees(g.bearingFromB.offBoresight) - 135) < 1e-9)
    }

    @Test(arguments: [(0.0, 0.0), (30.0, 10.0), (-60.0, 0.0), (45.0, -45.0), (170.0, 5.0)])
    func bearingRoundTrip(_ angles: (Double, Double)) {
        let bearing = Bearing(
            azimuth: Angle.radians(fromDegrees: angles.0), elevation: Angle.radians(fromDegrees: angles.1))
        #expect(abs(degrees(bearing.azimuth) - angles.0) < 1e-9)
        #expect(abs(degrees(bearing.elevation) - angles.1) < 1e-9)
        #expect(abs(bearing.direction.length - 1) < 1e-12)
    }

    @Test func coincidentDevicesHaveZeroDistance() {
        let g = PairGeometry(a, a)
        #expect(g.distance == 0)
        #expect(g.bearingFromA.offBoresight == 0)
    }
}
