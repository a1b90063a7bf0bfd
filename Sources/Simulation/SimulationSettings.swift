import Air
import Bump
import DeviceInterface
import Discovery
import Estimation
import Radio
import Planning
import Ranging
import World

/// Everything a simulation run is configured with. The command line fills it; every field has a default.
package struct SimulationSettings: Sendable {
    package enum TransportKind: String, Sendable, CaseIterable { case udp, memory }
    package enum ClockKind: String, Sendable, CaseIterable { case real, virtual }
    /// Who ranges when (docs/airtime.md); the list lives beside the planners.
    package typealias RangingPolicy = Planning.RangingPolicy

    /// Peers in the room (a scripted scenario brings its own count).
    package var peers = 100
    /// Simulated seconds.
    package var duration = 60.0
    /// Ranging rounds per second: every pair of running sessions ranges once per round.
    package var rate = 10.0
    package var seed: UInt64 = 1
    package var scenario = Scenario.mingle
    package var mingle = MingleSettings()
    package var transport = TransportKind.udp
    package var clock = ClockKind.real
    /// Threads that share a round's pairs; the result does not depend on it.
    package var workers = 2
    package var radio = RadioConfiguration()
    package var estimator = EstimatorConfiguration()
    package var bump = BumpConfiguration()
    package var haptics = HapticCurve()
    /// What the phones' accelerometers are made of: `samples` (each phone's chip sampling its physical motion, and
    /// the device finding its own jolts: the default) or `peaks` (labelled peaks, a tap at every true contact: made
    /// from the truth, kept only to compare with, docs/sensors.md).
    package var sensors = Sensors.samples
    /// The platform whose motion sensors the phones have (docs/sensors.md), and the sensors themselves: its
    /// ``SensorProfile/imu``, with any setting changed over it (`--imu-rate`, `--sensor-lag`). Setting the profile
    /// sets its sensors, and widens the reference app's coincidence window by what the platform allows its stamps to
    /// lag (an app knows its platform, not its phone's lag).
    package var sensorProfile = SensorProfile.ios {
        didSet {
            imu = sensorProfile.imu
            bump.coincidence = BumpConfiguration().coincidence + sensorProfile.allowedLag
        }
    }
    package var imu = SensorProfile.ios.imu
    package var motion = MotionSettings()
    /// With sampled accelerometers: how far apart two phones' clocks may be when their apps compare jolts sent over
    /// the data channel, seconds. Each phone's clock is off the true time by a draw within ± half this. 10 ms is what
    /// an app's own round trips over Wi-Fi reach (docs/sensors.md); a phone's SNTP-set time of day is off by far more.
    package var clockOffset = 0.01
    /// The air the devices share (docs/airtime.md), and who ranges when within it.
    package var medium = Medium()
    package var rangingPolicy = RangingPolicy.proximity
    package var proximity = ProximitySettings()
    /// How the phones' Bluetooth radios hear each other (the world's side) ...
    package var bluetooth = BluetoothSettings()
    /// How far discovery and the token exchange reach, metres: in memory, a datagram reaches only the devices this
    /// close to its sender. By default the Bluetooth reach of ``bluetooth`` (where its mean reading falls to the
    /// receivers' sensitivity: 35.5 m at the defaults); `.infinity`: every device hears every other. Over UDP the
    /// sockets decide.
    package var discoveryRange: Double = BluetoothSettings().reach
    /// The most sessions a device holds at once: its discovery invites no more and declines more
    /// (`activeSessionsLimitExceeded`, as a phone does when its resources run out). 100: NearCatch held 99 sessions a
    /// phone (docs/airtime.md); a hall of 100 peers is not bound by it, a venue of thousands is.
    package var maximumSessions = 100
    /// ... and how the devices smooth the readings: the newest reading's weight.
    package var bluetoothSmoothing = 0.3
    /// Relabels what only the scorer reads (a test's proof that no device reads it); `nil` in every real run.
    package var truthScramble: TruthScramble?
    package var discoveryTiming = DiscoveryTiming()
    /// Loss of the in-memory network.
    package var loss = 0.0
    /// Where to write the JSON Lines trace; `nil` for none.
    package var tracePath: String?
    /// The program's version, recorded in the summary and the trace.
    package var version = ""
    /// The key the discovery group's datagrams are sealed under.
    package var groupKey: GroupKey = .development
    /// Whether an existing file at ``tracePath`` may be replaced (`--force`); a folder there is refused regardless.
    package var replaceTrace = false
    /// The trace as an output file, when one is asked for.
    package var traceFile: OutputFile? {
        tracePath.map { OutputFile(path: $0, flag: "--trace", replace: replaceTrace) }
    }
    /// Each session's updates go into the trace at most once per this many seconds (and always those of a pair in
    /// the second before its bumps).
    package var traceUpdateInterval = 1.0
    /// Every device's pose goes into the trace every this many seconds (at the first round at or after; 0: every
    /// round).
    package var tracePoseInterval = 0.5
    /// The trace follows at most this many devices (`nil`: every one): every k-th by index from 0, k the peers over
    /// this rounded up. A followed device's own lines (its poses, the sessions, updates, bumps and haptics it saw)
    /// and the truth's lines of its pairs (contacts, near misses) go in; the others' do not. 1,000 keeps every
    /// device up to a 1,000-peer run and a 10,000-peer venue's trace near a 1,000-peer one's (docs/simulation.md).
    package var traceDevices: Int? = 1000
    /// The trace follows devices 0, k, 2k, ...: k (1 follows every device).
    package var traceEvery: Int {
        guard let m = traceDevices, m < peerCount else { return 1 }
        return (peerCount + m - 1) / m
    }
    /// Whether the devices' apps run their own ranging sessions (the app-testing library): then a pair ranges only
    /// while the apps say so (``Simulation/runningSessions``), not as soon as discovery has exchanged tokens, and no
    /// profile is sent after a bump (that is the app's business).
    package var appInTheLoop = false
    /// Whether NearCatch's own logic (`ReferenceApp`: its bump detector, haptics and profiles) runs on the devices:
    /// always on the command line; in a `NearbySimulator` room only when a test asks for it.
    package var runsReferenceApp = true
    /// With ``appInTheLoop``: the devices connect only to the peers their apps invite or accept.
    package var connectsByConsent = false
    /// With ``appInTheLoop``: a device neither advertises nor browses until its app starts discovery.
    package var discoveryStartsWithApp = false

    package init() {}

    /// The estimator as the sessions use it: its measurement noise is the radio's line-of-sight noise together
    /// with the spread of pair biases (the mean of two devices' antenna biases), as an app tuned for its phones
    /// would set it; at the defaults, 10 cm.
    package var tunedEstimator: EstimatorConfiguration {
        var e = estimator
        let pairBias = radio.antennaDelaySigma / 2.0.squareRoot()
        e.range.measurementSigma = max(0.005, (radio.lineOfSightSigma * radio.lineOfSightSigma + pairBias * pairBias).squareRoot())
        return e
    }

    /// The number of peers the run will have.
    package var peerCount: Int {
        if case .scripted(let file) = scenario { return file.peers.count }
        return peers
    }
}

