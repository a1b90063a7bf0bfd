import Foundation
import MultipeerConnectivity
import NearbyInteraction

/// NearCatch's session manager, written against Apple's frameworks as the iOS app is: it advertises its user's
/// interests and browses for others, keeps one `MCSession` and one `NISession` per peer, swaps discovery tokens
/// archived with `NSKeyedArchiver`, guides its user by haptic toward the best match within a metre, and sends its
/// user's profile to the peer it bumps (8 cm).
public final class NearCatchSessionManager: NSObject {
    public static let serviceType = "nearcatch"

    /// What one app sends another: a byte for the kind, then the body.
    enum Message: UInt8 {
        case token = 1
        case profile = 2
    }

    public let myPeerID: MCPeerID
    public let interests: Set<String>
    public let profile: Data
    /// Called with the haptic's intensity, 0 to 1, whenever it changes (on a phone: a haptic engine's player).
    public var onHaptic: ((Float) -> Void)?

    private let advertiser: MCNearbyServiceAdvertiser
    private let browser: MCNearbyServiceBrowser
    /// One peer-to-peer session per peer, as a session holds at most 8.
    public private(set) var mcSessions: [MCPeerID: MCSession] = [:]
    /// One ranging session per peer.
    public private(set) var niSessions: [MCPeerID: NISession] = [:]
    /// The peer each remote token came from.
    public private(set) var peerByToken: [NIDiscoveryToken: MCPeerID] = [:]
    /// What each found peer advertised.
    public private(set) var peerInterests: [MCPeerID: Set<String>] = [:]
    /// The latest distance to each peer, metres.
    public private(set) var distances: [MCPeerID: Float] = [:]
    public private(set) var hapticIntensity: Float = 0
    /// The peers bumped, in order.
    public private(set) var bumps: [MCPeerID] = []
    /// Profiles received, by sender.
    public private(set) var receivedProfiles: [MCPeerID: Data] = [:]
    /// Tokens from peers with no ranging session here, and messages that made no sense.
    public private(set) var unexpectedMessages = 0
    public private(set) var suspensions = 0
    public private(set) var resumptions = 0
    /// Updates received, all peers together.
    public private(set) var updates = 0
    /// Peers a bump may fire for again (the distance rose above 30 cm since the last).
    private var armed: Set<MCPeerID> = []

    public init(displayName: String, interests: Set<String>, profile: Data) {
        myPeerID = MCPeerID(displayName: displayName)
        self.interests = interests
        self.profile = profile
        advertiser = MCNearbyServiceAdvertiser(peer: myPeerID, discoveryInfo: ["interests": interests.sorted().joined(separator: ",")],
                                               serviceType: Self.serviceType)
        browser = MCNearbyServiceBrowser(peer: myPeerID, serviceType: Self.serviceType)
        super.init()
        advertiser.delegate = self
        browser.delegate = self
        advertiser.startAdvertisingPeer()
        browser.startBrowsingForPeers()
    }

    /// Leaves every session and stops advertising and browsing.
    public func stop() {
        advertiser.stopAdvertisingPeer()
        browser.stopBrowsingForPeers()
        for session in niSessions.values { session.invalidate() }
        for session in mcSessions.values { session.disconnect() }
        niSessions = [:]
        mcSessions = [:]
        peerByToken = [:]
    }

    /// The peer within a metre who shares the most interests with this user, the nearest among equals.
    public var bestMatch: MCPeerID? {
        let near = distances.filter { $0.value <= 1 && niSessions[$0.key] != nil }
        return near.max { a, b in
            let sharedA = peerInterests[a.key, default: []].intersection(interests).count
            let sharedB = peerInterests[b.key, default: []].intersection(interests).count
            return sharedA != sharedB ? sharedA < sharedB : a.value > b.value
        }?.key
    }

    private func forget(_ peer: MCPeerID) {
        niSessions.removeValue(forKey: peer)?.invalidate()
        peerByToken = peerByToken.filter { $0.value != peer }
        distances[peer] = nil
        armed.remove(peer)
    }

    /// A new ranging session with `peer`, its token sent over `session`.
    private func startRanging(with peer: MCPeerID, over session: MCSession) {
        niSessions.removeValue(forKey: peer)?.invalidate()
        let ni = NISession()
        ni.delegate = self
        niSessions[peer] = ni
        armed.insert(peer)
        guard let token = ni.discoveryToken,
              let archived = try? NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        else { return }
        try? session.send(Data([Message.token.rawValue]) + archived, toPeers: [peer], with: .reliable)
    }

    private func peer(for object: NINearbyObject) -> MCPeerID? {
        peerByToken[object.discoveryToken]
    }
}

