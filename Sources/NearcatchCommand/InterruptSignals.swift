import ArgumentParser
import Foundation
import Simulation
import Synchronization

/// SIGINT (Ctrl-C) and SIGTERM, caught for as long as a run lasts. The first cancels the run's task, which then ends
/// early and cleanly (the nodes say goodbye, the summary of the time run is printed, no partial file stays). A second
/// asks for the end at once: the partial files are removed then and there, the run's own ending (its summary) is given
/// ``rescueWait`` seconds to come out, and if it has not, what the run has (its latest progress) is printed and the
/// process ends as the signal asks. A third ends it without waiting.
///
/// The handlers are installed by `sigaction` before `init` returns, and what they catch is acted on by a thread of
/// its own (``SignalRelay``), which no busy thread pool delays. Dispatch signal sources were used before: the signal
/// was ignored until a dispatch thread installed the source's handler, and its event handler ran on the global
/// queue's threads; under `swift test` with both cores busy, two `discover` children went 60 s without a handler
/// and ran through a Ctrl-C to their end. swift-service-lifecycle would wrap a single cancellation in a service
/// group, a logger and a shutdown sequence.
final class InterruptSignals: Sendable {
    private static let caught: [Int32] = [SIGINT, SIGTERM]
    /// How long the summary is waited for after a second signal, seconds: an interrupted run's ending (goodbyes,
    /// scoring) takes tens of milliseconds, and a user who pressed Ctrl-C twice waits no longer than this.
    static let rescueWait = 2.0
    private let state = SignalState()

    /// Starts catching: `cancel` runs once, on the relay's thread, at the first signal; `lastWords` gives the line
    /// printed when a second signal ends the process before the run's own output is out.
    init(cancel: @escaping @Sendable () -> Void, lastWords: @escaping @Sendable () -> String) {
        // A process inherits its parent's blocked signals (a test runner's thread, a supervisor): blocked, a signal
        // would wait forever and the run would go on to its end. This thread takes them, whatever the others do.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in Self.caught { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        let state = self.state
        SignalRelay.listen { number in
            let count = state.value.withLock { s in
                if s.first == nil { s.first = number }
                s.count += 1
                return s.count
            }
            switch count {
            case 1:
                cancel()
            case 2:
                PartialFiles.removeAll()
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: Self.rescueWait)
                    Self.end(number, state: state, lastWords: lastWords)
                }
            default:
                Self.end(number, state: state, lastWords: lastWords)
            }
        }
        for number in Self.caught { SignalRelay.catchSignal(number) }
    }

    /// Ends the process as `number` asks, unless the run's output is already out (it is then about to exit): the
    /// partial files removed, and what the run has on standard output.
    private static func end(_ number: Int32, state: SignalState, lastWords: @Sendable () -> String) {
        let finished = state.value.withLock { s in
            defer { s.ending = true }
            return s.finished || s.ending
        }
        guard !finished else { return }
        PartialFiles.removeAll()
        let name = Self.name(number)
        FileHandle.standardOutput.write(Data((lastWords() + "\n").utf8))
        FileHandle.standardError.write(Data("interrupted again by \(name): ended at once; no summary, no trace\n".utf8))
        signal(number, SIG_DFL)
        kill(getpid(), number)
    }

    /// The first signal caught, if any.
    var received: Int32? { state.value.withLock { $0.first } }

    /// Whether a second signal came: the caller then skips what can wait (a report) and ends.
    private var hurried: Bool { state.value.withLock { $0.count >= 2 } }

    /// Says the run's own output is out: a pending rescue then leaves the process to end by itself.
    private func finished() { state.value.withLock { $0.finished = true } }

    /// Stops catching: the signals' default actions apply again.
    func stop() {
        for number in Self.caught { signal(number, SIG_DFL) }
        SignalRelay.listen(nil)
    }

    /// Runs `work` in a task that the first signal cancels, then `output` with what it returned, the signals still
    /// caught (a second one meanwhile is rescued as above).
    ///
    /// - Parameters:
    ///   - lastWords: what the run has, printed when a second signal ends the process before `output` is done.
    ///   - output: prints what `work` returned; told whether a second signal came (what can wait is then skipped).
    /// - Returns: the signal that cut `work` short, if one did.
    static func run<T: Sendable>(
        lastWords: @escaping @Sendable () -> String = { "" },
        _ work: @escaping @Sendable () async throws -> T,
        then output: (T, _ hurried: Bool) throws -> Void
    ) async throws -> Int32? {
        let task = Task { try await work() }
        let signals = InterruptSignals(cancel: { task.cancel() }, lastWords: lastWords)
        defer {
            signals.finished()
            // A run a signal ended exits with the signal's status as soon as its output is out: the handlers stay
            // till then, and a second signal meanwhile finds the output out and does nothing. Given back to the
            // default action here, a second Ctrl-C 10 ms after the first (a run whose ending took less) ended the
            // process by that action, its summary still in the output buffer.
            if signals.received == nil { signals.stop() }
        }
        let value = try await task.value
        let signal = signals.received
        try output(value, signals.hurried)
        return signal
    }

    static func name(_ signal: Int32) -> String {
        signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
    }

    /// Ends the command as the signal it caught asks, after its output: a line on standard error saying when, and
    /// the shell's status for a signal (128 plus its number). Nothing when no signal came.
    ///
    /// - Parameter seconds: when the signal ended the run, on its clock; `nil` when it came after the run had
    ///   finished (while its files were being written): then everything was written, and that is what is said.
    static func exit(after signal: Int32?, at seconds: Double?, clock: String) throws {
        guard let signal else { return }
        FileHandle.standardError.write(Data((farewell(signal, at: seconds, clock: clock) + "\n").utf8))
        throw ExitCode(128 + signal)
    }

    /// What ``exit(after:at:clock:)`` says of `signal`.
    static func farewell(_ signal: Int32, at seconds: Double?, clock: String) -> String {
        guard let seconds else {
            return "\(name(signal)) came after the run had finished: its output was written whole"
        }
        return "interrupted by \(name(signal)) at \(String(format: "%.1f", seconds)) \(clock) seconds; the nodes said "
            + "goodbye"
    }
}

