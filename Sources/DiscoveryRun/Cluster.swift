import Foundation
import Sessions

/// A group of discovery nodes a run drives: in memory on a virtual clock (``InMemoryCluster``), or over UDP in real
/// time (`UDPCluster`, in the `UDPRun` module, so that a memory run links no networking library). The simulation
/// and `discover` pace both with ``ClusterPacer``.
///
/// Used from one task at a time; the nodes' events reach ``monitor``'s observers in the nodes' own contexts.
package protocol Cluster: AnyObject {
    var monitor: ClusterMonitor { get }
    /// The peer id of each node, by index.
    var peerIDs: [PeerID] { get }
    /// Whether the cluster's clock is virtual (it runs as fast as the machine goes), not the wall clock.
    var isVirtual: Bool { get }
    /// Seconds on the cluster's clock since the run's origin.
    var now: Double { get }
    /// Starts the nodes, spread over `settings.startSpread` seconds: observers added to ``monitor`` before see
    /// every event. (In memory the starts are scheduled on the virtual clock from 0 when the cluster is made, and
    /// nothing runs before ``advance(to:stop:)``: this does nothing there.)
    func start()
    /// Runs `action(k / rate)` for k = 0, 1, 2 ... while k / rate is at most `end`, on the cluster's clock: in memory in
    /// order with the nodes' own actions (ties in the order scheduled), over UDP from ``advance(to:stop:)``.
    func repeatAt(rate: Double, until end: Double, _ action: @escaping (Double) -> Void)
    /// Runs the nodes until `time` on the cluster's clock, or until `stop` says so (asked after every action in
    /// memory, at every wake-up over UDP); returns the time reached.
    func advance(to time: Double, stop: @escaping () -> Bool) async -> Double
    /// Sends application data (a profile after a bump) from node `from` to node `to`, in the sender's context.
    func send(from: Int, to: Int, kind: UInt8, payload: [UInt8])
    /// Ends the run and reports it: over UDP the nodes say goodbye and their sockets close; in memory the nodes
    /// say goodbye only when the run was interrupted (a signal stops the devices as their users would), otherwise
    /// the virtual world just ends where it is.
    ///
    /// - Parameter interruptedAt: when a signal ended the run early, on the cluster's clock.
    func finish(wallSeconds: Double, interruptedAt: Double?) async -> ClusterReport
}

/// The one loop that paces a run: advances a cluster step by step, reports progress after each step, holds a
/// virtual clock back to the wall clock when asked, and stops at the end, when `done` says so, or when the task is
/// cancelled (a signal, for the command line).
package enum ClusterPacer {
    package struct Outcome: Sendable, Equatable {
        /// The time reached on the cluster's clock.
        package var reached: Double
        /// Whether the task was cancelled before the end.
        package var interrupted: Bool
    }

    /// Runs `cluster` from its current time until `end`.
    ///
    /// - Parameters:
    ///   - step: seconds of the cluster's clock between progress reports.
    ///   - realTime: pace a virtual cluster to the wall clock (a real one always is).
    ///   - done: asked after every action: `true` ends the run there (convergence, for `discover`).
    ///   - progress: told the time reached after each step.
    package static func run(
        _ cluster: any Cluster, until end: Double, step: Double, realTime: Bool = false,
        done: @escaping () -> Bool = { false }, progress: (Double) -> Void = { _ in }
    ) async -> Outcome {
        let wallStart = ContinuousClock.now
        let origin = cluster.now
        var reached = origin
        var interrupted = false
        while reached < end, !done() {
            if Task.isCancelled {
                interrupted = true
                break
            }
            reached = await cluster.advance(to: min(reached + step, end)) { done() || Task.isCancelled }
            interrupted = Task.isCancelled
            progress(reached)
            if interrupted { break }
            if realTime, cluster.isVirtual {
                let elapsed = ContinuousClock.now - wallStart
                let ahead = (reached - origin) - Double(elapsed.components.seconds)
                    - Double(elapsed.components.attoseconds) / 1e18
                do {
                    if ahead > 0 { try await Task.sleep(for: .seconds(ahead)) }
                } catch {
                    interrupted = true
                    break
                }
            }
        }
        return Outcome(reached: reached, interrupted: interrupted)
    }
}

extension ClusterPacer {
    /// A discovery run: until the group converges or `duration` passes on the cluster's clock, then `linger` seconds
    /// more (so that peers in other processes converge too), then the end of the run and its report. The report's
    /// sessions and time are those when the wait ended, before lingering.
    ///
    /// - Parameters:
    ///   - started: when the run began on the wall clock (before the cluster was built).
    ///   - progress: told the time reached every `step` seconds of the cluster's clock.
    package static func discover(
        _ cluster: any Cluster, duration: Double, linger: Double = 0, step: Double, started: Date,
        progress: (Double) -> Void = { _ in }
    ) async -> ClusterReport {
        let monitor = cluster.monitor
        let wait = await run(cluster, until: duration, step: step, done: { monitor.convergedAt != nil },
                             progress: progress)
        // Counted when the wait ends, before lingering: meanwhile other processes may stop and take their peers.
        let sessions = monitor.establishedSessions
        var interruptedAt = wait.interrupted ? wait.reached : nil
        if linger > 0, interruptedAt == nil {
            let after = await run(cluster, until: wait.reached + linger, step: step)
            if after.interrupted { interruptedAt = after.reached }
        }
        var report = await cluster.finish(wallSeconds: 0, interruptedAt: interruptedAt)
        report.sessions = sessions
        report.simulatedSeconds = wait.reached
        report.wallSeconds = Date().timeIntervalSince(started)
        return report
    }
}
