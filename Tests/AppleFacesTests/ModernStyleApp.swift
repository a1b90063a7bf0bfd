// An app file in today's Swift style, as Apple's documentation and sample code now write one: an `@Observable`
// model on the main actor, a nonisolated MultipeerConnectivity delegate that hops with `Task { @MainActor in }`,
// Core Motion's samples on an operation queue of the app's own, handed to the model the same way. Nothing in it is
// written for the room.
import CoreMotion
import Foundation
import MultipeerConnectivity
import NearbyInteraction
import Observation

@MainActor @Observable final class NearbyModel: NSObject, @preconcurrency NISessionDelegate {
    private(set) var distances: [String: Float] = [:]
    private(set) var tokensReceived = 0
    private(set) var accelerometerSamples = 0
    @ObservationIgnored private var sessions: [MCPeerID: NISession] = [:]
    @ObservationIgnored private var peers: [NIDiscoveryToken: MCPeerID] = [:]
    @ObservationIgnored private var link: ModernLink?
    @ObservationIgnored private let motion = CMMotionManager()
    @ObservationIgnored private let motionQueue = OperationQueue()

    func start(name: String) {
        let link = ModernLink(name: name, model: self)
        self.link = link
        link.start()
        guard motion.isAccelerometerAvailable else { return }
        motion.accelerometerUpdateInterval = 0.05
        motion.startAccelerometerUpdates(to: motionQueue) { [weak self] data, _ in
            guard data != nil else { return }
            Task { @MainActor in self?.accelerometerSamples += 1 }
        }
    }

    func connected(_ peer: MCPeerID) {
        guard sessions[peer] == nil else { return }
        let session = NISession()
        session.delegate = self
        sessions[peer] = session
        guard let token = session.discoveryToken,
              let data = try? NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        else { return }
        link?.send(data, to: peer)
    }

    func received(_ data: Data, from peer: MCPeerID) {
        do {
            guard let token = try NSKeyedUnarchiver.unarchivedObject(ofClass: NIDiscoveryToken.self, from: data)
            else { return }
            tokensReceived += 1
            peers[token] = peer
            sessions[peer]?.run(NINearbyPeerConfiguration(peerToken: token))
        } catch {
            print("not a token from \(peer.displayName): \(error)")
        }
    }

    func disconnected(_ peer: MCPeerID) {
        sessions.removeValue(forKey: peer)?.invalidate()
        distances[peer.displayName] = nil
    }

    func session(_ session: NISession, didUpdate nearbyObjects: [NINearbyObject]) {
        for object in nearbyObjects {
            if let peer = peers[object.discoveryToken], let distance = object.distance {
                distances[peer.displayName] = distance
            }
        }
    }

    func session(_ session: NISession, didInvalidateWith error: Error) {
        guard let peer = sessions.first(where: { $0.value === session })?.key else { return }
        sessions[peer] = nil
        // Try again shortly, as a new session.
        Task { @MainActor in
            self.connected(peer)
        }
    }
}

/// MultipeerConnectivity's side: its delegate calls come on the framework's own queue, so each is handed to the
/// model on the main actor.
final class ModernLink: NSObject, MCSessionDelegate, MCNearbyServiceAdvertiserDelegate, MCNearbyServiceBrowserDelegate,
    @unchecked Sendable {
    private let me: MCPeerID
    private let session: MCSession
    private let advertiser: MCNearbyServiceAdvertiser
    private let browser: MCNearbyServiceBrowser
    private weak var model: NearbyModel?

    init(name: String, model: NearbyModel) {
        me = MCPeerID(displayName: name)
        session = MCSession(peer: me, securityIdentity: nil, encryptionPreference: .required)
        advertiser = MCNearbyServiceAdvertiser(peer: me, discoveryInfo: nil, serviceType: "modern-ni")
        browser = MCNearbyServiceBrowser(peer: me, serviceType: "modern-ni")
        self.model = model
        super.init()
        session.delegate = self
        advertiser.delegate = self
        browser.delegate = self
    }

    func start() {
        advertiser.startAdvertisingPeer()
        browser.startBrowsingForPeers()
    }

    func send(_ data: Data, to peer: MCPeerID) {
        try? session.send(data, toPeers: [peer], with: .reliable)
    }

    func session(_ session: MCSession, peer peerID: MCPeerID, didChange state: MCSessionState) {
        Task { @MainActor [model] in
            switch state {
            case .connected: model?.connected(peerID)
            case .notConnected: model?.disconnected(peerID)
            default: break
            }
        }
    }

    func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID) {
        Task { @MainActor [model] in model?.received(data, from: peerID) }
    }

    func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String,
                 fromPeer peerID: MCPeerID) {}
    func session(_ session: MCSession, didStartReceivingResourceWithName resourceName: String,
                 fromPeer peerID: MCPeerID, with progress: Progress) {}
    func session(_ session: MCSession, didFinishReceivingResourceWithName resourceName: String,
                 fromPeer peerID: MCPeerID, at localURL: URL?, withError error: Error?) {}

    func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didReceiveInvitationFromPeer peerID: MCPeerID,
                    withContext context: Data?, invitationHandler: @escaping (Bool, MCSession?) -> Void) {
        invitationHandler(true, session)
    }

    func browser(_ browser: MCNearbyServiceBrowser, foundPeer peerID: MCPeerID,
                 withDiscoveryInfo info: [String: String]?) {
        // The peer with the greater name invites, so that a pair connects once.
        guard me.displayName < peerID.displayName else { return }
        browser.invitePeer(peerID, to: session, withContext: nil, timeout: 10)
    }

    func browser(_ browser: MCNearbyServiceBrowser, lostPeer peerID: MCPeerID) {}
}
