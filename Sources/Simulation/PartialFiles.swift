import Foundation
import Synchronization

/// The temporary files this process has open and not yet published or discarded: what a second interrupt removes
/// before the process ends at once (``OutputFile``), so that no `.partial-PID` file outlives it.
package enum PartialFiles {
    private static let paths = Mutex<Set<String>>([])

    static func add(_ path: String) { _ = paths.withLock { $0.insert(path) } }

    static func remove(_ path: String) { _ = paths.withLock { $0.remove(path) } }

    /// Deletes every temporary file still listed (those `which` picks), and nothing else.
    ///
    /// - Returns: how many were deleted.
    @discardableResult
    package static func removeAll(_ which: (String) -> Bool = { _ in true }) -> Int {
        let picked = paths.withLock { listed in
            let picked = listed.filter(which)
            listed.subtract(picked)
            return picked
        }
        return picked.reduce(0) { $0 + (unlink($1) == 0 ? 1 : 0) }
    }

    /// The paths listed now.
    package static var listed: Set<String> { paths.withLock { $0 } }
}