/// Where the phones' accelerometer readings come from.
package enum Sensors: String, Sendable, CaseIterable {
    case peaks, samples
}

/// A run that finished but whose trace could not be published (a full disk, a file that appeared at the path):
/// the run's summary, which the caller shows before the problem, and the problem, naming the path and the cause.
package struct UnpublishedRun: Error, Sendable, CustomStringConvertible {
    package let summary: SimulationSummary
    package let problem: SimulationSettingsError
    package var description: String { problem.message }
}

/// A setting that makes no sense, in words that name it.
package struct SimulationSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    package var description: String { message }

    package init(message: String) {
        self.message = message
    }
}

extension SimulationSettings {
    /// Checks the settings as a whole; each message names the setting (as its flag) that is wrong.
    package func validate() throws(SimulationSettingsError) {
        func require(_ ok: Bool, _ message: String) throws(SimulationSettingsError) {
            if !ok { throw SimulationSettingsError(message: message) }
        }
        for setting in RunSettings.all { try setting.check(in: self) }
        try require(transport == .memory || peerCount <= 400,
                    "--peers over UDP must be at most 400 (the start bursts of larger groups keep two cores behind; docs/discover.md), got \(peerCount)")
        try require(!(transport == .udp && clock == .virtual),
                    "--clock virtual needs --transport memory: real sockets run in real time")
        try require(loss == 0 || transport == .memory, "--loss applies to --transport memory only")
        if sensors == .samples, let problem = imu.problem() ?? motion.cases.problem() ?? motion.hands.problem() {
            throw SimulationSettingsError(message: problem)
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
    package func makePlanner(peers: Int) throws -> any RangingPlanner {
        // The reference app's detector says when two taps are one knock.
        var proximity = self.proximity
        proximity.tapCoincidence = bump.coincidence
        return try rangingPolicy.makePlanner(medium: medium, scheme: radio.scheme, peers: peers, seed: seed,
                                             proximity: proximity, workers: workers,
                                             hearingMargin: Float(radio.estimatesReadLongBy))
    }

    /// The world's air for ``rangingPolicy``, its levels by the radio's path loss; `nil` under `ideal`, which has none.
    package func makeAir() -> AirPhysics? {
        guard rangingPolicy.modelsTheAir else { return nil }
        return AirPhysics(medium: medium, scheme: radio.scheme, pathLossExponent: radio.pathLossExponent,
                          nearestDistance: radio.nearestPathDistance)
    }
}
