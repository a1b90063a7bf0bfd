import DeviceInterface
/// Settings of the bump detector.
public struct BumpConfiguration: Sendable, Equatable {
    /// How a bump is decided.
    public enum Method: String, Sendable, CaseIterable {
        /// From the range estimate alone: k of the last n estimates at or under the bump distance.
        case range
        /// An impact both phones' accelerometers felt at the same instant, confirmed by the range estimate.
        case fused
    }

    public var method: Method = .fused
    /// A bump needs the estimated distance at or under this, metres (8 cm).
    public var distance: Float = 0.08
    /// ... in at least `confirmations` of the last `window` updates, so that one low reading does not fire.
    public var confirmations = 2
    public var window = 3
    /// After firing, the detector re-arms only once the estimate has risen above this, metres: one approach, one
    /// bump, however long the phones stay together.
    public var rearmDistance: Float = 0.30

    /// Fused: an accelerometer peak at or over this is an impact, m/s^2 (a tap of two phones gives 10 to 30; a
    /// step while holding a phone 2 to 5).
    public var impactThreshold: Float = 6
    /// Fused: the two phones' impacts are one when their times differ by at most this, seconds.
    public var coincidence: Double = 0.03
    /// Fused: the same for a jolt a phone found in its own samples (one with a width), m/s^2: no hand move makes a
    /// narrow jolt, so a gentle touch's one m/s² can count (the jolt finder's own threshold). Two thresholds only
    /// while the labelled peaks (`--sensors peaks`) remain: their steps and stops are narrow peaks of 3 m/s².
    public var sampledImpactThreshold: Float = 1.0
    /// Fused: two cased phones touch for at most this long, seconds (Hertz's contact at 3 cm/s: docs/sensors.md);
    /// the accelerometer sees a touch's jolt over half its peak for at most this plus `filterStretch` sample
    /// intervals (its filter's two time constants, 0.39 intervals each at a cut-off of 0.405 times the rate, and
    /// one interval of sampling). A wider jolt is a move (a hand braking, a handshake's shaking, a step) or a softer
    /// meeting (fists, palms: tens of milliseconds), not two phones. Jolts with no width known (0) pass.
    public var longestContact: Double = 0.008
    public var filterStretch: Double = 1.79
    /// Fused: a phone's jolt counts only when the phone knows where its peer is (its ranging gives a direction).
    /// Off by default: a peer beside the phone or beyond its top, where edges or tops meet, is outside the antennas'
    /// field of view and has no direction, as on a phone; the pushes' pair rule (`oppositeVertical`) and the range
    /// stand in for it there. On, it is the rule of before, tuned on generators whose every touch was back to back.
    public var needsDirection = false
    /// Fused: two phones that meet push each other equally and oppositely along the normal where they meet, so the
    /// two pushes' upward shares (each along its own phone's resting reading, which is gravity's reaction: a frame
    /// the two phones share whatever way each is turned) sum to 0; a knock on the table both lie on, or a phone set
    /// down beside another, pushes both up (a sum near 2). A pair of jolts whose upward shares sum to more than
    /// this, either way, is not one meeting. 0.6: the sum of two pushes each tilted 17° off opposite; the
    /// direction of a jolt at the finder's 1 m/s² threshold errs by under 1° for the sensor's noise (0.0125 m/s²), and
    /// the hand's own braking, a few m/s² along the approach, tilts a gentle touch's push by up to tens of degrees
    /// but within the level plane for phones brought together level.
    public var oppositeVertical: Float = 0.6
    /// Fused: a pair of jolts neither of which was checked against a direction (the peer outside both phones'
    /// fields of view: side-on, tops together) counts only when the phones came together: the pair's estimate read
    /// at least `approachFrom` metres no more than `approachWindow` seconds before it read within
    /// `confirmDistance`. A touch is an approach; two pairs side by side tapping at once hold a phone of each
    /// beside the other's the whole time. Set on the training generator (seeds 1-3): the bumps between side-by-side
    /// neighbours, which took the pushes of their pairs' touches, went and no touch was lost (docs/simulation.md).
    public var approachFrom: Float = 0.3
    public var approachWindow: Double = 3
    /// Fused: two phones each pushed along its own long axis (within 30° of it) were struck on their ends (tops or
    /// bottoms together), where an antenna may sit nearly a phone's length from the face struck: their estimate
    /// confirms such a pair within this, metres: two of the longest phones' lengths (16 cm: an iPhone 15 Pro Max
    /// is 15.99 cm, a Galaxy S24 Ultra 16.26), whatever model the world holds, and an approach then starts this
    /// much farther than `approachFrom` is from `confirmDistance`.
    public var endsConfirmDistance: Float = 0.32
    /// Fused: when a phone knows where its peer is, its jolt must push it away from the peer: for one of the two
    /// phones at least, the cosine between the push and the direction toward the peer at most minus this (0.87: within 30° of straight away, about twice
    /// the direction's 95th-percentile error at arm's length). A knock on a table, a handshake's shaking, push across
    /// the line between the phones. Tuned on the training generator with neighbouring pairs 8 to 30 cm apart (seeds
    /// 1-10): at 60° (the antennas' whole field of view, so any direction it measured passed) a phone of the
    /// next pair, last seen at the field's edge before it came alongside, made 11 bumps; at 30°, 4, and no touch was
    /// lost there, nor on the mingle and bump-classes; at 14° two touches were. Tried again on the pose generator's
    /// training seeds 1-10 at 90° (two touching phones lie on either side of the plane where they meet, so with an
    /// exact direction any true push has a part away from the peer): recall 84.4% and precision 85.8% against 86.4%
    /// and 88.6% at 30°, the diagonals 80% against 77%: kept at 30°.
    /// Judged since on the pose generator's training seeds 1-10 as the bound of one push of the two
    /// (``eachAwayFromPeer`` the other's): touches from 3 cm/s 345 to 348 of 406, false bumps 24 to 22.
    public var awayFromPeer: Float = 0.87
    /// Fused: ... and each push whose phone knows where its peer is must have a part away from it (the cosine at
    /// most minus this): two touching phones lie on either side of the plane where they meet, each pushed along its
    /// normal away from the other, so with an exact direction every true push passes at 0. Where corners or edges
    /// meet on a diagonal the push and the antennas' line part by tens of degrees: the 30° of ``awayFromPeer`` then
    /// holds for one phone at most.
    public var eachAwayFromPeer: Float = 0
    /// Fused: a pair of pushes neither straight away from its peer (``awayFromPeer``) counts only when the phones
    /// came together (``approachFrom``), as a pair with no direction does, and each push with a direction lies
    /// within this cosine of straight away (0.64: 50°). Where phones each turned by tens of degrees meet corner to
    /// face, the struck face's push parts from the antennas' line by the phones' turn. Set on the pose generator's
    /// training seeds 11-60 (0, 0.3, 0.5, 0.64 and 0.77 tried; at ``awayFromPeer`` it is the rule before, every such pair refused) and
    /// judged on training seeds 61-200: touches from 3 cm/s 4,597 to 4,618 of 5,289, the diagonals 301 to 318 of
    /// 337, false bumps 319 to 320 (at 0: 351, at 0.5: 345; the handshakes' and fist bumps' pushes across the line).
    public var awayIfApproached: Float = 0.64
    /// Fused: a push within this cosine of a phone's long axis (30°) is one on its end.
    public var endOnCosine: Float = 0.87
    /// Fused: an app sends its jolts to the peers it believes may be within this, metres (by its estimate brought
    /// forward, or its Bluetooth distance: a touch's peer may read metres away on Bluetooth alone). 1 m since the
    /// holders' own jolts (heel strikes, screen taps) came: at 2 m the 100-peer mingle sent 38,704 jolt messages, at
    /// 1 m 11,260, and no touch was lost there (seeds 1-3) nor on the training encounters (seeds 1-5).
    public var shareReach: Float = 1
    /// Fused: the pair's fresh range estimate must have been at or under this, metres, ... Tuned on the training
    /// generator (seeds 1-5): from 25 cm to 15 cm, the bumps between side-by-side pairs tapping at once fell from
    /// 19 to 4 and no touch was lost (nor on the mingle, touch-or-stop and bump-classes); 12, 8 and 6 cm gained
    /// little more, and a fist bump's phones, 9 to 13 cm apart, read under 6 cm too (the radio's noise).
    public var confirmDistance: Float = 0.15
    /// ... within this long of the joint impact, before or after it, seconds.
    public var confirmWindow: Double = 1
    /// On a chip whose firmware fails an exchange whose time of flight comes out negative (DW3000: libdeca issue 7),
    /// two phones closer than the radio's error mostly read no distance at all (a DW3000 pair fails 97% of its
    /// exchanges at 3 cm, 74% at 10 cm, 29% at 20 cm and 7% at 30 cm: `nearcatch-sim radio --device-profile dw3000`),
    /// so the estimate seldom reaches the confirm distance, and the exchange a knock asks for fails. Its app, which
    /// knows its own chip, reads a failed exchange as "right here" (0 m) when it comes no more than `confirmWindow`
    /// after the pair's last reading, at or under this, metres, or after a failure read so; or when it is the second
    /// failure in a row (no reading between) within `confirmWindow` (two in a row at 30 cm or more: under 0.5%). A
    /// failure read so counts toward an approach when the chip's last reading was at least the approach's start: the
    /// phones came together since. 0.3 m, the approach's start, where a touch's closing in begins, and the distance
    /// under which a DW3000 pair's failures pass 5%. Set on the training generator (seeds 1-10, DW3000): touches from
    /// 3 cm/s found 34% without it, 40% on a close last reading alone, 48% with two failures in a row, 66% with the
    /// approach.
    public var closingIn: Float = 0.3

