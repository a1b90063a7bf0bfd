import Foundation
import Geometry
import Sessions
import Synchronization

/// The JSON Lines trace as a consumer of the run's events (docs/simulation.md, docs/trace.schema.json): one line per
/// event, every line with `t` and `type`, devices named `device` and `peer`, lines in time order.
///
/// Lines wait in a buffer for `horizon` seconds of run time before they are written, sorted by time: a contact is
/// found up to a round after it began, and the updates of a pair in the ``bumpWindow`` before its bump, and in the
/// ``nearMissWindow`` around its near miss, are traced when the bump fires or the near miss is seen, whatever the
/// update interval. The updates left out by the interval are held ``lookBack`` for the purpose, and then dropped.
///
/// A trace of a crowd follows every `every`-th device (``SimulationSettings/traceDevices``): a followed device's own
/// lines, and the truth's lines of a pair with a followed device in it; the air's lines always. So its length grows
/// with the devices followed and the sessions each holds, not with the crowd.
final class TraceRecorder: Sendable {
    /// Seconds before a bump whose updates of the pair are always traced.
    static let bumpWindow = 1.0
    /// Seconds before and after a near miss's closest moment whose updates of the pair are always traced (for the
    /// report's view of the pair: docs/report.md).
    static let nearMissWindow = (before: 2.0, after: 1.0)
    /// How long left-out updates are held: a near miss is seen when the pair has moved apart again, a second or two
    /// after its closest moment.
    static let lookBack = 4.0

    private let writer: TraceWriter
    private let updateInterval: Double
    private let horizon: Double
    private let peers: Int
    private let every: Int
    private let state: Mutex<State>

    private struct Line {
        let time: Double
        let order: Int
        let text: String
    }

    private struct HeldUpdate {
        let event: RunEvent
        let order: Int
    }

    private struct State {
        var pending: [Line] = []
        var order = 0
        /// When each session (`device × peers + peer`) last had an update traced: only sessions that updated take
        /// room (a square of every pair was 800 MB at 10,000 devices).
        var lastTraced: [Int: Double] = [:]
        /// Updates left out by the interval, in time order, from `heldStart` on (older slots are spent).
        var held: [HeldUpdate?] = []
        var heldStart = 0
    }

    /// - Parameters:
    ///   - updateInterval: each session's updates go in at most once per this many seconds.
    ///   - horizon: seconds lines wait before they are written: the bump window and two rounds at least, and
    ///     ``lookBack`` for the updates around a near miss to come out in time order.
    ///   - every: the trace follows devices 0, `every`, 2 `every`, ...
    init(writer: TraceWriter, peers: Int, every: Int = 1, updateInterval: Double, horizon: Double) {
        self.writer = writer
        self.peers = peers
        self.every = max(every, 1)
        self.updateInterval = updateInterval
        self.horizon = max(horizon, Self.bumpWindow)
        state = Mutex(State())
    }

    /// Writes the first line at once: what the run is, every setting it used but the worker count (the trace is the
    /// same whatever it is), and the peer id of every index. Encoded, not assembled, so that a scenario name with a
    /// quote in it still gives valid JSON.
    func writeHeader(run info: SimulationSummary.Run, peerIDs ids: [PeerID]) {
        guard var run = Self.object(info) else { return }
        for key in SimulationSummary.Run.keysOutOfTheTrace { run[key] = nil }
        guard let line = Self.line(["t": 0, "type": "run", "run": run, "peerIDs": ids.map(\.description)]) else { return }
        writer.write([line])
    }

    /// Queues the last line: the summary but what does not belong to what was simulated (the wall clock, the memory,
    /// the worker count, the trace's own length), so that one seed still gives one trace.
    func writeSummary(_ summary: SimulationSummary, at time: Double) {
        guard var object = Self.object(summary) else { return }
        object["performance"] = nil
        object["traceLines"] = nil
        if var run = object["run"] as? [String: Any] {
            for key in SimulationSummary.Run.keysOutOfTheTrace { run[key] = nil }
            object["run"] = run
        }
        guard let line = Self.line(["t": (time * 1000).rounded() / 1000, "type": "summary", "summary": object])
        else { return }
        appendLast(line)
    }

