import Bump
import DeviceInterface
import Discovery
import Estimation
import Radio
import Planning
import Ranging
import World

/// Everything a simulation run is configured with. The command line fills it; every field has a default.
public struct SimulationSettings: Sendable {
    public enum TransportKind: String, Sendable, CaseIterable { case udp, memory }
    public enum ClockKind: String, Sendable, CaseIterable { case real, virtual }
    /// Who ranges when (docs/airtime.md); the list lives beside the planners.
    public typealias RangingPolicy = Planning.RangingPolicy

    /// Peers in the room (a scripted scenario brings its own count).
    public var peers = 100
    /// Simulated seconds.
    public var duration = 60.0
    /// Ranging rounds per second: every pair of running sessions ranges once per round.
    public var rate = 10.0
    public var seed: UInt64 = 1
    public var scenario = Scenario.mingle
    public var mingle = MingleSettings()
    public var transport = TransportKind.udp
    public var clock = ClockKind.real
    /// Threads that share a round's pairs; the result does not depend on it.
    public var workers = 2
    public var radio = RadioConfiguration()
    public var estimator = EstimatorConfiguration()
    public var bump = BumpConfiguration()
    public var haptics = HapticCurve()
    /// What the phones' accelerometers are made of: `samples` (each phone's chip sampling its physical motion, and
    /// the device finding its own jolts: the default) or `peaks` (labelled peaks, a tap at every true contact: made
    /// from the truth, kept only to compare with, docs/sensors.md).
    public var sensors = Sensors.samples
    public var imu = IMUSettings()
    public var motion = MotionSettings()
    /// With sampled accelerometers: how far apart two phones' clocks may be when their apps compare jolts sent over
    /// the data channel, seconds. Each phone's clock is off the true time by a draw within ± half this. 10 ms is what
    /// an app's own round trips over Wi-Fi reach (docs/sensors.md); a phone's SNTP-set time of day is off by far more.
    public var clockOffset = 0.01
    /// The air the devices share (docs/airtime.md), and who ranges when within it.
    public var medium = Medium()
    public var rangingPolicy = RangingPolicy.proximity
    public var proximity = ProximitySettings()
    /// How the phones' Bluetooth radios hear each other (the world's side) ...
    public var bluetooth = BluetoothSettings()
    /// How far discovery and the token exchange reach, metres: in memory, a datagram reaches only the devices this
    /// close to its sender. By default the Bluetooth reach of ``bluetooth`` (where its mean reading falls to the
    /// receivers' sensitivity: 35.5 m at the defaults); `.infinity`: every device hears every other. Over UDP the
    /// sockets decide.
    public var discoveryRange: Double = BluetoothSettings().reach
    /// The most sessions a device holds at once: its discovery invites no more and declines more
    /// (`activeSessionsLimitExceeded`, as a phone does when its resources run out). 100: NearCatch held 99 sessions a
    /// phone (docs/airtime.md); a hall of 100 peers is not bound by it, a venue of thousands is.
    public var maximumSessions = 100
    /// ... and how the devices smooth the readings: the newest reading's weight.
    public var bluetoothSmoothing = 0.3
    /// Relabels what only the scorer reads (a test's proof that no device reads it); `nil` in every real run.
    package var truthScramble: TruthScramble?
    public var discoveryTiming = DiscoveryTiming()
    /// Loss of the in-memory network.
    public var loss = 0.0
    /// Where to write the JSON Lines trace; `nil` for none.
    public var tracePath: String?
    /// The program's version, recorded in the summary and the trace.
    public var version = ""
    /// The key the discovery group's datagrams are sealed under.
    public var groupKey: GroupKey = .development
    /// Whether an existing file at ``tracePath`` may be replaced (`--force`); a folder there is refused regardless.
    public var replaceTrace = false
    /// The trace as an output file, when one is asked for.
    public var traceFile: OutputFile? {
        tracePath.map { OutputFile(path: $0, flag: "--trace", replace: replaceTrace) }
    }
    /// Each session's updates go into the trace at most once per this many seconds (and always those of a pair in
    /// the second before its bumps).
    public var traceUpdateInterval = 1.0
    /// Every device's pose goes into the trace every this many seconds (at the first round at or after; 0: every
    /// round).
    public var tracePoseInterval = 0.5
    /// The trace follows at most this many devices (`nil`: every one): every k-th by index from 0, k the peers over
    /// this rounded up. A followed device's own lines (its poses, the sessions, updates, bumps and haptics it saw)
    /// and the truth's lines of its pairs (contacts, near misses) go in; the others' do not. 1,000 keeps every
    /// device up to a 1,000-peer run and a 10,000-peer venue's trace near a 1,000-peer one's (docs/simulation.md).
    public var traceDevices: Int? = 1000
    /// The trace follows devices 0, k, 2k, ...: k (1 follows every device).
    public var traceEvery: Int {
        guard let m = traceDevices, m < peerCount else { return 1 }
        return (peerCount + m - 1) / m
    }
    /// Whether the devices' apps run their own ranging sessions (the app-testing library): then a pair ranges only
    /// while the apps say so (``Simulation/runningSessions``), not as soon as discovery has exchanged tokens, and no
    /// profile is sent after a bump (that is the app's business).
    public var appInTheLoop = false
    /// Whether NearCatch's own logic (`ReferenceApp`: its bump detector, haptics and profiles) runs on the devices:
    /// always on the command line; in a `NearbySimulator` room only when a test asks for it.
    public var runsReferenceApp = true
    /// With ``appInTheLoop``: the devices connect only to the peers their apps invite or accept.
    public var connectsByConsent = false
    /// With ``appInTheLoop``: a device neither advertises nor browses until its app starts discovery.
    public var discoveryStartsWithApp = false

