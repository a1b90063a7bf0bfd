import DiscoveryRun
import Foundation
@testable import NearcatchCommand
import Simulation
import Synchronization
import Testing
import TestSupport

/// Ctrl-C and SIGTERM end a run cleanly: the summary of the time run is printed, the exit code says which signal,
/// no partial file stays, and the nodes say goodbye (peers in another process see `peerEnded`, not a timeout).
@Suite(.tags(.realTime)) struct InterruptTests {
    private var executable: URL {
        get throws {
            let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("nearcatch-sim")
        }
    }

    private func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = try executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        // Kept for a failure's message: what the process said on its way out.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("sig-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        return (process, pipe)
    }

    /// What a process wrote on standard error, for a failure's message; its file is removed.
    private func errors(of process: Process) -> String {
        guard let handle = process.standardError as? FileHandle,
              let path = try? FileManager.default.destinationOfSymbolicLink(
                  atPath: "/proc/self/fd/\(handle.fileDescriptor)") else { return "" }
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? handle.close()
        }
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Waits until the process catches `signal` (its bit in /proc's SigCgt), for at most 60 s, and fails the test
    /// if it never does: a signal sent before the run's handler is in place would be lost (the run ignores it while
    /// the handler is being installed), and on a loaded machine a process may take more than the few seconds a fixed
    /// sleep gives it.
    private func waitUntilCatching(_ process: Process, _ signal: Int32) async throws {
        for _ in 0..<1_200 {
            if catches(String(process.processIdentifier), signal) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("process \(process.processIdentifier) did not catch signal \(signal) within 60 s")
    }

    /// Whether the process has a handler for `signal`: its bit in /proc's SigCgt.
    private func catches(_ process: String, _ signal: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// The handlers are in place when catching starts, not some time later: a signal sent at once is caught and
    /// cancels the run, and the default actions are back when catching stops.
    @Test func theHandlersAreInPlaceWhenCatchingStarts() async throws {
        let cancelled = Mutex(0)
        let signals = InterruptSignals(cancel: { cancelled.withLock { $0 += 1 } }, lastWords: { "" })
        let inPlace = [SIGINT, SIGTERM].map { catches("self", $0) }
        // This thread was unblocked for them by the catching; the handler runs before pthread_kill returns.
        pthread_kill(pthread_self(), SIGINT)
        for _ in 0..<200 where cancelled.withLock({ $0 }) == 0 {
            try await Task.sleep(for: .milliseconds(50))
        }
        let first = signals.received
        signals.stop()
        #expect(inPlace == [true, true])
        #expect(cancelled.withLock { $0 } == 1)
        #expect(first == SIGINT)
        #expect(!catches("self", SIGINT) && !catches("self", SIGTERM))
    }

    private func finish(_ started: (Process, Pipe)) -> (status: Int32, output: Data, errors: String) {
        let data = started.1.fileHandleForReading.readDataToEndOfFile()
        started.0.waitUntilExit()
        let how = started.0.terminationReason == .exit ? "exit" : "signal"
        return (started.0.terminationStatus, data, "\(how) \(started.0.terminationStatus): \(errors(of: started.0))")
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalEndsARunWithItsSummaryAndNoPartialTrace(signal: Int32, status: Int32) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sig-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let trace = folder + "/t.jsonl"
        let started = Date()
        // An hour, which no run reaches before its signal: a test runner whose threads are all busy (plain `swift test`
        // runs every suite at once) may resume this test many seconds late.
        let run = try start(["--peers", "10", "--transport", "memory", "--clock", "real", "--duration", "3600",
                             "--ranging-policy", "ideal",
                             "--trace", trace, "--format", "json"])
        try await waitUntilCatching(run.0, signal)
        try await Task.sleep(for: .seconds(3))
        kill(run.0.processIdentifier, signal)
        let signalled = Date().timeIntervalSince(started)
        let (exit, output, errors) = finish(run)
        #expect(run.0.terminationReason == .exit)
        #expect(exit == status, "\(errors)")
        let summary = try JSONDecoder().decode(SimulationSummary.self, from: output)
        let reached = try #require(summary.run.interruptedAt)
        // Paced in real time: it stopped when signalled (3 s after its handler was in place; on a loaded machine
        // the process may take several seconds to start), well before its hour.
        #expect(reached >= 1 && reached <= signalled + 1, "reached \(reached), signalled at \(signalled)")
        #expect(summary.run[RunSettings.duration] == 3600)
        #expect(summary.discovery.sessions == 90)
        #expect(summary.ranging.updatesDelivered > 1_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// A second Ctrl-C 10 to 50 ms after the first (as an impatient user gives it) still gets the summary of the
    /// time run and leaves no partial file, in memory and over UDP (whose goodbyes take longest).
    @Test(arguments: [("memory", 10), ("memory", 50), ("udp", 10), ("udp", 50)])
    func aSecondSignalStillGivesTheSummaryAndLeavesNoPartialFile(transport: String, gap: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sig2-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let group = transport == "udp" ? ["--group", "239.255.94.\(4 + gap % 7):\(47_944 + gap)"] : []
        let run = try start(["--peers", "20", "--transport", transport, "--clock", "real", "--duration", "3600",
                             "--trace", folder + "/t.jsonl", "--report", folder + "/r.html", "--format", "json"] + group)
        try await waitUntilCatching(run.0, SIGINT)
        try await Task.sleep(for: .seconds(3))
        kill(run.0.processIdentifier, SIGINT)
        try await Task.sleep(for: .milliseconds(gap))
        kill(run.0.processIdentifier, SIGINT)
        let (exit, output, errors) = finish(run)
        #expect(run.0.terminationReason == .exit)
        #expect(exit == 130, "\(errors)")
        let summary = try JSONDecoder().decode(SimulationSummary.self, from: output)
        #expect(summary.run.interruptedAt != nil)
        #expect(summary.discovery.sessions == 380)
        #expect(summary.traceLines == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/nearcatch-report-\(run.0.processIdentifier).jsonl"))
    }

    @Test func peersInAnotherProcessSeeTheGoodbyes() async throws {
        // Neither group ends on its own: a test runner whose threads are all busy may resume this test many seconds
        // late, and a group that had ended by then would have ignored the signal or missed the goodbyes.
        let group = ["--group", "239.255.94.3:47943", "--expect-peers", "6", "--duration", "300", "--linger", "300",
                     "--format", "json"]
        let staying = try start(["discover", "--peers", "3"] + group)
        let leaving = try start(["discover", "--peers", "3"] + group)
        // Both converge in about 1.5 s; the leaving one is then lingering, and a Ctrl-C ends it.
        try await Task.sleep(for: .seconds(5))
        try await waitUntilCatching(leaving.0, SIGINT)
        leaving.0.interrupt()
        let left = finish(leaving)
        // The goodbyes are on their way over loopback; then the staying group is stopped too, to read its report.
        try await Task.sleep(for: .seconds(3))
        try await waitUntilCatching(staying.0, SIGINT)
        staying.0.interrupt()
        let stayed = finish(staying)
        #expect(leaving.0.terminationReason == .exit && left.status == 130, "leaving: \(left.errors)")
        #expect(staying.0.terminationReason == .exit && stayed.status == 130, "staying: \(stayed.errors)")
        let leftReport = try JSONDecoder().decode(ClusterReport.self, from: left.output)
        #expect(leftReport.converged)
        #expect(leftReport.interruptedAt != nil)
        let stayedReport = try JSONDecoder().decode(ClusterReport.self, from: stayed.output)
        #expect(stayedReport.converged)
        // Each of the 3 staying nodes lost the 3 leaving ones, by their goodbyes, none by silence.
        #expect(stayedReport.lostPeers == ["peerEnded": 9, "timeout": 0])
    }
}

/// Issue 49: a signal that came while a finished run wrote its files was said as "interrupted at 0.0 simulated
/// seconds", though the run had ended and everything was written.
@Suite struct InterruptFarewellTests {
    @Test func aSignalAfterTheRunIsNotSaidAsAnInterruption() {
        #expect(InterruptSignals.farewell(SIGINT, at: nil, clock: "simulated")
                == "SIGINT came after the run had finished: its output was written whole")
        #expect(InterruptSignals.farewell(SIGTERM, at: 12.34, clock: "simulated")
                == "interrupted by SIGTERM at 12.3 simulated seconds; the nodes said goodbye")
    }
}