    public init() {}

    /// Whether a phone's jolt is strong and short enough to be its side of two phones meeting, by what the phone
    /// alone knows (its push's direction against the peer's is the pair's to judge).
    @inline(__always)
    public func isKnock(_ impact: Impact) -> Bool {
        let threshold = impact.width > 0 ? sampledImpactThreshold : impactThreshold
        return impact.magnitude >= threshold
            && (impact.width == 0 || impact.width <= longestContact + filterStretch * impact.interval + 1e-9)
    }

    /// Whether two phones' jolts are narrow enough together to be two cases meeting: the sampling may stretch a
    /// push by up to one interval on each phone (``isKnock``), but the two phones sample on their own clocks, so it
    /// seldom stretches both: the narrower jolt must fit the push and the filter alone (`longestContact` and
    /// `filterStretch` less the one interval of sampling). Two fists meeting through the hands (23 to 29 ms) pass
    /// each phone's bound at 100 Hz (25.9 ms), being one or two samples wide as two cases' pushes (5 to 8 ms) are,
    /// but span two samples on both phones in 67% of fist bumps against 0.7% of touches (examples/bump-classes.json,
    /// seeds 1-4, the holders' own motion left out: `ClassFeatureTests`). Jolts with no width known pass.
    @inline(__always)
    public func narrowTogether(_ a: Impact, _ b: Impact) -> Bool {
        func fits(_ i: Impact) -> Bool {
            i.width == 0 || i.width <= longestContact + (filterStretch - 1) * i.interval + 1e-9
        }
        return fits(a) || fits(b)
    }

