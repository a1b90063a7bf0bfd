import Bump
import Testing

@Suite struct BumpDetectorTests {
    private func run(_ distances: [Float?], _ configuration: BumpConfiguration = BumpConfiguration()) -> [Int] {
        var detector = BumpDetector(configuration: configuration)
        return distances.enumerated().compactMap { detector.update(distance: $1) ? $0 : nil }
    }

    @Test func firesOnTheSecondLowReadingOfThree() {
        #expect(run([0.5, 0.3, 0.07, 0.2, 0.06, 0.05, 0.04]) == [4])
    }

    @Test func oneLowReadingIsNotABump() {
        #expect(run([0.5, 0.07, 0.2, 0.2, 0.09, 0.06, 0.15, 0.2]).isEmpty)
    }

    @Test func oneBumpPerApproachThenRearmsAboveThirtyCentimetres() {
        let approach: [Float?] = [0.4, 0.1, 0.05, 0.04, 0.03, 0.05, 0.2, 0.06, 0.05, 0.25]
        #expect(run(approach) == [3])
        #expect(run(approach + [0.31] + approach) == [3, 14])
    }

    @Test func outOfRangeCountsAsFar() {
        #expect(run([0.05, nil, 0.05, nil, nil, 0.05]) == [2])
        var detector = BumpDetector()
        _ = detector.update(distance: 0.05)
        _ = detector.update(distance: 0.05)
        _ = detector.update(distance: nil)
        #expect(!detector.isArmed)
        #expect(detector.fired == 1)
    }

    @Test func settingsAreChecked() {
        var c = BumpConfiguration()
        c.confirmations = 4
        #expect(throws: BumpConfigurationError.self) { try c.validate() }
        c = BumpConfiguration()
        c.rearmDistance = 0.05
        #expect(throws: BumpConfigurationError.self) { try c.validate() }
        #expect(throws: Never.self) { try BumpConfiguration().validate() }
    }

    @Test func hapticCurve() {
        let h = HapticCurve()
        #expect(h.intensity(at: nil) == 0)
        #expect(h.intensity(at: 2) == 0 && h.intensity(at: 1.5) == 0)
        #expect(h.intensity(at: 0.05) == 1 && h.intensity(at: 0.08) == 1)
        #expect(abs(h.intensity(at: 0.79) - 0.25) < 1e-6)
        let rising = [1.4, 1.0, 0.6, 0.3, 0.1].map { h.intensity(at: Float($0)) }
        #expect(rising == rising.sorted())
    }
}
