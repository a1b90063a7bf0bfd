import DeviceInterface
import Foundation
import GSL
import Geometry

/// The radio link of one pair of devices: its own random stream, its line-of-sight state, and the two devices'
/// hardware. Turns two true poses into a raw measurement, or into nothing (a lost exchange).
///
/// The initiator is the device that computes the pair's exchange (for example the lower peer id); the responder
/// receives the result. Holding a `PairRadio` means owning its stream: it is not shared between workers.
package struct PairRadio {
    package let initiator: DeviceRadio
    package let responder: DeviceRadio
    /// The room's configuration, one copy for all its links (a copy in each was a third of a pair's slot).
    private let shared: SharedRadioConfiguration
    package var configuration: RadioConfiguration { shared.configuration }
    package private(set) var link = LinkState()
    private let random: RandomSource

    /// A link between two devices, drawing from `random`.
    ///
    /// - Throws: ``RadioConfigurationError`` when the configuration is out of range.
    package init(
        initiator: DeviceRadio, responder: DeviceRadio, configuration: RadioConfiguration, random: RandomSource
    ) throws(RadioConfigurationError) {
        self.init(initiator: initiator, responder: responder, shared: try SharedRadioConfiguration(configuration),
                  random: random)
    }

    /// A link between two devices under a configuration checked once for the room, drawing from `random`.
    package init(initiator: DeviceRadio, responder: DeviceRadio, shared: SharedRadioConfiguration,
                 random: RandomSource) {
        self.initiator = initiator
        self.responder = responder
        self.shared = shared
        self.random = random
    }

    /// Simulates one exchange at global time `time` between the initiator at `initiatorPose` and the responder at
    /// `responderPose`, with `path` standing between them.
    ///
    /// - Returns: the measurement, or `nil` when the exchange was lost.
    package mutating func exchange(
        initiatorPose: Pose, responderPose: Pose, at time: Double, path: PathObstruction = .clear
    ) -> RangingMeasurement? {
        exchange(geometry: PairGeometry(initiatorPose, responderPose), at: time, path: path)
    }

    /// Simulates one exchange for an already computed true geometry (initiator = A, responder = B).
    ///
    /// The link budget: the SNR falls with the distance and with each phone's antenna turned away, and by the loss
    /// of what is in the way; the fade loses exchanges as it nears its threshold, and the noise of the distance and
    /// of the angles grows as 1 / sqrt(SNR). Under ``RadioConfiguration/LinkModel/geometry`` the link is obstructed
    /// when `path` is not clear; the other models draw or force the state and count an obstruction as one body.
    ///
    /// Reads the configuration in place: a copy of it (about 270 bytes) per exchange was a tenth of a whole run's
    /// ranging.
    package mutating func exchange(
        geometry: PairGeometry, at time: Double, path: PathObstruction = .clear
    ) -> RangingMeasurement? {
        let lineOfSight: Bool
        var extraLoss = 0.0
        if shared.configuration.linkModel == .geometry {
            lineOfSight = path.isClear
            extraLoss = Double(path.bodies) * shared.configuration.bodyLoss + path.wallLoss
        } else {
            lineOfSight = link.step(
                to: time, model: shared.configuration.linkModel, meanLOS: shared.configuration.meanLineOfSightDuration,
                meanNLOS: shared.configuration.meanNonLineOfSightDuration, random: random)
            if !lineOfSight { extraLoss = shared.configuration.bodyLoss }
        }
        let traits = shared.traits(initiator.profile, responder.profile)
        let pathLoss = shared.configuration.pathLoss(distance: geometry.distance)
        let (gainA, gainB) = antennaGains(geometry, traits)
        let snr = shared.configuration.signalToNoise(pathLoss: pathLoss, gainA: gainA, gainB: gainB,
                                                     extraLoss: extraLoss)
        let floor = lineOfSight ? shared.configuration.lineOfSightDropout : shared.configuration.nonLineOfSightDropout
        let fade = shared.configuration.fadeLoss(snr: snr)
        let kept = (1 - floor) * (1 - fade)
        if random.bernoulli(1 - kept) {
            return nil
        }
        guard geometry.distance <= shared.configuration.maximumRange else {
            return RangingMeasurement(
                time: time, lineOfSight: lineOfSight, distance: nil, angleAtInitiator: nil, angleAtResponder: nil)
        }
        let weakness = shared.configuration.weakness(snr: snr)
        // Each phone turned away lengthens the first path: -z of the bearing is the cosine off its boresight.
        let turned = (2 + geometry.bearingFromA.direction.z + geometry.bearingFromB.direction.z) / 4
        // In line of sight the leading edge reads short when the path is short and strong, long when it is weak.
        let level = lineOfSight ? shared.configuration.levelBias(pathLoss: pathLoss, less: shared.calibrationBias) : 0
        let distance = measureDistance(trueDistance: geometry.distance, lineOfSight: lineOfSight, weakness: weakness,
                                       bias: shared.configuration.orientationBias * turned + level,
                                       floor: traits.lineOfSightSigma, at: time)
        if distance < 0 && traits.failsOnNegativeFlight { return nil }
        var atInitiator: AngleMeasurement?
        var atResponder: AngleMeasurement?
        if lineOfSight {
            let floor = shared.configuration.boresightAngleSigma, w = shared.configuration.weakSignalAngleSigma
            let phaseNoise = Double.pi * (floor * floor + w * w * weakness).squareRoot()
            if traits.initiatorMeasuresAngle { atInitiator = measureAngle(geometry.bearingFromA, phaseNoise: phaseNoise) }
            if traits.responderMeasuresAngle { atResponder = measureAngle(geometry.bearingFromB, phaseNoise: phaseNoise) }
        }
        // The responder's report is one more frame on the same link: of the exchange's three frames each is kept
        // with the cube root of the exchange's share.
        let reported = !random.bernoulli(1 - cbrt(kept))
        return RangingMeasurement(
            time: time, lineOfSight: lineOfSight, distance: distance,
            angleAtInitiator: atInitiator, angleAtResponder: atResponder, timeOfFlightDistance: distance,
            reachedInitiator: reported)
    }

    /// The channel's first-path error is common to the three messages of one exchange: the channel does not change
    /// in the few milliseconds it lasts. The distance then comes from the simulated timestamps.
    private mutating func measureDistance(
        trueDistance: Double, lineOfSight: Bool, weakness: Double, bias: Double, floor losFloor: Double,
        at time: Double
    ) -> Double {
        var channelError = (initiator.antennaDelayBias + responder.antennaDelayBias) / 2 + bias
        let weak = shared.configuration.weakSignalSigma * shared.configuration.weakSignalSigma * weakness
        if lineOfSight {
            let floor = losFloor
            channelError += random.gaussian(sigma: (floor * floor + weak).squareRoot())
        } else {
            let floor = shared.configuration.nonLineOfSightSigma
            let undetected = shared.configuration.undetectedPathShare
            let excess = undetected > 0 && random.bernoulli(undetected)
                ? shared.configuration.undetectedPathExcessMean : shared.configuration.nonLineOfSightExcessMean
            channelError += random.exponential(mean: excess)
            channelError += random.gaussian(sigma: (floor * floor + weak).squareRoot())
        }
        let outliers = shared.configuration.outlierShare
        if outliers > 0 && random.bernoulli(outliers) {
            // The chip locks onto something else than the first path: the reading says nothing of the distance.
            channelError = random.uniform(in: 0..<(trueDistance + shared.configuration.outlierSpan)) - trueDistance
        }
        let speed = TwoWayRanging.speedOfLight
        var jitter = (poll: 0.0, response: 0.0, final: 0.0)
        if shared.configuration.timestampJitterSigma > 0 {
            let sigma = shared.configuration.timestampJitterSigma / speed
            jitter = (random.gaussian(sigma: sigma), random.gaussian(sigma: sigma), random.gaussian(sigma: sigma))
        }
        let tick = shared.configuration.tickDuration
        let stamps = TwoWayRanging.timestamps(
            initiator: initiator, responder: responder, start: time,
            flightTime: (trueDistance + channelError) / speed,
            responderReplyDelay: shared.configuration.responderReplyDelay,
            initiatorReplyDelay: shared.configuration.initiatorReplyDelay, tick: tick, jitter: jitter)
        // Negative when the error exceeds the distance: the measurement reports that as zero, or the exchange
        // fails (``RadioConfiguration/negativeFlight``).
        return TwoWayRanging.distance(stamps, scheme: shared.configuration.scheme, tick: tick)
    }

    /// Each device's antenna gain toward the other, dB, by its own model's back lobe.
    package func antennaGains(_ geometry: PairGeometry) -> (initiator: Double, responder: Double) {
        antennaGains(geometry, shared.traits(initiator.profile, responder.profile))
    }

    @inline(__always)
    private func antennaGains(_ geometry: PairGeometry, _ traits: PairTraits) -> (Double, Double) {
        let c = shared.configuration
        return (c.antennaGain(offBoresight: geometry.bearingFromA.offBoresight, rearGain: traits.initiatorRearGain),
                c.antennaGain(offBoresight: geometry.bearingFromB.offBoresight, rearGain: traits.responderRearGain))
    }

    /// Simulates the phase differences on each baseline and solves the direction back from them.
    private func measureAngle(_ truth: Bearing, phaseNoise: Double) -> AngleMeasurement? {
        guard -truth.direction.z >= shared.cosFieldOfView else { return nil }
        let random = self.random
        let (u, v) = shared.configuration.antennaLayout.solve { _, b in
            let truePhase = 2 * Double.pi * (b.x * truth.direction.x + b.y * truth.direction.y)
            return Self.wrap(truePhase + random.gaussian(sigma: phaseNoise)) / (2 * Double.pi)
        }
        return AngleMeasurement(
            horizontalCosine: min(max(u, -1), 1), verticalCosine: v.map { min(max($0, -1), 1) })
    }

    /// Wraps a phase to (-pi, pi], as a phase comparator does: past the edge an arrival reads as from the other side.
    @inline(__always)
    static func wrap(_ phase: Double) -> Double {
        // Phases here stay within a few turns of zero, so subtracting whole turns is exact and much cheaper than
        // a floating-point remainder (an fmod four times per exchange).
        var p = phase
        while p > Double.pi { p -= 2 * Double.pi }
        while p <= -Double.pi { p += 2 * Double.pi }
        return p
    }
}

