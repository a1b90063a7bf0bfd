import Foundation

/// A small file system of its own (tmpfs) mounted on a fresh folder, for tests of what a full disk or a read-only
/// folder does to a command: the disk fills at `bytes`, and nothing else on the machine is touched. Mounting needs
/// root, as the test machines run; the folder is unmounted and removed by ``remove()``.
package struct ScratchFileSystem {
    package let folder: String

    /// Mounts a tmpfs of `bytes` (read-only when asked) on a new folder under the temporary directory.
    ///
    /// - Throws: ``ScratchFileSystemError`` with mount's own words when the mount fails (not root, say).
    package init(bytes: Int, readOnly: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nearcatch-fs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let options = (readOnly ? "ro," : "") + "size=\(bytes)"
        let (status, said) = Self.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", folder])
        guard status == 0 else {
            try? FileManager.default.removeItem(atPath: folder)
            throw ScratchFileSystemError(message: "mount -t tmpfs -o \(options) failed (the test needs root): \(said)")
        }
    }

    /// Unmounts the file system and removes its folder.
    package func remove() {
        _ = Self.run("/bin/umount", [folder])
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return (-1, "\(error)")
        }
        let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, said.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

package struct ScratchFileSystemError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