/// What the signal handlers share: the first signal, how many came, and whether the run's output is out.
private final class SignalState: Sendable {
    struct Value {
        var first: Int32?
        var count = 0
        var finished = false
        var ending = false
    }
    let value = Mutex(Value())
}

/// The one way from a signal handler to Swift in this process: the handler writes the signal's number to a pipe
/// (`write` is async-signal-safe; nothing else is), and a thread of the relay's own reads it and calls the listener of
/// the moment. The thread does not end: it costs a blocked `read`, and a run that starts after another's end (tests
/// do) finds it ready.
private enum SignalRelay {
    private static let listener = Mutex<(@Sendable (Int32) -> Void)?>(nil)
    private static let reader: Int32 = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("no pipe for the signal relay: errno \(errno)") }
        // Children the run starts (a sweep's workers) do not inherit it.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        relayDescriptor = ends[1]
        let readEnd = ends[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let got = read(readEnd, &byte, 1)
                if got == 1, let call = listener.withLock({ $0 }) { call(Int32(byte)) }
                if got < 0 && errno != EINTR { return }
            }
        }
        return readEnd
    }()

    /// Who is told of the signals caught from now on; nil drops them.
    static func listen(_ call: (@Sendable (Int32) -> Void)?) {
        _ = reader
        listener.withLock { $0 = call }
    }

    /// Catches `number` by the relay, at once: its previous action (ignored, the default) no longer applies when
    /// this returns.
    static func catchSignal(_ number: Int32) {
        _ = reader
        var action = sigaction()
        action.__sigaction_handler.sa_handler = relaySignal
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(number, &action, nil)
    }
}

/// The write end of the relay's pipe, set once before any handler is installed.
nonisolated(unsafe) private var relayDescriptor: Int32 = -1

/// The handler itself: async-signal-safe, it only writes a byte and keeps `errno` as it found it.
private func relaySignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(relayDescriptor, &byte, 1)
    errno = saved
}

/// The latest progress line of a run, kept for a second signal to print.
final class LatestLine: Sendable {
    private let value: Mutex<String>

    init(_ initial: String) { value = Mutex(initial) }

    var line: String {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