extension PairRadio {
    /// The link of two devices of a run, with the pair's own stream derived from the run seed and their ids.
    ///
    /// - Throws: ``RadioConfigurationError`` for a bad configuration; a GSL allocation failure is reported as
    ///   ``GSLError`` wrapped in ``PairRadioError``.
    package init(
        initiatorID: UInt64, responderID: UInt64, runSeed: UInt64, configuration: RadioConfiguration
    ) throws(PairRadioError) {
        let a: DeviceRadio
        let b: DeviceRadio
        do throws(GSLError) {
            a = try DeviceRadio(id: initiatorID, runSeed: runSeed, configuration: configuration)
            b = try DeviceRadio(id: responderID, runSeed: runSeed, configuration: configuration)
        } catch {
            throw .gsl(error)
        }
        try self.init(initiator: a, responder: b, stream: (initiatorID, responderID), runSeed: runSeed,
                      configuration: configuration)
    }

    /// The link of two devices whose radios are already made, drawing from the stream of the pair `stream` (two
    /// ids in a fixed order, so that the pair keeps its stream whichever side initiates).
    package init(
        initiator: DeviceRadio, responder: DeviceRadio, stream: (UInt64, UInt64), runSeed: UInt64,
        configuration: RadioConfiguration
    ) throws(PairRadioError) {
        let shared: SharedRadioConfiguration
        do throws(RadioConfigurationError) {
            shared = try SharedRadioConfiguration(configuration)
        } catch {
            throw .configuration(error)
        }
        try self.init(initiator: initiator, responder: responder, stream: stream, runSeed: runSeed, shared: shared)
    }

