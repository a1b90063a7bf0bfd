import Foundation

/// A file a command writes for its user: checked before anything runs, written beside its target under a temporary
/// name, and published in one step only when the work succeeds. It never removes anything it did not create: an
/// existing folder at the path is refused, an existing file is replaced only when asked.
public struct OutputFile: Sendable {
    /// The target path, as given.
    public let path: String
    /// The option that named it (`--trace`), for messages.
    public let flag: String
    /// Whether an existing file at `path` may be replaced.
    public let replace: Bool

    public init(path: String, flag: String, replace: Bool) {
        self.path = path
        self.flag = flag
        self.replace = replace
    }

    /// Checks that the file can be written where asked.
    ///
    /// - Throws: ``SimulationSettingsError`` naming the option and the path: an empty path, a folder at the path, a
    ///   missing folder for it, or a file there already without `replace`.
    public func check() throws(SimulationSettingsError) {
        guard !path.isEmpty else { throw SimulationSettingsError(message: "\(flag): the path is empty") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else {
                throw SimulationSettingsError(message: "\(flag): \(path) is a folder; name a file to write")
            }
            guard replace else {
                throw SimulationSettingsError(message: "\(flag): \(path) exists; pass --force to replace it")
            }
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SimulationSettingsError(message: "\(flag): the folder \(folder) does not exist")
        }
    }

    /// The temporary file's name: beside the target, so that publishing it is a rename within one file system.
    var temporaryPath: String { path + ".partial-\(ProcessInfo.processInfo.processIdentifier)" }

    /// Creates the temporary file, refusing to open one that exists (it would be someone else's).
    ///
    /// - Returns: a handle open for writing.
    func createTemporary() throws(SimulationSettingsError) -> FileHandle {
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SimulationSettingsError(message: "\(flag): cannot create \(temporaryPath): \(Self.reason(errno))")
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Moves the finished temporary file to the target in one step. With `replace`, a file there is replaced
    /// (rename(2), which refuses to put a file in a folder's place); without it, a file that appeared there since
    /// the check stays, and this fails (link(2) refuses an existing name).
    func publish() throws(SimulationSettingsError) {
        if replace {
            guard rename(temporaryPath, path) == 0 else {
                throw SimulationSettingsError(message: "\(flag): cannot move the file to \(path): \(Self.reason(errno))")
            }
        } else {
            if link(temporaryPath, path) == 0 {
                unlink(temporaryPath)
                return
            }
            let code = errno
            // A file system without hard links: check, then rename (a file could slip in between, not a folder).
            if code == EPERM || code == EOPNOTSUPP, access(path, F_OK) != 0, rename(temporaryPath, path) == 0 { return }
            let reason = code == EEXIST || access(path, F_OK) == 0
                ? "it exists now; pass --force to replace it" : Self.reason(code)
            throw SimulationSettingsError(message: "\(flag): cannot write \(path): \(reason)")
        }
    }

    /// Writes `data` as the whole file: into the temporary file, then published in one step; on any failure the
    /// temporary file is removed and the target left as it was.
    public func write(_ data: Data) throws(SimulationSettingsError) {
        let handle = try createTemporary()
        do {
            try handle.write(contentsOf: data)
            try handle.close()
        } catch {
            discardTemporary()
            throw SimulationSettingsError(message: "\(flag): cannot write \(temporaryPath): \(error.localizedDescription)")
        }
        do {
            try publish()
        } catch {
            discardTemporary()
            throw error
        }
    }

    /// Deletes the temporary file, and nothing else.
    func discardTemporary() {
        unlink(temporaryPath)
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
