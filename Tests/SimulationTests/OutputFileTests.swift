import Foundation
@testable import Simulation
import TestSupport
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

    @Test func aLinkOrASpecialFileAtThePathIsRefusedBeforeTheRun() throws {
        let (folder, userFile) = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A link whose target is missing: a check by its target's name would pass, and the run fail at its end.
        let dangling = folder + "/dangling.jsonl"
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder + "/missing")
        #expect(throws: SimulationSettingsError(
            message: "--trace: \(dangling) is a link whose target does not exist; pass --force to replace the link")) {
            try OutputFile(path: dangling, flag: "--trace", replace: false).check()
        }
        // With --force the link is replaced, not followed: the file it names is not created.
        let writer = try TraceWriter(file: OutputFile(path: dangling, flag: "--trace", replace: true))
        writer.write(["{}"])
        try writer.finish()
        #expect(contents(dangling) == "{}\n")
        #expect(try FileManager.default.attributesOfItem(atPath: dangling)[.type] as? FileAttributeType == .typeRegular)
        #expect(!FileManager.default.fileExists(atPath: folder + "/missing"))
        // A link to the user's file: refused without --force, and the file untouched either way.
        let linked = folder + "/linked.jsonl"
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: userFile)
        #expect(throws: SimulationSettingsError(message: "--trace: \(linked) is a link; pass --force to replace the link")) {
            try OutputFile(path: linked, flag: "--trace", replace: false).check()
        }
        // A FIFO or a device is never replaced, whatever --force says (as root, a rename would replace /dev/null).
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        for replace in [false, true] {
            #expect(throws: SimulationSettingsError(message: "--trace: \(fifo) is a FIFO, not a file; name a file to write")) {
                try OutputFile(path: fifo, flag: "--trace", replace: replace).check()
            }
            #expect(throws: SimulationSettingsError(
                message: "--trace: /dev/null is a character device, not a file; name a file to write")) {
                try OutputFile(path: "/dev/null", flag: "--trace", replace: replace).check()
            }
        }
        #expect(contents(userFile) == "the user's notes")
        #expect(try leftovers(in: folder).isEmpty)
    }

    @Test func aFolderThatTakesNoFilesIsRefusedBeforeTheRun() throws {
        let readOnly = try ScratchFileSystem(bytes: 65_536, readOnly: true)
        defer { readOnly.remove() }
        // Root ignores a folder's permission bits; a read-only mount it does not.
        #expect(throws: SimulationSettingsError(
            message: "--trace: cannot create files in \(readOnly.folder): Read-only file system")) {
            try OutputFile(path: readOnly.folder + "/t.jsonl", flag: "--trace", replace: false).check()
        }
    }

    @Test func aFullDiskIsSaidInOneLineNamingThePathAndLeavesNothing() throws {
        let small = try ScratchFileSystem(bytes: 65_536)
        defer { small.remove() }
        let path = small.folder + "/t.jsonl"
        let writer = try TraceWriter(file: OutputFile(path: path, flag: "--trace", replace: false))
        #expect(PartialFiles.listed.contains(writer.file.temporaryPath))
        writer.write(Array(repeating: String(repeating: "x", count: 1000), count: 200))
        #expect(throws: SimulationSettingsError(message: "--trace: cannot write \(path): No space left on device")) {
            try writer.finish()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.folder).isEmpty)
        #expect(!PartialFiles.listed.contains(writer.file.temporaryPath))
        // A whole-file write (the report's) says the same.
        #expect(throws: SimulationSettingsError(message: "--report: cannot write \(small.folder)/r.html: No space left on device")) {
            try OutputFile(path: small.folder + "/r.html", flag: "--report", replace: false).write(Data(count: 200_000))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.folder).isEmpty)
    }

    @Test func aSecondInterruptRemovesWhatIsStillPartialAndNothingElse() throws {
        let (folder, userFile) = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let open = try TraceWriter(file: OutputFile(path: folder + "/open.jsonl", flag: "--trace", replace: false))
        open.write(["{}"])
        let done = try TraceWriter(file: OutputFile(path: folder + "/done.jsonl", flag: "--trace", replace: false))
        done.write(["{}"])
        try done.finish()
        #expect(try leftovers(in: folder).count == 1)
        // Other tests hold partial files of their own at this moment: only this folder's are picked.
        #expect(PartialFiles.removeAll { $0.hasPrefix(folder + "/") } == 1)
        #expect(try leftovers(in: folder).isEmpty)
        #expect(contents(folder + "/done.jsonl") == "{}\n")
        #expect(contents(userFile) == "the user's notes")
        open.abandon()
    }
}
