// An app file in another common style, written only against Apple's frameworks: one shared MCSession for a small
// group, a serial delegate queue for ranging, an availability check, `import simd`, NIError handling and archived tokens decoded
// with the top-level unarchiver. Nothing here names the simulator.
import Foundation
import MultipeerConnectivity
import NearbyInteraction
import simd

final class GroupRangingManager: NSObject, MCSessionDelegate, MCNearbyServiceAdvertiserDelegate,
    MCNearbyServiceBrowserDelegate, NISessionDelegate {
    let localPeer: MCPeerID
    let mcSession: MCSession
    let advertiser: MCNearbyServiceAdvertiser
    let browser: MCNearbyServiceBrowser
    let rangingQueue = DispatchQueue(label: "group.ranging")
    private(set) var niSessions: [MCPeerID: NISession] = [:]
    private(set) var peerForToken: [NIDiscoveryToken: MCPeerID] = [:]
    private(set) var closest: (peer: MCPeerID, distance: Float)?
    private(set) var states: [String] = []
    private(set) var errors: [NIError.Code] = []
    private(set) var contexts: [String] = []
    private(set) var updatesOffQueue = 0
    private(set) var nonUnitDirections = 0
    private static let queueKey = DispatchSpecificKey<String>()
    private(set) var nearby: [MCPeerID: Float] = [:]
    let supported = NISession.isSupported

    init(name: String, group: String) {
        localPeer = MCPeerID(displayName: name)
        mcSession = MCSession(peer: localPeer, securityIdentity: nil, encryptionPreference: .none)
        advertiser = MCNearbyServiceAdvertiser(peer: localPeer, discoveryInfo: ["group": group], serviceType: "group-range")
        browser = MCNearbyServiceBrowser(peer: localPeer, serviceType: "group-range")
        super.init()
        rangingQueue.setSpecific(key: Self.queueKey, value: "ranging")
        mcSession.delegate = self
        advertiser.delegate = self
        browser.delegate = self
        advertiser.startAdvertisingPeer()
        browser.startBrowsingForPeers()
    }

    func browser(_ browser: MCNearbyServiceBrowser, foundPeer peerID: MCPeerID, withDiscoveryInfo info: [String: String]?) {
        guard info?["group"] == advertiser.discoveryInfo?["group"], localPeer.displayName < peerID.displayName else { return }
        browser.invitePeer(peerID, to: mcSession, withContext: "hello from \(localPeer.displayName)".data(using: .utf8), timeout: 5)
    }

    func browser(_ browser: MCNearbyServiceBrowser, lostPeer peerID: MCPeerID) {}

    func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didReceiveInvitationFromPeer peerID: MCPeerID,
                    withContext context: Data?, invitationHandler: @escaping (Bool, MCSession?) -> Void) {
        if let context, let text = String(data: context, encoding: .utf8) { contexts.append(text) }
        invitationHandler(true, mcSession)
    }

    func session(_ session: MCSession, peer peerID: MCPeerID, didChange state: MCSessionState) {
        states.append("\(peerID.displayName):\(state.rawValue)")
        switch state {
        case .connected:
            let ni = NISession()
            ni.delegate = self
            ni.delegateQueue = rangingQueue
            niSessions[peerID] = ni
            guard let token = ni.discoveryToken else { return }
            do {
                let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
                try session.send(data, toPeers: [peerID], with: .reliable)
            } catch {
                print("could not send the token: \(error)")
            }
        case .notConnected:
            niSessions[peerID]?.invalidate()
            niSessions[peerID] = nil
        case .connecting:
            break
        @unknown default:
            print("unknown state \(state.rawValue)")
        }
    }

    func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID) {
        guard let token = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? NIDiscoveryToken else { return }
        peerForToken[token] = peerID
        niSessions[peerID]?.run(NINearbyPeerConfiguration(peerToken: token))
    }

    func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String, fromPeer peerID: MCPeerID) {}
    func session(_ session: MCSession, didStartReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID,
                 with progress: Progress) {}
    func session(_ session: MCSession, didFinishReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID,
                 at localURL: URL?, withError error: Error?) {}

    func session(_ session: NISession, didUpdate nearbyObjects: [NINearbyObject]) {
        if DispatchQueue.getSpecific(key: Self.queueKey) != "ranging" { updatesOffQueue += 1 }
        for object in nearbyObjects {
            guard let peer = peerForToken[object.discoveryToken], let distance = object.distance else { continue }
            nearby[peer] = distance
            if let direction = object.direction, simd_length(simd_normalize(direction) - direction) > 0.01 {
                nonUnitDirections += 1
            }
            if closest == nil || distance < closest!.distance || closest!.peer == peer { closest = (peer, distance) }
        }
    }

    func session(_ session: NISession, didInvalidateWith error: Error) {
        if let error = error as? NIError { errors.append(error.code) }
    }
}
