// An app file in the style of Apple's NIPeekaboo sample, written for a room of phones: a wrapper around
// MultipeerConnectivity that hands its events to the main queue, and a controller that makes one NISession per
// connected peer, swaps tokens with NSKeyedArchiver, runs again after a timeout or a suspension, starts over after
// an invalidation, and reads Core Motion. Only its UIKit lines differ from the iOS file: the phone's name comes in
// (`UIDevice.current.name` on iOS) and the controller is an NSObject (a UIViewController on iOS). docs/app-testing.md
// shows it as the worked example.
import CoreMotion
import Foundation
import MultipeerConnectivity
import NearbyInteraction

/// The peer-to-peer side, in the sample's shape: everything it hears goes to the main queue.
final class PeerLink: NSObject, MCSessionDelegate, MCNearbyServiceBrowserDelegate, MCNearbyServiceAdvertiserDelegate {
    var peerConnectedHandler: (@MainActor (MCPeerID) -> Void)?
    var peerDisconnectedHandler: (@MainActor (MCPeerID) -> Void)?
    var peerDataHandler: (@MainActor (Data, MCPeerID) -> Void)?

    private let serviceType: String
    private let identity: String
    private let maxPeers: Int
    private let session: MCSession
    private let advertiser: MCNearbyServiceAdvertiser
    private let browser: MCNearbyServiceBrowser
    private static let identityKey = "identity"

    init(service: String, identity: String, maxPeers: Int, name: String) {
        serviceType = service
        self.identity = identity
        self.maxPeers = maxPeers
        let me = MCPeerID(displayName: name)  // iOS: MCPeerID(displayName: UIDevice.current.name)
        session = MCSession(peer: me, securityIdentity: nil, encryptionPreference: .required)
        advertiser = MCNearbyServiceAdvertiser(peer: me, discoveryInfo: [Self.identityKey: identity],
                                               serviceType: service)
        browser = MCNearbyServiceBrowser(peer: me, serviceType: service)
        super.init()
        session.delegate = self
        advertiser.delegate = self
        browser.delegate = self
    }

    func start() {
        advertiser.startAdvertisingPeer()
        browser.startBrowsingForPeers()
    }

    func suspend() {
        advertiser.stopAdvertisingPeer()
        browser.stopBrowsingForPeers()
    }

    func invalidate() {
        suspend()
        session.disconnect()
    }

    var connectedPeers: [MCPeerID] { session.connectedPeers }

    func send(_ data: Data, to peers: [MCPeerID]) {
        do {
            try session.send(data, toPeers: peers, with: .reliable)
        } catch {
            print("failed to send to \(peers): \(error)")
        }
    }

    func session(_ session: MCSession, peer peerID: MCPeerID, didChange state: MCSessionState) {
        switch state {
        case .connected:
            if let handler = peerConnectedHandler {
                DispatchQueue.main.async { handler(peerID) }
            }
            if session.connectedPeers.count == maxPeers { suspend() }
        case .notConnected:
            if let handler = peerDisconnectedHandler {
                DispatchQueue.main.async { handler(peerID) }
            }
            if session.connectedPeers.count < maxPeers { start() }
        case .connecting:
            break
        @unknown default:
            fatalError("an MCSessionState this file does not know")
        }
    }

    func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID) {
        if let handler = peerDataHandler {
            DispatchQueue.main.async { handler(data, peerID) }
        }
    }

    func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String,
                 fromPeer peerID: MCPeerID) {}
    func session(_ session: MCSession, didStartReceivingResourceWithName resourceName: String,
                 fromPeer peerID: MCPeerID, with progress: Progress) {}
    func session(_ session: MCSession, didFinishReceivingResourceWithName resourceName: String,
                 fromPeer peerID: MCPeerID, at localURL: URL?, withError error: Error?) {}

    func browser(_ browser: MCNearbyServiceBrowser, foundPeer peerID: MCPeerID,
                 withDiscoveryInfo info: [String: String]?) {
        guard info?[Self.identityKey] == identity, session.connectedPeers.count < maxPeers else { return }
        browser.invitePeer(peerID, to: session, withContext: nil, timeout: 10)
    }

    func browser(_ browser: MCNearbyServiceBrowser, lostPeer peerID: MCPeerID) {}

    func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didReceiveInvitationFromPeer peerID: MCPeerID,
                    withContext context: Data?, invitationHandler: @escaping (Bool, MCSession?) -> Void) {
        invitationHandler(session.connectedPeers.count < maxPeers, session)
    }
}

