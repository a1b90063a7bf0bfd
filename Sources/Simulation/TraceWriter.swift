import Foundation
import Synchronization

/// Writes the JSON Lines trace to a temporary file beside the target and publishes it only when the run succeeds
/// (``OutputFile``), so that a failed or interrupted run leaves no half-written trace and nothing of the user's is
/// removed.
package final class TraceWriter: Sendable {
    package let file: OutputFile
    package var path: String { file.path }
    private let state: Mutex<State>

    private struct State {
        var fd: Int32?
        var buffer: [UInt8] = []
        var lines = 0
        /// The errno of the first write that failed (the disk full, say): the rest are not tried.
        var failure: Int32?
    }

    /// Checks the target and creates the temporary file.
    ///
    /// - Throws: ``SimulationSettingsError`` naming the option and the path when the file cannot be written there.
    package init(file: OutputFile) throws(SimulationSettingsError) {
        try file.check()
        self.file = file
        state = Mutex(State(fd: try file.createTemporary()))
    }

    /// Appends lines (each without its newline).
    package func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        state.withLock { s in
            for line in lines {
                s.buffer += line.utf8
                s.buffer.append(0x0A)
            }
            s.lines += lines.count
            if s.buffer.count >= 1 << 20 { Self.flush(&s) }
        }
    }

    /// Lines written so far.
    package var lineCount: Int { state.withLock { $0.lines } }

    private static func flush(_ s: inout State) {
        guard let fd = s.fd, !s.buffer.isEmpty else { return }
        if s.failure == nil { s.failure = s.buffer.withUnsafeBytes { OutputFile.writeAll(fd, $0) } }
        s.buffer.removeAll(keepingCapacity: true)
    }

    private static func close(_ s: inout State) {
        guard let fd = s.fd else { return }
        s.fd = nil
        if Foundation.close(fd) != 0, s.failure == nil { s.failure = errno }
    }

    /// Flushes, closes and publishes the file.
    ///
    /// - Throws: ``SimulationSettingsError`` naming the option when writing or publishing failed; the temporary file
    ///   is gone then, and the target untouched.
    package func finish() throws(SimulationSettingsError) {
        let failure: Int32? = state.withLock { s in
            Self.flush(&s)
            Self.close(&s)
            return s.failure
        }
        if let failure {
            abandon()
            throw SimulationSettingsError(message: "\(file.flag): cannot write \(path): \(OutputFile.reason(failure))")
        }
        do {
            try file.publish()
        } catch {
            abandon()
            throw error
        }
    }

    /// Deletes the temporary file.
    package func abandon() {
        state.withLock { Self.close(&$0) }
        file.discardTemporary()
    }
}
