@testable import Discovery
import Testing

@Suite struct RoundTripEstimatorTests {
    @Test func beforeAnySampleTheInitialWaitHolds() {
        let e = RoundTripEstimator()
        #expect(e.timeout(initial: 1, floor: 0.25, cap: 1, limit: 30) == 1)
        #expect(e.longestWait(cap: 1, limit: 30) == 1)
    }

    @Test func parkedOutliersUnderHalfDoNotMoveTheEstimate() {
        var e = RoundTripEstimator()
        // Six of fifteen answers waited for an announcement (0.8 s); the rest came back in 2 ms.
        for i in 0..<15 { e.add(i % 5 < 2 ? 0.8 : 0.002) }
        #expect(e.estimate == 0.002)
        #expect(e.timeout(initial: 1, floor: 0.25, cap: 1, limit: 30) == 0.25)
        #expect(e.longestWait(cap: 1, limit: 30) == 1)
    }

    @Test func aSlowHostIsAskedLessOften() {
        var e = RoundTripEstimator()
        for _ in 0..<15 { e.add(0.002) }
        for _ in 0..<8 { e.add(2.0) }
        // Eight of the latest fifteen are 2 s: the median follows, and the waits grow with it.
        #expect(e.estimate == 2.0)
        #expect(e.timeout(initial: 1, floor: 0.25, cap: 1, limit: 30) == 4)
        #expect(e.longestWait(cap: 1, limit: 30) == 8)
        for _ in 0..<15 { e.add(20) }
        #expect(e.longestWait(cap: 1, limit: 30) == 30)
    }

    @Test func aBackedOffWaitHoldsUntilTheNextSample() {
        var e = RoundTripEstimator()
        e.add(0.002)
        e.backOff(to: 0.8)
        #expect(e.timeout(initial: 1, floor: 0.25, cap: 1, limit: 30) == 0.8)
        e.add(0.002)
        #expect(e.timeout(initial: 1, floor: 0.25, cap: 1, limit: 30) == 0.25)
    }
}
