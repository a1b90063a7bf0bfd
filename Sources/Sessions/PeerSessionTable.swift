import Synchronization

/// A device's session table, safe to use from many tasks at once: the pure ``PeerSessionTableState`` behind a
/// mutex. Each call is one atomic step; in debug builds every change is followed by an invariant check.
public final class PeerSessionTable: Sendable {
    private let state: Mutex<PeerSessionTableState>

    /// An empty table holding at most `capacity` sessions.
    public init(capacity: Int) {
        state = Mutex(PeerSessionTableState(capacity: capacity))
    }

    /// A consistent copy of the whole table at one instant.
    public var snapshot: PeerSessionTableState {
        state.withLock { $0 }
    }

    /// See ``PeerSessionTableState/open(peer:incarnation:remoteToken:time:makeToken:)``.
    public func open(
        peer: PeerID, incarnation: Incarnation, remoteToken: DiscoveryToken?, time: Double,
        makeToken: () -> DiscoveryToken
    ) throws(SessionError) -> PeerSessionTableState.OpenOutcome {
        try state.withLock { (table) throws(SessionError) -> PeerSessionTableState.OpenOutcome in
            let outcome = try table.open(
                peer: peer, incarnation: incarnation, remoteToken: remoteToken, time: time, makeToken: makeToken)
            Self.check(table)
            return outcome
        }
    }

    /// See ``PeerSessionTableState/remove(peer:)``.
    @discardableResult
    public func remove(peer: PeerID) -> SessionEntry? {
        state.withLock { table in
            let removed = table.remove(peer: peer)
            Self.check(table)
            return removed
        }
    }

    /// The session with `peer`.
    public func session(with peer: PeerID) -> SessionEntry? {
        state.withLock { $0.session(with: peer) }
    }

    /// The peer whose token this is.
    public func peer(forRemoteToken token: DiscoveryToken) -> PeerID? {
        state.withLock { $0.peer(forRemoteToken: token) }
    }

    /// Whether `token` is `peer`'s token for its current session.
    public func matches(peer: PeerID, remoteToken token: DiscoveryToken) -> Bool {
        state.withLock { $0.matches(peer: peer, remoteToken: token) }
    }

    /// The number of sessions.
    public var count: Int { state.withLock { $0.count } }

    @inline(__always)
    private static func check(_ table: PeerSessionTableState) {
        assert(table.invariantViolations().isEmpty, "session table: \(table.invariantViolations())")
    }
}
