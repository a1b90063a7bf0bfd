import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Sweep
import Testing

/// The report's arithmetic and formats, on a folder of summaries written by hand.
@Suite struct SweepReportTests {
    /// Two policies × two channel counts × five seeds; every run's `ranging.exchanges` is given, `bumps.precision`
    /// only by some, and one point has a failed run and one not run yet.
    private func folder(metrics: String = #"["exchanges = ranging.exchanges", "bumps.precision"]"#) throws
        -> (SweepFolder, [PlannedRun]) {
        let text = """
            name = "made"
            replicates = 5
            metrics = \(metrics)
            [options]
            peers = 10
            [grid]
            ranging-policy = ["proximity", "round-robin"]
            channels = [1, 2]
            [plot]
            metric = "exchanges"
            x = "channels"
            lines = "ranging-policy"
            """
        let path = NSTemporaryDirectory() + "sweep-report-" + UUID().uuidString
        let (folder, runs) = try SweepFolder.plan(try SweepSpec(toml: text), text: text, version: "test", at: path)
        for (i, run) in runs.enumerated() {
            // The last point: its fifth seed failed, its fourth not run.
            if i == 19 {
                try folder.saveFailure(.init(id: run.id, attempts: 2, error: "exit status 1: boom"))
                continue
            }
            if i == 18 { continue }
            let exchanges = 100 * (i / 5 + 1) + Int(run.seed)
            let precision = run.seed <= 2 ? ", \"precision\": \(0.5 + 0.1 * Double(run.seed))" : ""
            try folder.saveResult(run.id, Data("{\"ranging\": {\"exchanges\": \(exchanges)}, \"bumps\": {\"recall\": 1\(precision)}}".utf8))
        }
        return (folder, runs)
    }

    /// A metric whose path no run's summary holds is never a silent column of "-": within three characters of a path
    /// they hold it is refused as a typo, naming that path; farther, the report says so beside its table.
    @Test func aPathNoRunHoldsIsRefusedOrSaid() throws {
        let (typo, _) = try folder(metrics: #"["recall = bumps.recal", "exchanges = ranging.exchanges"]"#)
        defer { try? FileManager.default.removeItem(atPath: typo.path) }
        #expect(throws: SweepError.spec(typo.specPath, "metric `recall`: no run's summary holds `bumps.recal`; "
                                        + "did you mean `bumps.recall`?")) { try SweepReport(folder: typo) }
        let (far, _) = try folder(metrics: #"["p95 = bumps.latencyP95", "exchanges = ranging.exchanges / 2"]"#)
        defer { try? FileManager.default.removeItem(atPath: far.path) }
        let report = try SweepReport(folder: far)
        #expect(report.notes == ["metric `p95`: no run's summary holds `bumps.latencyP95`: a figure no run gave, or a "
                                 + "path that is not in a summary (docs/simulation.md)"])
        #expect(report.rows[0].cells[0] == nil && report.rows[0].cells[1]?.mean == 51.5)
        #expect(Metric.editDistance("bumps.recal", "bumps.recall") == 1 && Metric.editDistance("", "abc") == 3)
    }

    @Test func eachPointGetsItsMeanDeviationAndInterval() throws {
        let (folder, _) = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let report = try SweepReport(folder: folder)
        #expect(report.rows.map { $0.point["channels"]! + "/" + $0.point["ranging-policy"]! }
            == ["1/proximity", "1/round-robin", "2/proximity", "2/round-robin"])
        // Seeds 1-5 add 1-5 to the point's hundreds: mean +3, sd sqrt(2.5), t(0.975, 4) = 2.7764.
        let first = try #require(report.rows[0].cells[0])
        #expect(first.count == 5 && first.mean == 103)
        #expect(abs(first.standardDeviation - 2.5.squareRoot()) < 1e-12)
        #expect(abs(try #require(first.halfWidth) - 2.776445 * 2.5.squareRoot() / 5.squareRoot()) < 1e-5)
        // The precision of seeds 1 and 2 only: 0.6 and 0.7; t(0.975, 1) = 12.7062.
        let precision = try #require(report.rows[0].cells[1])
        #expect(precision.count == 2 && abs(precision.mean - 0.65) < 1e-12)
        #expect(abs(try #require(precision.halfWidth) - 12.7062 * 0.05) < 1e-4)
        // The last point: three runs, one failed, one to run.
        let last = report.rows[3]
        #expect(last.done == 3 && last.failed == 1 && last.missing == 1 && report.missing == 1)
        #expect(try #require(last.cells[0]).mean == 402)

        let text = report.text()
        // 2.776 × 1.581 / 2.236 = 1.96, shown to the mean's precision.
        #expect(text.contains("103 ± 2 (n 5)"))
        #expect(text.contains("3, 1 failed, 1 to run"))
        let markdown = report.markdown().split(separator: "\n")
        #expect(markdown.count == 6)
        #expect(markdown[0] == "| channels | ranging-policy | runs | exchanges | bumps.precision |")
        #expect(markdown[2] == "| 1 | proximity | 5 | 103 ± 2 (n 5) | 0.650 ± 0.635 (n 2) |")
        let csv = report.csv().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(csv[0] == "channels,ranging-policy,metric,n,mean,sd,ci95_low,ci95_high,failed")
        #expect(csv.count == 1 + 4 * 2 + 1 && csv.last == "")
        #expect(csv[1].hasPrefix("1,proximity,exchanges,5,103.0,"))
        let fields: [String] = csv[8].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(fields[0...3]) == ["2", "round-robin", "bumps.precision", "2"])
        #expect(fields[8] == "1")
        let mean = try #require(Double(fields[4])), high = try #require(Double(fields[7]))
        #expect(abs(mean - 0.65) < 1e-12)
        #expect(abs(high - 1.28531) < 1e-4)
    }

    @Test func thePlotHasALinePerPolicyAndAnIntervalBarPerPoint() throws {
        let (folder, _) = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let svg = try #require(try SweepReport(folder: folder).svg())
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2)
        #expect(svg.components(separatedBy: "<circle").count - 1 == 4)
        #expect(svg.components(separatedBy: "<path d=\"M").count - 1 == 4)
        #expect(svg.contains(">ranging-policy=proximity</text>") && svg.contains(">ranging-policy=round-robin</text>"))
        #expect(try XMLDocument(xmlString: svg).rootElement()?.name == "svg")
    }
}
