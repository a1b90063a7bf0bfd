import Foundation

/// A file a command writes for its user: checked before anything runs, written beside its target under a temporary
/// name, and published in one step only when the work succeeds. It never removes anything it did not create: an
/// existing folder at the path is refused, an existing file is replaced only when asked.
package struct OutputFile: Sendable {
    /// The target path, as given.
    package let path: String
    /// The option that named it (`--trace`), for messages.
    package let flag: String
    /// Whether an existing file at `path` may be replaced.
    package let replace: Bool

    package init(path: String, flag: String, replace: Bool) {
        self.path = path
        self.flag = flag
        self.replace = replace
    }

    /// Checks that the file can be written where asked, so that a run never fails at its end for a path that was
    /// wrong at its start.
    ///
    /// - Throws: ``SimulationSettingsError`` naming the option and the path: an empty path, a folder or a special
    ///   file (a device, a FIFO, a socket) at the path, a link or a file there already without `replace` (a link
    ///   whose target is missing included), a missing folder for it, or a folder in which no file can be created
    ///   (read-only, or not the user's).
    package func check() throws(SimulationSettingsError) {
        guard !path.isEmpty else { throw SimulationSettingsError(message: "\(flag): the path is empty") }
        var info = stat()
        if lstat(path, &info) == 0 {
            let kind = Self.kind(info.st_mode)
            if kind == "a link" {
                var target = stat()
                if stat(path, &target) == 0, Self.kind(target.st_mode) == "a folder" {
                    throw SimulationSettingsError(message: "\(flag): \(path) is a link to a folder; name a file to write")
                }
                guard replace else {
                    let dangling = stat(path, &target) != 0 ? " whose target does not exist" : ""
                    throw SimulationSettingsError(
                        message: "\(flag): \(path) is a link\(dangling); pass --force to replace the link")
                }
            } else if kind == "a folder" {
                throw SimulationSettingsError(message: "\(flag): \(path) is a folder; name a file to write")
            } else if kind != "a file" {
                throw SimulationSettingsError(message: "\(flag): \(path) is \(kind), not a file; name a file to write")
            } else if !replace {
                throw SimulationSettingsError(message: "\(flag): \(path) exists; pass --force to replace it")
            }
        }
        try Self.checkFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path, flag: flag)
    }

    /// Checks that `folder` exists and that a file can be created in it, by creating one and removing it: the
    /// permission bits alone do not say (root ignores them; a read-only mount does not).
    ///
    /// - Throws: ``SimulationSettingsError`` naming the option, the folder and the cause.
    package static func checkFolder(_ folder: String, flag: String) throws(SimulationSettingsError) {
        var info = stat()
        guard stat(folder, &info) == 0 else {
            throw SimulationSettingsError(message: "\(flag): the folder \(folder) does not exist")
        }
        guard kind(info.st_mode) == "a folder" else {
            throw SimulationSettingsError(message: "\(flag): \(folder) is not a folder")
        }
        // Unique to the check, not only to the process: two runs of one process (a test suite's) may check one
        // folder at once, and the second would find the first's probe.
        let probe = (folder as NSString).appendingPathComponent(
            ".nearcatch-probe-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SimulationSettingsError(message: "\(flag): cannot create files in \(folder): \(reason(errno))")
        }
        close(fd)
        unlink(probe)
    }

    /// What a file's mode says it is, in words.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a file"
        case S_IFDIR: "a folder"
        case S_IFLNK: "a link"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    /// The temporary file's name: beside the target, so that publishing it is a rename within one file system.
    var temporaryPath: String { path + ".partial-\(ProcessInfo.processInfo.processIdentifier)" }

    /// Creates the temporary file, refusing to open one that exists (it would be someone else's).
    ///
    /// - Returns: a file descriptor open for writing, the caller's to close.
    func createTemporary() throws(SimulationSettingsError) -> Int32 {
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SimulationSettingsError(message: "\(flag): cannot create \(temporaryPath): \(Self.reason(errno))")
        }
        PartialFiles.add(temporaryPath)
        return fd
    }

    /// Checks that what stands at the path now, if anything, is a file or a link, which is all `replace` replaces:
    /// it may not be what ``check()`` saw.
    package func checkReplaceable() throws(SimulationSettingsError) {
        var info = stat()
        if lstat(path, &info) == 0, !["a file", "a link"].contains(Self.kind(info.st_mode)) {
            throw SimulationSettingsError(
                message: "\(flag): cannot write \(path): it is \(Self.kind(info.st_mode)) now, not a file")
        }
    }

    /// Moves the finished temporary file to the target in one step. With `replace`, a file there is replaced
    /// (rename(2), which refuses to put a file in a folder's place); without it, a file that appeared there since
    /// the check stays, and this fails (link(2) refuses an existing name).
    package func publish() throws(SimulationSettingsError) {
        if replace {
            try checkReplaceable()
            guard rename(temporaryPath, path) == 0 else {
                throw SimulationSettingsError(message: "\(flag): cannot write \(path): \(Self.reason(errno))")
            }
            PartialFiles.remove(temporaryPath)
        } else {
            if link(temporaryPath, path) == 0 {
                discardTemporary()
                return
            }
            let code = errno
            // A file system without hard links: check, then rename (a file could slip in between, not a folder).
            if code == EPERM || code == EOPNOTSUPP, access(path, F_OK) != 0, rename(temporaryPath, path) == 0 {
                PartialFiles.remove(temporaryPath)
                return
            }
            let reason = code == EEXIST || access(path, F_OK) == 0
                ? "it exists now; pass --force to replace it" : Self.reason(code)
            throw SimulationSettingsError(message: "\(flag): cannot write \(path): \(reason)")
        }
    }

    /// Writes `data` as the whole file: into the temporary file, then published in one step; on any failure the
    /// temporary file is removed and the target left as it was.
    package func write(_ data: Data) throws(SimulationSettingsError) {
        try stage(data)
        do {
            try publish()
        } catch {
            discardTemporary()
            throw error
        }
    }

    /// Writes `data` into the temporary file and leaves it there, for files published together: every one staged
    /// first (a full disk fails here, before any is published), then each published (``publish()``), or every
    /// staged one discarded (``discardTemporary()``). On failure the temporary file is removed.
    package func stage(_ data: Data) throws(SimulationSettingsError) {
        let fd = try createTemporary()
        let failure = data.withUnsafeBytes { Self.writeAll(fd, $0) }
        let closed = close(fd) == 0 ? nil : errno
        if let code = failure ?? closed {
            discardTemporary()
            throw SimulationSettingsError(message: "\(flag): cannot write \(path): \(Self.reason(code))")
        }
    }

    /// Writes all of `bytes` to `fd`, going on after short writes and interruptions.
    ///
    /// - Returns: `nil`, or the errno of the write that failed (`ENOSPC` for a full disk).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }

    /// Deletes the temporary file, and nothing else.
    package func discardTemporary() {
        unlink(temporaryPath)
        PartialFiles.remove(temporaryPath)
    }

    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
