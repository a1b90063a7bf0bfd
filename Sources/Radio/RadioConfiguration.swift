import DeviceInterface
import Foundation
import Geometry

/// Every parameter of the ultra-wideband radio model, with defaults from published measurements (see DESIGN.md).
///
/// Distances are in metres, times in seconds, angles in radians.
package struct RadioConfiguration: Sendable, Equatable {
    /// How a pair's exchange is timed (the devices' choice, in the vocabulary both sides share).
    package typealias RangingScheme = DeviceInterface.RangingScheme

    /// How the line-of-sight state of a pair evolves.
    package enum LinkModel: String, Sendable, CaseIterable {
        /// From the world's geometry: obstructed when a body (the holders' own included) or a wall stands on the
        /// straight line between the two phones.
        case geometry
        /// A two-state Markov chain with the configured mean durations, blind to the geometry.
        case markov
        /// Always line of sight.
        case lineOfSight = "los"
        /// Always non line of sight.
        case nonLineOfSight = "nlos"
    }

    /// Each device's model (docs/radio-model.md, "Device profiles"): device i has the (i mod n)-th of these, unless
    /// ``deviceProfileOverrides`` names its own. One profile is a room of one model; several, a mixed room.
    package var deviceProfiles: [DeviceProfile] = [.generic]
    /// Devices of a model of their own, by device id (a scenario file's peers, a room's devices).
    package var deviceProfileOverrides: [UInt64: DeviceProfile] = [:]

    /// The model of device `id`.
    package func profile(of id: UInt64) -> DeviceProfile {
        if let own = deviceProfileOverrides[id] { return own }
        return deviceProfiles.isEmpty ? .generic : deviceProfiles[Int(id % UInt64(deviceProfiles.count))]
    }

    /// Double-sided by default; single-sided is offered to show why it is not used.
    package var scheme: RangingScheme = .doubleSided
    /// Each device's crystal offset is drawn uniformly within +- this many parts per million.
    package var clockOffsetLimitPPM: Double = 20
    /// The responder's delay between receiving the poll and sending the response (its own clock).
    package var responderReplyDelay: Double = 1e-3
    /// The initiator's delay between receiving the response and sending the final message (its own clock).
    /// Different from the responder's on purpose: the asymmetric formula does not need them equal.
    package var initiatorReplyDelay: Double = 1.5e-3
    /// How long after an exchange starts the responder holds its six timestamps (the final's arrival), seconds.
    package var responderReadingDelay: Double { responderReplyDelay + initiatorReplyDelay }
    /// How long after an exchange starts the initiator holds them: the responder reports its timestamps a reply
    /// delay after the final.
    package var initiatorReadingDelay: Double { 2 * responderReplyDelay + initiatorReplyDelay }
    /// Duration of one timestamp tick: 1 / (128 x 499.2 MHz), about 15.65 ps or 4.69 mm of flight.
    package var tickDuration: Double = 1 / (128 * 499.2e6)
    /// Standard deviation of independent jitter on each receive timestamp, as metres of flight.
    package var timestampJitterSigma: Double = 0

    /// Standard deviation of each device's constant antenna-delay error, metres; a pair is biased by the mean of
    /// its two devices' errors.
    package var antennaDelaySigma: Double = 0.06
    /// How much longer a pair reads with both phones turned fully away from each other, metres: the first path
    /// passes through the phone's body and its antenna's phase centre moves with the angle. Each phone adds half
    /// of this times (1 − cos θ)/2, θ its angle off the boresight: nothing facing, the whole with both backs
    /// turned. Pelka, Cimdins and Hellbrück ("Impact of the antenna orientation for distance estimation")
    /// attribute up to 0.25 m of the error of two-way ranging to the antennas' orientation (docs/radio-model.md).
    package var orientationBias: Double = 0.25

    /// How much of the leading edge's bias with the received level a pair shows in line of sight, as a share of
    /// what Decawave measured (APS011, "Sources of error in DW1000 based two-way ranging schemes", table 2, 64-MHz
    /// PRF: from 11 cm short at −61 dBm to 8.1 cm long at −93 dBm): 1 a chip that leaves it, 0 one that corrects
    /// it. Zero at ``calibrationDistance``, where the phones' antenna delays are set; the level follows the path
    /// alone (distance), the antennas' turn being in ``orientationBias`` and obstruction in its own excess, each
    /// measured whole.
    package var levelBiasShare: Double = 1
    /// The received level of a clear link at 1 m, both phones facing, dBm: the most a UWB transmitter may radiate
    /// (−41.3 dBm/MHz over 500 MHz, −14.3 dBm) less 50.5 dB of free-space loss at 1 m on channel 9, 0-dBi antennas.
    package var referenceLevel: Double = -64.8
    /// Where the pairs' ranging is calibrated, metres: their level's bias is zero there.
    package var calibrationDistance: Double = 1

    /// How much longer than the truth a pair's estimate may read in line of sight, metres: both phones turned away,
    /// the weakest level's bias and two spreads of a strong signal's noise. What a device allows for when it judges
    /// who is in hearing.
    package var estimatesReadLongBy: Double {
        orientationBias + levelBiasShare * (Self.leadingEdgeBias(level: -.infinity) - calibrationBias)
            + 2 * lineOfSightSigma
    }

    /// The leading edge's range bias at `level` dBm, metres, as APS011's table 2 gives it (64-MHz PRF, every 2 dB
    /// from −61 to −93 dBm, interpolated; held beyond the weak end); stronger than −61 dBm it keeps falling by
    /// `nearFieldSlope` metres a dB (``nearFieldBiasSlope``): negative reads short.
    package static func leadingEdgeBias(level: Double, nearFieldSlope: Double = 0) -> Double {
        let table = Self.levelBiasTable
        let position = (-61 - level) / 2
        guard position > 0 else { return table[0] / 100 + nearFieldSlope * 2 * position }
        guard position < Double(table.count - 1) else { return table[table.count - 1] / 100 }
        let k = Int(position)
        let f = position - Double(k)
        return (table[k] + (table[k + 1] - table[k]) * f) / 100
    }

    /// APS011 table 2, 64-MHz PRF: the range bias in centimetres at −61, −63, … −93 dBm.
    static let levelBiasTable: [Double] = [
        -11.0, -10.5, -10.0, -9.3, -8.2, -6.9, -5.1, -2.7, 0.0, 2.1, 3.5, 4.2, 4.9, 6.2, 7.1, 7.6, 8.1,
    ]

    /// The free-space path's loss at `distance`, dB, held at ``nearestPathDistance``.
    @inlinable
    package func pathLoss(distance: Double) -> Double {
        10 * pathLossExponent * log10(max(distance, nearestPathDistance))
    }

    /// The level's bias of a clear path of `pathLoss` dB, metres, less `calibration` (``calibrationBias``, which a
    /// pair computes once).
    package func levelBias(pathLoss: Double, less calibration: Double) -> Double {
        guard levelBiasShare > 0 else { return 0 }
        return levelBiasShare
            * (Self.leadingEdgeBias(level: referenceLevel - pathLoss, nearFieldSlope: nearFieldBiasSlope) - calibration)
    }

    /// The bias the calibration removes: the level's at ``calibrationDistance``.
    package var calibrationBias: Double {
        Self.leadingEdgeBias(level: referenceLevel - pathLoss(distance: calibrationDistance),
                             nearFieldSlope: nearFieldBiasSlope)
    }

    /// How much shorter a clear path reads for each dB its level stands above −61 dBm, the strongest row of APS011's
    /// table, metres a dB. The leading edge is found where the rising first path crosses a threshold set by the
    /// noise, so a stronger path crosses it sooner, and nothing stops that at −61 dBm. 0.8 cm a dB is what two
    /// DW3000 boards under 10 cm apart read (libdeca issue 7: times of flight of −26 to −31 ticks, −12 to −15 cm,
    /// taken at 5 cm apart, 26 dB above the level at 1 m); the table's own last 4 dB fall by 0.25 cm a dB. A guess
    /// within that span (docs/radio-model.md has the sensitivity).
    package var nearFieldBiasSlope: Double = 0.008
    /// Under this distance the path's loss, so the level, stops growing, metres: the edge of the antennas' radiating
    /// near field, 2D²/λ for a 2-cm antenna on channel 9 (2.1 cm).
    package var nearestPathDistance: Double = 0.02

    /// What a chip reports when the timestamps give a negative time of flight (the error exceeds the distance).
    package enum NegativeFlight: String, Sendable, CaseIterable {
        /// A distance of 0 m: the phone sticks at 0 while the phones are that close (a Galaxy S21 Ultra reported 0 m
        /// repeatedly, Heinrich et al. 2023).
        case zero
        /// No measurement: the exchange fails, as DW3000 firmware that treats a negative time of flight as an error
        /// does (libdeca issue 7): one failure cannot tell "right here" from "out of range"; the reference app reads
        /// failures right after closing in as "right here" (`BumpConfiguration.closingIn`).
        case fail
    }
    /// What a negative time of flight gives.
    package var negativeFlight: NegativeFlight = .zero
    /// Standard deviation of the line-of-sight first-path error of one exchange that a strong signal leaves
    /// (multipath near the antennas), metres.
    package var lineOfSightSigma: Double = 0.085
    /// Standard deviation of the distance error the receiver's noise adds at the reference signal-to-noise ratio,
    /// metres; it grows as 1 / sqrt(SNR), as the first path's timing error does (so, with free-space loss, in
    /// proportion to the distance).
    package var weakSignalSigma: Double = 0.015
    /// Mean of the exponential excess path of non line of sight, metres (always positive).
    package var nonLineOfSightExcessMean: Double = 0.30
    /// Standard deviation of the Gaussian part of the non-line-of-sight error, metres.
    package var nonLineOfSightSigma: Double = 0.15
    /// Share of obstructed exchanges whose direct path goes undetected: the chip times a reflection, metres longer.
    /// Alavi and Pahlavan (IEEE Communications Letters, 2006) split UWB's distance error into the multipath's and
    /// the undetected direct path's, a mixture whose second part gives the large errors; their shares and means for
    /// a phone's body are not published where this project can read them: a guess, with its sensitivity in
    /// docs/radio-model.md ("The tail").
    package var undetectedPathShare: Double = 0.1
    /// Mean of the exponential excess of an undetected direct path, metres: a reflection off a wall or a person a
    /// metre or two around (a guess, as the share).
    package var undetectedPathExcessMean: Double = 1.0
    /// Share of exchanges, in any state, whose reading is a gross outlier: anything from 0 to the true distance plus
    /// ``outlierSpan``. Phones measured by Heinrich et al. (2023) reported from 0 to 7.79 m at a true 5 m; how
    /// often is not in their summary, but their RMSE bounds it: an outlier at 5 m adds 6.3 m² to the squared error
    /// on average, so more than 0.05% of them would take the model's 17 cm at 5 m past the phones' 18 cm
    /// (docs/radio-model.md, "The tail", with the sensitivity).
    package var outlierShare: Double = 0.0005
    /// How far beyond the true distance a gross outlier may read, metres: 7.79 m at 5 m (Heinrich et al.).
    package var outlierSpan: Double = 3
    /// How the line-of-sight state evolves.
    package var linkModel: LinkModel = .geometry
    /// Mean time a pair stays in line of sight before it is obstructed, seconds.
    package var meanLineOfSightDuration: Double = 20
    /// Mean time an obstruction lasts, seconds.
    package var meanNonLineOfSightDuration: Double = 2
    /// Share of exchanges lost in line of sight.
    package var lineOfSightDropout: Double = 0.02
    /// Share of exchanges lost in non line of sight.
    package var nonLineOfSightDropout: Double = 0.20
    /// Beyond this true distance no distance or direction is measured; the link budget has faded the link out
    /// well before it (97% of exchanges lost here at the defaults, in line of sight and facing each other).
    package var maximumRange: Double = 15

    /// The link budget. Signal-to-noise ratio of a clear link at 1 m with both phones facing each other, dB.
    package var referenceSNR: Double = 30
    /// Path loss exponent: the SNR falls by 10 n log10(d / 1 m); 2 is free space.
    package var pathLossExponent: Double = 2
    /// The SNR at which half the exchanges are lost (the preamble is not detected), dB.
    package var fadeSNR: Double = 11
    /// Width of the fade: the loss is logistic in the SNR with this scale, dB.
    package var fadeWidth: Double = 1.5
    /// The antenna's gain toward the back and sides: none inside the field of view, falling linearly with the
    /// angle off the boresight to this at the phone's back, dB (negative).
    package var rearGain: Double = -10
    /// Loss through one human body between the phones, dB.
    package var bodyLoss: Double = 10

    /// Half-angle of the cone around the boresight inside which a direction is measured.
    package var fieldOfViewHalfAngle: Double = Angle.radians(fromDegrees: 60)
    /// Standard deviation of the angle of arrival at boresight with a strong signal; it grows as 1 / cos(angle)
    /// away from it.
    package var boresightAngleSigma: Double = Angle.radians(fromDegrees: 5.5)
    /// What the receiver's noise adds to the angle of arrival at boresight at the reference SNR; grows as
    /// 1 / sqrt(SNR). With ``boresightAngleSigma``, 6 degrees at 1 m.
    package var weakSignalAngleSigma: Double = Angle.radians(fromDegrees: 2.4)
    /// Carrier wavelength; channel 9 (7987.2 MHz) gives about 37.5 mm.
    package var wavelength: Double = 299_792_458 / 7987.2e6
    /// The antenna layout used for angle of arrival.
    package var antennaLayout: AntennaLayout = .lShaped

    /// The defaults.
    package init() {}

    /// The link's SNR, dB, at `distance` with the two phones' antenna gains and `extraLoss` (bodies, walls).
    @inlinable
    package func signalToNoise(distance: Double, gainA: Double, gainB: Double, extraLoss: Double) -> Double {
        signalToNoise(pathLoss: pathLoss(distance: distance), gainA: gainA, gainB: gainB, extraLoss: extraLoss)
    }

    /// The same from the path's loss (``pathLoss(distance:)``).
    @inlinable
    package func signalToNoise(pathLoss: Double, gainA: Double, gainB: Double, extraLoss: Double) -> Double {
        referenceSNR - pathLoss + gainA + gainB - extraLoss
    }

    /// The antenna gain toward a direction `offBoresight` radians off the boresight, dB.
    @inlinable
    package func antennaGain(offBoresight angle: Double) -> Double {
        antennaGain(offBoresight: angle, rearGain: rearGain)
    }

    /// The same for an antenna whose gain toward the back is `rear` dB (a device profile's).
    @inlinable
    package func antennaGain(offBoresight angle: Double, rearGain rear: Double) -> Double {
        guard angle > fieldOfViewHalfAngle else { return 0 }
        return rear * (angle - fieldOfViewHalfAngle) / (Double.pi - fieldOfViewHalfAngle)
    }

    /// The share of exchanges the fade loses at `snr` dB (without the state's own floor).
    @inlinable
    package func fadeLoss(snr: Double) -> Double {
        guard fadeWidth > 0 else { return snr < fadeSNR ? 1 : 0 }
        return 1 / (1 + exp((snr - fadeSNR) / fadeWidth))
    }

    /// How much weaker than the reference a link of `snr` dB is, in power: the noise terms' variances scale by it.
    @inlinable
    package func weakness(snr: Double) -> Double {
        pow(10, (referenceSNR - snr) / 10)
    }

    /// Checks every field; the error names the first one that is out of its range.
    package func validate() throws(RadioConfigurationError) {
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
            ("lineOfSightSigma", lineOfSightSigma), ("weakSignalSigma", weakSignalSigma),
            ("orientationBias", orientationBias),
            ("nonLineOfSightExcessMean", nonLineOfSightExcessMean),
            ("nonLineOfSightSigma", nonLineOfSightSigma),
        ] {
            try require(value.isFinite && value >= 0 && value <= 10, name, "between 0 and 10 m", value)
        }
        try require(undetectedPathShare >= 0 && undetectedPathShare <= 1,
                    "undetectedPathShare", "between 0 and 1", undetectedPathShare)
        try require(undetectedPathExcessMean.isFinite && undetectedPathExcessMean >= 0 && undetectedPathExcessMean <= 100,
                    "undetectedPathExcessMean", "between 0 and 100 m", undetectedPathExcessMean)
        try require(outlierShare >= 0 && outlierShare <= 1, "outlierShare", "between 0 and 1", outlierShare)
        try require(outlierSpan.isFinite && outlierSpan >= 0 && outlierSpan <= 100,
                    "outlierSpan", "between 0 and 100 m", outlierSpan)
        try require(meanLineOfSightDuration.isFinite && meanLineOfSightDuration > 0,
                    "meanLineOfSightDuration", "above 0 s", meanLineOfSightDuration)
        try require(meanNonLineOfSightDuration.isFinite && meanNonLineOfSightDuration > 0,
                    "meanNonLineOfSightDuration", "above 0 s", meanNonLineOfSightDuration)
        try require(lineOfSightDropout >= 0 && lineOfSightDropout <= 1,
                    "lineOfSightDropout", "between 0 and 1", lineOfSightDropout)
        try require(nonLineOfSightDropout >= 0 && nonLineOfSightDropout <= 1,
                    "nonLineOfSightDropout", "between 0 and 1", nonLineOfSightDropout)
        try require(maximumRange.isFinite && maximumRange > 0, "maximumRange", "above 0 m", maximumRange)
        try require(levelBiasShare.isFinite && levelBiasShare >= 0 && levelBiasShare <= 2,
                    "levelBiasShare", "between 0 and 2", levelBiasShare)
        try require(referenceLevel.isFinite && referenceLevel >= -150 && referenceLevel <= 0,
                    "referenceLevel", "between -150 and 0 dBm", referenceLevel)
        try require(nearFieldBiasSlope.isFinite && nearFieldBiasSlope >= 0 && nearFieldBiasSlope <= 0.05,
                    "nearFieldBiasSlope", "between 0 and 0.05 m a dB", nearFieldBiasSlope)
        try require(nearestPathDistance.isFinite && nearestPathDistance >= 0.001 && nearestPathDistance <= 1,
                    "nearestPathDistance", "between 0.001 and 1 m", nearestPathDistance)
        try require(calibrationDistance.isFinite && calibrationDistance >= 0.1 && calibrationDistance <= 100,
                    "calibrationDistance", "between 0.1 and 100 m", calibrationDistance)
        try require(fieldOfViewHalfAngle >= 0 && fieldOfViewHalfAngle <= .pi / 2,
                    "fieldOfViewHalfAngle", "between 0 and 90 degrees", Angle.degrees(fromRadians: fieldOfViewHalfAngle))
        try require(boresightAngleSigma.isFinite && boresightAngleSigma >= 0 && boresightAngleSigma <= .pi / 2,
                    "boresightAngleSigma", "between 0 and 90 degrees", Angle.degrees(fromRadians: boresightAngleSigma))
        try require(weakSignalAngleSigma.isFinite && weakSignalAngleSigma >= 0 && weakSignalAngleSigma <= .pi / 2,
                    "weakSignalAngleSigma", "between 0 and 90 degrees", Angle.degrees(fromRadians: weakSignalAngleSigma))
        try require(referenceSNR.isFinite && abs(referenceSNR) <= 200, "referenceSNR", "between -200 and 200 dB",
                    referenceSNR)
        try require(pathLossExponent.isFinite && pathLossExponent >= 1 && pathLossExponent <= 6,
                    "pathLossExponent", "between 1 and 6", pathLossExponent)
        try require(fadeSNR.isFinite && abs(fadeSNR) <= 200, "fadeSNR", "between -200 and 200 dB", fadeSNR)
        try require(fadeWidth.isFinite && fadeWidth >= 0 && fadeWidth <= 20, "fadeWidth", "between 0 and 20 dB",
                    fadeWidth)
        try require(rearGain.isFinite && rearGain <= 0 && rearGain >= -60, "rearGain", "between -60 and 0 dB", rearGain)
        try require(bodyLoss.isFinite && bodyLoss >= 0 && bodyLoss <= 60, "bodyLoss", "between 0 and 60 dB", bodyLoss)
        if deviceProfiles.isEmpty {
            throw RadioConfigurationError(field: "deviceProfiles", value: 0, rule: "at least one profile")
        }
        try require(wavelength.isFinite && wavelength > 0 && wavelength < 1, "wavelength", "above 0 and under 1 m",
                    wavelength)
    }
}

/// A radio configuration field outside its allowed range.
package struct RadioConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field's name in ``RadioConfiguration``.
    package let field: String
    /// The value that was refused.
    package let value: Double
    /// The allowed range, in words.
    package let rule: String

    package var description: String {
        "radio configuration: \(field) must be \(rule), got \(value)"
    }
}
