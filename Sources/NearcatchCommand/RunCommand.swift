import ArgumentParser
import Bump
import Foundation
import MulticastTransport
import Planning
import Radio
import Report
import Simulation
import UDPRun
import World

/// `nearcatch-sim [run]`: the main job. A room of simulated devices that discover each other, range every pair of
/// running sessions, and bump, with every estimate scored against the truth.
package struct RunCommand: AsyncParsableCommand, Sendable {
    package static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Simulate a room of peers: discovery, sessions, ranging, bumps, scored against the truth.",
        discussion: """
            By default 100 peers mingle for 60 simulated seconds: they discover each other over UDP multicast on \
            loopback, open one session per peer (9,900 for 100 peers), range in real time within the air one UWB \
            channel carries, the pairs that matter first (--ranging-policy, docs/airtime.md), and touch phones with the peers that share their interests. \
            The radio fades with distance and with the phones turned away, and the people's bodies obstruct the links \
            they stand on (--link, docs/radio-model.md); a bump is a tap both phones' accelerometers feel, \
            confirmed by range (--detector). With --transport memory the run uses a \
            virtual clock (as fast as the machine goes) and the same seed gives a byte-identical trace whatever \
            --workers is. Ctrl-C or SIGTERM ends a run early: the nodes say goodbye, the summary of the time run \
            is printed, no trace is written, and the exit status is 130 or 143; a second signal deletes the partial \
            files at once and still prints the summary. Every output path is checked before the run; when a trace, \
            report or picture cannot be written at the end (a full disk), the summary comes first, then one line \
            naming the path and the cause, and the exit status is 74. Summary fields and the trace \
            format: docs/simulation.md; the group key: docs/security.md.
            """
    )

    package enum ClockChoice: String, ExpressibleByArgument, CaseIterable, Sendable { case real, virtual }

    @Option(parsing: .unconditional, help: "Peers in the room (2 to 10000, default 100; at most 400 over UDP). A scenario file brings its own.")
    var peers: Int?

    @Option(parsing: .unconditional, help: "Simulated seconds (default 60).")
    var duration: Double = 60

    @Option(parsing: .unconditional, help: "Ranging rounds per second: under --ranging-policy ideal every pair of running sessions ranges once a round; under the others the round is how often the plan is made (0.5 to 100).")
    var rate: Double = 10

    @Option(help: "mingle, random-waypoint, or the path of a scenario file (docs/scenario-format.md).")
    var scenario: String = "mingle"

    @Option(help: "real (paced) or virtual (as fast as possible; memory transport only). Default: real over UDP, virtual in memory.")
    var clock: ClockChoice?

    @Option(parsing: .unconditional, help: "Threads that share each round's pairs and, from 200 peers in memory, each announcement's receivers and the world's round (default: the number of cores; the outcome does not depend on it).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Write a JSON Lines trace to this file (written only if the run succeeds; an existing file only with --force).")
    var trace: String?

    @Flag(help: "Replace an existing file at the --trace path (a folder there is always refused).")
    var force = false

    @Option(name: .customLong("trace-update-interval"), parsing: .unconditional,
            help: "Each session's updates go into the trace at most once per this many seconds (default 1); a pair's updates in the second before each of its bumps, and from 2 s before to 1 s after each of its near misses, always do.")
    var traceUpdateInterval: Double = 1

    @Option(name: .customLong("trace-pose-interval"), parsing: .unconditional,
            help: "Every device's position and heading go into the trace every this many seconds (default 0.5; 0: every round).")
    var tracePoseInterval: Double = 0.5

    @Option(name: .customLong("trace-devices"), parsing: .unconditional,
            help: "The trace follows at most this many devices, or all: every k-th from device 0, their own lines and their pairs' contacts and near misses; the run line's traceEvery is k.")
    var traceDevices: TraceDevices = TraceDevices(count: 1000)

    @Option(name: .customLong("bump-distance"), parsing: .unconditional, help: "The range detector fires at or under this estimated distance, metres (default 0.08).")
    var bumpDistance: Float = 0.08

    @Option(name: .customLong("los-sigma"), parsing: .unconditional, help: "Line-of-sight distance noise a strong signal leaves, metres (default 0.085); the receiver's noise adds to it with distance.")
    var losSigma: Double = 0.085

    @Option(name: .customLong("antenna-sigma"), parsing: .unconditional, help: "Spread of each device's antenna-delay bias, metres (default 0.06).")
    var antennaSigma: Double = 0.06

    @Option(name: .customLong("level-bias"), parsing: .unconditional, help: "How much of the leading edge's bias with the received level the pairs show in line of sight, as a share of Decawave's measured table (default 1; 0: chips that correct it). docs/radio-model.md.")
    var levelBias: Double = 1

    @Option(help: "Line-of-sight model of every pair: geometry (obstructed by the bodies and walls on the line between the phones), markov (obstructions come and go at random), los, or nlos.")
    var link: RadioConfiguration.LinkModel = .geometry

    @Option(help: "Bump detector: fused (an impact both phones' accelerometers feel at once, confirmed by range) or range (the range estimate alone).")
    var detector: BumpConfiguration.Method = .fused

    @Option(help: "What the phones' accelerometers are made of: samples (the default: each phone's chip sampling its physical motion, the device finding its own jolts) or peaks (a tap at every true contact, made from the truth: to compare with, never a default). docs/sensors.md.")
    var sensors: Sensors = .samples

    @Option(name: .customLong("imu-rate"), parsing: .unconditional, help: "With --sensors samples: the accelerometers' rate, Hz (1 to 800, default 100).")
    var imuRate: Double = 100

    @Option(name: .customLong("clock-offset"), parsing: .unconditional, help: "With --sensors samples: how far apart two phones' clocks may be when their apps compare jolts sent over the data channel, seconds (0 to 1, default 0.01).")
    var clockOffset: Double = 0.01

    @Option(name: .customLong("ranging-policy"),
            help: "Who ranges when (docs/airtime.md): proximity (the default: the pairs that matter first, within the air, by what the devices know), ideal (every pair of running sessions every round, whatever the air: 495 times one channel at 100 peers), uncoordinated (every session on its own timer; overlapping exchanges in hearing collide), round-robin (a fair share of the air for every running pair) or oracle (proximity told the true positions and who walks to whom: an upper bound no phone can reach, never a default).")
    var rangingPolicy: SimulationSettings.RangingPolicy = .proximity

    @Option(parsing: .unconditional, help: "UWB channels the devices range on (default 1).")
    var channels: Int = 1

    @Option(name: .customLong("interference-range"), parsing: .unconditional,
            help: "Metres within which two exchanges may not share a slot (default 20).")
    var interferenceRange: Double = 20

    @Option(name: .customLong("sessions-per-device"), parsing: .unconditional,
            help: "Of the sessions a device holds (--max-sessions), those it keeps active; the others are suspended (default: all it holds).")
    var sessionsPerDevice: Int?

    @Option(name: .customLong("discovery-range"), parsing: .unconditional,
            help: "In memory: metres within which devices discover each other and exchange tokens, or none (default 35.5: where the phones' mean Bluetooth reading falls to the receivers' sensitivity, docs/simulation.md).")
    var discoveryRange: DiscoveryRange?

    @Option(name: .customLong("max-sessions"), parsing: .unconditional,
            help: "The most sessions a device holds at once; its discovery invites no more and declines more.")
    var maxSessions: Int = 100

    @Option(name: .customLong("exchanges-per-device"), parsing: .unconditional,
            help: "Exchanges one device takes part in per second (default: no limit beyond one at a time).")
    var exchangesPerDevice: Double?

    @Option(help: "Write an HTML report of the run to this file (docs/report.md); with no --trace, the run traces to a temporary file for it.")
    var report: String?

    @Option(help: "Write the report's pictures as SVG files into this folder (room, distance and direction error, bump latency).")
    var svg: String?

    @OptionGroup var network: NetworkOptions

    /// The settings the flags describe, built once while the flags are checked: a scenario file is read once, and
    /// the run is the one that was checked.
    private var built: SimulationSettings?

    private enum CodingKeys: String, CodingKey {
        case peers, duration, rate, scenario, clock, workers, trace, force, traceUpdateInterval, tracePoseInterval, traceDevices
        case bumpDistance, losSigma, antennaSigma, levelBias, link, detector, sensors, imuRate, clockOffset, rangingPolicy, channels
        case interferenceRange
        case sessionsPerDevice, discoveryRange, maxSessions, exchangesPerDevice, report, svg, network
    }

    /// The run's own group, apart from `discover`'s, so that the two can run side by side.
    static let defaultGroup = "239.255.77.80:47680"

    package init() {}

    private var transport: NetworkOptions.TransportChoice { network.transport }

    /// Checks what the simulation settings cannot see (the flags' own ranges, the trace's folder); the settings
    /// check the rest, in the same words.
    package mutating func validate() throws {
        try require(losSigma.isFinite && losSigma >= 0 && losSigma <= 10,
                    "--los-sigma must be between 0 and 10 metres, got \(losSigma)")
        try require(antennaSigma.isFinite && antennaSigma >= 0 && antennaSigma <= 10,
                    "--antenna-sigma must be between 0 and 10 metres, got \(antennaSigma)")
        try require(levelBias.isFinite && levelBias >= 0 && levelBias <= 2,
                    "--level-bias must be between 0 and 2, got \(levelBias)")
        let settings = try buildSettings()
        built = settings
        do {
            try settings.traceFile?.check()
        } catch {
            throw ValidationError(error.description)
        }
        if report != nil || svg != nil { try ReportFiles(html: report, svg: svg, force: force).check() }
    }

    /// The trace the report is made from: the run's own, or a temporary one.
    private var reportTrace: String? {
        guard report != nil || svg != nil else { return nil }
        return trace ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("nearcatch-report-\(ProcessInfo.processInfo.processIdentifier).jsonl").path
    }

    /// The simulation the flags describe: the one built when they were checked.
    ///
    /// - Throws: a validation error naming the flag or the scenario file's field at fault.
    package func simulationSettings() throws -> SimulationSettings {
        if let built { return built }
        return try buildSettings()
    }

    private func buildSettings() throws -> SimulationSettings {
        var s = SimulationSettings()
        switch scenario {
        case "mingle": s.scenario = .mingle
        case "random-waypoint": s.scenario = .randomWaypoint
        default:
            do {
                s.scenario = .scripted(try ScenarioFile.load(path: scenario))
            } catch {
                throw ValidationError("--scenario: \(error)")
            }
        }
        if case .scripted(let file) = s.scenario, let peers, peers != file.peers.count {
            throw ValidationError("--peers \(peers) disagrees with the scenario file, which has \(file.peers.count) peers")
        }
        s.peers = peers ?? 100
        s.duration = duration
        s.rate = rate
        s.seed = network.seed
        s.transport = transport == .udp ? .udp : .memory
        s.clock = (clock ?? (transport == .udp ? .real : .virtual)) == .real ? .real : .virtual
        s.workers = workers
        s.tracePath = trace ?? reportTrace
        // A temporary trace of this process's own is replaced whatever --force says.
        s.replaceTrace = force || (trace == nil && reportTrace != nil)
        s.traceUpdateInterval = traceUpdateInterval
        s.tracePoseInterval = tracePoseInterval
        s.traceDevices = traceDevices.count
        s.rangingPolicy = rangingPolicy
        s.medium.channels = channels
        s.medium.interferenceRange = interferenceRange
        s.medium.sessionsPerDevice = sessionsPerDevice
        if let discoveryRange { s.discoveryRange = discoveryRange.metres }
        s.maximumSessions = maxSessions
        s.medium.exchangesPerDevicePerSecond = exchangesPerDevice
        s.loss = network.loss
        s.bump.distance = bumpDistance
        s.bump.rearmDistance = max(s.bump.rearmDistance, bumpDistance * 2)
        s.radio.lineOfSightSigma = losSigma
        s.radio.antennaDelaySigma = antennaSigma
        s.radio.levelBiasShare = levelBias
        s.radio.linkModel = link
        s.bump.method = detector
        s.sensors = sensors
        s.imu.rate = imuRate
        s.clockOffset = clockOffset
        s.version = NearcatchSim.version
        s.groupKey = try network.groupKey()
        do {
            try s.validate()
        } catch {
            throw ValidationError(error.description)
        }
        return s
    }

    /// Runs the simulation; `starting` receives what the run is just before it starts, `progress` a line now and
    /// then.
    package func execute(
        starting: (@Sendable (SimulationSummary.Run) -> Void)? = nil, progress: (@Sendable (String) -> Void)? = nil
    ) async throws -> SimulationSummary {
        let simulation: Simulation
        do {
            simulation = try Simulation(settings: try simulationSettings(),
                                        udp: UDPCluster.maker(multicast: try network.multicast(defaultGroup: Self.defaultGroup)))
        } catch let error as SimulationSettingsError {
            throw ValidationError(error.description)
        }
        starting?(simulation.runInfo)
        do {
            return try await simulation.run { p in
                progress?(String(format: "%6.1f of %.0f s: %d of %d sessions running, %d bumps", p.simulated,
                                 p.duration, p.sessions, p.expectedSessions, p.bumps))
            }
        } catch let error as MulticastSetupError {
            throw NetworkOptions.validationError(error)
        }
    }

    /// The summary in the chosen format.
    package func render(_ summary: SimulationSummary) throws -> String {
        switch network.format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try encoder.encode(summary), as: UTF8.self)
        case .text:
            return summary.text
        }
    }

    package func run() async throws {
        let showProgress = isatty(STDERR_FILENO) == 1
        let writeProgress: @Sendable (String) -> Void = { line in
            FileHandle.standardError.write(Data("\r\(line)\u{1B}[K".utf8))
        }
        let command = self
        // The text summary's first line goes out as the run starts, so that a long run says at once what it is.
        let headerFirst = network.format == .text
        let latest = LatestLine("before the first simulated second")
        var ended: (summary: SimulationSummary, problem: String?)?
        let signal = try await InterruptSignals.run(lastWords: { "run interrupted twice, ended at once: " + latest.line }) {
            do {
                let summary = try await command.execute(starting: { run in
                    guard headerFirst else { return }
                    FileHandle.standardOutput.write(Data((SimulationSummary.headerLine(run) + "\n").utf8))
                }, progress: { line in
                    latest.line = line.trimmingCharacters(in: .whitespaces)
                    if showProgress { writeProgress(line) }
                })
                return (summary, String?.none)
            } catch let unpublished as UnpublishedRun {
                return (unpublished.summary, unpublished.problem.message)
            }
        } then: { ran, hurried in
            if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            var summary = ran.0
            // The report's own temporary trace is not the user's.
            if trace == nil { summary.traceLines = nil }
            print(headerFirst ? summary.text(header: false) : try render(summary))
            ended = (summary, ran.1)
            guard ran.1 == nil, !hurried else { return }
            ended?.problem = writeReport(interrupted: summary.run.interruptedAt != nil)
        }
        guard let (summary, problem) = ended else { return }
        if let problem {
            // The summary is out; what could not be published is said in one plain line.
            FileHandle.standardError.write(Data("error: \(problem)\n".utf8))
            if let path = reportTrace, trace == nil { try? FileManager.default.removeItem(atPath: path) }
            throw ExitCode(Self.unpublishedStatus)
        }
        try InterruptSignals.exit(after: signal, at: summary.run.interruptedAt ?? 0, clock: "simulated")
    }

    /// The exit status of a run whose summary was printed but whose trace, report or pictures could not be written
    /// (a full disk, a file that appeared at the path): EX_IOERR of sysexits.h.
    static let unpublishedStatus: Int32 = 74

    /// Writes the report and pictures asked for, from the run's trace.
    ///
    /// - Returns: the problem, in one line naming the path and the cause, or `nil` when all was written.
    private func writeReport(interrupted: Bool) -> String? {
        guard let path = reportTrace else { return nil }
        defer { if trace == nil { try? FileManager.default.removeItem(atPath: path) } }
        if interrupted {
            FileHandle.standardError.write(Data("no report: the run was interrupted, and its trace not written\n".utf8))
            return nil
        }
        do {
            let data = try ReportData.read(trace: path)
            let said = try ReportFiles(html: report, svg: svg, force: force).write(data)
            FileHandle.standardError.write(Data((said + "\n").utf8))
            return nil
        } catch let error as ValidationError {
            return error.message
        } catch {
            return "\(error)"
        }
    }
}
extension SimulationSettings.RangingPolicy: ExpressibleByArgument {}
extension BumpConfiguration.Method: ExpressibleByArgument {}
extension Sensors: ExpressibleByArgument {}

/// `--trace-devices`: a count, or `all`.
struct TraceDevices: ExpressibleByArgument, Sendable {
    let count: Int?

    init(count: Int?) { self.count = count }

    init?(argument: String) {
        if argument == "all" {
            count = nil
        } else if let n = Int(argument) {
            count = n
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { count.map(String.init) ?? "all" }
}

/// `--discovery-range`: metres, or `none`.
struct DiscoveryRange: ExpressibleByArgument, Sendable {
    let metres: Double

    init?(argument: String) {
        if argument == "none" {
            metres = .infinity
        } else if let m = Double(argument), m.isFinite {
            metres = m
        } else {
            return nil
        }
    }
}
