import ArgumentParser
import Dispatch
import Foundation
import Simulation
import Sweep
import Synchronization

/// `nearcatch-sim sweep plan|run|report`: many runs over a grid of options and seeds (docs/sweeps.md).
package struct SweepCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Run a grid of run options over several seeds, and report each point's figures with confidence intervals.",
        discussion: """
            A spec file (TOML) names the options every run shares, a grid of options to vary, the seeds, the metrics \
            (paths of the run's JSON summary, or arithmetic over them), a time limit and retries per run. `plan` \
            writes the run list into the sweep's folder; `run` runs what is missing there (a sweep stopped half-way \
            resumes), on a pool of processes here or on a Dask cluster; `report` gives per grid point n, mean, \
            standard deviation and the 95% confidence interval, as a table, CSV or Markdown, and an SVG plot. \
            docs/sweeps.md.
            """,
        subcommands: [SweepPlanCommand.self, SweepRunCommand.self, SweepReportCommand.self]
    )

    package init() {}

    /// The folder a spec is planned into by default: beside it, its name with `.sweep` for `.toml`.
    static func defaultFolder(for spec: String) -> String {
        (spec.hasSuffix(".toml") ? String(spec.dropLast(5)) : spec) + ".sweep"
    }

    /// Reads and plans `specPath` into `folder`, refusing a run whose options the simulator would refuse.
    static func plan(_ specPath: String, into folder: String) throws -> (SweepFolder, [PlannedRun], SweepSpec) {
        let spec = try SweepSpec(contentsOf: specPath)
        // A metric naming no path a summary can hold would be a column of "-" after the whole sweep has run.
        for metric in spec.metrics {
            for path in metric.paths where !Metric.path(path, isIn: SummaryShape.paths) {
                let nearest = Metric.nearest(to: path, in: SummaryShape.paths).map { "; did you mean `\($0)`?" } ?? ""
                throw SweepError.spec(specPath, "metric `\(metric.name)`: no run's summary has `\(path)`\(nearest) "
                                      + "(docs/simulation.md, \"Summary\")")
            }
        }
        let eachSeed = SweepPlan.namesTheSeed(spec)
        for run in SweepPlan.runs(of: spec, version: NearcatchSim.version) where eachSeed || run.seed == spec.seeds[0] {
            do {
                _ = try RunCommand.parse(Array(run.arguments.dropFirst()))
            } catch {
                throw ValidationError("\(specPath): the grid point \(run.pointLabel.isEmpty ? "(no grid)" : run.pointLabel) "
                                      + "is no valid run: \(RunCommand.message(for: error))")
            }
        }
        let text = (try? String(contentsOfFile: specPath, encoding: .utf8)) ?? ""
        let (made, runs) = try SweepFolder.plan(spec, text: text, version: NearcatchSim.version, at: folder)
        return (made, runs, spec)
    }
}

/// `sweep plan SPEC`: the run list, written.
struct SweepPlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Write a spec's run list into its sweep folder (one line per grid point and seed, each with its id).")

    @Argument(help: "The sweep's spec, a TOML file (docs/sweeps.md).")
    var spec: String

    @Option(help: "The sweep's folder (default: beside the spec, its name ending in .sweep).")
    var out: String?

    func run() throws {
        let folder = out ?? SweepCommand.defaultFolder(for: spec)
        let (_, runs, parsed) = try SweepCommand.plan(spec, into: folder)
        let points = runs.count / parsed.seeds.count
        print("\(folder)/plan.jsonl: \(runs.count) runs (\(points) grid points × \(parsed.seeds.count) seeds); "
              + "`nearcatch-sim sweep run \(folder)` runs them")
    }
}