    /// Checks the fields; the error names the first one out of range.
    public func validate() throws(BumpConfigurationError) {
        guard distance.isFinite, distance > 0, distance <= 1 else {
            throw BumpConfigurationError(field: "distance", rule: "above 0 and at most 1 m")
        }
        guard window >= 1, window <= 16 else { throw BumpConfigurationError(field: "window", rule: "between 1 and 16") }
        guard confirmations >= 1, confirmations <= window else {
            throw BumpConfigurationError(field: "confirmations", rule: "between 1 and the window (\(window))")
        }
        guard rearmDistance.isFinite, rearmDistance > distance, rearmDistance <= 10 else {
            throw BumpConfigurationError(field: "rearmDistance", rule: "above the bump distance and at most 10 m")
        }
        guard impactThreshold.isFinite, impactThreshold > 0, impactThreshold <= 1000 else {
            throw BumpConfigurationError(field: "impactThreshold", rule: "above 0 and at most 1000 m/s^2")
        }
        guard coincidence.isFinite, coincidence > 0, coincidence <= 1 else {
            throw BumpConfigurationError(field: "coincidence", rule: "above 0 and at most 1 s")
        }
        guard sampledImpactThreshold.isFinite, sampledImpactThreshold > 0, sampledImpactThreshold <= 1000 else {
            throw BumpConfigurationError(field: "sampledImpactThreshold", rule: "above 0 and at most 1000 m/s^2")
        }
        guard longestContact.isFinite, longestContact > 0, longestContact <= 1 else {
            throw BumpConfigurationError(field: "longestContact", rule: "above 0 and at most 1 s")
        }
        guard filterStretch.isFinite, filterStretch >= 0, filterStretch <= 100 else {
            throw BumpConfigurationError(field: "filterStretch", rule: "between 0 and 100 sample intervals")
        }
        guard oppositeVertical.isFinite, oppositeVertical >= 0, oppositeVertical <= 2 else {
            throw BumpConfigurationError(field: "oppositeVertical", rule: "between 0 and 2")
        }
        guard awayFromPeer.isFinite, awayFromPeer >= -1, awayFromPeer <= 1 else {
            throw BumpConfigurationError(field: "awayFromPeer", rule: "between -1 and 1")
        }
        guard eachAwayFromPeer.isFinite, eachAwayFromPeer >= -1, eachAwayFromPeer <= awayFromPeer else {
            throw BumpConfigurationError(field: "eachAwayFromPeer", rule: "between -1 and awayFromPeer")
        }
        guard shareReach >= 0, shareReach <= 1000 else {
            throw BumpConfigurationError(field: "shareReach", rule: "between 0 and 1000 m")
        }
        guard confirmDistance.isFinite, confirmDistance > 0, confirmDistance <= 10 else {
            throw BumpConfigurationError(field: "confirmDistance", rule: "above 0 and at most 10 m")
        }
        guard confirmWindow.isFinite, confirmWindow > 0, confirmWindow <= 10 else {
            throw BumpConfigurationError(field: "confirmWindow", rule: "above 0 and at most 10 s")
        }
        guard approachFrom.isFinite, approachFrom > confirmDistance, approachFrom <= 10 else {
            throw BumpConfigurationError(field: "approachFrom", rule: "above the confirm distance and at most 10 m")
        }
        guard endOnCosine.isFinite, endOnCosine >= 0, endOnCosine <= 1 else {
            throw BumpConfigurationError(field: "endOnCosine", rule: "between 0 and 1")
        }
        guard awayIfApproached.isFinite, awayIfApproached >= eachAwayFromPeer, awayIfApproached <= awayFromPeer else {
            throw BumpConfigurationError(field: "awayIfApproached", rule: "between eachAwayFromPeer and awayFromPeer")
        }
        guard endsConfirmDistance.isFinite, endsConfirmDistance >= confirmDistance, endsConfirmDistance <= 10 else {
            throw BumpConfigurationError(field: "endsConfirmDistance", rule: "at least the confirm distance and at most 10 m")
        }
        guard closingIn.isFinite, closingIn > 0, closingIn <= 10 else {
            throw BumpConfigurationError(field: "closingIn", rule: "above 0 and at most 10 m")
        }
        guard approachWindow.isFinite, approachWindow > 0, approachWindow <= 60 else {
            throw BumpConfigurationError(field: "approachWindow", rule: "above 0 and at most 60 s")
        }
    }
}

