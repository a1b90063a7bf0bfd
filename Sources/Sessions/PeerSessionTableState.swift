/// The bookkeeping of one device's sessions, as a pure value: exactly one session per remote peer, the reverse maps
/// from tokens to peers, replacement on a new incarnation, removal, and the cap on active sessions.
///
/// Every operation keeps these invariants, which ``invariantViolations()`` checks: each peer is held once; each
/// token maps to the one peer whose session holds it; no token is held by two sessions.
public struct PeerSessionTableState: Sendable {
    /// What ``open(peer:incarnation:remoteToken:time:makeToken:)`` did.
    public enum OpenOutcome: Sendable, Equatable {
        /// A new session; `running` says whether the peer's token was already known.
        case opened(SessionEntry)
        /// The pending session received the peer's token and now runs.
        case completed(SessionEntry)
        /// The peer came back as a new incarnation: the old session is gone, the new one stands in its place.
        case replaced(old: SessionEntry, new: SessionEntry)
        /// Nothing changed: the same peer, incarnation and token again (a retransmission).
        case unchanged(SessionEntry)
    }

    /// The most sessions this device holds at once.
    public let capacity: Int
    private var entries: [PeerID: SessionEntry] = [:]
    private var peersByRemoteToken: [DiscoveryToken: PeerID] = [:]
    private var peersByLocalToken: [DiscoveryToken: PeerID] = [:]

    /// An empty table holding at most `capacity` sessions.
    public init(capacity: Int) {
        self.capacity = max(capacity, 0)
    }

    /// Makes room for `count` sessions (at most the capacity) at once, instead of growing and rehashing the maps
    /// step by step as peers are found.
    public mutating func reserveCapacity(_ count: Int) {
        let room = min(max(count, 0), capacity)
        entries.reserveCapacity(room)
        peersByRemoteToken.reserveCapacity(room)
        peersByLocalToken.reserveCapacity(room)
    }

    /// The number of sessions, pending ones included.
    public var count: Int { entries.count }

    /// How many sessions have been removed so far. A session seen held when this had some value is held still while
    /// it has that value: a cache of ``hasSession(with:)`` that needs no lookup to stay true.
    public private(set) var removals: UInt64 = 0

    /// How many sessions have been added so far. A peer seen without a session when this had some value is without
    /// one still while it has that value: the cache of ``hasSession(with:)`` the other way round.
    public private(set) var insertions: UInt64 = 0

    /// The number of sessions whose two tokens are known (running or suspended).
    public var establishedCount: Int { peersByRemoteToken.count }

    /// The peers, in ascending order: iteration never follows hash order.
    public var peers: [PeerID] { entries.keys.sorted() }
    /// The peers held, in no order: for a scan that needs none.
    public var unorderedPeers: Dictionary<PeerID, SessionEntry>.Keys { entries.keys }

    /// The session with `peer`.
    public func session(with peer: PeerID) -> SessionEntry? { entries[peer] }

    /// Whether a session with `peer` is held, in whatever state, without copying it out.
    public func hasSession(with peer: PeerID) -> Bool { entries.index(forKey: peer) != nil }

    /// The peer whose token this is (the token the peer sent us).
    public func peer(forRemoteToken token: DiscoveryToken) -> PeerID? { peersByRemoteToken[token] }

    /// The peer of the session to which we gave this token.
    public func peer(forLocalToken token: DiscoveryToken) -> PeerID? { peersByLocalToken[token] }

    /// Whether `token` is the token `peer` gave for its current session: what a datagram claiming to come from
    /// `peer` must carry to be accepted.
    public func matches(peer: PeerID, remoteToken token: DiscoveryToken) -> Bool {
        entries[peer]?.remoteToken == token
    }

    /// Opens the session with `peer`, or completes, replaces or keeps the one that exists.
    ///
    /// - Parameters:
    ///   - peer: the remote peer.
    ///   - incarnation: the life of the peer the caller heard from.
    ///   - remoteToken: the peer's token, when the caller has it (a responder receiving an invitation, an initiator
    ///     receiving the answer); `nil` for an initiator that only sends its own.
    ///   - time: now, seconds.
    ///   - makeToken: makes this side's fresh token; called only when a new session is opened.
    /// - Throws: ``SessionError`` with `activeSessionsLimitExceeded` for a new peer when the table is full;
    ///   `invalidConfiguration` for an older incarnation than the one held, or a different token for the same
    ///   incarnation (a spoof or a confused peer). The table is unchanged when it throws.
    public mutating func open(
        peer: PeerID, incarnation: Incarnation, remoteToken: DiscoveryToken?, time: Double,
        makeToken: () -> DiscoveryToken
    ) throws(SessionError) -> OpenOutcome {
        if let existing = entries[peer] {
            if incarnation < existing.incarnation {
                throw SessionError(.invalidConfiguration, peer: peer,
                                   detail: "incarnation \(incarnation) is older than the session's \(existing.incarnation)")
            }
            if incarnation > existing.incarnation {
                removeEntry(existing)
                let new = try insert(peer: peer, incarnation: incarnation, remoteToken: remoteToken, time: time,
                                     makeToken: makeToken)
                return .replaced(old: existing, new: new)
            }
            guard let remoteToken else { return .unchanged(existing) }
            if let known = existing.remoteToken {
                guard known == remoteToken else {
                    throw SessionError(.invalidConfiguration, peer: peer,
                                       detail: "token \(remoteToken) is not the session's token \(known)")
                }
                return .unchanged(existing)
            }
            if let holder = peersByRemoteToken[remoteToken], holder != peer {
                throw SessionError(.invalidConfiguration, peer: peer,
                                   detail: "token \(remoteToken) already belongs to peer \(holder)")
            }
            var completed = existing
            completed.remoteToken = remoteToken
            completed.state = .running
            entries[peer] = completed
            peersByRemoteToken[remoteToken] = peer
            return .completed(completed)
        }
        return .opened(try insert(peer: peer, incarnation: incarnation, remoteToken: remoteToken, time: time,
                                  makeToken: makeToken))
    }

