import Dispatch
import Foundation
import Synchronization

/// The Dask backend: the program's own driver (``DaskDriver``, written to `runner`), run by a Python that has
/// `distributed` (tools/ensure-dask makes one),
/// submits each run to a Dask scheduler (or to a `LocalCluster` of its own), ships the simulator's binary to the
/// workers, and prints each run's summary back as a JSON line; this side keeps them as the local pool's are kept.
/// The engine tries a failed run again and moves the runs of a worker that died to another.
package final class DaskBackend: SweepBackend {
    let python: String
    /// Where the driver is written (the sweep's folder).
    let runner: String
    let simulator: String
    /// `tcp://HOST:PORT`, or `nil` for a cluster of `localWorkers` worker processes on this machine.
    let scheduler: String?
    let localWorkers: Int
    /// Where the driver's and Dask's own messages go.
    let logPath: String
    private let state = Mutex(State())

    struct State {
        var process: Process?
        var threads = 0
        var stopping = false
    }

    package init(python: String, runner: String, simulator: String, scheduler: String?, localWorkers: Int,
                 logPath: String) {
        self.python = python
        self.runner = runner
        self.simulator = simulator
        self.scheduler = scheduler
        self.localWorkers = max(1, localWorkers)
        self.logPath = logPath
    }

    /// The cluster's worker threads, as the driver counted them when it connected.
    package var slots: Int { state.withLock { max($0.threads, 1) } }

    package func execute(_ runs: [PlannedRun], timeLimit: Double, retries: Int,
                        finished: @escaping @Sendable (PlannedRun, RunOutcome) -> Void) throws(SweepError) {
        for (what, path) in [("Python", python), ("the simulator", simulator)] where !FileManager.default.isExecutableFile(atPath: path) {
            throw SweepError.backend("\(what) \(path) is not an executable file"
                                     + (what == "Python" ? " (tools/ensure-dask makes one with Dask's distributed)" : ""))
        }
        guard !runs.isEmpty else { return }
        // Written each time, from the program that runs it: a driver of another version is never used.
        guard FileManager.default.createFile(atPath: runner, contents: Data(DaskDriver.source.utf8)) else {
            throw SweepError.io("cannot write the Dask driver to \(runner)")
        }
        guard FileManager.default.createFile(atPath: logPath, contents: nil), let log = FileHandle(forWritingAtPath: logPath) else {
            throw SweepError.io("cannot write \(logPath)")
        }
        defer { try? log.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        var arguments = [runner, "--binary", simulator, "--time-limit", String(timeLimit), "--retries", String(retries)]
        if let scheduler { arguments += ["--scheduler", scheduler] } else { arguments += ["--local-workers", String(localWorkers)] }
        process.arguments = arguments
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = log
        do {
            try process.run()
        } catch {
            throw SweepError.backend("cannot start \(python) \(runner): \(error.localizedDescription)")
        }
        let stopNow = state.withLock { s in
            s.process = process
            return s.stopping
        }
        if stopNow { process.terminate() }
        // The run list goes in from another thread, so that a long one cannot fill the pipe while this one waits.
        var lines = Data()
        for run in runs {
            guard let line = try? JSONSerialization.data(withJSONObject: ["id": run.id, "arguments": run.arguments]) else {
                throw SweepError.backend("run \(run.id): its arguments cannot be sent as JSON")
            }
            lines += line + Data("\n".utf8)
        }
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async { [lines] in
            try? writer.write(contentsOf: lines)
            try? writer.close()
        }
        let byID = Dictionary(uniqueKeysWithValues: runs.map { ($0.id, $0) })
        var reported = Set<String>()
        var buffer = Data()
        let reader = output.fileHandleForReading
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer += chunk
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                guard let message = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
                if let threads = message["threads"] as? Int {
                    state.withLock { $0.threads = threads }
                    continue
                }
                guard let id = message["id"] as? String, let run = byID[id], !reported.contains(id) else { continue }
                reported.insert(id)
                let attempts = message["attempts"] as? Int ?? 1
                if message["ok"] as? Bool == true, let text = message["summary"] as? String,
                   SweepRunner.isSummary(Data(text.utf8)) {
                    finished(run, .done(summary: Data(text.utf8), seconds: message["seconds"] as? Double ?? 0, attempts: attempts))
                } else {
                    let error = message["error"] as? String ?? "the worker sent no JSON summary"
                    finished(run, .failed(error: error, attempts: attempts))
                }
            }
        }
        process.waitUntilExit()
        let stopped = state.withLock { $0.stopping }
        if !stopped, reported.count < runs.count {
            throw SweepError.backend("the Dask driver ended (status \(process.terminationStatus)) with \(runs.count - reported.count) "
                                     + "runs unreported: \(LocalPool.tail(of: logPath))")
        }
    }

    package func stop() {
        let process = state.withLock { s in
            s.stopping = true
            return s.process
        }
        if let process, process.isRunning { process.terminate() }
    }
}