/// A bump setting out of range.
public struct BumpConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let rule: String

    public var description: String { "bump \(field) must be \(rule)" }
}

/// The two jolts a bump fired on, each stamped by its own phone (the sender's stamp, for a jolt heard over the data
/// channel): a phone's app knows its own jolts by them.
package struct BumpJolts: Sendable, Equatable {
    package let initiator: Double
    package let responder: Double

    package init(initiator: Double, responder: Double) {
        self.initiator = initiator
        self.responder = responder
    }
}

/// A jolt a phone received from a peer over the data channel: who sent it, and the jolt as sent (its time on the
/// sender's clock) with ``Impact/known`` the instant it arrived.
package struct HeardImpact: Sendable, Equatable {
    package let from: Int32
    package let impact: Impact

    package init(from: Int32, impact: Impact) {
        self.from = from
        self.impact = impact
    }
}

/// What two phones have heard of each other's jolts over the data channel: each one's received jolts (from any
/// peer; the detector keeps the pair's own) and the two devices' numbers.
package struct ImpactChannel: Sendable {
    package let initiator: Int32
    package let responder: Int32
    package let heardByInitiator: [HeardImpact]
    package let heardByResponder: [HeardImpact]

    package init(initiator: Int32, responder: Int32, heardByInitiator: [HeardImpact], heardByResponder: [HeardImpact]) {
        self.initiator = initiator
        self.responder = responder
        self.heardByInitiator = heardByInitiator
        self.heardByResponder = heardByResponder
    }
}