    private mutating func insert(
        peer: PeerID, incarnation: Incarnation, remoteToken: DiscoveryToken?, time: Double,
        makeToken: () -> DiscoveryToken
    ) throws(SessionError) -> SessionEntry {
        guard entries.count < capacity else {
            throw SessionError(.activeSessionsLimitExceeded, peer: peer,
                               detail: "this device already holds its maximum of \(capacity) sessions")
        }
        if let remoteToken, let holder = peersByRemoteToken[remoteToken] {
            throw SessionError(.invalidConfiguration, peer: peer,
                               detail: "token \(remoteToken) already belongs to peer \(holder)")
        }
        var localToken = makeToken()
        // 128 random bits do not collide in practice; a seeded source reused by mistake could, and a collision
        // would route one peer's datagrams to another.
        while peersByLocalToken[localToken] != nil { localToken = makeToken() }
        let entry = SessionEntry(
            peer: peer, incarnation: incarnation, localToken: localToken, remoteToken: remoteToken,
            state: remoteToken == nil ? .inviting : .running, openedAt: time)
        insertions &+= 1
        entries[peer] = entry
        peersByLocalToken[localToken] = peer
        if let remoteToken { peersByRemoteToken[remoteToken] = peer }
        return entry
    }

    /// Removes the session with `peer`.
    ///
    /// - Returns: the removed session, or `nil` when there was none.
    @discardableResult
    public mutating func remove(peer: PeerID) -> SessionEntry? {
        guard let entry = entries[peer] else { return nil }
        removeEntry(entry)
        return entry
    }

    /// Removes the session with `peer` only if it belongs to `incarnation` or an older one: a late goodbye of an old
    /// life must not end the new life's session.
    @discardableResult
    public mutating func remove(peer: PeerID, upTo incarnation: Incarnation) -> SessionEntry? {
        guard let entry = entries[peer], entry.incarnation <= incarnation else { return nil }
        removeEntry(entry)
        return entry
    }

    private mutating func removeEntry(_ entry: SessionEntry) {
        removals &+= 1
        entries[entry.peer] = nil
        peersByLocalToken[entry.localToken] = nil
        if let remote = entry.remoteToken { peersByRemoteToken[remote] = nil }
    }

    /// Suspends a running session. Returns whether anything changed.
    @discardableResult
    public mutating func suspend(peer: PeerID) -> Bool {
        guard entries[peer]?.state == .running else { return false }
        entries[peer]?.state = .suspended
        return true
    }

    /// Resumes a suspended session. Returns whether anything changed.
    @discardableResult
    public mutating func resume(peer: PeerID) -> Bool {
        guard entries[peer]?.state == .suspended else { return false }
        entries[peer]?.state = .running
        return true
    }

    /// Every broken invariant, in words; empty when the table is consistent.
    /// - Complexity: O(n).
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        for (peer, entry) in entries {
            if entry.peer != peer { problems.append("entry under \(peer) names \(entry.peer)") }
            if peersByLocalToken[entry.localToken] != peer {
                problems.append("local token \(entry.localToken) of \(peer) does not map back to it")
            }
            if let remote = entry.remoteToken, peersByRemoteToken[remote] != peer {
                problems.append("remote token \(remote) of \(peer) does not map back to it")
            }
            if (entry.remoteToken == nil) != (entry.state == .inviting) {
                problems.append("session with \(peer) is \(entry.state) with remote token \(String(describing: entry.remoteToken))")
            }
        }
        if peersByLocalToken.count != entries.count {
            problems.append("\(peersByLocalToken.count) local tokens for \(entries.count) sessions")
        }
        let remoteCount = entries.values.filter { $0.remoteToken != nil }.count
        if peersByRemoteToken.count != remoteCount {
            problems.append("\(peersByRemoteToken.count) remote tokens for \(remoteCount) sessions that have one")
        }
        if entries.count > capacity { problems.append("\(entries.count) sessions over the cap of \(capacity)") }
        return problems
    }
}
