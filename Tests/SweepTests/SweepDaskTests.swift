import Foundation
import Sweep
import Testing
import TestSupport

/// The Dask backend against a scheduler and two workers the test starts on loopback (Dask's `distributed`, from
/// the environment tools/ensure-dask makes): the same summaries as the local pool's, and a worker killed mid-sweep
/// whose runs the engine gives to the other.
@Suite(.serialized, .tags(.dask, .realTime)) struct SweepDaskTests {
    /// The Dask environment (.build/dask-venv), made by tools/ensure-dask the first time a test asks for it when
    /// it is not there (a fresh clone under plain `swift test`): once for the whole run, whichever test asks first.
    static func environment() throws -> String {
        try made.get()
    }

    private static let made = Result<String, any Error> {
        let venv = SweepFixture.tree + "/.build/dask-venv"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", SweepFixture.tree + "/tools/ensure-dask"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: venv + "/bin/dask") else {
            throw SweepTestError("tools/ensure-dask could not make the Dask environment at \(venv) (it installs "
                                 + "Dask's distributed from PyPI): \(String(decoding: said, as: UTF8.self))")
        }
        return venv
    }

    /// A Dask scheduler and `workers` one-thread workers on 127.0.0.1, ended when the cluster is.
    final class Cluster {
        let address: String
        let scheduler: Process
        var workers: [Process]

        init(workers count: Int, in dir: String) async throws {
            let dask = try SweepDaskTests.environment() + "/bin/dask"
            let file = dir + "/scheduler.json"
            func start(_ arguments: [String], log: String) throws -> Process {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: dask)
                p.arguments = arguments
                // Their scratch space and the binaries they are sent, in the test's folder, removed with it.
                var environment = ProcessInfo.processInfo.environment
                environment["TMPDIR"] = dir
                p.environment = environment
                _ = FileManager.default.createFile(atPath: log, contents: nil)
                p.standardOutput = FileHandle(forWritingAtPath: log)
                p.standardError = FileHandle(forWritingAtPath: log)
                try p.run()
                return p
            }
            scheduler = try start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                   "--scheduler-file", file], log: dir + "/scheduler.log")
            var waited = 0
            var address: String?
            while address == nil, waited < 600 {
                try await Task.sleep(for: .milliseconds(100))
                waited += 1
                if let data = FileManager.default.contents(atPath: file),
                   let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                    address = object["address"] as? String
                }
            }
            guard let address else { throw SweepTestError("the scheduler wrote no address in 60 s") }
            self.address = address
            workers = try (0..<count).map {
                try start(["worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                           "--name", "w\($0)"], log: dir + "/worker\($0).log")
            }
            // Every worker joined before a sweep asks the scheduler how many there are: a sweep started at once saw
            // one of two on a fresh clone ("over 1 at once").
            waited = 0
            func joined(_ k: Int) -> Bool {
                let log = FileManager.default.contents(atPath: dir + "/worker\(k).log") ?? Data()
                return String(decoding: log, as: UTF8.self).contains("Registered to")
            }
            while !(0..<count).allSatisfy(joined), waited < 600 {
                try await Task.sleep(for: .milliseconds(100))
                waited += 1
            }
            guard (0..<count).allSatisfy(joined) else {
                throw SweepTestError("not every worker joined the scheduler in 60 s")
            }
        }

        /// Killed outright: a Dask process given SIGTERM closes gracefully, waiting on its peers for many seconds.
        func end() {
            for p in workers + [scheduler] where p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
            }
        }
    }

    /// Run from a copy of the binary alone (and a Python with Dask), as on a machine without the source tree.
    @Test func daskOnLoopbackGivesTheLocalPoolsSummariesAndTable() async throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(SweepFixture.spec().utf8).write(to: URL(fileURLWithPath: dir + "/small.toml"))
        let local = try SweepFixture.sim(["sweep", "run", "small.toml", "--out", "local.sweep"], in: dir)
        #expect(local.status == 0, "\(local.err)")
        let cluster = try await Cluster(workers: 2, in: dir)
        defer { cluster.end() }
        // From a copy of the program alone, away from the source tree: the driver is inside it.
        let copy = dir + "/bin/nearcatch-sim"
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: try SweepFixture.simulator, toPath: copy)
        let python = try Self.environment() + "/bin/python"
        let dask = try SweepFixture.sim(["sweep", "run", "small.toml", "--out", "dask.sweep", "--backend", "dask",
                                         "--scheduler", cluster.address, "--python", python], in: dir, program: copy)
        #expect(dask.status == 0, "\(dask.err)")
        #expect(FileManager.default.fileExists(atPath: dir + "/dask.sweep/dask-driver.py"))
        #expect(dask.out.contains("4 runs done, 0 failed, 0 done before"))
        #expect(dask.out.contains("over 2 at once"))
        let a = SweepFolder(dir + "/local.sweep"), b = SweepFolder(dir + "/dask.sweep")
        #expect(try a.plan() == b.plan())
        for run in try a.plan() {
            #expect(try SweepFixture.simulated(#require(a.result(run.id))) == SweepFixture.simulated(#require(b.result(run.id))))
        }
        let tables = try ["local.sweep", "dask.sweep"].map {
            try SweepFixture.sim(["sweep", "report", $0, "--format", "markdown"], in: dir).out
        }
        #expect(tables[0] == tables[1] && tables[0].split(separator: "\n").count == 4)
    }

    @Test func aWorkerKilledMidSweepHasItsRunsMovedToTheOther() async throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let real = try SweepFixture.simulator
        // The "binary" Dask ships is this script; each run takes half a second more, so that a worker dies
        // holding one.
        let slowed = try SweepFixture.slowed(by: 0.5, in: dir)
        try Data(SweepFixture.spec(seeds: 4).utf8).write(to: URL(fileURLWithPath: dir + "/small.toml"))
        let cluster = try await Cluster(workers: 2, in: dir)
        defer { cluster.end() }
        let sweep = Process()
        sweep.executableURL = URL(fileURLWithPath: real)
        sweep.arguments = ["sweep", "run", "small.toml", "--backend", "dask", "--scheduler", cluster.address,
                           "--simulator", slowed]
        sweep.currentDirectoryURL = URL(fileURLWithPath: dir)
        let out = Pipe()
        sweep.standardOutput = out
        sweep.standardError = FileHandle.nullDevice
        try sweep.run()
        // Once a run has ended and the next ones are under way, the first worker is killed outright. The wait blocks
        // its thread rather than yield: a runner whose threads are all busy would resume it after the sweep ended.
        var waited = 0
        while SweepFixture.lines(dir + "/started").count < 4, waited < 600 {
            usleep(50_000)
            waited += 1
        }
        kill(cluster.workers[0].processIdentifier, SIGKILL)
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        sweep.waitUntilExit()
        #expect(sweep.terminationStatus == 0)
        #expect(printed.contains("8 runs done, 0 failed"), "\(printed)")
        let folder = SweepFolder(dir + "/small.sweep")
        #expect(try folder.plan().allSatisfy { folder.result($0.id) != nil })
        // The run the dead worker held was started again elsewhere: more starts than runs.
        #expect(SweepFixture.lines(dir + "/started").count > 8)
        // And every summary is the one the run gives by hand.
        for run in try folder.plan() {
            let byHand = try SweepFixture.sim(run.arguments)
            #expect(try SweepFixture.simulated(#require(folder.result(run.id))) == SweepFixture.simulated(Data(byHand.out.utf8)))
        }
    }
}

struct SweepTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
