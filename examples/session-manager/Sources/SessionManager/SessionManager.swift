import NearbySimulator

/// One device's app: it connects to the peers it finds, keeps one ranging session per peer, plays a haptic level
/// by the distance to the peer that shares the most interests with its user, and, when the phones touch (8 cm),
/// sends its user's profile to that peer.
///
/// The pattern of NearCatch's session manager: a peer-to-session dictionary and a token-to-peer dictionary. Where
/// NearCatch stopped with `fatalError("Received token from unexpected peer.")`, this one counts the token and goes
/// on.
public final class SessionManager: SimulatedDeviceDelegate, NearbySessionDelegate {
    /// Messages between apps: a byte for the kind, then the body.
    enum Message: UInt8 {
        case token = 1
        case profile = 2
    }

    public let device: SimulatedDevice
    /// What this user sends after a bump.
    public let profile: [UInt8]
    /// One ranging session per peer.
    public private(set) var sessions: [PeerID: NearbySession] = [:]
    /// The peer each remote token came from.
    public private(set) var peerByToken: [NearbyToken: PeerID] = [:]
    /// Each found peer's interests, from its discovery info.
    public private(set) var interests: [PeerID: Set<String>] = [:]
    /// The latest update of each peer.
    public private(set) var latest: [PeerID: NearbyUpdate] = [:]
    /// The haptic level played, 0 (nothing) to 1 (touching), toward ``bestMatch``.
    public private(set) var hapticLevel = 0.0
    /// Peers bumped, in order.
    public private(set) var bumps: [PeerID] = []
    /// Profiles received, by sender.
    public private(set) var receivedProfiles: [PeerID: [UInt8]] = [:]
    /// Tokens from peers with no session here.
    public private(set) var unexpectedTokens = 0
    /// Why each removed peer went.
    public private(set) var removed: [PeerID: SessionRemovalReason] = [:]
    /// Peers whose session is suspended now.
    public private(set) var suspended: Set<PeerID> = []
    /// Suspensions and resumptions heard.
    public private(set) var suspensions = 0
    public private(set) var resumptions = 0
    /// Peers a bump may fire for again (the estimate rose above 30 cm since the last).
    private var armed: Set<PeerID> = []

    public init(device: SimulatedDevice, profile: [UInt8]) {
        self.device = device
        self.profile = profile
        device.delegate = self
    }

    /// Of the peers within arm's reach (estimated within 1 m in the last 2 s), the one sharing the most interests
    /// with this user, the nearest among equals: whom the haptic guides to, and whom a touch is a bump with.
    public var bestMatch: PeerID? {
        let mine = Set((device.discoveryInfo["interests"] ?? "").split(separator: ",").map(String.init))
        let now = latest.values.map(\.timestamp).max() ?? 0
        let near = latest.compactMap { peer, update -> (PeerID, Int, Float)? in
            guard let d = update.distance, d <= 1, now - update.timestamp <= 2, sessions[peer] != nil else { return nil }
            return (peer, interests[peer, default: []].intersection(mine).count, d)
        }
        return near.max { a, b in a.1 != b.1 ? a.1 < b.1 : a.2 > b.2 }?.0
    }

    // MARK: - Discovery and data

    public func device(_ device: SimulatedDevice, found peer: PeerID, discoveryInfo: [String: String]) {
        interests[peer] = Set((discoveryInfo["interests"] ?? "").split(separator: ",").map(String.init))
    }

    public func device(_ device: SimulatedDevice, connected peer: PeerID) {
        // A peer connecting again (it restarted) gets a new session; the old one goes, never kept beside it.
        if let old = sessions[peer] {
            if let token = old.peerToken { peerByToken[token] = nil }
            old.invalidate()
        }
        let session = device.makeSession()
        session.delegate = self
        sessions[peer] = session
        suspended.remove(peer)
        armed.insert(peer)
        try? device.send([Message.token.rawValue] + session.discoveryToken.data, to: peer)
    }

    public func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID) {
        guard let kind = data.first.flatMap(Message.init(rawValue:)) else { return }
        let body = Array(data.dropFirst())
        switch kind {
        case .token:
            guard let session = sessions[peer] else {
                unexpectedTokens += 1
                return
            }
            let token = NearbyToken(data: body)
            peerByToken[token] = peer
            session.run(with: token)
        case .profile:
            receivedProfiles[peer] = body
        }
    }

    // MARK: - Ranging

    public func session(_ session: NearbySession, didUpdate update: NearbyUpdate) {
        guard let token = session.peerToken, let peer = peerByToken[token], sessions[peer] === session else { return }
        latest[peer] = update
        guard peer == bestMatch, let distance = update.distance else { return }
        // 0 beyond 1.5 m, 1 at 8 cm, rising as the square in between.
        let x = min(max((1.5 - Double(distance)) / (1.5 - 0.08), 0), 1)
        hapticLevel = x * x
        if distance > 0.3 { armed.insert(peer) }
        if distance <= 0.08, armed.remove(peer) != nil {
            bumps.append(peer)
            try? device.send([Message.profile.rawValue] + profile, to: peer)
        }
    }

    public func session(_ session: NearbySession, didRemove peer: PeerID, reason: SessionRemovalReason) {
        removed[peer] = reason
        if let token = session.peerToken { peerByToken[token] = nil }
        session.invalidate()
        if sessions[peer] === session { sessions[peer] = nil }
        suspended.remove(peer)
    }

    public func sessionWasSuspended(_ session: NearbySession) {
        suspensions += 1
        if let peer = session.peer { suspended.insert(peer) }
    }

    public func sessionSuspensionEnded(_ session: NearbySession) {
        resumptions += 1
        if let peer = session.peer { suspended.remove(peer) }
    }
}
