/// Where a session stands.
public enum SessionState: String, Sendable, Codable {
    /// This side's token was sent; the peer's has not arrived yet.
    case inviting
    /// Both tokens are known; the session ranges.
    case running
    /// Running, but delivering no updates for now.
    case suspended
}

/// One session of the table: the peer it is with, the peer's incarnation, and the two tokens.
public struct SessionEntry: Sendable, Equatable {
    public let peer: PeerID
    /// The life of the peer this session belongs to.
    public let incarnation: Incarnation
    /// This side's token for the session, fresh for it.
    public let localToken: DiscoveryToken
    /// The peer's token, once received.
    public internal(set) var remoteToken: DiscoveryToken?
    public internal(set) var state: SessionState
    /// When the session was opened, seconds on the run's clock.
    public let openedAt: Double
}
