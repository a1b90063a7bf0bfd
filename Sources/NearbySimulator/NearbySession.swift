/// What a ranging session tells its app, in order: updates, the peer's removal, suspension and its end,
/// invalidation.
public enum NearbySessionEvent: Sendable, Equatable {
    /// A new estimate of the peer.
    case update(NearbyUpdate)
    /// The peer is gone: it said goodbye or fell silent. The session ranges no more.
    case removed(SessionRemovalReason)
    /// The session stopped ranging for a while (its device runs more sessions than it can keep active).
    case suspended
    /// It ranges again.
    case suspensionEnded
    /// The session ended for good; make a new one.
    case invalidated(SessionError)
}

/// Told what happens to a ``NearbySession``, on the thread that advances the room, as a phone framework's session
/// delegate is told.
public protocol NearbySessionDelegate: AnyObject {
    /// A new estimate of the peer.
    func session(_ session: NearbySession, didUpdate update: NearbyUpdate)
    /// The peer said goodbye or fell silent; the session ranges no more.
    func session(_ session: NearbySession, didRemove peer: PeerID, reason: SessionRemovalReason)
    /// The session stopped ranging for a while (its device keeps fewer sessions active than it holds).
    func sessionWasSuspended(_ session: NearbySession)
    /// It ranges again.
    func sessionSuspensionEnded(_ session: NearbySession)
    /// The session ended for good.
    func session(_ session: NearbySession, didInvalidateWith error: SessionError)
}

/// Every method is optional: by default it does nothing.
extension NearbySessionDelegate {
    public func session(_ session: NearbySession, didUpdate update: NearbyUpdate) {}
    public func session(_ session: NearbySession, didRemove peer: PeerID, reason: SessionRemovalReason) {}
    public func sessionWasSuspended(_ session: NearbySession) {}
    public func sessionSuspensionEnded(_ session: NearbySession) {}
    public func session(_ session: NearbySession, didInvalidateWith error: SessionError) {}
}

/// One ranging session of a device with one peer, shaped like the phone's ranging framework: it has its own
/// ``discoveryToken``; the app sends it to the peer, receives the peer session's token, and runs this session with
/// it. A pair ranges while each side's session runs with the other's token, within the air the room's policy
/// grants; both sides then receive updates.
///
/// Used on the thread that advances the room; the ``events`` sequence may be read from any task.
public final class NearbySession {
    /// Where a session is.
    public enum State: Sendable, Equatable {
        /// Made, not run yet (or removed from its peer: run it again with a new token).
        case idle
        /// Run with a peer's token: it ranges whenever the peer's session runs with its own.
        case running
        /// Paused by its app.
        case paused
        /// Ended for good.
        case invalidated
    }

    /// This session's token, to send to the peer.
    public let discoveryToken: NearbyToken
    /// The device that holds the session.
    public let device: PeerID
    /// Told what happens to the session.
    public weak var delegate: NearbySessionDelegate?
    /// Every event the delegate is told, for tests that read them as a sequence.
    public let events: AsyncStream<NearbySessionEvent>
    /// The peer of the token the session runs with; `nil` before the first run.
    public internal(set) var peer: PeerID?
    /// Where the session is.
    public internal(set) var state: State = .idle
    /// The token the session was last run with.
    public internal(set) var peerToken: NearbyToken?
    /// Why the session ended, once it is ``State/invalidated``.
    public internal(set) var invalidationError: SessionError?

    let index: Int
    /// The device life that made the session: once it has stopped, the session's delegate hears nothing.
    weak var owner: SimulatedDevice?
    let continuation: AsyncStream<NearbySessionEvent>.Continuation
    weak var room: SimulatedRoom?

    init(token: NearbyToken, owner: SimulatedDevice, room: SimulatedRoom) {
        discoveryToken = token
        device = owner.peerID
        index = owner.index
        self.owner = owner
        self.room = room
        (events, continuation) = AsyncStream.makeStream(of: NearbySessionEvent.self)
    }

    /// Runs the session with the peer session's token (again, after a pause or a removal). A token no session of
    /// another device in the room holds invalidates the session (`invalidConfiguration`), as the framework does.
    public func run(with peerToken: NearbyToken) {
        room?.run(self, with: peerToken)
    }

    /// Stops ranging until ``run(with:)`` is called again; the peer's session stops receiving updates too.
    public func pause() {
        room?.pause(self)
    }

    /// Ends the session for good.
    public func invalidate() {
        room?.invalidate(self, error: nil)
    }

    /// Yields `event` to ``events`` and, while the device's life lasts, tells the delegate as the device's app.
    func tell(_ event: NearbySessionEvent) {
        continuation.yield(event)
        guard let owner, !owner.isStopped, let delegate else { return }
        owner.perform {
            switch event {
            case .update(let update): delegate.session(self, didUpdate: update)
            case .removed(let reason): if let peer { delegate.session(self, didRemove: peer, reason: reason) }
            case .suspended: delegate.sessionWasSuspended(self)
            case .suspensionEnded: delegate.sessionSuspensionEnded(self)
            case .invalidated(let error): delegate.session(self, didInvalidateWith: error)
            }
        }
    }
}
