import Geometry
import Testing
import World

@Suite struct HandMotionTests {
    private let move = MinimumJerkMove(from: Vector3(1, 2, 1.2), to: Vector3(1.3, 2.4, 1.2), start: 2, duration: 0.5)

    @Test func aMoveStartsAndEndsAtRest() {
        #expect(move.position(at: 1.9) == move.from && move.position(at: 2) == move.from)
        #expect((move.position(at: 2.5) - move.to).length < 1e-12 && move.position(at: 3) == move.to)
        for t in [1.0, 2.0, 2.5, 3.0] {
            #expect(move.velocity(at: t).length < 1e-12)
            #expect(move.acceleration(at: t).length < 1e-12)
        }
        #expect(abs(move.distance - 0.5) < 1e-12)
    }

    /// The profile's figures (peak speed 1.875 D/T at the middle, peak acceleration 10/√3 D/T² at a fifth of the
    /// way), found on a fine grid, and its derivatives consistent with its path.
    @Test func theProfileHasTheMinimumJerkPeaks() {
        var fastest = (t: 0.0, v: 0.0), hardest = (t: 0.0, a: 0.0)
        for k in 0...50_000 {
            let t = 2 + 0.5 * Double(k) / 50_000
            let v = move.velocity(at: t).length, a = move.acceleration(at: t).length
            if v > fastest.v { fastest = (t, v) }
            if a > hardest.a { hardest = (t, a) }
        }
        #expect(abs(fastest.v - 1.875 * 0.5 / 0.5) < 1e-6)
        #expect(abs(fastest.t - 2.25) < 1e-4)
        #expect(abs(hardest.a - 10 / 3.0.squareRoot() * 0.5 / 0.25) < 1e-6)
        #expect(abs((hardest.t - 2) / 0.5 - (3 - 3.0.squareRoot()) / 6) < 1e-4 || abs((hardest.t - 2) / 0.5 - (3 + 3.0.squareRoot()) / 6) < 1e-4)
        #expect(abs(move.peakSpeed - fastest.v) < 1e-6 && abs(move.peakAcceleration - hardest.a) < 1e-6)
        let h = 1e-5
        for t in stride(from: 2.01, through: 2.49, by: 0.04) {
            let v = (move.position(at: t + h) - move.position(at: t - h)) / (2 * h)
            let a = (move.velocity(at: t + h) - move.velocity(at: t - h)) / (2 * h)
            #expect((v - move.velocity(at: t)).length < 1e-6)
            #expect((a - move.acceleration(at: t)).length < 1e-4)
        }
    }

    @Test func aMoveMadeByItsPeakSpeed() {
        let m = MinimumJerkMove(from: .zero, direction: Vector3(0, 2, 0), distance: 0.3, peakSpeed: 1.2, start: 0)
        #expect(abs(m.duration - 1.875 * 0.3 / 1.2) < 1e-12)
        #expect(abs(m.peakSpeed - 1.2) < 1e-12)
        #expect((m.to - Vector3(0, 0.3, 0)).length < 1e-12)
    }
}
