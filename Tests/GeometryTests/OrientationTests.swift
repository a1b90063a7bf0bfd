import Foundation
import Geometry
import Testing

@Suite struct OrientationTests {
    private func close(_ a: Vector3, _ b: Vector3, _ tolerance: Double = 1e-12) -> Bool {
        (a - b).length < tolerance
    }

    @Test func uprightFacingEast() {
        let o = Orientation(heading: 0)
        #expect(close(o.boresight, Vector3(1, 0, 0)))
        #expect(close(o.top, Vector3(0, 0, 1)))
        #expect(close(o.right, Vector3(0, -1, 0)))
    }

    @Test func flatOnATableLooksDown() {
        let o = Orientation(heading: .pi / 2, pitch: -.pi / 2)
        #expect(close(o.boresight, Vector3(0, 0, -1)))
        #expect(close(o.screen, Vector3(0, 0, 1)))
        #expect(close(o.top, Vector3(0, 1, 0)))
    }

    @Test(arguments: [
        (0.3, 0.2, 0.1), (-2.0, 1.2, -0.7), (3.1, -1.5, 2.9), (1.0, .pi / 2, 0.0), (0.0, -.pi / 2, 1.0),
    ])
    func axesAreOrthonormalAndRightHanded(_ angles: (Double, Double, Double)) {
        let o = Orientation(heading: angles.0, pitch: angles.1, roll: angles.2)
        for axis in [o.right, o.top, o.screen] { #expect(abs(axis.length - 1) < 1e-12) }
        #expect(abs(o.right.dot(o.top)) < 1e-12)
        #expect(abs(o.top.dot(o.screen)) < 1e-12)
        #expect(close(o.right.cross(o.top), o.screen))
        let v = Vector3(0.3, -1.2, 2.5)
        #expect(close(o.toWorld(o.toDevice(v)), v))
    }

    @Test func facingPointsTheBoresightAtTheTarget() {
        let from = Vector3(1, 2, 0.5)
        let to = Vector3(-3, 4, 1.5)
        let o = Orientation.facing(to, from: from)
        #expect(close(o.boresight, (to - from).normalized))
    }
}