extension NearCatchSessionManager: MCNearbyServiceBrowserDelegate {
    public func browser(_ browser: MCNearbyServiceBrowser, foundPeer peerID: MCPeerID, withDiscoveryInfo info: [String: String]?) {
        peerInterests[peerID] = Set((info?["interests"] ?? "").split(separator: ",").map(String.init))
        // One side invites: the one whose name sorts first.
        guard myPeerID.displayName < peerID.displayName, mcSessions[peerID] == nil else { return }
        let session = MCSession(peer: myPeerID, securityIdentity: nil, encryptionPreference: .required)
        session.delegate = self
        mcSessions[peerID] = session
        browser.invitePeer(peerID, to: session, withContext: nil, timeout: 10)
    }

    public func browser(_ browser: MCNearbyServiceBrowser, lostPeer peerID: MCPeerID) {
        peerInterests[peerID] = nil
    }
}

extension NearCatchSessionManager: MCNearbyServiceAdvertiserDelegate {
    public func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didReceiveInvitationFromPeer peerID: MCPeerID,
                           withContext context: Data?, invitationHandler: @escaping (Bool, MCSession?) -> Void) {
        mcSessions.removeValue(forKey: peerID)?.disconnect()
        let session = MCSession(peer: myPeerID, securityIdentity: nil, encryptionPreference: .required)
        session.delegate = self
        mcSessions[peerID] = session
        invitationHandler(true, session)
    }
}

extension NearCatchSessionManager: MCSessionDelegate {
    public func session(_ session: MCSession, peer peerID: MCPeerID, didChange state: MCSessionState) {
        guard mcSessions[peerID] === session else { return }
        switch state {
        case .connected:
            startRanging(with: peerID, over: session)
        case .notConnected:
            mcSessions[peerID] = nil
            forget(peerID)
        case .connecting:
            break
        @unknown default:
            break
        }
    }

    public func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID) {
        guard let kind = data.first.flatMap(Message.init(rawValue:)) else {
            unexpectedMessages += 1
            return
        }
        let body = data.dropFirst()
        switch kind {
        case .token:
            guard let ni = niSessions[peerID],
                  let token = try? NSKeyedUnarchiver.unarchivedObject(ofClass: NIDiscoveryToken.self, from: Data(body))
            else {
                unexpectedMessages += 1
                return
            }
            peerByToken[token] = peerID
            ni.run(NINearbyPeerConfiguration(peerToken: token))
        case .profile:
            receivedProfiles[peerID] = Data(body)
        }
    }

    public func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String, fromPeer peerID: MCPeerID) {}

    public func session(_ session: MCSession, didStartReceivingResourceWithName resourceName: String,
                        fromPeer peerID: MCPeerID, with progress: Progress) {}

    public func session(_ session: MCSession, didFinishReceivingResourceWithName resourceName: String,
                        fromPeer peerID: MCPeerID, at localURL: URL?, withError error: Error?) {}
}

extension NearCatchSessionManager: NISessionDelegate {
    public func session(_ session: NISession, didUpdate nearbyObjects: [NINearbyObject]) {
        for object in nearbyObjects {
            guard let peer = peer(for: object), niSessions[peer] === session, let distance = object.distance else { continue }
            updates += 1
            distances[peer] = distance
            if distance > 0.3 { armed.insert(peer) }
            guard peer == bestMatch else { continue }
            // 0 beyond 1.5 m, 1 at 8 cm, rising as the square in between.
            let x = min(max((1.5 - distance) / (1.5 - 0.08), 0), 1)
            hapticIntensity = x * x
            onHaptic?(hapticIntensity)
            if distance <= 0.08, armed.remove(peer) != nil, let link = mcSessions[peer] {
                bumps.append(peer)
                try? link.send(Data([Message.profile.rawValue]) + profile, toPeers: [peer], with: .reliable)
            }
        }
    }

    public func session(_ session: NISession, didRemove nearbyObjects: [NINearbyObject], reason: NINearbyObject.RemovalReason) {
        for object in nearbyObjects {
            guard let peer = peer(for: object), niSessions[peer] === session else { continue }
            distances[peer] = nil
            switch reason {
            case .timeout:
                // The peer may come back: run the same configuration again.
                if let configuration = session.configuration { session.run(configuration) }
            case .peerEnded:
                forget(peer)
            @unknown default:
                forget(peer)
            }
        }
    }

    public func sessionWasSuspended(_ session: NISession) {
        suspensions += 1
    }

    public func sessionSuspensionEnded(_ session: NISession) {
        resumptions += 1
        if let configuration = session.configuration { session.run(configuration) }
    }

    public func session(_ session: NISession, didInvalidateWith error: Error) {
        guard let peer = niSessions.first(where: { $0.value === session })?.key else { return }
        niSessions[peer] = nil
        peerByToken = peerByToken.filter { $0.value != peer }
        // Still connected: start again with a new session and a new token.
        if let link = mcSessions[peer], link.connectedPeers.contains(peer) { startRanging(with: peer, over: link) }
    }
}

