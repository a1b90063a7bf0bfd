import Foundation
@testable import Sweep
import Testing

/// Issue 49's fifth hole: a sweep's spec is input like any other. Keys are option names, a grid's files stay in
/// the sweep's folder, and every size is bounded before it is read.
@Suite struct SweepSpecInputTests {
    /// A spec with `extra` lines at its top level and `tables` after.
    private func spec(_ extra: String = "", tables: String = "") -> String {
        """
        name = "input"
        replicates = 2
        metrics = ["bumps.recall"]
        \(extra)
        \(tables)
        """
    }

    private func refusal(_ text: String) -> String? {
        do {
            _ = try SweepSpec(toml: text, file: "t.toml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func keysAreOptionNamesOnly() {
        // Each was passed on as written: a trace written anywhere, every replicate run at seed 5.
        let keys = [("[options]", "\"seed=5\" = true"), ("[grid]", "\"trace=/tmp/anywhere\" = [1]"),
                    ("[options]", "\"--peers\" = 3"), ("[options]", "Peers = 3"), ("[grid]", "\"peers \" = [2, 3]"),
                    ("[options]", "\"peers-\" = 3")]
        for (table, line) in keys {
            let said = refusal(spec(tables: table + "\n" + line))
            #expect(said?.contains("is not an option's name") == true, "\(line): \(said ?? "accepted")")
        }
        #expect(refusal(spec(tables: "[options]\nranging-policy = \"proximity\"\nmax-sessions = 4")) == nil)
    }

    @Test func aGridsFilesStayInTheSweepsFolder() {
        for path in ["/etc/passwd", "../up.json", "here/../../up.json", "~/x.json"] {
            let said = refusal(spec(tables: "[grid]\nscenario = [\"\(path)\"]"))
            #expect(said?.contains("outside the folder the sweep runs in") == true, "\(path): \(said ?? "accepted")")
        }
        #expect(refusal(spec(tables: "[grid]\nscenario = [\"held-out/a.json\", \"b.json\"]")) == nil)
        // In `options`, written once where anyone reads it, a path may be anywhere.
        #expect(refusal(spec(tables: "[options]\nscenario = \"/srv/encounters/a.json\"")) == nil)
    }

    @Test func everySizeIsBoundedBeforeItIsRead() throws {
        // 50,000 nested parentheses overflowed the parser's stack (SIGSEGV).
        let deep = String(repeating: "(", count: 50_000) + "bumps.recall" + String(repeating: ")", count: 50_000)
        let long = refusal(spec().replacingOccurrences(of: "\"bumps.recall\"", with: "\"\(deep)\""))
        #expect(long?.contains("100012 characters: a metric is at most 1000") == true)
        // Named by its start, in one line (it printed all 100,012 characters).
        #expect((long?.count ?? .max) < 200, "\(long?.count ?? 0) characters")
        let nested = String(repeating: "(", count: 40) + "bumps.recall" + String(repeating: ")", count: 40)
        #expect(refusal(spec().replacingOccurrences(of: "\"bumps.recall\"", with: "\"\(nested)\""))?
            .contains("nested deeper than 32") == true)
        let arrays = "x = " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(refusal(spec(arrays))?.contains("nested 100 deep: at most 16") == true)
        // A string that holds brackets is not nesting.
        #expect(refusal(spec(tables: "[options]\nscenario = \"[[[[[[[[[[[[[[[[[[[[.json\"")) == nil)
        #expect(SweepSpec.nesting(of: "a = \"\"\"x\"[[[[\"\"\"\nb = '''[[['''\nc = '[[' # [[[") == 0)
        // Nor does a multi-line string that holds a quote hide what follows it.
        let hidden = "a = \"\"\"x\"y\"\"\"\nb = [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]\n"
        #expect(SweepSpec.nesting(of: hidden) == 20)
        #expect(SweepSpec.nesting(of: "a = \"\\\"[\"\nb = [[1]]") == 2)
        let seeds = "name = \"s\"\nmetrics = [\"bumps.recall\"]\nseeds = [" + (0...10_000).map(String.init)
            .joined(separator: ",") + "]"
        #expect(refusal(seeds)?.contains("`seeds`: 10001, at most 10000") == true)
        let values = spec(tables: "[grid]\npeers = [" + (2...1_002).map(String.init).joined(separator: ",") + "]")
        #expect(refusal(values)?.contains("1001 values, at most 1000") == true)
        // A file over 1 MiB is refused unread, however it would parse.
        let dir = NSTemporaryDirectory() + "sweep-input-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let big = spec("# " + String(repeating: "x", count: 2 << 20))
        try Data(big.utf8).write(to: URL(fileURLWithPath: dir + "/big.toml"))
        #expect(throws: SweepError.spec(dir + "/big.toml", "\(big.utf8.count) bytes: a spec is at most 1048576")) {
            _ = try SweepSpec(contentsOf: dir + "/big.toml")
        }
        #expect(throws: SweepError.spec(dir, "not a regular file")) { _ = try SweepSpec(contentsOf: dir) }
    }
}

