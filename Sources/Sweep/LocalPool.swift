import Dispatch
import Foundation
import Synchronization

/// The local backend: up to `jobs` simulator processes at once on this machine, each writing its summary to a file
/// of its own (no pipe to fill), stopped at the time limit, tried again on failure.
package final class LocalPool: SweepBackend {
    let simulator: String
    let jobs: Int
    let partialPath: String
    private let state = Mutex(State())

    struct State {
        var next = 0
        var stopping = false
        var running: [Int32: Process] = [:]
    }

    package var slots: Int { jobs }

    /// `simulator` is the executable run with each run's arguments; outputs in progress go under `partialPath`.
    package init(simulator: String, jobs: Int, partialPath: String) {
        self.simulator = simulator
        self.jobs = max(1, jobs)
        self.partialPath = partialPath
    }

    /// Seconds a process is given to end after SIGTERM (its time is up, or the sweep stops) before SIGKILL.
    static let termination = 2.0
    /// The most a run may print: a summary is tens of kilobytes, and one run that printed 1.2 GB made the sweep hold
    /// as much.
    package static let largestOutput = 16 << 20
    /// Set in each run's environment to the sweep's process id: the simulator then asks to be ended when the sweep's
    /// process ends (PR_SET_PDEATHSIG), so that a sweep killed outright leaves no run going.
    package static let parentVariable = "NEARCATCH_SWEEP_PARENT"

    package func execute(_ runs: [PlannedRun], timeLimit: Double, retries: Int,
                        finished: @escaping @Sendable (PlannedRun, RunOutcome) -> Void) throws(SweepError) {
        guard FileManager.default.isExecutableFile(atPath: simulator) else {
            throw SweepError.backend("the simulator \(simulator) is not an executable file")
        }
        state.withLock { $0.next = 0 }
        let group = DispatchGroup()
        for _ in 0..<min(jobs, runs.count) {
            group.enter()
            // A thread of its own each, not a dispatch queue's: the workers spend their lives blocked on their
            // processes, and a pool of as many threads as cores would start a second worker only a second later.
            Thread { [self] in
                defer { group.leave() }
                while let index = claim(count: runs.count) {
                    let run = runs[index]
                    var attempts = 0
                    var outcome: RunOutcome
                    repeat {
                        attempts += 1
                        outcome = attempt(run, attempt: attempts, timeLimit: timeLimit)
                    } while !outcome.isDone && attempts <= retries && !stopping
                    if stopping && !outcome.isDone { return }
                    finished(run, outcome)
                }
            }.start()
        }
        group.wait()
    }

    package func stop() {
        let running = state.withLock { s in
            s.stopping = true
            return Array(s.running.values)
        }
        for process in running { end(process) }
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    private func claim(count: Int) -> Int? {
        state.withLock { s in
            guard !s.stopping, s.next < count else { return nil }
            defer { s.next += 1 }
            return s.next
        }
    }

    /// One try: the process's standard output becomes the summary if it ends well and printed one.
    private func attempt(_ run: PlannedRun, attempt: Int, timeLimit: Double) -> RunOutcome {
        let out = "\(partialPath)/\(run.id).\(attempt).out"
        let err = "\(partialPath)/\(run.id).\(attempt).err"
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        guard FileManager.default.createFile(atPath: out, contents: nil),
              FileManager.default.createFile(atPath: err, contents: nil),
              let outHandle = FileHandle(forWritingAtPath: out), let errHandle = FileHandle(forWritingAtPath: err)
        else {
            return .failed(error: "cannot make its output files under \(partialPath)", attempts: attempt)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: simulator)
        process.arguments = run.arguments
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment[Self.parentVariable] = String(getpid())
        process.environment = environment
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        let started = DispatchTime.now()
        let timedOut = Mutex(false)
        do {
            try process.run()
        } catch {
            try? outHandle.close()
            try? errHandle.close()
            return .failed(error: "cannot start \(simulator): \(error.localizedDescription)", attempts: attempt)
        }
        let pid = process.processIdentifier
        let stoppingNow = state.withLock { s in
            s.running[pid] = process
            return s.stopping
        }
        if stoppingNow { end(process) }
        let limit = DispatchWorkItem { [self] in
            timedOut.withLock { $0 = true }
            end(process)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: limit)
        // A run that prints without end is ended once past the bound, not left to fill the disk until its time.
        var tooLoud = false
        while ended.wait(timeout: .now() + Self.outputCheck) == .timedOut {
            if !tooLoud, max(Self.size(of: out), Self.size(of: err)) > Self.largestOutput {
                tooLoud = true
                end(process)
            }
        }
        limit.cancel()
        state.withLock { _ = $0.running.removeValue(forKey: pid) }
        try? outHandle.close()
        try? errHandle.close()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        if tooLoud || max(Self.size(of: out), Self.size(of: err)) > Self.largestOutput {
            return .failed(error: "printed more than the \(Self.largestOutput) bytes a summary may be (ended there)",
                           attempts: attempt)
        }
        let summary = FileManager.default.contents(atPath: out) ?? Data()
        if timedOut.withLock({ $0 }) {
            return .failed(error: "stopped at the time limit of \(timeLimit) s", attempts: attempt)
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let how = process.terminationReason == .exit ? "exit status \(process.terminationStatus)"
                : "signal \(process.terminationStatus)"
            return .failed(error: "\(how): \(Self.tail(of: err))", attempts: attempt)
        }
        guard SweepRunner.isSummary(summary) else {
            return .failed(error: "ended well but printed no JSON summary: \(Self.tail(of: out))", attempts: attempt)
        }
        return .done(summary: summary, seconds: seconds, attempts: attempt)
    }

    /// How often a running run's output is measured against ``largestOutput``, seconds.
    static let outputCheck = 0.25

    /// The size of the file at `path`, bytes; 0 if it cannot be read.
    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// SIGTERM, then SIGKILL if it is still there after ``termination`` seconds.
    private func end(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.termination) {
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }

    /// The last lines of a file, for an error message: what a failed run said last (its last 4 KiB read, however
    /// much it wrote).
    static func tail(of path: String, characters: Int = 400) -> String {
        var bytes = Data()
        if let handle = FileHandle(forReadingAtPath: path) {
            let end = (try? handle.seekToEnd()) ?? 0
            try? handle.seek(toOffset: end > 4096 ? end - 4096 : 0)
            bytes = (try? handle.readToEnd()) ?? Data()
            try? handle.close()
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return "(it printed nothing)" }
        return text.count > characters ? "..." + text.suffix(characters) : text
    }
}