    /// The same, under a configuration checked once for the room.
    package init(
        initiator: DeviceRadio, responder: DeviceRadio, stream: (UInt64, UInt64), runSeed: UInt64,
        shared: SharedRadioConfiguration
    ) throws(PairRadioError) {
        let random: RandomSource
        do throws(GSLError) {
            random = try RandomSource(runSeed: runSeed, stream: .pair(stream.0, stream.1))
        } catch {
            throw .gsl(error)
        }
        self.init(initiator: initiator, responder: responder, shared: shared, random: random)
    }
}

/// A radio configuration checked once, with what the links derive from it, shared by every link of a room.
package final class SharedRadioConfiguration: Sendable {
    package let configuration: RadioConfiguration
    let cosFieldOfView: Double
    /// The level's bias at the calibration distance, which the pair's calibration removes.
    let calibrationBias: Double
    /// What each ordered pair of device models does to a pair's exchange, by ``PairTraits/index(_:_:)``.
    let pairTraits: [PairTraits]

    /// - Throws: ``RadioConfigurationError`` when the configuration is out of range.
    package init(_ configuration: RadioConfiguration) throws(RadioConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        cosFieldOfView = cos(configuration.fieldOfViewHalfAngle)
        calibrationBias = configuration.calibrationBias
        let traits = DeviceProfile.allCases.map { $0.traits(in: configuration) }
        var pairs: [PairTraits] = []
        for a in traits {
            for b in traits { pairs.append(PairTraits(initiator: a, responder: b)) }
        }
        pairTraits = pairs
    }

    /// The traits of a pair whose initiator is an `a` and responder a `b`.
    @inline(__always)
    func traits(_ a: DeviceProfile, _ b: DeviceProfile) -> PairTraits {
        pairTraits[PairTraits.index(a, b)]
    }
}