    /// A value as a JSON object, to take fields out of before it becomes a line.
    private static func object(_ value: some Encodable) -> [String: Any]? {
        guard let encoded = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONSerialization.jsonObject(with: encoded) as? [String: Any]
    }

    /// A trace line of a whole object, keys sorted.
    private static func line(_ object: [String: Any]) -> String? {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private func follows(_ device: Int) -> Bool { device % every == 0 }

    /// Whether the event's line belongs to the trace: a device's own, when it is followed; the truth's of a pair,
    /// when either is.
    private func traces(_ event: RunEvent) -> Bool {
        guard every > 1 else { return true }
        switch event.kind {
        case .found(let device, _), .lost(let device, _, _), .session(let device, _, _, _), .bump(let device, _, _, _),
             .profile(let device, _, _), .haptic(let device, _, _), .pose(let device, _):
            return follows(device)
        case .contactStarted(let a, let b), .contactEnded(let a, let b, _), .nearMiss(let a, let b, _, _):
            return follows(a) || follows(b)
        case .air:
            return true
        }
    }

    func record(_ event: RunEvent) {
        let traced = traces(event)
        if !traced {
            // A bump the trace leaves out (its device is not followed) still brings in the followed peer's updates
            // before it, as the whole trace has them.
            guard case .bump = event.kind else { return }
        }
        state.withLock { s in
            s.order += 1
            switch event.kind {
            case .session(let device, let peer, .didUpdate, _):
                let key = device * peers + peer
                guard event.time - s.lastTraced[key, default: -.infinity] >= updateInterval - 1e-9 else {
                    s.held.append(HeldUpdate(event: event, order: s.order))
                    return
                }
                s.lastTraced[key] = event.time
            case .bump(let device, let peer, _, _):
                Self.release(pair: device, peer, from: event.time - Self.bumpWindow, to: event.time, &s)
            case .nearMiss(let device, let peer, _, _):
                Self.release(pair: device, peer, from: event.time - Self.nearMissWindow.before,
                             to: event.time + Self.nearMissWindow.after, &s)
            default:
                break
            }
            if traced, let line = Self.line(event) {
                s.pending.append(Line(time: event.time, order: s.order, text: line))
            }
        }
    }

    /// The held updates of the pair from `start` to `end` go into the trace.
    private static func release(pair a: Int, _ b: Int, from start: Double, to end: Double, _ s: inout State) {
        for k in s.heldStart..<s.held.count {
            guard let held = s.held[k], held.event.time >= start - 1e-9, held.event.time <= end + 1e-9 else { continue }
            guard case .session(let device, let peer, _, _) = held.event.kind,
                  (device == a && peer == b) || (device == b && peer == a),
                  let line = line(held.event)
            else { continue }
            s.pending.append(Line(time: held.event.time, order: held.order, text: line))
            s.held[k] = nil
        }
    }

    /// Writes the lines older than the horizon, now that the run has reached `time`.
    func advance(to time: Double) {
        let ready: [String] = state.withLock { s in
            let limit = time - horizon
            // A later bump or near miss looks back at most this far.
            while s.heldStart < s.held.count, (s.held[s.heldStart]?.event.time ?? -.infinity) < time - Self.lookBack - 1e-9 {
                s.heldStart += 1
            }
            if s.heldStart > 4096, s.heldStart * 2 > s.held.count {
                s.held.removeFirst(s.heldStart)
                s.heldStart = 0
            }
            return Self.take(&s.pending) { $0.time < limit }
        }
        writer.write(ready)
    }

    private static func take(_ pending: inout [Line], where ready: (Line) -> Bool) -> [String] {
        pending.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        let count = pending.firstIndex { !ready($0) } ?? pending.count
        let lines = pending[..<count].map(\.text)
        pending.removeFirst(count)
        return lines
    }

    /// Queues a line that comes after every other, whatever its time (the run's summary).
    private func appendLast(_ line: String) {
        state.withLock { s in
            s.order += 1
            s.pending.append(Line(time: .infinity, order: s.order, text: line))
        }
    }

    /// Writes what is left and publishes the file.
    func finish() throws(SimulationSettingsError) {
        let rest = state.withLock { s in Self.take(&s.pending) { _ in true } }
        writer.write(rest)
        try writer.finish()
    }

    func abandon() { writer.abandon() }

    var lineCount: Int { writer.lineCount }

    // MARK: - Lines

    static func line(_ event: RunEvent) -> String? {
        let t = event.time
        switch event.kind {
        case .found(let device, let peer):
            return pair(t, "found", device, peer).line
        case .lost(let device, let peer, let reason):
            var j = pair(t, "lost", device, peer)
            j.string("reason", reason.rawValue)
            return j.line
        case .session(let device, let peer, let change, let reading):
            if case .didUpdate(let u) = change { return update(t, device, peer, u, reading) }
            var j = pair(t, "session", device, peer)
            switch change {
            case .began: j.string("event", "began")
            case .suspended: j.string("event", "suspended")
            case .suspensionEnded: j.string("event", "resumed")
            case .didRemove(let reason):
                j.string("event", "removed")
                j.string("reason", reason.rawValue)
            case .invalidated(let error):
                j.string("event", "invalidated")
                j.string("error", "\(error.code)")
                j.int("code", error.code.rawValue)
            case .didUpdate: return nil
            }
            return j.line
        case .bump(let device, let peer, let estimate, let trueDistance):
            var j = pair(t, "bump", device, peer)
            j.number("estimate", estimate, digits: 4)
            j.number("trueDistance", trueDistance, digits: 4)
            return j.line
        case .contactStarted(let device, let peer):
            return pair(t, "contactStart", device, peer).line
        case .contactEnded(let device, let peer, let minimum):
            var j = pair(t, "contactEnd", device, peer)
            j.number("minimumDistance", minimum, digits: 4)
            return j.line
        case .nearMiss(let device, let peer, let minimum, let gap):
            var j = pair(t, "nearMiss", device, peer)
            j.number("minimumDistance", minimum, digits: 4)
            j.number("gap", gap, digits: 4)
            return j.line
        case .pose(let device, let pose):
            var j = JSONLine(time: t, type: "pose")
            j.int("device", device)
            let p = pose.position
            j.number("x", p.x, digits: 3)
            j.number("y", p.y, digits: 3)
            j.number("z", p.z, digits: 3)
            let b = pose.orientation.boresight
            j.number("heading", Angle.degrees(fromRadians: atan2(b.y, b.x)), digits: 1)
            j.number("pitch", Angle.degrees(fromRadians: asin(min(max(b.z, -1), 1))), digits: 1)
            return j.line
        case .profile(let device, let peer, let bytes):
            var j = pair(t, "profile", device, peer)
            j.int("bytes", bytes)
            return j.line
        case .haptic(let device, let peer, let intensity):
            var j = pair(t, "haptic", device, peer)
            j.number("intensity", intensity, digits: 3)
            return j.line
        case .air(let exchanges, let collided, let received):
            var j = JSONLine(time: t, type: "air")
            j.ints("exchanges", exchanges)
            j.ints("collided", collided)
            j.ints("receivedByBand", received)
            return j.line
        }
    }

    private static func pair(_ t: Double, _ type: String, _ device: Int, _ peer: Int) -> JSONLine {
        var j = JSONLine(time: t, type: type)
        j.int("device", device)
        j.int("peer", peer)
        return j
    }

    private static func update(
        _ t: Double, _ device: Int, _ peer: Int, _ u: NearbyUpdate, _ reading: RunEvent.Reading?
    ) -> String {
        var j = pair(t, "update", device, peer)
        j.number("distance", u.distance, digits: 4)
        j.vector("direction", u.direction, digits: 4)
        j.number("horizontalAngle", u.horizontalAngle, digits: 4)
        j.string("vertical", u.verticalEstimate.rawValue)
        if let r = reading {
            j.number("rawDistance", r.rawDistance, digits: 4)
            j.number("rawHorizontalAngle", r.rawHorizontalAngle, digits: 4)
            j.number("trueDistance", r.trueDistance, digits: 4)
            let d = r.trueDirection
            j.vector("trueDirection", d.x, d.y, d.z, digits: 4)
            j.number("trueHorizontalAngle", asin(min(max(d.x, -1), 1)), digits: 4)
            j.bool("initiator", r.initiator)
        }
        return j.line
    }
}

extension RunEvent {
    /// The event as a line of the trace (docs/simulation.md, "The trace"); `nil` for what the trace leaves out.
    package var traceLine: String? { TraceRecorder.line(self) }
}