    public init() {}

    /// The estimator as the sessions use it: its measurement noise is the radio's line-of-sight noise together
    /// with the spread of pair biases (the mean of two devices' antenna biases), as an app tuned for its phones
    /// would set it; at the defaults, 10 cm.
    public var tunedEstimator: EstimatorConfiguration {
        var e = estimator
        let pairBias = radio.antennaDelaySigma / 2.0.squareRoot()
        e.range.measurementSigma = max(0.005, (radio.lineOfSightSigma * radio.lineOfSightSigma + pairBias * pairBias).squareRoot())
        return e
    }

    /// The number of peers the run will have.
    public var peerCount: Int {
        if case .scripted(let file) = scenario { return file.peers.count }
        return peers
    }
}

/// Where the phones' accelerometer readings come from.
public enum Sensors: String, Sendable, CaseIterable {
    case peaks, samples
}

/// A run that finished but whose trace could not be published (a full disk, a file that appeared at the path):
/// the run's summary, which the caller shows before the problem, and the problem, naming the path and the cause.
public struct UnpublishedRun: Error, Sendable, CustomStringConvertible {
    public let summary: SimulationSummary
    public let problem: SimulationSettingsError
    public var description: String { problem.message }
}

/// A setting that makes no sense, in words that name it.
public struct SimulationSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}

extension SimulationSettings {
    /// Checks the settings as a whole; each message names the setting (as its flag) that is wrong.
    public func validate() throws(SimulationSettingsError) {
        func require(_ ok: Bool, _ message: String) throws(SimulationSettingsError) {
            if !ok { throw SimulationSettingsError(message: message) }
        }
        try require(peerCount >= 2 && peerCount <= 10000, "--peers must be between 2 and 10000, got \(peerCount)")
        try require(transport == .memory || peerCount <= 400,
                    "--peers over UDP must be at most 400 (the start bursts of larger groups keep two cores behind; docs/discover.md), got \(peerCount)")
        try require(duration.isFinite && duration > 0 && duration <= 86_400,
                    "--duration must be above 0 and at most 86400 seconds, got \(duration)")
        try require(rate.isFinite && rate >= 0.5 && rate <= 100, "--rate must be between 0.5 and 100 Hz, got \(rate)")
        try require(maximumSessions >= 1 && maximumSessions <= 10_000,
                    "--max-sessions must be between 1 and 10000, got \(maximumSessions)")
        try require(discoveryRange >= 1, "--discovery-range must be at least 1 metre (or none), got \(discoveryRange)")
        try require(workers >= 1 && workers <= 256, "--workers must be between 1 and 256, got \(workers)")
        try require(!(transport == .udp && clock == .virtual),
                    "--clock virtual needs --transport memory: real sockets run in real time")
        try require(loss >= 0 && loss <= 0.9, "--loss must be between 0 and 0.9, got \(loss)")
        try require(loss == 0 || transport == .memory, "--loss applies to --transport memory only")
        try require(traceUpdateInterval.isFinite && traceUpdateInterval >= 0 && traceUpdateInterval <= 3600,
                    "--trace-update-interval must be between 0 and 3600 seconds, got \(traceUpdateInterval)")
        try require(tracePoseInterval.isFinite && tracePoseInterval >= 0 && tracePoseInterval <= 3600,
                    "--trace-pose-interval must be between 0 and 3600 seconds, got \(tracePoseInterval)")
        if let traceDevices {
            try require(traceDevices >= 1, "--trace-devices must be at least 1 (or all), got \(traceDevices)")
        }
        if sensors == .samples {
            try require(imu.rate >= 1 && imu.rate <= 800, "--imu-rate must be between 1 and 800 Hz, got \(imu.rate)")
            try require(clockOffset.isFinite && clockOffset >= 0 && clockOffset <= 1,
                        "--clock-offset must be between 0 and 1 second, got \(clockOffset)")
            if let problem = imu.problem() ?? motion.cases.problem() ?? motion.hands.problem() {
                throw SimulationSettingsError(message: problem)
            }
        }
        do { try radio.validate() } catch { throw SimulationSettingsError(message: error.description) }
        do { try bump.validate() } catch { throw SimulationSettingsError(message: error.description) }
        do { try medium.validate() } catch { throw SimulationSettingsError(message: error.description) }
        do { try discoveryTiming.validate() } catch { throw SimulationSettingsError(message: error.description) }
    }
}

extension SimulationSettings {
    /// The planner of ``rangingPolicy`` for `peers` devices.
    ///
    /// - Throws: a GSL allocation error.
    public func makePlanner(peers: Int) throws -> any RangingPlanner {
        // The reference app's detector says when two taps are one knock.
        var proximity = self.proximity
        proximity.tapCoincidence = bump.coincidence
        return try rangingPolicy.makePlanner(medium: medium, scheme: radio.scheme, peers: peers, seed: seed,
                                             proximity: proximity, workers: workers,
                                             hearingMargin: Float(radio.estimatesReadLongBy))
    }
}
