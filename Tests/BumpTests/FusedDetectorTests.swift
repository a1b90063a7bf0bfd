import Bump
import Testing

/// The fused detector: a joint impact of both phones, confirmed by range.
@Suite struct FusedDetectorTests {
    /// A detector fed by reference, so that each verdict reads as one expectation.
    final class Fused {
        var detector: BumpDetector

        init() {
            var c = BumpConfiguration()
            c.method = .fused
            detector = BumpDetector(configuration: c)
        }

        func update(distance: Float?, at time: Double, initiator: [Impact], responder: [Impact]) -> Bool {
            detector.update(distance: distance, at: time, initiator: initiator, responder: responder)
        }

        var fired: Int { detector.fired }
    }

    static func fused() -> Fused { Fused() }

    static let tap = [Impact(time: 1.00, magnitude: 15)]
    static let tapBack = [Impact(time: 1.01, magnitude: 12)]

    @Test func aJointImpactWithTheRangeCloseFiresOnce() {
        let d = Self.fused()
        #expect(!d.update(distance: 0.06, at: 0.95, initiator: Self.tap, responder: Self.tapBack))
        #expect(d.update(distance: 0.05, at: 1.05, initiator: Self.tap, responder: Self.tapBack))
        #expect(!d.update(distance: 0.04, at: 1.15, initiator: Self.tap, responder: Self.tapBack))
        #expect(d.fired == 1)
    }

    @Test func aCloseRangeWithoutAnImpactNeverFires() {
        let d = Self.fused()
        let steps = (0..<30).map { Impact(time: Double($0) * 0.55, magnitude: 3) }
        for k in 0..<300 {
            #expect(!d.update(distance: 0.03, at: Double(k) / 10, initiator: steps, responder: steps))
        }
    }

    @Test func anImpactOnOneSideOnlyOrApartInTimeDoesNotFire() {
        let one = Self.fused()
        #expect(!one.update(distance: 0.05, at: 1.05, initiator: Self.tap, responder: []))
        let apart = Self.fused()
        #expect(!apart.update(distance: 0.05, at: 1.1, initiator: Self.tap,
                              responder: [Impact(time: 1.05, magnitude: 12)]))
        let weak = Self.fused()
        #expect(!weak.update(distance: 0.05, at: 1.05, initiator: Self.tap,
                             responder: [Impact(time: 1.01, magnitude: 5)]))
    }

    @Test func aJointImpactFarApartInRangeDoesNotFire() {
        let d = Self.fused()
        #expect(!d.update(distance: 0.6, at: 1.05, initiator: Self.tap, responder: Self.tapBack))
        #expect(!d.update(distance: 0.5, at: 1.5, initiator: Self.tap, responder: Self.tapBack))
        // The range confirms only within a second of the impact.
        #expect(!d.update(distance: 0.05, at: 2.2, initiator: Self.tap, responder: Self.tapBack))
    }

    /// An estimate close before the tap (the phones nearing) confirms it at the next exchange, even when that one
    /// brings no fresh distance; an impact later than the exchange is not seen yet.
    @Test func theConfirmationMayComeBeforeTheImpact() {
        let d = Self.fused()
        #expect(!d.update(distance: 0.12, at: 0.5, initiator: Self.tap, responder: Self.tapBack))
        #expect(d.update(distance: nil, at: 1.2, initiator: Self.tap, responder: Self.tapBack))
    }
}
