import Foundation
@testable import Simulation
import Testing

/// Nothing a user owns is lost: a trace never replaces a folder, replaces a file only when told to, and a run that
/// does not publish it leaves nothing behind.
@Suite struct OutputFileTests {
    /// A fresh folder with a file of the user's in it.
    private func folder() throws -> (folder: String, userFile: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nearcatch-out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let userFile = folder + "/notes.txt"
        try Data("the user's notes".utf8).write(to: URL(fileURLWithPath: userFile))
        return (folder, userFile)
    }

    private func contents(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
    }

    private func leftovers(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".partial-") }.sorted()
    }

    @Test func aFolderAtThePathIsRefusedByNameAndKept() throws {
        let (folder, userFile) = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for replace in [false, true] {
            #expect(throws: SimulationSettingsError(message: "--trace: \(folder) is a folder; name a file to write")) {
                try TraceWriter(file: OutputFile(path: folder, flag: "--trace", replace: replace))
            }
        }
        #expect(contents(userFile) == "the user's notes")
        #expect(try leftovers(in: folder).isEmpty)
    }

    @Test func anExistingFileIsReplacedOnlyWhenAsked() throws {
        let (folder, userFile) = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: SimulationSettingsError(message: "--trace: \(userFile) exists; pass --force to replace it")) {
            try TraceWriter(file: OutputFile(path: userFile, flag: "--trace", replace: false))
        }
        #expect(contents(userFile) == "the user's notes")

        let writer = try TraceWriter(file: OutputFile(path: userFile, flag: "--trace", replace: true))
        writer.write(["{\"a\":1}", "{\"b\":2}"])
        // Until published, the user's file is untouched.
        #expect(contents(userFile) == "the user's notes")
        try writer.finish()
        #expect(contents(userFile) == "{\"a\":1}\n{\"b\":2}\n")
        #expect(try leftovers(in: folder).isEmpty)
    }

    @Test func whatAppearsAtThePathDuringARunIsKept() throws {
        let (folder, _) = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A folder made there while the run went on: not replaced, whatever --force says.
        for replace in [false, true] {
            let path = folder + "/trace-\(replace).jsonl"
            let writer = try TraceWriter(file: OutputFile(path: path, flag: "--trace", replace: replace))
            writer.write(["{}"])
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try Data("inside".utf8).write(to: URL(fileURLWithPath: path + "/inside.txt"))
            #expect(throws: SimulationSettingsError.self) { try writer.finish() }
            #expect(contents(path + "/inside.txt") == "inside")
        }
        // A file made there meanwhile, without --force: kept, and the run says so.
        let path = folder + "/late.jsonl"
        let writer = try TraceWriter(file: OutputFile(path: path, flag: "--trace", replace: false))
        writer.write(["{}"])
        try Data("late".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: SimulationSettingsError(
            message: "--trace: cannot write \(path): it exists now; pass --force to replace it")) { try writer.finish() }
        #expect(contents(path) == "late")
        #expect(try leftovers(in: folder).isEmpty)
    }

    @Test func anAbandonedTraceLeavesNothing() throws {
        let (folder, _) = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/t.jsonl"
        let writer = try TraceWriter(file: OutputFile(path: path, flag: "--trace", replace: false))
        writer.write(Array(repeating: String(repeating: "x", count: 1000), count: 2000))
        #expect(try leftovers(in: folder).count == 1)
        writer.abandon()
        #expect(try leftovers(in: folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aMissingFolderOrAnEmptyPathIsNamed() {
        #expect(throws: SimulationSettingsError(message: "--trace: the folder /nonexistent/dir does not exist")) {
            try OutputFile(path: "/nonexistent/dir/t.jsonl", flag: "--trace", replace: false).check()
        }
        #expect(throws: SimulationSettingsError(message: "--trace: the path is empty")) {
            try OutputFile(path: "", flag: "--trace", replace: true).check()
        }
    }
}
