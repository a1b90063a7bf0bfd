import Bump
import Estimation
import Geometry
import Radio

/// The state of one pair: its radio link (with its own random stream), each side's estimator, the bump detector,
/// its share of the error sums, and the identity of the sessions it last ranged under.
///
/// The initiator is the side with the lower peer id: it runs the exchange; each side filters its own reading of it.
/// The radio's stream belongs to the pair (its two device indices), whichever side initiates.
struct PairSlot {
    let initiator: Int
    let responder: Int
    var radio: PairRadio
    var estimatorI: SessionEstimator
    var estimatorR: SessionEstimator
    var bump: BumpDetector
    /// Whether the initiator's chip fails an exchange whose time of flight comes out negative (its app knows its own
    /// chip): a failure may then mean the phones are closer than the radio's error.
    let failureMayBeNear: Bool
    /// Whether the estimators hold anything of the present sessions: only then is there state to start afresh.
    var hasState: Bool {
        estimatorI.rangeFilter.isStarted || estimatorI.directionSmoother.smoothed != nil
            || estimatorR.rangeFilter.isStarted || estimatorR.directionSmoother.smoothed != nil
    }

    var rawSquares = 0.0
    var rawCount = 0
    var filteredSquares = 0.0
    var filteredCount = 0
}

/// How every pair's slot is made: the settings the radio, the estimators and the detector start from.
package struct PairSettings: Sendable {
    package var seed: UInt64
    package var radio: RadioConfiguration
    package var estimator: EstimatorConfiguration
    package var bump: BumpConfiguration
    /// The scenario's walls, for the geometry link model.
    package var walls: [Wall]
    /// Whether the reference app's bump detector runs (not while an app under test runs its own logic: then it
    /// neither fires nor holds the air back after a bump).
    package var detectsBumps: Bool

    package init(
        seed: UInt64, radio: RadioConfiguration, estimator: EstimatorConfiguration, bump: BumpConfiguration,
        walls: [Wall] = [], detectsBumps: Bool = true
    ) {
        self.seed = seed
        self.radio = radio
        self.estimator = estimator
        self.bump = bump
        self.walls = walls
        self.detectsBumps = detectsBumps
    }
}

extension PairSlot {
    /// The slot of devices `low` < `high`; `lowInitiates` when `low` has the lower peer id.
    init(
        low: Int, high: Int, lowInitiates: Bool, devices: [DeviceRadio], settings: PairSettings,
        radio shared: SharedRadioConfiguration, estimator: SharedEstimatorConfiguration, bump: BumpDetector.Settings
    ) throws {
        initiator = lowInitiates ? low : high
        responder = lowInitiates ? high : low
        radio = try PairRadio(initiator: devices[initiator], responder: devices[responder],
                              stream: (UInt64(low), UInt64(high)), runSeed: settings.seed, shared: shared)
        estimatorI = SessionEstimator(shared: estimator)
        estimatorR = SessionEstimator(shared: estimator)
        self.bump = BumpDetector(settings: bump)
        failureMayBeNear = devices[initiator].profile.traits(in: settings.radio).negativeFlight == .fail
    }
}