/// Two device models' traits as one exchange between them uses them.
struct PairTraits: Sendable {
    /// The line-of-sight floor of the pair: the root mean square of its devices' (their own when they are alike).
    let lineOfSightSigma: Double
    let initiatorRearGain: Double
    let responderRearGain: Double
    /// A chip that treats a negative flight as an error ends the exchange for both.
    let failsOnNegativeFlight: Bool
    let initiatorMeasuresAngle: Bool
    let responderMeasuresAngle: Bool

    init(initiator a: DeviceTraits, responder b: DeviceTraits) {
        lineOfSightSigma = a.lineOfSightSigma == b.lineOfSightSigma
            ? a.lineOfSightSigma
            : ((a.lineOfSightSigma * a.lineOfSightSigma + b.lineOfSightSigma * b.lineOfSightSigma) / 2).squareRoot()
        initiatorRearGain = a.rearGain
        responderRearGain = b.rearGain
        failsOnNegativeFlight = a.negativeFlight == .fail || b.negativeFlight == .fail
        initiatorMeasuresAngle = a.measuresAngle
        responderMeasuresAngle = b.measuresAngle
    }

    @inline(__always)
    static func index(_ a: DeviceProfile, _ b: DeviceProfile) -> Int {
        a.ordinal * DeviceProfile.allCases.count + b.ordinal
    }
}

extension DeviceProfile {
    /// The profile's place in `allCases`.
    var ordinal: Int {
        switch self {
        case .generic: 0
        case .iphone: 1
        case .pixel: 2
        case .galaxy: 3
        case .dw3000: 4
        }
    }
}

/// Why a pair's link could not be made.
package enum PairRadioError: Error, Sendable, Equatable, CustomStringConvertible {
    case configuration(RadioConfigurationError)
    case gsl(GSLError)

    package var description: String {
        switch self {
        case .configuration(let e): e.description
        case .gsl(let e): e.description
        }
    }
}