/// The controller: on iOS a view controller (`class ViewController: UIViewController, NISessionDelegate`), whose view
/// draws each peer's distance and direction; isolated to the main actor, as a view controller is.
@MainActor final class PeekabooController: NSObject, @preconcurrency NISessionDelegate {
    private(set) var sessions: [MCPeerID: NISession] = [:]
    private(set) var peerByToken: [NIDiscoveryToken: MCPeerID] = [:]
    private(set) var distances: [MCPeerID: Float] = [:]
    private(set) var directions: [MCPeerID: simd_float3] = [:]
    private(set) var tokensReceived = 0
    private(set) var suspensions = 0
    private(set) var restarts = 0
    private(set) var gravity: CMAcceleration?
    private(set) var motionUpdates = 0
    private var link: PeerLink?
    private let name: String
    private let motion = CMMotionManager()

    init(name: String) {
        self.name = name
        super.init()
    }

    func startup() {
        link?.invalidate()
        let link = PeerLink(service: "nisample", identity: "com.example.peekaboo", maxPeers: 7, name: name)
        link.peerConnectedHandler = { [weak self] peer in self?.connected(to: peer) }
        link.peerDataHandler = { [weak self] data, peer in self?.received(data, from: peer) }
        link.peerDisconnectedHandler = { [weak self] peer in self?.disconnected(from: peer) }
        link.start()
        self.link = link
        if motion.isDeviceMotionAvailable {
            motion.deviceMotionUpdateInterval = 1.0 / 30
            motion.startDeviceMotionUpdates(to: .main) { [weak self] data, error in
                guard let self, let data, error == nil else { return }
                self.gravity = data.gravity
                self.motionUpdates += 1
            }
        }
    }

    private func connected(to peer: MCPeerID) {
        guard sessions[peer] == nil else { return }
        let session = NISession()
        session.delegate = self
        session.delegateQueue = DispatchQueue.main
        sessions[peer] = session
        share(session, with: peer)
    }

    private func share(_ session: NISession, with peer: MCPeerID) {
        guard let token = session.discoveryToken,
              let data = try? NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        else { fatalError("cannot archive the discovery token") }
        link?.send(data, to: [peer])
    }

    private func received(_ data: Data, from peer: MCPeerID) {
        guard let token = try? NSKeyedUnarchiver.unarchivedObject(ofClass: NIDiscoveryToken.self, from: data) else {
            fatalError("an unexpected message from \(peer.displayName)")
        }
        tokensReceived += 1
        peerByToken[token] = peer
        sessions[peer]?.run(NINearbyPeerConfiguration(peerToken: token))
    }

    private func disconnected(from peer: MCPeerID) {
        sessions.removeValue(forKey: peer)?.invalidate()
        distances[peer] = nil
        directions[peer] = nil
    }

    func session(_ session: NISession, didUpdate nearbyObjects: [NINearbyObject]) {
        for object in nearbyObjects {
            guard let peer = peerByToken[object.discoveryToken] else { continue }
            DispatchQueue.main.async { [weak self] in
                self?.distances[peer] = object.distance
                self?.directions[peer] = object.direction
            }
        }
    }

    func session(_ session: NISession, didRemove nearbyObjects: [NINearbyObject],
                 reason: NINearbyObject.RemovalReason) {
        switch reason {
        case .peerEnded:
            for object in nearbyObjects {
                if let peer = peerByToken[object.discoveryToken] { distances[peer] = nil }
            }
        case .timeout:
            if let configuration = session.configuration { session.run(configuration) }
        default:
            fatalError("a removal reason this file does not know")
        }
    }

    func sessionWasSuspended(_ session: NISession) {
        suspensions += 1
    }

    func sessionSuspensionEnded(_ session: NISession) {
        if let configuration = session.configuration { session.run(configuration) }
    }

    func session(_ session: NISession, didInvalidateWith error: Error) {
        guard let peer = sessions.first(where: { $0.value === session })?.key else { return }
        restarts += 1
        let fresh = NISession()
        fresh.delegate = self
        fresh.delegateQueue = DispatchQueue.main
        sessions[peer] = fresh
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.5) { [weak self] in self?.share(fresh, with: peer) }
    }
}
