import Foundation

/// A sweep's folder: the spec it was planned from (`spec.toml`), the run list (`plan.jsonl`, a JSON object a line),
/// and a file a finished run (`runs/ID.json`, the run's JSON summary as it printed it) or a run that failed every try
/// (`runs/ID.failed.json`). Every file is written whole, to a temporary name first, then renamed: a sweep stopped at
/// any instant leaves only whole files, and what it had not finished is simply missing.
package struct SweepFolder: Sendable {
    package let path: String

    package init(_ path: String) {
        self.path = path
    }

    package var specPath: String { path + "/spec.toml" }
    package var planPath: String { path + "/plan.jsonl" }
    var runsPath: String { path + "/runs" }
    /// Where runs in progress write their output before it is whole; emptied when a sweep starts.
    var partialPath: String { path + "/runs/partial" }
    package func resultPath(_ id: String) -> String { "\(runsPath)/\(id).json" }
    package func failurePath(_ id: String) -> String { "\(runsPath)/\(id).failed.json" }

    /// A run that failed every try: why, and how many tries it had.
    package struct Failure: Codable, Sendable, Equatable {
        package let id: String
        package let attempts: Int
        package let error: String

        package init(id: String, attempts: Int, error: String) {
            self.id = id
            self.attempts = attempts
            self.error = error
        }
    }

    /// Folders a sweep is never planned into, nor anything under them: the system's.
    static let systemFolders = ["/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/proc", "/sbin", "/sys",
                                "/usr"]

    /// Refuses `path` as a sweep's folder unless it is missing, empty, or a sweep's folder planned from a spec of the
    /// same name (planned again: its results kept), and never the root, a folder at the top of the file system, or
    /// one of the system's.
    package static func checkPlace(_ path: String, for spec: SweepSpec) throws(SweepError) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let parts = absolute.split(separator: "/")
        if parts.count <= 1 || systemFolders.contains(where: { absolute == $0 || absolute.hasPrefix($0 + "/") }) {
            throw SweepError.io("\(path) is a system folder (\(absolute): the root, a folder at the top of the file "
                                + "system or one of the system's): give --out a folder of the sweep's own")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else { throw SweepError.io("\(path) is a file, not a folder: give --out a folder") }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        if entries.isEmpty { return }
        let folder = SweepFolder(path)
        guard FileManager.default.fileExists(atPath: folder.specPath) else {
            throw SweepError.io("\(path) is not empty and not a sweep's folder (it has no spec.toml): give --out an "
                                + "empty or missing folder")
        }
        let planned = try folder.spec()
        guard planned.name == spec.name else {
            throw SweepError.io("\(path) is the folder of the sweep `\(planned.name)`, not `\(spec.name)`: give --out "
                                + "another folder")
        }
    }

    /// Plans `spec` into the folder (made if missing): its text, and the run list for the simulator `version`.
    /// Results already there are kept; a run whose id the new plan no longer lists is not reported.
    @discardableResult
    package static func plan(_ spec: SweepSpec, text: String, version: String,
                             at path: String) throws(SweepError) -> (SweepFolder, [PlannedRun]) {
        try checkPlace(path, for: spec)
        let folder = SweepFolder(path)
        let runs = SweepPlan.runs(of: spec, version: version)
        do {
            try FileManager.default.createDirectory(atPath: folder.runsPath, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder.specPath), options: .atomic)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var lines = Data()
            for run in runs {
                lines += try encoder.encode(run)
                lines += Data("\n".utf8)
            }
            try lines.write(to: URL(fileURLWithPath: folder.planPath), options: .atomic)
        } catch {
            throw SweepError.io("cannot write the sweep's folder \(path): \(error.localizedDescription)")
        }
        return (folder, runs)
    }

    /// The spec the folder was planned from.
    package func spec() throws(SweepError) -> SweepSpec {
        guard FileManager.default.fileExists(atPath: specPath) else {
            throw SweepError.io("\(path) is not a sweep's folder: it has no spec.toml (`nearcatch-sim sweep plan` makes one)")
        }
        return try SweepSpec(contentsOf: specPath)
    }

    /// The run list.
    package func plan() throws(SweepError) -> [PlannedRun] {
        guard let data = FileManager.default.contents(atPath: planPath) else {
            throw SweepError.io("\(path) has no plan.jsonl (`nearcatch-sim sweep plan` writes it)")
        }
        var runs: [PlannedRun] = []
        for (n, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
            guard let run = try? JSONDecoder().decode(PlannedRun.self, from: Data(line)) else {
                throw SweepError.io("\(planPath), line \(n + 1): not a planned run")
            }
            runs.append(run)
        }
        return runs
    }

    /// The summary of run `id` as it printed it, if it finished.
    package func result(_ id: String) -> Data? {
        FileManager.default.contents(atPath: resultPath(id))
    }

    package func failure(_ id: String) -> Failure? {
        FileManager.default.contents(atPath: failurePath(id)).flatMap { try? JSONDecoder().decode(Failure.self, from: $0) }
    }

    /// Keeps run `id`'s summary, whole, and forgets an earlier failure of it.
    package func saveResult(_ id: String, _ summary: Data) throws(SweepError) {
        do {
            try summary.write(to: URL(fileURLWithPath: resultPath(id)), options: .atomic)
        } catch {
            throw SweepError.io("cannot write \(resultPath(id)): \(error.localizedDescription)")
        }
        try? FileManager.default.removeItem(atPath: failurePath(id))
    }

    package func saveFailure(_ failure: Failure) throws(SweepError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try encoder.encode(failure).write(to: URL(fileURLWithPath: failurePath(failure.id)), options: .atomic)
        } catch {
            throw SweepError.io("cannot write \(failurePath(failure.id)): \(error.localizedDescription)")
        }
    }

    /// Makes an empty folder for the outputs of runs in progress: what a stopped sweep left there was never whole.
    func clearPartial() throws(SweepError) {
        do {
            try? FileManager.default.removeItem(atPath: partialPath)
            try FileManager.default.createDirectory(atPath: partialPath, withIntermediateDirectories: true)
        } catch {
            throw SweepError.io("cannot make \(partialPath): \(error.localizedDescription)")
        }
    }
}