/// The sweep's folder, its runs' output and its runs' lives, checked as the command line gives them.
@Suite(.serialized, .tags(.realTime)) struct SweepOutputTests {
    @Test func theFolderIsCheckedBeforeAnythingIsWritten() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(SweepFixture.spec().utf8).write(to: URL(fileURLWithPath: dir + "/small.toml"))
        // A folder holding something else: refused, and left as it was.
        try FileManager.default.createDirectory(atPath: dir + "/mine", withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: dir + "/mine/notes.txt"))
        let other = try SweepFixture.sim(["sweep", "plan", "small.toml", "--out", "mine"], in: dir)
        #expect(other.status != 0 && other.err.contains("is not empty and not a sweep's folder"), "\(other.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/mine") == ["notes.txt"])
        // Asked of the check itself: the command, were it to go wrong, would write into the system's folders.
        let small = try SweepSpec(toml: SweepFixture.spec())
        for system in ["/", "/etc", "/usr/share/nearcatch", "/tmp/../etc", "/home"] {
            do {
                try SweepFolder.checkPlace(system, for: small)
                Issue.record("\(system) was taken for a sweep's folder")
            } catch {
                #expect(error.description.contains("is a system folder"), "\(system): \(error)")
            }
        }
        // And by the command, at a name of its own under a system folder.
        let system = "/usr/share/nearcatch-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: system) }
        let said = try SweepFixture.sim(["sweep", "plan", "small.toml", "--out", system], in: dir)
        #expect(said.status != 0 && said.err.contains("is a system folder"), "\(said.err)")
        #expect(!FileManager.default.fileExists(atPath: system))
        // Another sweep's folder is refused; its own is planned again.
        let renamed = SweepFixture.spec().replacingOccurrences(of: "name = \"small\"", with: "name = \"other\"")
        try Data(renamed.utf8).write(to: URL(fileURLWithPath: dir + "/other.toml"))
        #expect(try SweepFixture.sim(["sweep", "plan", "other.toml", "--out", "shared"], in: dir).status == 0)
        let taken = try SweepFixture.sim(["sweep", "plan", "small.toml", "--out", "shared"], in: dir)
        #expect(taken.status != 0 && taken.err.contains("is the folder of the sweep `other`, not `small`"), "\(taken.err)")
        #expect(try SweepFixture.sim(["sweep", "plan", "other.toml", "--out", "shared"], in: dir).status == 0)
    }

    @Test func aRunThatPrintsTooMuchFailsAndTheSweepSaysSo() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 17 MiB of output: the sweep held all of it (a run printing 1.2 GB made it hold 1.26 GB).
        try SweepFixture.script(dir + "/loud", "head -c 17825792 /dev/zero | tr '\\000' 'a'")
        try Data(SweepFixture.spec(seeds: 1, retries: 0).utf8).write(to: URL(fileURLWithPath: dir + "/small.toml"))
        let run = try SweepFixture.sim(["sweep", "run", "small.toml", "--simulator", dir + "/loud"], in: dir)
        // Every run failed: the sweep exits 1 (it exited 0).
        #expect(run.status == 1, "\(run.err)")
        #expect(run.out.contains("0 runs done, 2 failed"))
        #expect(run.err.contains("printed more than the 16777216 bytes a summary may be (ended there)"))
    }

    /// A run that printed without end (here 20 MB a second on its standard error) filled the disk until its time
    /// limit; it is ended once past the bound.
    @Test func aRunThatPrintsWithoutEndIsEndedThere() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SweepFixture.script(dir + "/endless",
                                "exec 1>&2; while :; do head -c 1048576 /dev/zero; sleep 0.05; done")
        let spec = SweepFixture.spec(seeds: 1, retries: 0, extra: "time-limit = 60")
        try Data(spec.utf8).write(to: URL(fileURLWithPath: dir + "/small.toml"))
        let run = try SweepFixture.sim(["sweep", "run", "small.toml", "--simulator", dir + "/endless"], in: dir)
        #expect(run.status == 1, "\(run.err)")
        #expect(run.err.contains("printed more than the 16777216 bytes a summary may be (ended there)"), "\(run.err)")
        #expect(!run.err.contains("time limit"))
    }

    /// A sweep killed outright (SIGKILL: no handler runs) left its runs going; each run now ends with it.
    @Test func aKilledSweepLeavesNoRunGoing() throws {
        let dir = try SweepFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Two runs of a simulated day each, in memory: minutes of wall clock (over UDP they would meet the suite's
        // other UDP tests on the group).
        let spec = """
            name = "long"
            replicates = 2
            metrics = ["bumps.recall"]
            time-limit = 7200
            [options]
            peers = 20
            duration = 86400
            transport = "memory"
            """
        try Data(spec.utf8).write(to: URL(fileURLWithPath: dir + "/long.toml"))
        let driver = Process()
        driver.executableURL = URL(fileURLWithPath: try SweepFixture.simulator)
        driver.arguments = ["sweep", "run", "long.toml", "--jobs", "2"]
        driver.currentDirectoryURL = URL(fileURLWithPath: dir)
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        /// The processes whose parent is `parent`.
        func children(of parent: Int32) -> [Int32] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(Int32.init).filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return false }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 2 && Int32(fields[1]) == parent
            }
        }
        var runs: [Int32] = []
        let start = Date()
        while runs.count < 2, Date().timeIntervalSince(start) < 30 {
            Thread.sleep(forTimeInterval: 0.1)
            runs = children(of: driver.processIdentifier)
        }
        #expect(runs.count == 2)
        // Given a moment to have asked for their end (they ask as they start).
        Thread.sleep(forTimeInterval: 0.5)
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
        var alive = runs
        let killed = Date()
        while !alive.isEmpty, Date().timeIntervalSince(killed) < 10 {
            Thread.sleep(forTimeInterval: 0.1)
            alive = alive.filter { kill($0, 0) == 0 && !isZombie($0) }
        }
        for pid in alive { kill(pid, SIGKILL) }
        #expect(alive.isEmpty, "runs \(alive) outlived their sweep")
    }

    private func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }
}
