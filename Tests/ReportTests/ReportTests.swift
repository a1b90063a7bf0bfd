import Foundation
import Report
import Simulation
import Testing

@Suite struct ReportTests {
    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("nearcatch-\(UUID().uuidString)-\(name)").path
    }

    /// A 30-peer mingle of 20 s traced, and its report: every bump and near miss of the summary is in it, with the
    /// pair's updates before each bump; one frame per pose sample; the latency histogram holds the detected touches;
    /// the page carries the data inline and nothing from the network.
    @Test func aRunsReportHoldsWhatItsSummarySays() async throws {
        let path = Self.temporaryPath("run.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var s = SimulationSettings()
        s.transport = .memory
        s.clock = .virtual
        s.peers = 30
        s.duration = 20
        s.tracePath = path
        let summary = try await Simulation(settings: s).run()
        let data = try ReportData.read(trace: path)
        #expect(data.peers == 30)
        #expect(data.bumps.count == summary.bumps.fired && summary.bumps.fired > 5)
        #expect(data.nearMisses.count == summary.bumps.nearMisses)
        // Poses every 0.5 s from 0 to 20 s.
        #expect(data.frames.count == 41)
        #expect(data.latency.total == summary.bumps.detected + summary.bumps.unscoredBumps)
        #expect(data.summary?["bumps"] != nil)
        // The trace keeps every update of a pair in the second before its bump.
        for (k, bump) in data.bumps.enumerated() {
            #expect(data.series[k].contains { $0.time <= bump.time && $0.time >= bump.time - 1 }, "bump \(k)")
        }
        let html = ReportPage.html(data)
        #expect(!html.contains("http://") || !html.contains("<script src") )
        #expect(!html.contains("<script src") && !html.contains("<link "))
        #expect(html.components(separatedBy: "</script>").count == 4)
        #expect(html.utf8.count < 1_000_000)
        let room = try #require(ReportPictures.all(data).first { $0.name == "room.svg" }).svg
        // A circle per bump, per near miss and per device.
        #expect(room.components(separatedBy: "<circle").count - 1 == data.bumps.count + data.nearMisses.count + 30)
    }

    /// A name in the run (a scenario file's) cannot close the script element that carries the data.
    @Test func theDataCannotEndItsScriptElement() throws {
        let trace = #"""
            {"peerIDs":["0000000000000001","0000000000000002"],"run":{"peers":2,"scenario":"</script><b>x","seed":1},"t":0,"type":"run"}
            {"device":0,"heading":0,"pitch":0,"t":0,"type":"pose","x":1,"y":1,"z":1.2}
            {"device":1,"heading":180,"pitch":0,"t":0,"type":"pose","x":2,"y":1,"z":1.2}
            """#
        let data = try ReportData.parse(Data(trace.utf8), file: "t.jsonl")
        let html = ReportPage.html(data)
        #expect(html.components(separatedBy: "</script>").count == 4)
        #expect(html.contains("&lt;/script&gt;&lt;b&gt;x"))
        #expect(data.frames.count == 1 && data.frames[0].x == [100, 200])
    }

    @Test(arguments: [
        ("", "trace t.jsonl: is empty"),
        ("{\"t\":0,\"type\":\"found\",\"device\":0,\"peer\":1}\n", "trace t.jsonl line 1: is not a run header: not a nearcatch-sim trace"),
        ("{\"t\":0,\"type\":\"run\",\"run\":{},\"peerIDs\":[]}\nnot json\n", "trace t.jsonl line 2: is not a trace line (a JSON object with t and type)"),
        ("[1,2]\n", "trace t.jsonl line 1: is not a trace line (a JSON object with t and type)"),
    ])
    func aBadTraceIsNamedWithItsLine(_ text: String, _ message: String) {
        #expect(throws: ReportError.self) { try ReportData.parse(Data(text.utf8), file: "t.jsonl") }
        do {
            _ = try ReportData.parse(Data(text.utf8), file: "t.jsonl")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aMissingTraceIsNamed() {
        do {
            _ = try ReportData.read(trace: "/nonexistent/run.jsonl")
            Issue.record("read a missing file")
        } catch {
            #expect(error.description == "trace /nonexistent/run.jsonl: does not exist")
        }
    }
}
