import Foundation
import Geometry
import Sessions
@testable import Simulation
import Testing

/// The trace writer and recorder on hand-made events: what is written, in which order, and what is held back.
@Suite struct TraceRecorderTests {
    private func recorder(interval: Double = 5) throws -> (TraceRecorder, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl").path
        let writer = try TraceWriter(file: OutputFile(path: path, flag: "--trace", replace: false))
        return (TraceRecorder(writer: writer, peers: 4, updateInterval: interval, horizon: 1.5), path)
    }

    private func update(_ t: Double, _ device: Int, _ peer: Int, distance: Float = 1) -> RunEvent {
        let u = NearbyUpdate(distance: distance, direction: nil, horizontalAngle: nil, verticalEstimate: .unknown,
                             timestamp: t)
        let reading = RunEvent.Reading(rawDistance: Double(distance), rawHorizontalAngle: nil, trueDistance: 1,
                                       trueDirection: Vector3(0, 0, -1), initiator: device < peer)
        return RunEvent(time: t, kind: .session(device: device, peer: peer, event: .didUpdate(u), reading: reading))
    }

    private func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Events that arrive out of order within the horizon (a contact found a round late) come out in time order;
    /// nothing is written before the horizon has passed, and everything by the end.
    @Test func linesComeOutInTimeOrder() throws {
        let (recorder, path) = try recorder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        recorder.record(RunEvent(time: 2.0, kind: .found(device: 0, peer: 1)))
        recorder.record(RunEvent(time: 1.95, kind: .contactStarted(device: 2, peer: 3)))
        recorder.record(RunEvent(time: 2.0, kind: .found(device: 1, peer: 0)))
        recorder.advance(to: 3)
        #expect(recorder.lineCount == 0)
        recorder.record(RunEvent(time: 3.4, kind: .lost(device: 0, peer: 1, reason: .timeout)))
        recorder.advance(to: 3.6)
        #expect(recorder.lineCount == 3)
        try recorder.finish()
        let written = try lines(path)
        #expect(written.map { $0["t"] as? Double } == [1.95, 2.0, 2.0, 3.4])
        #expect(written.map { $0["type"] as? String } == ["contactStart", "found", "found", "lost"])
        // Ties keep the order they were produced in.
        #expect(written[1]["device"] as? Int == 0 && written[2]["device"] as? Int == 1)
        #expect(written[3]["reason"] as? String == "timeout")
    }

    /// With one update a session every 5 s, the updates of a pair in the second before its bump are written when
    /// the bump fires, and those of other pairs, or older, are not.
    @Test func aBumpBringsBackItsPairsUpdates() throws {
        let (recorder, path) = try recorder(interval: 5)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for k in 1...30 {
            let t = Double(k) / 10
            recorder.record(update(t, 0, 1))
            recorder.record(update(t, 1, 0))
            recorder.record(update(t, 2, 3))
            if k == 30 { recorder.record(RunEvent(time: t, kind: .bump(device: 1, peer: 0, estimate: 0.07, trueDistance: 0.05))) }
            recorder.advance(to: t)
        }
        try recorder.finish()
        let written = try lines(path)
        let updates = written.filter { $0["type"] as? String == "update" }
        func count(_ d: Int, _ p: Int, from: Double, to: Double) -> Int {
            updates.filter {
                $0["device"] as? Int == d && $0["peer"] as? Int == p
                    && ($0["t"] as? Double ?? -1) >= from - 1e-9 && ($0["t"] as? Double ?? -1) <= to + 1e-9
            }.count
        }
        // The first update of each session (0.1 s), then the bump's pair for the 11 rounds from 2.0 to 3.0 s.
        #expect(count(0, 1, from: 0, to: 0.15) == 1 && count(1, 0, from: 0, to: 0.15) == 1)
        #expect(count(0, 1, from: 2.0, to: 3.0) == 11 && count(1, 0, from: 2.0, to: 3.0) == 11)
        #expect(count(0, 1, from: 0.15, to: 1.95) == 0)
        #expect(count(2, 3, from: 0, to: 3) == 1)
        #expect(written.last?["type"] as? String == "bump")
        let times = written.compactMap { $0["t"] as? Double }
        #expect(times == times.sorted())
    }

    /// An abandoned trace leaves nothing behind: neither the target nor the temporary file.
    @Test func anAbandonedTraceLeavesNothing() throws {
        let (recorder, path) = try recorder()
        recorder.record(RunEvent(time: 0.5, kind: .found(device: 0, peer: 1)))
        recorder.advance(to: 10)
        #expect(recorder.lineCount == 1)
        recorder.abandon()
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: path).lastPathComponent
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(name) }.isEmpty)
    }

    /// Strings are escaped: a JSON line stays one valid object whatever the text.
    @Test func stringsAreEscaped() throws {
        var line = JSONLine(time: 1, type: "run\"\n\\")
        line.string("name", "a \"quoted\"\tname\u{1}")
        line.number("none", nil as Double?, digits: 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.line.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "run\"\n\\")
        #expect(object["name"] as? String == "a \"quoted\"\tname\u{1}")
        #expect(object["none"] is NSNull)
        #expect(!line.line.contains("\n"))
    }
}
