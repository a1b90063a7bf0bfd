import Geometry

/// Every parameter of the ultra-wideband radio model, with defaults from published measurements (see DESIGN.md).
///
/// Distances are in metres, times in seconds, angles in radians.
public struct RadioConfiguration: Sendable, Equatable {
    /// How the time of flight is computed from the timestamps.
    public enum RangingScheme: String, Sendable, CaseIterable {
        /// Asymmetric double-sided two-way ranging: three messages, clock drift cancels almost entirely.
        case doubleSided = "ds"
        /// Single-sided two-way ranging: two messages, errs by about (eB - eA) x reply / 2.
        case singleSided = "ss"
    }

    /// How the line-of-sight state of a pair evolves.
    public enum LinkModel: String, Sendable, CaseIterable {
        /// A two-state Markov chain with the configured mean durations.
        case markov
        /// Always line of sight.
        case lineOfSight = "los"
        /// Always non line of sight.
        case nonLineOfSight = "nlos"
    }

    /// Double-sided by default; single-sided is offered to show why it is not used.
    public var scheme: RangingScheme = .doubleSided
    /// Each device's crystal offset is drawn uniformly within +- this many parts per million.
    public var clockOffsetLimitPPM: Double = 20
    /// The responder's delay between receiving the poll and sending the response (its own clock).
    public var responderReplyDelay: Double = 1e-3
    /// The initiator's delay between receiving the response and sending the final message (its own clock).
    /// Different from the responder's on purpose: the asymmetric formula does not need them equal.
    public var initiatorReplyDelay: Double = 1.5e-3
    /// Duration of one timestamp tick: 1 / (128 x 499.2 MHz), about 15.65 ps or 4.69 mm of flight.
    public var tickDuration: Double = 1 / (128 * 499.2e6)
    /// Standard deviation of independent jitter on each receive timestamp, as metres of flight.
    public var timestampJitterSigma: Double = 0

    /// Standard deviation of each device's constant antenna-delay error, metres; a pair is biased by the mean of
    /// its two devices' errors.
    public var antennaDelaySigma: Double = 0.06
    /// Standard deviation of the line-of-sight first-path error of one exchange, metres.
    public var lineOfSightSigma: Double = 0.09
    /// Mean of the exponential excess path of non line of sight, metres (always positive).
    public var nonLineOfSightExcessMean: Double = 0.30
    /// Standard deviation of the Gaussian part of the non-line-of-sight error, metres.
    public var nonLineOfSightSigma: Double = 0.15
    /// How the line-of-sight state evolves.
    public var linkModel: LinkModel = .markov
    /// Mean time a pair stays in line of sight before it is obstructed, seconds.
    public var meanLineOfSightDuration: Double = 20
    /// Mean time an obstruction lasts, seconds.
    public var meanNonLineOfSightDuration: Double = 2
    /// Share of exchanges lost in line of sight.
    public var lineOfSightDropout: Double = 0.02
    /// Share of exchanges lost in non line of sight.
    public var nonLineOfSightDropout: Double = 0.20
    /// Beyond this true distance no distance or direction is measured.
    public var maximumRange: Double = 9

    /// Half-angle of the cone around the boresight inside which a direction is measured.
    public var fieldOfViewHalfAngle: Double = Angle.radians(fromDegrees: 60)
    /// Standard deviation of the angle of arrival at boresight; it grows as 1 / cos(angle) away from it.
    public var boresightAngleSigma: Double = Angle.radians(fromDegrees: 6)
    /// Carrier wavelength; channel 9 (7987.2 MHz) gives about 37.5 mm.
    public var wavelength: Double = 299_792_458 / 7987.2e6
    /// The antenna layout used for angle of arrival.
    public var antennaLayout: AntennaLayout = .lShaped

    /// The defaults.
    public init() {}

    /// The standard deviation of the measured phase difference on one baseline, radians, such that a baseline of
    /// half a wavelength gives ``boresightAngleSigma`` at boresight. From theta = asin(lambda dphi / (2 pi d)) at
    /// d = lambda / 2: sigma_theta = sigma_phi / pi at theta = 0.
    public var phaseNoiseSigma: Double {
        boresightAngleSigma * Double.pi
    }

    /// Checks every field; the error names the first one that is out of its range.
    public func validate() throws(RadioConfigurationError) {
        func require(_ ok: Bool, _ field: String, _ rule: String, _ value: Double) throws(RadioConfigurationError) {
            if !ok { throw RadioConfigurationError(field: field, value: value, rule: rule) }
        }
        try require(clockOffsetLimitPPM.isFinite && clockOffsetLimitPPM >= 0 && clockOffsetLimitPPM <= 1000,
                    "clockOffsetLimitPPM", "between 0 and 1000", clockOffsetLimitPPM)
        try require(responderReplyDelay.isFinite && responderReplyDelay > 0 && responderReplyDelay <= 0.1,
                    "responderReplyDelay", "above 0 and at most 0.1 s", responderReplyDelay)
        try require(initiatorReplyDelay.isFinite && initiatorReplyDelay > 0 && initiatorReplyDelay <= 0.1,
                    "initiatorReplyDelay", "above 0 and at most 0.1 s", initiatorReplyDelay)
        try require(tickDuration.isFinite && tickDuration > 0 && tickDuration < 1e-9,
                    "tickDuration", "above 0 and under 1 ns", tickDuration)
        for (name, value) in [
            ("timestampJitterSigma", timestampJitterSigma), ("antennaDelaySigma", antennaDelaySigma),
            ("lineOfSightSigma", lineOfSightSigma), ("nonLineOfSightExcessMean", nonLineOfSightExcessMean),
            ("nonLineOfSightSigma", nonLineOfSightSigma),
        ] {
            try require(value.isFinite && value >= 0 && value <= 10, name, "between 0 and 10 m", value)
        }
        try require(meanLineOfSightDuration.isFinite && meanLineOfSightDuration > 0,
                    "meanLineOfSightDuration", "above 0 s", meanLineOfSightDuration)
        try require(meanNonLineOfSightDuration.isFinite && meanNonLineOfSightDuration > 0,
                    "meanNonLineOfSightDuration", "above 0 s", meanNonLineOfSightDuration)
        try require(lineOfSightDropout >= 0 && lineOfSightDropout <= 1,
                    "lineOfSightDropout", "between 0 and 1", lineOfSightDropout)
        try require(nonLineOfSightDropout >= 0 && nonLineOfSightDropout <= 1,
                    "nonLineOfSightDropout", "between 0 and 1", nonLineOfSightDropout)
        try require(maximumRange.isFinite && maximumRange > 0, "maximumRange", "above 0 m", maximumRange)
        try require(fieldOfViewHalfAngle >= 0 && fieldOfViewHalfAngle <= .pi / 2,
                    "fieldOfViewHalfAngle", "between 0 and 90 degrees", Angle.degrees(fromRadians: fieldOfViewHalfAngle))
        try require(boresightAngleSigma.isFinite && boresightAngleSigma >= 0 && boresightAngleSigma <= .pi / 2,
                    "boresightAngleSigma", "between 0 and 90 degrees", Angle.degrees(fromRadians: boresightAngleSigma))
        try require(wavelength.isFinite && wavelength > 0 && wavelength < 1, "wavelength", "above 0 and under 1 m",
                    wavelength)
    }
}

/// A radio configuration field outside its allowed range.
public struct RadioConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field's name in ``RadioConfiguration``.
    public let field: String
    /// The value that was refused.
    public let value: Double
    /// The allowed range, in words.
    public let rule: String

    public var description: String {
        "radio configuration: \(field) must be \(rule), got \(value)"
    }
}