/// `sweep run SPEC|FOLDER`: what is missing, run.
struct SweepRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the runs of a sweep that have no result yet, on a pool of processes here or on a Dask cluster.")

    @Argument(help: "A spec (planned first into its folder) or a sweep's folder.")
    var sweep: String

    @Option(help: "With a spec: the sweep's folder (default: beside the spec, its name ending in .sweep).")
    var out: String?

    @Option(help: "local (a pool of processes on this machine) or dask.")
    var backend: Backend = .local

    @Option(parsing: .unconditional, help: "Runs at once with --backend local (default: the number of cores); workers of the LocalCluster with --backend dask and no --scheduler.")
    var jobs: Int?

    @Option(help: "With --backend dask: the scheduler, tcp://HOST:PORT (keep it on a private network). Without it, a LocalCluster on this machine.")
    var scheduler: String?

    @Option(help: "The simulator each run starts (default: this program).")
    var simulator: String?

    @Option(help: "With --backend dask: a Python with Dask's distributed (default: .build/dask-venv/bin/python of the source tree the program was built in, which tools/ensure-dask makes; a program copied elsewhere takes python3 on the PATH). The driver is inside the program: it writes it to the sweep's folder as dask-driver.py.")
    var python: String?

    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case local, dask
    }

    func validate() throws {
        if let jobs { try require(jobs >= 1 && jobs <= 1024, "--jobs must be from 1 to 1024") }
        try require(scheduler == nil || backend == .dask, "--scheduler goes with --backend dask")
        if let scheduler {
            try require(scheduler.hasPrefix("tcp://") || scheduler.hasPrefix("tls://"),
                        "--scheduler must be tcp://HOST:PORT or tls://HOST:PORT, not \(scheduler)")
        }
        try require(python == nil || backend == .dask, "--python goes with --backend dask")
    }

    func run() async throws {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: sweep, isDirectory: &isFolder)
        guard exists else { throw ValidationError("\(sweep): no such spec or sweep folder") }
        let folder: SweepFolder
        if isFolder.boolValue {
            try require(out == nil, "--out goes with a spec, not a sweep's folder")
            folder = SweepFolder(sweep)
        } else {
            folder = try SweepCommand.plan(sweep, into: out ?? SweepCommand.defaultFolder(for: sweep)).0
        }
        let spec = try folder.spec()
        if self.simulator == nil, let other = try folder.plan().first(where: { $0.version != NearcatchSim.version }) {
            // Its ids name another version: results kept under them would pass for that version's.
            throw ValidationError("\(folder.path) was planned for nearcatch-sim \(other.version), this is \(NearcatchSim.version): "
                                  + "plan it again (`nearcatch-sim sweep run \(folder.specPath) --out \(folder.path)`)")
        }
        let simulator = try self.simulator ?? Self.thisProgram()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let chosen: any SweepBackend
        switch backend {
        case .local:
            chosen = LocalPool(simulator: simulator, jobs: jobs ?? cores, partialPath: folder.path + "/runs/partial")
        case .dask:
            let tree = Self.sourceTree(from: try Self.thisProgram()) ?? Self.sourceTree(from: simulator)
            // The tree's Python with Dask where there is one; else the PATH's, which must have `distributed`.
            let venv = tree.map { $0 + "/.build/dask-venv/bin/python" }
            let python = self.python ?? venv.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
                ?? Self.onPath("python3") ?? "python3"
            chosen = DaskBackend(python: python, runner: folder.path + "/dask-driver.py", simulator: simulator,
                                 scheduler: scheduler,
                                 localWorkers: jobs ?? cores, logPath: folder.path + "/dask.log")
        }
        let runner = SweepRunner(folder: folder, backend: chosen) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let now: @Sendable () -> Double = {
            let d = clock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
        let failed = Mutex(0)
        let signal = try await InterruptSignals.run({
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (c: CheckedContinuation<SweepRunner.Tally, Error>) in
                    // Blocked until the sweep ends: a thread of its own, not one of the task pool's.
                    Thread {
                        c.resume(with: Result { try runner.run(timeLimit: spec.timeLimit, retries: spec.retries, now: now) })
                    }.start()
                }
            } onCancel: {
                chosen.stop()
            }
        }, then: { tally, _ in
            var line = "\(folder.path): \(tally.done) runs done, \(tally.failed) failed, \(tally.alreadyDone) done before; "
                + "\(String(format: "%.1f", tally.wallSeconds)) s of wall clock"
            if tally.done > 0 {
                line += " for \(String(format: "%.1f", tally.runSeconds)) s of runs (\(String(format: "%.2f", tally.overIdeal)) "
                    + "times their time over \(tally.slots) at once)"
            }
            print(line)
            failed.withLock { $0 = tally.failed }
            if tally.failed > 0 {
                print("failed runs are in \(folder.path)/runs/*.failed.json; `nearcatch-sim sweep run \(folder.path)` tries them again")
            }
        })
        if let signal {
            FileHandle.standardError.write(Data(("stopped by \(InterruptSignals.name(signal)); what had finished is kept: "
                + "`nearcatch-sim sweep run \(folder.path)` resumes\n").utf8))
            throw ExitCode(128 + signal)
        }
        // A sweep whose runs failed is not a sweep that ran: a script that runs one and reports must learn it.
        if failed.withLock({ $0 }) > 0 { throw ExitCode(1) }
    }

    /// This program's own executable.
    static func thisProgram() throws -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        guard let path = Bundle.main.executablePath else { throw ValidationError("cannot tell this program's path: give --simulator") }
        return path
    }

    /// The full path of `name` on the PATH, if it is there.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The source tree the simulator was built in (`.build/…/nearcatch-sim`), where tools/ensure-dask keeps its
    /// Python; `nil` for a program copied elsewhere.
    static func sourceTree(from simulator: String) -> String? {
        var url = URL(fileURLWithPath: simulator).deletingLastPathComponent()
        for _ in 0..<5 {
            if FileManager.default.fileExists(atPath: url.path + "/tools/ensure-dask") { return url.path }
            url = url.deletingLastPathComponent()
        }
        let here = FileManager.default.currentDirectoryPath
        return FileManager.default.fileExists(atPath: here + "/tools/ensure-dask") ? here : nil
    }
}

/// `sweep report FOLDER`: the figures.
struct SweepReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Per grid point and metric: runs, mean, standard deviation and the 95% confidence interval.")

    @Argument(help: "A sweep's folder.")
    var folder: String

    @Option(help: "text (a table for the terminal), csv (a line per grid point and metric) or markdown.")
    var format: Format = .text

    @Option(help: "Also write the spec's plot (its [plot] table) as an SVG file here (an existing file only with --force).")
    var svg: String?

    @Flag(help: "Replace an existing file at the --svg path.")
    var force = false

    private var svgFile: OutputFile? { svg.map { OutputFile(path: $0, flag: "--svg", replace: force) } }

    func validate() throws {
        try svgFile?.check()
    }

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, csv, markdown
    }

    func run() throws {
        let report = try SweepReport(folder: SweepFolder(folder))
        if let svgFile {
            guard let picture = report.svg() else {
                throw ValidationError("\(folder)/spec.toml has no [plot] table (metric, x, lines): no picture to draw")
            }
            try svgFile.write(Data(picture.utf8))
        }
        switch format {
        case .text: print(report.text(), terminator: "")
        case .csv: print(report.csv(), terminator: "")
        case .markdown: print(report.markdown(), terminator: "")
        }
        if report.missing > 0 {
            FileHandle.standardError.write(Data("\(report.missing) planned runs have no result yet: `nearcatch-sim sweep run \(folder)`\n".utf8))
        }
        for note in report.notes { FileHandle.standardError.write(Data((note + "\n").utf8)) }
    }
}
