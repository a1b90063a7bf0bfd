import ArgumentParser
import Dispatch
import Foundation
import Synchronization

/// SIGINT (Ctrl-C) and SIGTERM, caught for as long as a run lasts: the first cancels the run's task, which then ends
/// early and cleanly (the nodes say goodbye, the summary of the time run is printed, no partial file stays); a
/// second ends the process at once, as the signal would have.
///
/// A small dispatch signal source rather than swift-service-lifecycle: a command runs one task, so a service group,
/// its logger and its graceful-shutdown sequencing would wrap a single cancellation.
final class InterruptSignals: @unchecked Sendable {
    private static let caught: [Int32] = [SIGINT, SIGTERM]
    // Touched only by `init` and `stop`, on the command's own thread; hence unchecked.
    private var sources: [DispatchSourceSignal] = []
    private let first = FirstSignal()

    /// Starts catching; `cancel` runs once, on a dispatch thread, at the first signal.
    init(cancel: @escaping @Sendable () -> Void) {
        // A process inherits its parent's blocked signals (a test runner's thread, a supervisor): blocked, a signal
        // would wait forever and the run would go on to its end. This thread takes them, whatever the others do.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in Self.caught { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for number in Self.caught {
            // Ignored first, so that the default action (ending the process) does not run before the source sees it.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [first] in
                let isFirst = first.value.withLock { seen in
                    guard seen == nil else { return false }
                    seen = number
                    return true
                }
                if isFirst {
                    cancel()
                } else {
                    signal(number, SIG_DFL)
                    kill(getpid(), number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal caught, if any.
    var received: Int32? { first.value.withLock { $0 } }

    /// Stops catching: the signals' default actions apply again.
    func stop() {
        for source in sources { source.cancel() }
        sources = []
        for number in Self.caught { signal(number, SIG_DFL) }
    }

    /// Runs `work` in a task that the first signal cancels.
    ///
    /// - Returns: what `work` returned, and the signal that cut it short, if one did.
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> (T, Int32?) {
        let task = Task { try await work() }
        let signals = InterruptSignals { task.cancel() }
        defer { signals.stop() }
        let value = try await task.value
        return (value, signals.received)
    }

    /// Ends the command as the signal it caught asks, after its output: a line on standard error saying when, and
    /// the shell's status for a signal (128 plus its number). Nothing when no signal came.
    static func exit(after signal: Int32?, at seconds: Double, clock: String) throws {
        guard let signal else { return }
        let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
        FileHandle.standardError.write(Data(
            "interrupted by \(name) at \(String(format: "%.1f", seconds)) \(clock) seconds; the nodes said goodbye\n".utf8))
        throw ExitCode(128 + signal)
    }
}

/// The first signal caught, shared with the signal sources' handlers.
private final class FirstSignal: Sendable {
    let value = Mutex<Int32?>(nil)
}
