import Foundation
import Bump
import DeviceInterface
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

        func update(distance: Float?, at time: Double, initiator: [Impact], responder: [Impact],
                    channel: ImpactChannel? = nil) -> Bool {
            detector.update(distance: distance, at: time, initiator: initiator, responder: responder, channel: channel)
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

    /// Over the data channel each phone has the peer's jolt only once it arrived, stamped by the peer's clock: a
    /// bump fires when the first of the two arrives, never before; with both lost, never; clocks further apart than
    /// the coincidence window hide a true joint jolt.
    @Test func overTheDataChannelAJoltCountsOnceArrivedAndOnTheSendersClock() {
        func channel(toInitiator: Double?, toResponder: Double?, responderClock: Double = 0) -> ImpactChannel {
            let sent = Impact(time: 1.01 + responderClock, magnitude: 12)
            func heard(_ impact: Impact, at arrival: Double?) -> [HeardImpact] {
                arrival.map { [HeardImpact(from: 0, impact: Impact(time: impact.time, magnitude: impact.magnitude,
                                                                    known: $0))] } ?? []
            }
            return ImpactChannel(
                initiator: 0, responder: 1,
                heardByInitiator: heard(sent, at: toInitiator).map { HeardImpact(from: 1, impact: $0.impact) },
                heardByResponder: heard(Self.tap[0], at: toResponder))
        }
        let late = Self.fused()
        let c = channel(toInitiator: 1.20, toResponder: nil)
        #expect(!late.update(distance: 0.05, at: 1.05, initiator: Self.tap, responder: Self.tapBack, channel: c))
        #expect(!late.update(distance: 0.05, at: 1.15, initiator: Self.tap, responder: Self.tapBack, channel: c))
        #expect(late.update(distance: 0.05, at: 1.25, initiator: Self.tap, responder: Self.tapBack, channel: c))
        // The responder heard the initiator's jolt first: its side finds the pair.
        let other = Self.fused()
        #expect(other.update(distance: 0.05, at: 1.12, initiator: Self.tap, responder: Self.tapBack,
                             channel: channel(toInitiator: nil, toResponder: 1.11)))
        let lost = Self.fused()
        for k in 0..<20 {
            #expect(!lost.update(distance: 0.05, at: 1 + Double(k) / 10, initiator: Self.tap, responder: Self.tapBack,
                                 channel: channel(toInitiator: nil, toResponder: nil)))
        }
        // The responder's clock 25 ms behind: its jolt reads 35 ms from the initiator's, beyond the 30-ms window.
        // Each phone's own jolts are on its own clock too.
        let offset = Self.fused()
        #expect(!offset.update(distance: 0.05, at: 1.3, initiator: Self.tap,
                               responder: [Impact(time: 1.035, magnitude: 12)],
                               channel: channel(toInitiator: 1.1, toResponder: 1.1, responderClock: 0.025)))
        let within = Self.fused()
        #expect(within.update(distance: 0.05, at: 1.3, initiator: Self.tap,
                              responder: [Impact(time: 1.025, magnitude: 12)],
                              channel: channel(toInitiator: 1.1, toResponder: 1.1, responderClock: 0.015)))
    }

    /// A jolt crosses the data channel whole; a payload that is not one is refused with the reason.
    @Test func aJoltMessageRoundTripsAndMalformedOnesAreRefused() throws {
        let jolt = Impact(time: 123_456.789_012_5, magnitude: 17.5, width: 0.012, direction: SIMD3(0, 0.6, -0.8),
                          vertical: -0.8, interval: 0.01, known: 3)
        let bytes = ImpactMessage.encode(jolt)
        #expect(bytes.count == ImpactMessage.size)
        let back = try ImpactMessage.decode(bytes, arrival: 9.5)
        #expect(back.time == jolt.time && back.magnitude == jolt.magnitude && back.known == 9.5)
        #expect(abs(back.width - 0.012) < 1e-6 && back.direction == jolt.direction && back.vertical == -0.8)
        let none = try ImpactMessage.decode(ImpactMessage.encode(Impact(time: 1, magnitude: 2)), arrival: 1)
        #expect(none.direction == nil && none.width == 0)
        #expect(throws: ImpactMessage.DecodeError.length(5)) { try ImpactMessage.decode([1, 2, 3, 4, 5], arrival: 0) }
        var version = bytes
        version[0] = 9
        #expect(throws: ImpactMessage.DecodeError.version(9)) { try ImpactMessage.decode(version, arrival: 0) }
        // Version 1's uprightness had no sign: read as this version's, a push down would pass for one up.
        version[0] = 1
        #expect(throws: ImpactMessage.DecodeError.version(1)) { try ImpactMessage.decode(version, arrival: 0) }
        var peak = bytes
        for k in 9..<13 { peak[k] = 0xFF }  // a NaN peak
        #expect(throws: ImpactMessage.DecodeError.field("peak")) { try ImpactMessage.decode(peak, arrival: 0) }
        var direction = bytes
        for k in 21..<25 { direction[k] = 0 }  // y = 0: a push of length 0.8
        #expect(throws: ImpactMessage.DecodeError.field("direction")) { try ImpactMessage.decode(direction, arrival: 0) }
    }
    /// Two phones that meet push each other equally and oppositely: their pushes' upward shares, each read against
    /// its own phone's gravity, sum to 0 however the phones are turned, with or without a direction to the peer. A
    /// knock on the table both lie on pushes both up (a sum near 2), a push down on one and up on the other is one
    /// phone held flat over another; a peer with no direction (side-on, tops together) is no reason to drop a jolt.
    @Test(arguments: [
        (Float(0), Float(0), true), (0.95, -0.9, true), (-0.3, 0.3, true), (0.5, 0.2, false), (0.95, 0.9, false),
        (-0.7, -0.2, false),
    ])
    func theTwoPushesMustBeOppositeInTheFrameGravityGives(_ upA: Float, _ upB: Float, _ fires: Bool) {
        func jolt(_ time: Double, _ up: Float) -> Impact {
            let level = (1 - up * up).squareRoot()
            return Impact(time: time, magnitude: 8, width: 0.012, direction: SIMD3(level, 0, up), vertical: up,
                          interval: 0.01, known: time + 0.02)
        }
        // The phones came together from 50 cm (no direction vouches for the pushes: an approach must).
        let d = Self.fused()
        #expect(!d.update(distance: 0.5, at: 0.2, initiator: [], responder: []))
        #expect(d.update(distance: 0.05, at: 1.1, initiator: [jolt(1.0, upA)], responder: [jolt(1.01, upB)]) == fires)
        // Without the approach (phones side by side all along, each pushed by its own partner) nothing fires.
        let beside = Self.fused()
        #expect(!beside.update(distance: 0.12, at: 0.2, initiator: [], responder: []))
        #expect(!beside.update(distance: 0.05, at: 1.1, initiator: [jolt(1.0, upA)], responder: [jolt(1.01, upB)]))
        // By default no direction is asked for; asked for, neither phone's jolt counts without one.
        var strict = BumpConfiguration()
        strict.needsDirection = true
        var e = BumpDetector(configuration: strict)
        _ = e.update(distance: 0.5, at: 0.2, initiator: [], responder: [])
        let strictFired = e.update(distance: 0.05, at: 1.1, initiator: [jolt(1.0, upA)], responder: [jolt(1.01, upB)])
        #expect(!strictFired)
        var bad = BumpConfiguration()
        bad.oppositeVertical = 2.5
        #expect(throws: BumpConfigurationError.self) { try bad.validate() }
        #expect((try? bad.validate()) == nil)
    }

    /// A chip that fails negative flights (DW3000) reads no distance when the phones touch: its app reads a failure
    /// right after the pair read close, or a second failure in a row, as "right here", and a failure after a far last
    /// reading as the phones having come together; a lone failure after a far reading says nothing.
    @Test func failedExchangesRightAfterClosingInReadAsRightHere() {
        func jolt(_ time: Double, _ x: Float) -> Impact {
            Impact(time: time, magnitude: 8, width: 0.012, direction: SIMD3(x, 0, 0), vertical: 0, interval: 0.01,
                   known: time + 0.02)
        }
        let mine = [jolt(1.0, 1)], theirs = [jolt(1.01, -1)]
        func feed(_ d: inout BumpDetector, _ time: Double, _ distance: Float?) -> Bool {
            d.update(distance: distance, at: time, initiator: mine, responder: theirs)
        }
        func fail(_ d: inout BumpDetector, _ time: Double) -> (near: Float?, fired: Bool) {
            let near = d.failedExchange(at: time)
            return (near, near.map { d.update(distance: $0, at: time, initiator: mine, responder: theirs,
                                              measured: false) } ?? false)
        }
        // Read 50 cm, then 25 cm, then the knock's exchange fails: right here, and the pair came from 50 cm.
        var closed = BumpDetector()
        #expect(!feed(&closed, 0.2, 0.5))
        #expect(!feed(&closed, 0.8, 0.25))
        let first = fail(&closed, 1.1)
        #expect(first.near == 0 && first.fired)
        #expect(closed.fired == 1)
        // No reading since 60 cm, 5 s before: one failure says nothing; the second in a row, 0.1 s later, is right
        // here, and the phones came from 60 cm.
        var sparse = BumpDetector()
        #expect(!feed(&sparse, -4, 0.6))
        let lone = fail(&sparse, 1.05)
        #expect(lone.near == nil && !lone.fired)
        let second = fail(&sparse, 1.15)
        #expect(second.near == 0 && second.fired)
        // Two failures 2 s apart are not in a row; a reading between two failures breaks the row.
        var apart = BumpDetector()
        #expect(!feed(&apart, -4, 0.6))
        #expect(fail(&apart, 0.0).near == nil)
        #expect(fail(&apart, 2.0).near == nil)
        #expect(!feed(&apart, 2.1, 0.6))
        #expect(fail(&apart, 2.2).near == nil)
        // Side by side all along (last read 12 cm): the failures are right here, but no approach: nothing fires.
        var beside = BumpDetector()
        #expect(!feed(&beside, 0.5, 0.12))
        let besideFailure = fail(&beside, 1.05)
        #expect(besideFailure.near == 0 && !besideFailure.fired)
        #expect(!fail(&beside, 1.15).fired)
        #expect(beside.fired == 0)
        // Range only: two failures right after a 20-cm reading make two of the last three readings "right here".
        var range = BumpConfiguration()
        range.method = .range
        var r = BumpDetector(configuration: range)
        let reading = r.update(distance: 0.2, measuredAt: 3.0)
        #expect(!reading)
        let failures = [3.1, 3.2].map { time in r.failedExchange(at: time).map { r.update(distance: $0) } }
        #expect(failures == [false, true])
        #expect(r.fired == 1)
        // ... but failures in a row after a far reading are no witness on their own: a body in the way makes them.
        var alone = BumpDetector(configuration: range)
        let far = alone.update(distance: 0.6, measuredAt: 5.0)
        #expect(!far)
        #expect([5.1, 5.2, 5.3].map { alone.failedExchange(at: $0) } == [nil, nil, nil])
    }

    /// Two cases' push stretched by the sampling on one phone passes; on both, at 100 Hz (each jolt two samples,
    /// 20 ms, wide, as two fists meeting through the hands make), it is no meeting of cases. At 400 Hz a 20-ms jolt
    /// is over each phone's own bound already.
    @Test(arguments: [(0.010, 0.020, 0.01, true), (0.020, 0.010, 0.01, true), (0.020, 0.020, 0.01, false),
                      (0.0125, 0.0125, 0.01, true), (0.005, 0.0075, 0.0025, true), (0.010, 0.010, 0.0025, false)])
    func twoJoltsBothStretchedAreNoMeetingOfCases(_ wideA: Double, _ wideB: Double, _ interval: Double,
                                                  _ fires: Bool) {
        func jolt(_ time: Double, _ x: Float, _ width: Double) -> Impact {
            Impact(time: time, magnitude: 20, width: width, direction: SIMD3(x, 0, 0), vertical: 0, interval: interval,
                   known: time + 0.03)
        }
        var d = BumpDetector()
        _ = d.update(distance: 0.5, at: 0.2, initiator: [], responder: [])
        let fired = d.update(distance: 0.05, at: 1.1, initiator: [jolt(1.0, 1, wideA)],
                             responder: [jolt(1.01, -1, wideB)])
        #expect(fired == fires)
        #expect(BumpConfiguration().narrowTogether(jolt(1, 1, wideA), jolt(1, -1, wideB)) == fires)
    }

    /// Where corners meet on a diagonal, one phone's push runs along the other's face normal, tens of degrees off the
    /// antennas' line: one push straight away from the peer (within 30°) vouches for the pair, while each must
    /// still have a part away from it; a push toward the peer, or two pushes both far off, are no meeting.
    @Test(arguments: [(Float(180), Float(180), true), (135, 180, true), (180, 125, true), (135, 135, false),
                      (180, 80, false), (95, 180, true)])
    func onePushStraightAwayVouchesForThePair(_ offA: Float, _ offB: Float, _ fires: Bool) {
        var d = BumpDetector()
        #expect(Self.levelPushes(&d, from: 0.12, offA, offB) == fires)
    }

    /// Feeds a reading of `from` metres at 0.2 s, then one of 5 cm at 1.1 s with two jolts 10 ms apart: each phone
    /// sees its peer along +x and is pushed `off` degrees from +x, in the level plane. Whether the bump fired.
    private static func levelPushes(_ d: inout BumpDetector, from: Float, _ offA: Float, _ offB: Float) -> Bool {
        func jolt(_ time: Double, _ off: Float) -> Impact {
            let r = off * .pi / 180
            return Impact(time: time, magnitude: 8, width: 0.01, direction: SIMD3(cos(r), sin(r), 0), vertical: 0,
                          interval: 0.01, known: time + 0.02)
        }
        let toward = SIMD3<Float>(1, 0, 0)
        _ = d.update(distance: from, at: 0.2, initiator: [], responder: [])
        return d.update(distance: 0.05, at: 1.1, initiator: [jolt(1.0, offA)], responder: [jolt(1.01, offB)],
                        towardResponder: toward, towardInitiator: toward)
    }

    /// Phones each turned by tens of degrees that meet corner to face push off the antennas' line by their turn: a
    /// pair with no push within 30° of straight away counts when the phones came together (read 50 cm, then 5) and
    /// each push lies within 50° of straight away; beside each other all along (12 cm), or one push 60° off, it does
    /// not.
    @Test(arguments: [(Float(0.5), Float(135), Float(135), true), (0.12, 135, 135, false), (0.5, 140, 132, true),
                      (0.5, 140, 125, false), (0.5, 120, 135, false), (0.5, 135, 100, false), (0.5, 180, 100, true)])
    func pushesTurnedOffTheLineCountWhenThePhonesCameTogether(_ from: Float, _ offA: Float, _ offB: Float,
                                                              _ fires: Bool) {
        var d = BumpDetector()
        #expect(Self.levelPushes(&d, from: from, offA, offB) == fires)
        #expect(d.fired == (fires ? 1 : 0))
        // The bound lies between each push's (0) and one push's (30°): outside, the settings are refused by name.
        for bound: Float in [0.9, -0.1] {
            var bad = BumpConfiguration()
            bad.awayIfApproached = bound
            let error = #expect(throws: BumpConfigurationError.self) { try bad.validate() }
            #expect(error?.field == "awayIfApproached")
            #expect(error?.description == "bump awayIfApproached must be between eachAwayFromPeer and awayFromPeer")
        }
    }
}
