import Foundation
@testable import NearcatchCommand
import Report
import Testing

/// A report's files are published together or not at all, whatever appears at their paths after the check.
@Suite struct ReportFilesTests {
    private static let trace = #"""
        {"peerIDs":["0000000000000001","0000000000000002"],"run":{"peers":2,"scenario":"mingle","seed":1},"t":0,"type":"run"}
        {"device":0,"heading":0,"pitch":0,"t":0,"type":"pose","x":1,"y":1,"z":1.2}
        {"device":1,"heading":180,"pitch":0,"t":0,"type":"pose","x":2,"y":1,"z":1.2}
        """#

    private func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    /// Review of issue 49: a file that appeared at the third picture's path after the check left the HTML page and
    /// two pictures published.
    @Test func aFileThatAppearsAfterTheCheckLeavesNoneOfTheOthers() throws {
        let data = try ReportData.parse(Data(Self.trace.utf8), file: "t.jsonl")
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let pictures = root + "/pictures"
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: false)
        let files = ReportFiles(html: root + "/r.html", svg: pictures, force: false)
        try files.check()
        let intruder = pictures + "/" + ReportFiles.pictureNames[2]
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: intruder))
        var said: String?
        do {
            _ = try files.write(data)
        } catch {
            said = error.message
        }
        #expect(said == "--svg: cannot write \(intruder): it exists now; pass --force to replace it")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["pictures"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: pictures) == [ReportFiles.pictureNames[2]])
        #expect(try String(contentsOfFile: intruder, encoding: .utf8) == "someone else's")
    }

    /// With --force nothing can be taken back once replaced: a folder that appeared at the last picture's path is
    /// found before the first file is replaced.
    @Test func withForceAFolderInTheWayIsFoundBeforeAnythingIsReplaced() throws {
        let data = try ReportData.parse(Data(Self.trace.utf8), file: "t.jsonl")
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let html = root + "/r.html"
        try Data("the old page".utf8).write(to: URL(fileURLWithPath: html))
        let files = ReportFiles(html: html, svg: root, force: true)
        try files.check()
        let blocked = root + "/" + ReportFiles.pictureNames[3]
        try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: false)
        var said: String?
        do {
            _ = try files.write(data)
        } catch {
            said = error.message
        }
        #expect(said == "--svg: cannot write \(blocked): it is a folder now, not a file")
        #expect(try String(contentsOfFile: html, encoding: .utf8) == "the old page")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted()
                == [ReportFiles.pictureNames[3], "r.html"])
    }
}
