import Foundation
import Synchronization

/// How a run ended, after its tries.
package enum RunOutcome: Sendable, Equatable {
    /// Its JSON summary, the wall-clock seconds of the try that made it, and the tries it took.
    case done(summary: Data, seconds: Double, attempts: Int)
    case failed(error: String, attempts: Int)

    var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}

/// What runs a sweep's runs: a pool of processes here, or a Dask cluster.
package protocol SweepBackend: Sendable {
    /// Runs each of `runs` (each tried up to `retries` more times on failure, each try stopped after `timeLimit`
    /// seconds), calling `finished` once per run, from any thread, as each ends. Returns when all have, or after
    /// `stop`.
    func execute(_ runs: [PlannedRun], timeLimit: Double, retries: Int,
                 finished: @escaping @Sendable (PlannedRun, RunOutcome) -> Void) throws(SweepError)
    /// Stops starting runs and ends the ones under way; `execute` then returns.
    func stop()
    /// Runs at once at most, for the progress and the figures of the end.
    var slots: Int { get }
}

/// Runs what a sweep's folder is missing through a backend, keeps each result as it comes, and tells the progress.
package final class SweepRunner: Sendable {
    package let folder: SweepFolder
    let backend: any SweepBackend
    let progress: @Sendable (String) -> Void
    private let state = Mutex(State())

    struct State {
        var done = 0
        var failed = 0
        var runSeconds = 0.0
        var writeError: SweepError?
    }

    /// What a finished sweep did: counts, and the wall clock against the sum of its runs' own.
    package struct Tally: Sendable, Equatable {
        package let planned: Int
        /// Runs already done before this call: a resumed sweep does not run them again.
        package let alreadyDone: Int
        package let done: Int
        package let failed: Int
        package let wallSeconds: Double
        package let runSeconds: Double
        package let slots: Int

        /// Wall clock over the ideal of the runs' own times spread over the slots: 1 with no time lost.
        package var overIdeal: Double { runSeconds > 0 ? wallSeconds / (runSeconds / Double(slots)) : 0 }
    }

    package init(folder: SweepFolder, backend: any SweepBackend, progress: @escaping @Sendable (String) -> Void) {
        self.folder = folder
        self.backend = backend
        self.progress = progress
    }

    /// Runs the planned runs with no result yet (a failed one is tried afresh).
    package func run(timeLimit: Double, retries: Int,
                     now: @escaping @Sendable () -> Double) throws(SweepError) -> Tally {
        let plan = try folder.plan()
        let missing = plan.filter { folder.result($0.id) == nil }
        try folder.clearPartial()
        let start = now()
        let total = missing.count
        progress("sweep: \(plan.count) runs planned, \(plan.count - total) already done, \(total) to run on \(backend.slots) at once")
        try backend.execute(missing, timeLimit: timeLimit, retries: retries) { [self] run, outcome in
            let line: String = state.withLock { s in
                switch outcome {
                case .done(let summary, let seconds, _):
                    do throws(SweepError) {
                        try folder.saveResult(run.id, summary)
                        s.done += 1
                        s.runSeconds += seconds
                    } catch {
                        s.writeError = s.writeError ?? error
                        s.failed += 1
                    }
                case .failed(let error, let attempts):
                    s.failed += 1
                    do throws(SweepError) {
                        try folder.saveFailure(.init(id: run.id, attempts: attempts, error: error))
                    } catch {
                        s.writeError = s.writeError ?? error
                    }
                }
                let ended = s.done + s.failed
                let elapsed = now() - start
                let left = ended > 0 ? elapsed / Double(ended) * Double(total - ended) : 0
                var text = "sweep: \(ended)/\(total) ended, \(s.failed) failed, \(String(format: "%.1f", elapsed)) s"
                if ended < total { text += ", about \(String(format: "%.0f", left.rounded(.up))) s left" }
                if case .failed(let error, let attempts) = outcome {
                    text += "\n  run \(run.id) (\(run.pointLabel) seed \(run.seed)) failed after \(attempts) tries: \(error)"
                }
                return text
            }
            progress(line)
        }
        let wall = now() - start
        try? FileManager.default.removeItem(atPath: folder.partialPath)
        return try state.withLock { s throws(SweepError) in
            if let error = s.writeError { throw error }
            return Tally(planned: plan.count, alreadyDone: plan.count - total, done: s.done, failed: s.failed,
                         wallSeconds: wall, runSeconds: s.runSeconds, slots: backend.slots)
        }
    }

    /// Whether `data` is what a run prints with `--format json`: one JSON object.
    static func isSummary(_ data: Data) -> Bool {
        (try? JSONSerialization.jsonObject(with: data)) is [String: Any]
    }
}
