import Foundation
@_spi(Faces) import NearbySimulator

/// An invitation, named by the device that sent it and that device's number for it.
struct Invitation: Hashable {
    let device: PeerID
    let id: UInt64
}

/// A weak reference, for the hub's lists of what the app holds: a session, advertiser or browser the app lets go
/// of stops, as Apple's do.
struct Weak<T: AnyObject> {
    weak var object: T?
}

/// The framework's side on one device life: the room's connections to other devices (the reachability the
/// framework's own discovery would find), what the device's advertisers say on them, what it heard the others
/// advertise, and the routing of invitations and session data. It is the device's delegate.
final class Hub: SimulatedDeviceDelegate {
    unowned let device: SimulatedDevice
    /// The devices this one is connected to in the room, in the order they connected.
    private(set) var linked: [PeerID] = []
    var advertisers: [Weak<MCNearbyServiceAdvertiser>] = []
    var browsers: [Weak<MCNearbyServiceBrowser>] = []
    var sessions: [UInt64: Weak<MCSession>] = [:]
    /// The adverts heard, in the order heard.
    private(set) var heard: [(from: PeerID, peer: MCPeerID, serviceType: String, info: [String: String]?)] = []
    /// One object for each remote peer identity, so that the app sees the same one every time.
    private var peers: [UInt64: MCPeerID] = [:]
    private var counter: UInt64 = 0
    /// Invitations that timed out before their answer, with the inviting peer's identity.
    var expired: [Invitation: UInt64] = [:]
    /// Messages from other devices that were malformed or addressed to nothing here.
    private(set) var dropped = 0

    private init(device: SimulatedDevice) {
        self.device = device
        linked = device.connectedPeers.sorted { $0.rawValue < $1.rawValue }
    }

    /// The hub of `device`, made (and made its delegate) on first use.
    static func of(_ device: SimulatedDevice) -> Hub {
        if let hub = device.faceState["MultipeerConnectivity"] as? Hub { return hub }
        let hub = Hub(device: device)
        device.faceState["MultipeerConnectivity"] = hub
        device.delegate = hub
        return hub
    }

    func nextID() -> UInt64 {
        counter += 1
        return counter
    }

    func peer(uid: UInt64, name: String) -> MCPeerID {
        if let known = peers[uid] { return known }
        let peer = MCPeerID(uid: uid, displayName: name)
        peers[uid] = peer
        return peer
    }

    /// The device that advertised `peer` to this one, if it still does.
    func host(of peer: MCPeerID) -> PeerID? {
        heard.first { $0.peer.uid == peer.uid }?.from
    }

    func send(_ message: FaceMessage, to peer: PeerID, mode: DataMode = .reliable) throws(SimulatorError) {
        try device.send(message.bytes, to: peer, mode: mode)
    }

    /// Tells the app after the call it is in returns, as the framework calls back on its own queue.
    func later(_ body: @escaping () -> Void) {
        device.schedule(after: 0, body)
    }

    // MARK: - Advertising

    func advertise(_ advertiser: MCNearbyServiceAdvertiser) {
        advertisers.removeAll { $0.object == nil || $0.object === advertiser }
        advertisers.append(Weak(object: advertiser))
        for peer in linked { try? send(advert(advertiser), to: peer) }
    }

    func stopAdvertising(_ advertiser: MCNearbyServiceAdvertiser) {
        guard advertisers.contains(where: { $0.object === advertiser }) else { return }
        advertisers.removeAll { $0.object == nil || $0.object === advertiser }
        let message = FaceMessage.unadvert(uid: advertiser.myPeerID.uid, serviceType: advertiser.serviceType)
        for peer in linked { try? send(message, to: peer) }
    }

    private func advert(_ advertiser: MCNearbyServiceAdvertiser) -> FaceMessage {
        .advert(uid: advertiser.myPeerID.uid, name: advertiser.myPeerID.displayName,
                serviceType: advertiser.serviceType, info: advertiser.discoveryInfo)
    }

