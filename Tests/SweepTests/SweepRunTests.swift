import Foundation
import Sweep
import Testing
import TestSupport

/// What the sweep's processes share: the built simulator, a scratch folder, a spec of small runs, and the summaries
/// compared without their `performance` (the wall clock of a run is not part of what it simulated).
enum SweepFixture {
    static var simulator: String {
        get throws {
            let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("nearcatch-sim").path
        }
    }

    /// The source tree, where tools/ensure-dask made the Python of the Dask backend.
    static let tree = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "sweep-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Two policies × `seeds` of 10 peers for 5 s in memory: a few hundredths of a second a run.
    static func spec(seeds: Int = 2, retries: Int = 1, extra: String = "") -> String {
        """
        name = "small"
        replicates = \(seeds)
        retries = \(retries)
        metrics = ["exchanges = ranging.exchanges", "bumps.recall", "sessions = discovery.sessions"]
        \(extra)
        [options]
        peers = 10
        duration = 5
        transport = "memory"

        [grid]
        ranging-policy = ["proximity", "round-robin"]
        """
    }

    /// Runs `nearcatch-sim` with `arguments`; its status, standard output and standard error.
    @discardableResult
    static func sim(_ arguments: [String], in folder: String? = nil,
                    program: String? = nil) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try program ?? simulator)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Standard error read on another thread, so that the process never blocks on a full pipe.
        let errors = DataBox()
        let read = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errors.data = err.fileHandleForReading.readDataToEndOfFile()
            read.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        read.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errors.data, as: UTF8.self))
    }

    /// A summary's JSON without `performance`, keys sorted: what two runs of one seed must share byte for byte.
    static func simulated(_ data: Data) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["performance"] != nil)
        object["performance"] = nil
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// Writes an executable shell script.
    static func script(_ path: String, _ text: String) throws {
        try Data(("#!/bin/sh\n" + text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    /// A simulator that logs each command line to `dir/started` and takes `delay` seconds more than the real one.
    static func slowed(by delay: Double, in dir: String) throws -> String {
        let path = dir + "/slowed"
        try script(path, """
            echo "$*" >> \(dir)/started
            sleep \(delay)
            exec \(try simulator) "$@"
            """)
        return path
    }

    static func lines(_ path: String) -> [String] {
        (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// The local backend: results equal to runs made by hand, retries, failures kept, and a stopped sweep resumed
/// without running anything twice.
@Suite(.serialized, .tags(.realTime)) struct SweepRunTests {
    @Test func theLocalPoolGivesWhatRunsByHandGive() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(SweepFixture.spec().utf8).write(to: URL(fileURLWithPath: dir + "/small.toml"))
        let run = try SweepFixture.sim(["sweep", "run", "small.toml", "--jobs", "2"], in: dir)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("4 runs done, 0 failed, 0 done before"))
        #expect(run.err.contains("sweep: 4/4 ended, 0 failed"))
        let folder = SweepFolder(dir + "/small.sweep")
        let plan = try folder.plan()
        #expect(plan.count == 4)
        for planned in plan {
            let byHand = try SweepFixture.sim(planned.arguments)
            #expect(byHand.status == 0)
            let kept = try #require(folder.result(planned.id))
            #expect(try SweepFixture.simulated(kept) == SweepFixture.simulated(Data(byHand.out.utf8)))
        }
        // Nothing left half-written, and nothing more to run.
        #expect(!FileManager.default.fileExists(atPath: dir + "/small.sweep/runs/partial"))
        let again = try SweepFixture.sim(["sweep", "run", "small.sweep"], in: dir)
        #expect(again.out.contains("0 runs done, 0 failed, 4 done before"))

        let report = try SweepReport(folder: folder)
        #expect(report.rows.map(\.done) == [2, 2])
        var exchanges: [Double] = []
        for planned in plan where planned.point["ranging-policy"] == "proximity" {
            let data = try #require(folder.result(planned.id))
            exchanges.append(try #require(try Metric("ranging.exchanges").value(in: JSONSerialization.jsonObject(with: data))))
        }
        let cell = try #require(report.rows[0].cells[0])
        #expect(cell.count == 2 && abs(cell.mean - (exchanges[0] + exchanges[1]) / 2) < 1e-9)
        // Two values: t(0.975, 1) = 12.706 times the standard error.
        let sd = abs(exchanges[0] - exchanges[1]) / 2.squareRoot()
        #expect(abs(try #require(cell.halfWidth) - 12.7062 * sd / 2.squareRoot()) < 1e-3 * max(sd, 1))
        let markdown = try SweepFixture.sim(["sweep", "report", "small.sweep", "--format", "markdown"], in: dir).out
        #expect(markdown.split(separator: "\n").count == 4)
        #expect(markdown.hasPrefix("| ranging-policy | runs | exchanges | bumps.recall | sessions |"))
        let csv = try SweepFixture.sim(["sweep", "report", "small.sweep", "--format", "csv"], in: dir).out
        #expect(csv.split(separator: "\n").count == 1 + 2 * 3)
        // The plot's file is any output file: an existing one replaced only with --force, and a spec without a
        // [plot] says so.
        try Data("kept".utf8).write(to: URL(fileURLWithPath: dir + "/plot.svg"))
        let refused = try SweepFixture.sim(["sweep", "report", "small.sweep", "--svg", "plot.svg"], in: dir)
        #expect(refused.status != 0 && refused.err.contains("--svg: plot.svg exists; pass --force to replace it"))
        let noPlot = try SweepFixture.sim(["sweep", "report", "small.sweep", "--svg", "plot.svg", "--force"], in: dir)
        #expect(noPlot.status != 0 && noPlot.err.contains("has no [plot] table"))
        #expect(try String(contentsOfFile: dir + "/plot.svg", encoding: .utf8) == "kept")
    }

    @Test func aRunThatFailsOnceIsTriedAgainAndOneThatAlwaysFailsIsKept() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let real = try SweepFixture.simulator
        // Fails the first time it sees a command line, runs the simulator after.
        try SweepFixture.script(dir + "/flaky", """
            key=$(echo "$*" | md5sum | cut -c1-16)
            echo "$*" >> \(dir)/tries
            if [ ! -e \(dir)/seen-$key ]; then touch \(dir)/seen-$key; echo "flaky: first try" >&2; exit 3; fi
            exec \(real) "$@"
            """)
        try Data(SweepFixture.spec().utf8).write(to: URL(fileURLWithPath: dir + "/small.toml"))
        let run = try SweepFixture.sim(["sweep", "run", "small.toml", "--simulator", dir + "/flaky"], in: dir)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("4 runs done, 0 failed"))
        #expect(SweepFixture.lines(dir + "/tries").count == 8)

        // With no retry, each run fails once and is kept as failed, with what it said.
        try SweepFixture.script(dir + "/broken", "echo \"no such option\" >&2; exit 64")
        try Data(SweepFixture.spec(retries: 0).utf8).write(to: URL(fileURLWithPath: dir + "/never.toml"))
        let failing = try SweepFixture.sim(["sweep", "run", "never.toml", "--simulator", dir + "/broken"], in: dir)
        #expect(failing.status == 1)
        #expect(failing.out.contains("0 runs done, 4 failed"))
        let folder = SweepFolder(dir + "/never.sweep")
        for planned in try folder.plan() {
            let failure = try #require(folder.failure(planned.id))
            #expect(failure.attempts == 1)
            #expect(failure.error == "exit status 64: no such option")
        }
        let report = try SweepReport(folder: folder)
        #expect(report.rows.map(\.failed) == [2, 2] && report.rows.allSatisfy { $0.cells.allSatisfy { $0 == nil } })
        // A run that prints no summary, or outlives its time limit, fails too.
        try SweepFixture.script(dir + "/silent", "echo hello")
        let silent = try SweepFixture.sim(["sweep", "run", "never.sweep", "--simulator", dir + "/silent"], in: dir)
        #expect(silent.err.contains("ended well but printed no JSON summary: hello"))
        try SweepFixture.script(dir + "/slow", "exec sleep 30")
        try Data(SweepFixture.spec(retries: 0, extra: "time-limit = 0.5").utf8).write(to: URL(fileURLWithPath: dir + "/slow.toml"))
        let slow = try SweepFixture.sim(["sweep", "run", "slow.toml", "--simulator", dir + "/slow", "--jobs", "4"], in: dir)
        #expect(slow.out.contains("0 runs done, 4 failed"))
        #expect(slow.err.contains("stopped at the time limit of 0.5 s"))
    }

    /// The test waits for the first results on its own thread (blocking), not by yielding: a test runner whose
    /// threads are all busy (plain `swift test` runs every suite at once) would resume it after the sweep had ended.
    @Test func aStoppedSweepResumesAndRunsNothingTwice() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let real = try SweepFixture.simulator
        // Each run takes a quarter of a second more, so that the sweep is stopped with some runs done, not all.
        let logged = try SweepFixture.slowed(by: 0.25, in: dir)
        try Data(SweepFixture.spec(seeds: 6).utf8).write(to: URL(fileURLWithPath: dir + "/small.toml"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: real)
        process.arguments = ["sweep", "run", "small.toml", "--simulator", logged, "--jobs", "1"]
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let runs = dir + "/small.sweep/runs"
        func results() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: runs)) ?? []).filter { $0.hasSuffix(".json") }
        }
        var waited = 0
        while results().count < 3, waited < 600 {
            usleep(50_000)
            waited += 1
        }
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGINT)
        let first = Set(results())
        #expect(first.count >= 3 && first.count < 12)
        #expect(!FileManager.default.fileExists(atPath: runs + "/partial"))
        let folder = SweepFolder(dir + "/small.sweep")
        let plan = try folder.plan()
        let done = plan.filter { first.contains($0.id + ".json") }
        try FileManager.default.moveItem(atPath: dir + "/started", toPath: dir + "/started-first")

        let resumed = try SweepFixture.sim(["sweep", "run", "small.sweep", "--simulator", logged], in: dir)
        #expect(resumed.status == 0)
        #expect(resumed.out.contains("\(12 - done.count) runs done, 0 failed, \(done.count) done before"))
        let second = SweepFixture.lines(dir + "/started")
        #expect(second.count == 12 - done.count)
        for run in done {
            #expect(!second.contains(run.arguments.joined(separator: " ")))
        }
        #expect(plan.allSatisfy { folder.result($0.id) != nil })
    }

    /// A metric naming a path no summary can have is refused when the sweep is planned, before any run, with the
    /// nearest path a summary can have; a dictionary's key (a device model) is a path it can have.
    @Test func aMetricNoSummaryCanHaveIsRefusedAtPlanning() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let typo = SweepFixture.spec().replacingOccurrences(of: "\"bumps.recall\"", with: "\"r = bumps.recal * 2\"")
        try Data(typo.utf8).write(to: URL(fileURLWithPath: dir + "/typo.toml"))
        let planned = try SweepFixture.sim(["sweep", "plan", "typo.toml"], in: dir)
        #expect(planned.status != 0)
        #expect(planned.err.contains("metric `r`: no run's summary has `bumps.recal`; did you mean `bumps.recall`?"),
                "\(planned.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/typo.sweep"))
        let keyed = SweepFixture.spec().replacingOccurrences(of: "\"bumps.recall\"", with: "\"run.devices.iphone\"")
        try Data(keyed.utf8).write(to: URL(fileURLWithPath: dir + "/keyed.toml"))
        let fine = try SweepFixture.sim(["sweep", "plan", "keyed.toml"], in: dir)
        #expect(fine.status == 0, "\(fine.err)")
    }

    @Test func aSpecWhoseRunsTheSimulatorRefusesIsRefusedAtPlanning() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(SweepFixture.spec(extra: "").replacingOccurrences(of: "\"round-robin\"", with: "\"fastest\"").utf8)
            .write(to: URL(fileURLWithPath: dir + "/bad.toml"))
        let planned = try SweepFixture.sim(["sweep", "plan", "bad.toml"], in: dir)
        #expect(planned.status != 0)
        #expect(planned.err.contains("bad.toml: the grid point ranging-policy=fastest is no valid run"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/bad.sweep"))
        // A folder planned for another version of the simulator is not run as if it were this one's.
        let text = SweepFixture.spec()
        try SweepFolder.plan(try SweepSpec(toml: text), text: text, version: "0.0.1", at: dir + "/old.sweep")
        let old = try SweepFixture.sim(["sweep", "run", "old.sweep"], in: dir)
        #expect(old.status != 0)
        #expect(old.err.contains("old.sweep was planned for nearcatch-sim 0.0.1"))
        #expect(try SweepFolder(dir + "/old.sweep").plan().allSatisfy { SweepFolder(dir + "/old.sweep").result($0.id) == nil })
    }
}
