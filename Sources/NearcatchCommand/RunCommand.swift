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

    @OptionGroup var options: RunOptions
    @OptionGroup var radio: RadioOptions
    @OptionGroup var sessions: SessionLimitOptions
    @OptionGroup var network: NetworkOptions

    /// The settings the flags describe, built once while the flags are checked: a scenario file is read once, and
    /// the run is the one that was checked.
    private var built: SimulationSettings?

    // The flags are the option groups' alone: a new flag goes into a group, never here.
    private enum CodingKeys: String, CodingKey {
        case options, radio, sessions, network
    }

    /// The run's own group, apart from `discover`'s, so that the two can run side by side.
    static let defaultGroup = "239.255.77.80:47680"

    package init() {}

    private var transport: NetworkOptions.TransportChoice { network.transport }

    /// Checks what the simulation settings cannot see (the trace's folder, the report's files); the option groups
    /// and the settings check the rest, through the settings' declarations (``RunSettings``).
    package mutating func validate() throws {
        let settings = try buildSettings()
        built = settings
        do {
            try settings.traceFile?.check()
        } catch {
            throw ValidationError(error.description)
        }
        if options.report != nil || options.svg != nil {
            try ReportFiles(html: options.report, svg: options.svg, force: options.force).check()
        }
        // Two outputs at one path: the second would replace the first at the run's end (or be refused then, the
        // run's time lost).
        var outputs: [(flag: String, path: String)] = []
        if let trace = options.trace { outputs.append(("--trace", trace)) }
        if let report = options.report { outputs.append(("--report", report)) }
        if let svg = options.svg {
            outputs += ReportFiles.pictureNames.map { ("--svg", (svg as NSString).appendingPathComponent($0)) }
        }
        for (i, a) in outputs.enumerated() {
            for b in outputs[(i + 1)...] where a.flag != b.flag && ReportFiles.same(a.path, b.path) {
                throw ValidationError("\(a.flag) and \(b.flag) name the same file, \(b.path): give each its own")
            }
        }
    }

    /// The trace the report is made from: the run's own, or a temporary one.
    private var reportTrace: String? {
        guard options.report != nil || options.svg != nil else { return nil }
        return options.trace ?? FileManager.default.temporaryDirectory
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
        try options.apply(to: &s, reportTrace: reportTrace, transport: transport)
        radio.apply(to: &s.radio, link: .geometry)
        s.maximumSessions = sessions.maxSessions
        s.seed = network.seed
        s.loss = network.loss
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
            if options.trace == nil { summary.traceLines = nil }
            print(headerFirst ? summary.text(header: false) : try render(summary))
            ended = (summary, ran.1)
            guard ran.1 == nil, !hurried else { return }
            ended?.problem = writeReport(interrupted: summary.run.interruptedAt != nil)
        }
        guard let (summary, problem) = ended else { return }
        if let problem {
            // The summary is out; what could not be published is said in one plain line.
            FileHandle.standardError.write(Data("error: \(problem)\n".utf8))
            if let path = reportTrace, options.trace == nil { try? FileManager.default.removeItem(atPath: path) }
            throw ExitCode(Self.unpublishedStatus)
        }
        try InterruptSignals.exit(after: signal, at: summary.run.interruptedAt, clock: "simulated")
    }

    /// The exit status of a run whose summary was printed but whose trace, report or pictures could not be written
    /// (a full disk, a file that appeared at the path): EX_IOERR of sysexits.h.
    static let unpublishedStatus: Int32 = 74

    /// Writes the report and pictures asked for, from the run's trace.
    ///
    /// - Returns: the problem, in one line naming the path and the cause, or `nil` when all was written.
    private func writeReport(interrupted: Bool) -> String? {
        guard let path = reportTrace else { return nil }
        defer { if options.trace == nil { try? FileManager.default.removeItem(atPath: path) } }
        if interrupted {
            FileHandle.standardError.write(Data("no report: the run was interrupted, and its trace not written\n".utf8))
            return nil
        }
        do {
            let data = try ReportData.read(trace: path)
            let said = try ReportFiles(html: options.report, svg: options.svg, force: options.force).write(data)
            FileHandle.standardError.write(Data((said + "\n").utf8))
            return nil
        } catch let error as ReportFiles.Unwritten {
            return error.message
        } catch {
            return "\(error)"
        }
    }
}
extension SimulationSettings.RangingPolicy: ExpressibleByArgument {}
extension BumpConfiguration.Method: ExpressibleByArgument {}
extension Sensors: ExpressibleByArgument {}
extension SensorProfile: ExpressibleByArgument {}

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