    // MARK: - Browsing

    func browse(_ browser: MCNearbyServiceBrowser) {
        browsers.removeAll { $0.object == nil || $0.object === browser }
        browsers.append(Weak(object: browser))
        let found = heard.filter { $0.serviceType == browser.serviceType }
        later { [weak browser] in
            for advert in found { browser?.found(advert.peer, info: advert.info) }
        }
    }

    func stopBrowsing(_ browser: MCNearbyServiceBrowser) {
        browsers.removeAll { $0.object == nil || $0.object === browser }
    }

    private func browsing(_ serviceType: String) -> [MCNearbyServiceBrowser] {
        browsers.compactMap(\.object).filter { $0.serviceType == serviceType && $0.isBrowsing }
    }

    // MARK: - The room

    func device(_ device: SimulatedDevice, connected peer: PeerID) {
        guard !linked.contains(peer) else { return }
        linked.append(peer)
        for advertiser in advertisers.compactMap(\.object) where advertiser.isAdvertising {
            try? send(advert(advertiser), to: peer)
        }
    }

    func device(_ device: SimulatedDevice, disconnected peer: PeerID) {
        linked.removeAll { $0 == peer }
        let gone = heard.filter { $0.from == peer }
        heard.removeAll { $0.from == peer }
        for session in sessions.keys.sorted().compactMap({ sessions[$0]?.object }) { session.lost(device: peer) }
        for advert in gone {
            for browser in browsing(advert.serviceType) { browser.lost(advert.peer) }
        }
    }

    func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID) {
        guard let message = FaceMessage(data) else {
            dropped += 1
            return
        }
        switch message {
        case .advert(let uid, let name, let serviceType, let info):
            let known = self.peer(uid: uid, name: name)
            if let k = heard.firstIndex(where: { $0.peer.uid == uid && $0.serviceType == serviceType }) {
                heard[k].info = info
                return
            }
            heard.append((peer, known, serviceType, info))
            for browser in browsing(serviceType) { browser.found(known, info: info) }
        case .unadvert(let uid, let serviceType):
            guard let k = heard.firstIndex(where: { $0.peer.uid == uid && $0.serviceType == serviceType }) else { return }
            let advert = heard.remove(at: k)
            for browser in browsing(serviceType) { browser.lost(advert.peer) }
        case .invite(let id, let from, let name, let session, let to, let context):
            let inviter = self.peer(uid: from, name: name)
            guard let advertiser = advertisers.compactMap(\.object).first(where: { $0.isAdvertising && $0.myPeerID.uid == to })
            else {
                try? send(.answer(id: id, accepted: false, session: 0, uid: to, name: ""), to: peer)
                return
            }
            advertiser.invited(by: inviter, from: peer, invitation: id, session: session, context: context)
        case .answer(let id, let accepted, let session, _, _):
            if let local = sessions.values.compactMap(\.object).first(where: { $0.awaits(invitation: id, on: peer) }) {
                local.answered(invitation: id, accepted: accepted, remoteSession: session)
            } else if accepted, let inviter = expired.removeValue(forKey: Invitation(device: peer, id: id)) {
                // The invitation had timed out: the invitee's session is told it is over.
                try? send(.leave(toSession: session, from: inviter), to: peer)
            }
        case .confirm(let id, _):
            guard let local = sessions.values.compactMap(\.object).first(where: { $0.awaits(invitation: id, on: peer) }) else {
                dropped += 1
                return
            }
            local.confirmed(invitation: id, from: peer)
        case .data(let toSession, let from, let payload):
            guard let local = sessions[toSession]?.object, local.received(payload, from: from) else {
                dropped += 1
                return
            }
        case .leave(let toSession, let from):
            sessions[toSession]?.object?.left(from: from, device: peer)
        }
    }
}