/// Range only: fires once per approach when the estimated distance is at or under the bump distance in k of the
/// last n updates, and re-arms only after the estimate has risen above the re-arm distance (hysteresis).
///
/// Fused: fires when both phones felt an impact at the same instant (within ``BumpConfiguration/coincidence``) and
/// the pair's range estimate was within ``BumpConfiguration/confirmDistance`` less than
/// ``BumpConfiguration/confirmWindow`` from it; each joint impact fires at most once. A pair that stops short of
/// touching has no impact, however close its estimate reads; an impact of a stranger's touch has no close range.
///
/// No allocation: one lives in each pair's slot.
package struct BumpDetector: Sendable, Equatable {
    /// A configuration held once for the many detectors a room makes from it (one in each pair's slot: a copy in
    /// each was 88 of a slot's bytes). Equal by value.
    package final class Settings: Sendable, Equatable {
        package let configuration: BumpConfiguration

        package init(_ configuration: BumpConfiguration) {
            self.configuration = configuration
        }

        package static func == (a: Settings, b: Settings) -> Bool { a === b || a.configuration == b.configuration }
    }

    private let settings: Settings
    package var configuration: BumpConfiguration { settings.configuration }
    /// The last `window` verdicts, newest in bit 0.
    private var recent: UInt16 = 0
    private var count: UInt8 = 0
    /// Whether the detector may fire.
    package private(set) var isArmed = true
    /// Bumps fired so far.
    package private(set) var fired = 0
    /// Fused: the last joint impact used, and when the estimate was last within the confirm distance.
    private var lastImpact = -Double.infinity
    private var lastNear = -Double.infinity
    /// When the estimate last read at or over the approach distance, and when it last read within the confirm
    /// distance soon enough after one (the pair came together).
    private var lastFar = -Double.infinity
    private var lastApproach = -Double.infinity
    /// The same for two phones struck on their ends (``BumpConfiguration/endsConfirmDistance``).
    private var lastNearEnds = -Double.infinity
    private var lastFarEnds = -Double.infinity
    private var lastApproachEnds = -Double.infinity
    /// A chip that fails negative flights (``failedExchange(at:)``): when the pair last read within
    /// ``BumpConfiguration/closingIn`` (or a failure was read as "right here" since), the failure before, if none
    /// was measured since, and the pair's last measured estimate (0 before any).
    private var lastCloseTime = -Double.infinity
    private var lastFailure = -Double.infinity
    private var lastMeasured: Float = 0
    private var lastFailureUnusedTime = -Double.infinity

    package init(configuration: BumpConfiguration = BumpConfiguration()) {
        settings = Settings(configuration)
    }

    package init(settings: Settings) {
        self.settings = settings
    }

    /// What a failed exchange at `time` tells an app whose chip fails negative flights: "right here" (0 m) right
    /// after the pair closed in, or on a second failure in a row (``BumpConfiguration/closingIn``); nothing otherwise.
    @inline(__always)
    package mutating func failedExchange(at time: Double) -> Float? {
        let c = configuration
        // Two failures in a row are a witness only beside a joint knock: alone (range only) a body in the way
        // makes them too (the 100-peer mingle of DW3000s, seeds 1-3: 33 to 43 false bumps against 1).
        let near = time - lastCloseTime <= c.confirmWindow
            || (c.method == .fused && time - lastFailure <= c.confirmWindow)
        lastFailure = time
        if near { lastCloseTime = time }
        return near ? 0 : nil
    }

    /// Keeps what a failed exchange will be judged by: when the pair last read close, and the last reading itself.
    @inline(__always)
    private mutating func measured(_ distance: Float, at time: Double) {
        lastCloseTime = distance <= configuration.closingIn ? time : -Double.infinity
        lastFailure = -Double.infinity
        lastMeasured = distance
    }

    /// Feeds one estimate (`nil` when out of range) and says whether a bump fires now; `measuredAt`, when the
    /// estimate was measured (a failed exchange's reading, from ``failedExchange(at:)``, passes none).
    @inline(__always)
    package mutating func update(distance: Float?, measuredAt time: Double? = nil) -> Bool {
        let c = configuration
        if let time, let distance { measured(distance, at: time) }
        let under = distance.map { $0 <= c.distance } ?? false
        let mask: UInt16 = c.window >= 16 ? .max : (1 << UInt16(c.window)) - 1
        recent = (recent << 1 | (under ? 1 : 0)) & mask
        if !isArmed {
            if let distance, distance > c.rearmDistance {
                isArmed = true
                recent = 0
            }
            return false
        }
        guard recent.nonzeroBitCount >= c.confirmations else { return false }
        isArmed = false
        fired += 1
        return true
    }

    /// Fused: feeds one exchange's fresh estimate (`nil` when there is none) at `time`, with the two phones' recent
    /// accelerometer jolts (oldest first) and, where known, the direction toward the other in each phone's frame,
    /// and says whether a bump fires now. Only jolts known by `time` are looked at: an app knows nothing later.
    ///
    /// With `channel`, each phone compares its own jolts with those its peer sent it over the data channel, as they
    /// arrived (late, or never when lost) and stamped by the sender's clock: a bump fires when either phone finds a
    /// pair. Without it, each phone's jolts are the other's the moment it knows them, on one clock.
    package mutating func update(
        distance: Float?, at time: Double, initiator: [Impact], responder: [Impact],
        channel: ImpactChannel? = nil,
        towardResponder: SIMD3<Float>? = nil, towardInitiator: SIMD3<Float>? = nil, measured: Bool = true
    ) -> Bool {
        fire(distance: distance, at: time, initiator: initiator, responder: responder, channel: channel,
             towardResponder: towardResponder, towardInitiator: towardInitiator, measured: measured) != nil
    }

    /// Fused: as ``update(distance:at:initiator:responder:channel:towardResponder:towardInitiator:)``, with the two
    /// jolts the bump fired on when it fires (each stamped by its own phone), so that each phone's app can tell a
    /// push it already bumped on. `measured` is false for a failed exchange's reading (``failedExchange(at:)``).
    package mutating func fire(
        distance: Float?, at time: Double, initiator: [Impact], responder: [Impact],
        channel: ImpactChannel? = nil,
        towardResponder: SIMD3<Float>? = nil, towardInitiator: SIMD3<Float>? = nil, measured: Bool = true
    ) -> BumpJolts? {
        let c = configuration
        if let distance {
            if measured { self.measured(distance, at: time) }
            // A failure read as "right here" came after the chip's last reading: the phones came from there.
            let from = measured ? distance : lastMeasured
            if from >= c.approachFrom { lastFar = time }
            if from >= c.approachFrom + c.endsConfirmDistance - c.confirmDistance { lastFarEnds = time }
            if distance <= c.confirmDistance {
                lastNear = time
                if time - lastFar <= c.approachWindow { lastApproach = time }
            }
            if distance <= c.endsConfirmDistance {
                lastNearEnds = time
                if time - lastFarEnds <= c.approachWindow { lastApproachEnds = time }
            }
        }
        guard lastNearEnds > -Double.infinity else { return nil }
        /// Whether a jolt pushed its phone along its own long axis: struck on an end.
        func endOn(_ impact: Impact) -> Bool {
            guard let push = impact.direction else { return false }
            return abs(push.y) >= c.endOnCosine
        }
        /// A jolt that can be one side of a bump: strong, short, and with a part pushing its phone away from the peer.
        func knock(_ impact: Impact, toward peer: SIMD3<Float>?) -> Bool {
            guard c.isKnock(impact) else { return false }
            guard let push = impact.direction else { return true }
            guard let peer else { return !c.needsDirection }
            return (push * peer).sum() <= -c.eachAwayFromPeer
        }
        /// Whether a jolt pushed its phone straight away from where the phone measured the peer (``awayFromPeer``).
        func away(_ impact: Impact, toward peer: SIMD3<Float>?) -> Bool {
            guard let push = impact.direction, let peer else { return false }
            return (push * peer).sum() <= -c.awayFromPeer
        }
        /// Whether a direction vouched for either push: one pushed straight away from where its phone measured the
        /// peer. False when the pair needs an approach instead: no push was checked against a direction, or each
        /// that was lies within ``awayIfApproached``. `nil` when a direction was measured and a push lies farther
        /// off: the pair is no meeting.
        func vouched(_ a: Impact, _ aToward: SIMD3<Float>?, _ b: Impact, _ bToward: SIMD3<Float>?) -> Bool? {
            if away(a, toward: aToward) || away(b, toward: bToward) { return true }
            func checked(_ i: Impact, _ toward: SIMD3<Float>?) -> SIMD3<Float>? {
                guard let push = i.direction, let toward else { return nil }
                return push * toward
            }
            let pa = checked(a, aToward), pb = checked(b, bToward)
            if pa == nil && pb == nil { return a.direction == nil && b.direction == nil }
            let bound = -c.awayIfApproached
            return (pa.map { $0.sum() <= bound } ?? true) && (pb.map { $0.sum() <= bound } ?? true) ? false : nil
        }
        /// When the pair's estimate last confirmed two jolts, and whether the phones had come together then.
        func confirmation(_ a: Impact, _ b: Impact) -> (near: Double, approached: Bool) {
            endOn(a) && endOn(b)
                ? (lastNearEnds, abs(lastApproachEnds - lastNearEnds) <= c.confirmWindow)
                : (lastNear, abs(lastApproach - lastNear) <= c.confirmWindow)
        }
        /// Whether two phones' jolts can be one push and its reaction: opposite in the frame gravity gives both.
        /// A jolt with no direction (a labelled peak) says nothing of it.
        func opposite(_ a: Impact, _ b: Impact) -> Bool {
            a.direction == nil || b.direction == nil || abs(a.vertical + b.vertical) <= c.oppositeVertical
        }
        /// The newest of one phone's jolts that the peer's jolts, as this phone has them, match, and the peer's
        /// jolt it matched.
        func joint(
            own: [Impact], ownToward: SIMD3<Float>?, peer: [HeardImpact]?, peerImpacts: [Impact], from: Int32,
            peerToward: SIMD3<Float>?
        ) -> (mine: Double, theirs: Double)? {
            for mine in own.reversed() {
                guard mine.known <= time else { continue }
                guard mine.time > lastImpact, mine.time >= time - c.confirmWindow - c.coincidence else { break }
                guard knock(mine, toward: ownToward) else { continue }
                func matches(_ theirs: Impact) -> Bool {
                    guard abs(theirs.time - mine.time) <= c.coincidence, theirs.known <= time,
                          knock(theirs, toward: peerToward), opposite(mine, theirs), c.narrowTogether(mine, theirs),
                          let vouch = vouched(mine, ownToward, theirs, peerToward)
                    else { return false }
                    let confirmed = confirmation(mine, theirs)
                    return abs(confirmed.near - mine.time) <= c.confirmWindow && (confirmed.approached || vouch)
                }
                if let peer {
                    if let theirs = peer.first(where: { $0.from == from && matches($0.impact) }) {
                        return (mine.time, theirs.impact.time)
                    }
                } else if let theirs = peerImpacts.first(where: matches) {
                    return (mine.time, theirs.time)
                }
            }
            return nil
        }
        // The time is the finding phone's own jolt's.
        let found: (joint: Double, jolts: BumpJolts)? = joint(
            own: initiator, ownToward: towardResponder, peer: channel?.heardByInitiator, peerImpacts: responder,
            from: channel?.responder ?? 0, peerToward: towardInitiator
        ).map { ($0.mine, BumpJolts(initiator: $0.mine, responder: $0.theirs)) }
            ?? channel.flatMap {
                joint(own: responder, ownToward: towardInitiator, peer: $0.heardByResponder, peerImpacts: initiator,
                      from: $0.initiator, peerToward: towardResponder)
            }.map { ($0.mine, BumpJolts(initiator: $0.theirs, responder: $0.mine)) }
        guard let (joint, jolts) = found, time - joint <= c.confirmWindow else { return nil }
        lastImpact = joint + c.coincidence
        fired += 1
        return jolts
    }
}
