import Discovery
import Sessions
import Synchronization

/// One event of a run, as the log keeps it.
package struct ClusterEvent: Sendable, Equatable {
    package let time: Double
    /// The index of the node that reported it.
    package let node: Int
    package let event: NodeEvent
}

/// Watches a run from every node's context at once: each node's count of running sessions, when the whole group
/// converged, and (when asked) the ordered log of events.
package final class ClusterMonitor: Sendable {
    private struct State {
        var established: [Int]
        var convergedNodes = Set<Int>()
        var convergedAt: Double?
        var log: [ClusterEvent] = []
        var digest = EventDigest()
        var eventCount = 0
        var lost: [SessionRemovalReason: Int] = [:]
    }

    private let state: Mutex<State>
    private let observers = Mutex<[@Sendable (ClusterEvent) -> Void]>([])
    /// Running sessions a node must hold to count as converged.
    package let sessionsPerNode: Int
    /// Whether events are kept in ``log``.
    package let recordsEvents: Bool

    package init(nodes: Int, sessionsPerNode: Int, recordsEvents: Bool) {
        self.sessionsPerNode = sessionsPerNode
        self.recordsEvents = recordsEvents
        state = Mutex(State(established: Array(repeating: 0, count: nodes)))
    }

    /// Adds a callback for every event, called in the reporting node's context right after it is recorded.
    package func observe(_ observer: @escaping @Sendable (ClusterEvent) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Records one event of node `index`, whose table now holds `established` running sessions.
    package func record(_ event: NodeEvent, node index: Int, established: Int, time: Double) {
        defer {
            let entry = ClusterEvent(time: time, node: index, event: event)
            for observer in observers.withLock({ $0 }) { observer(entry) }
        }
        state.withLock { s in
            s.eventCount += 1
            if case .lost(_, let reason) = event { s.lost[reason, default: 0] += 1 }
            if recordsEvents {
                s.log.append(ClusterEvent(time: time, node: index, event: event))
                s.digest.add(time: time, node: index, event: event)
            }
            s.established[index] = established
            if established == sessionsPerNode { s.convergedNodes.insert(index) } else { s.convergedNodes.remove(index) }
            if s.convergedAt == nil, s.convergedNodes.count == s.established.count { s.convergedAt = time }
        }
    }

    /// When every node first held a running session with every other; `nil` until then.
    package var convergedAt: Double? { state.withLock { $0.convergedAt } }

    /// Running sessions held, over all nodes.
    package var establishedSessions: Int { state.withLock { $0.established.reduce(0, +) } }

    /// Running sessions held by each node.
    package var establishedByNode: [Int] { state.withLock { $0.established } }

    /// Events seen.
    package var eventCount: Int { state.withLock { $0.eventCount } }

    /// Peers lost by the nodes (`lost` events), by reason, every reason listed.
    package var lostPeers: [String: Int] {
        let lost = state.withLock { $0.lost }
        return Dictionary(uniqueKeysWithValues: [SessionRemovalReason.peerEnded, .timeout].map { ($0.rawValue, lost[$0] ?? 0) })
    }

    /// The events, in the order they were recorded (empty unless recording).
    package var log: [ClusterEvent] { state.withLock { $0.log } }

    /// An FNV-1a digest of the log (each event's time, node, kind and fields), to compare runs at a glance.
    package var logDigest: String { state.withLock { $0.digest.hex } }
}

/// FNV-1a over the fields of each event, folded in as events are recorded: a digest of the whole log without
/// formatting a line per event.
struct EventDigest {
    private var hash: UInt64 = 0xCBF2_9CE4_8422_2325

    private mutating func word(_ value: UInt64) {
        var v = value
        for _ in 0..<8 {
            hash = (hash ^ (v & 0xFF)) &* 0x0000_0100_0000_01B3
            v >>= 8
        }
    }

    private mutating func bytes(_ values: some Sequence<UInt8>) {
        for byte in values { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }

    mutating func add(time: Double, node: Int, event: NodeEvent) {
        word(time.bitPattern)
        word(UInt64(node))
        switch event {
        case .found(let ad):
            word(1)
            word(ad.peer.rawValue)
            word(ad.incarnation)
            word(UInt64(ad.unicastPort))
            bytes(ad.displayName.utf8)
        case .lost(let peer, let reason):
            word(2)
            word(peer.rawValue)
            bytes(reason.rawValue.utf8)
        case .session(let peer, let session):
            word(3)
            word(peer.rawValue)
            switch session {
            case .began(let token):
                word(1)
                word(token.high)
                word(token.low)
            case .didUpdate(let u):
                word(2)
                word(UInt64(u.distance?.bitPattern ?? 0))
                for i in 0..<3 { word(UInt64(u.direction?[i].bitPattern ?? 0)) }
                word(UInt64(u.horizontalAngle?.bitPattern ?? 0))
                bytes(u.verticalEstimate.rawValue.utf8)
                word(u.timestamp.bitPattern)
            case .didRemove(let reason):
                word(3)
                bytes(reason.rawValue.utf8)
            case .suspended: word(4)
            case .suspensionEnded: word(5)
            case .invalidated(let error):
                word(6)
                word(UInt64(error.code.rawValue))
            }
        case .data(let peer, let kind, let payload):
            word(4)
            word(peer.rawValue)
            word(UInt64(kind))
            bytes(payload)
        case .invited(let peer):
            word(5)
            word(peer.rawValue)
        }
    }

    var hex: String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
