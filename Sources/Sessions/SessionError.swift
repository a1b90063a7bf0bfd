/// Why a session was invalidated or could not be made. The raw values are stable and documented
/// (docs/session-api.md); scripts may rely on them.
public enum SessionErrorCode: Int, Sendable, CaseIterable, Codable {
    /// A token that is unknown, malformed, or not the one of the session it claims.
    case invalidConfiguration = 1
    /// The session could not continue (its peer's datagrams stopped making sense).
    case sessionFailed = 2
    /// The device already holds its configured maximum of active sessions.
    case activeSessionsLimitExceeded = 3
    /// The token exchange was not answered within the invitation timeout.
    case invitationTimedOut = 4
    /// The peer came back as a new incarnation with a new token; this session was replaced by a new one.
    case peerReplaced = 5
}

/// A session error with its context.
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: SessionErrorCode
    /// The peer the session was with.
    public let peer: PeerID
    /// A sentence for people.
    public let detail: String

    public init(_ code: SessionErrorCode, peer: PeerID, detail: String) {
        self.code = code
        self.peer = peer
        self.detail = detail
    }

    public var description: String {
        "session with \(peer) failed (\(code), code \(code.rawValue)): \(detail)"
    }
}

/// Why a session was removed, as the phone framework reports it.
public enum SessionRemovalReason: String, Sendable, Codable {
    /// The peer said goodbye (best effort: a goodbye can be lost, and then it is a timeout).
    case peerEnded
    /// Nothing was heard from the peer for the allowed period.
    case timeout
}
