import Foundation
@_spi(Faces) import NearbySimulator

/// Told about invitations to an ``MCNearbyServiceAdvertiser``, shaped like Apple's delegate.
public protocol MCNearbyServiceAdvertiserDelegate: NSObjectProtocol {
    /// A peer invites this one into its session: call `invitationHandler` once, now or later, with `true` and the
    /// session to join, or with `false` to decline.
    func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didReceiveInvitationFromPeer peerID: MCPeerID,
                    withContext context: Data?, invitationHandler: @escaping (Bool, MCSession?) -> Void)
    /// The advertiser could not start (a service type or discovery info that breaks the framework's rules, or no
    /// simulated device to run on).
    func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didNotStartAdvertisingPeer error: Error)
}

extension MCNearbyServiceAdvertiserDelegate {
    public func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didNotStartAdvertisingPeer error: Error) {}
}

/// Told what an ``MCNearbyServiceBrowser`` finds, shaped like Apple's delegate.
public protocol MCNearbyServiceBrowserDelegate: NSObjectProtocol {
    /// A peer advertising this service type, with its discovery info.
    func browser(_ browser: MCNearbyServiceBrowser, foundPeer peerID: MCPeerID, withDiscoveryInfo info: [String: String]?)
    /// The peer stopped advertising, or its device is out of reach.
    func browser(_ browser: MCNearbyServiceBrowser, lostPeer peerID: MCPeerID)
    /// The browser could not start.
    func browser(_ browser: MCNearbyServiceBrowser, didNotStartBrowsingForPeers error: Error)
}

extension MCNearbyServiceBrowserDelegate {
    public func browser(_ browser: MCNearbyServiceBrowser, didNotStartBrowsingForPeers error: Error) {}
}

/// Advertises a peer to the browsers of its service type on the devices its own is connected to in the room,
/// shaped like Apple's advertiser, on the simulated device whose app makes it. It stops when stopped or let go of.
open class MCNearbyServiceAdvertiser: NSObject, @unchecked Sendable {
    public weak var delegate: (any MCNearbyServiceAdvertiserDelegate)?
    public let myPeerID: MCPeerID
    public let discoveryInfo: [String: String]?
    public let serviceType: String
    private(set) var isAdvertising = false
    private let hub: Hub?

    public init(peer myPeerID: MCPeerID, discoveryInfo info: [String: String]?, serviceType: String) {
        self.myPeerID = myPeerID
        discoveryInfo = info
        self.serviceType = serviceType
        SimulatedDevice.madeOffPhone("MCNearbyServiceAdvertiser(peer:discoveryInfo:serviceType:)")
        hub = SimulatedDevice.current.flatMap { $0.isStopped ? nil : Hub.of($0) }
        super.init()
    }

    deinit {
        if isAdvertising { hub?.stopAdvertising(self) }
    }

    /// Starts advertising; a service type or discovery info against the framework's rules, or no device to run on,
    /// is told to ``MCNearbyServiceAdvertiserDelegate/advertiser(_:didNotStartAdvertisingPeer:)`` instead.
    open func startAdvertisingPeer() {
        guard !isAdvertising else { return }
        var problem = serviceTypeProblem(serviceType)
        if problem == nil, let info = discoveryInfo {
            let bytes = info.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 }
            if bytes > 400 { problem = "discovery info is at most 400 bytes in all, got \(bytes)" }
            if info.contains(where: { $0.key.utf8.count + $0.value.utf8.count + 1 > 255 }) {
                problem = "a discovery info entry is at most 255 bytes"
            }
        }
        guard let hub, problem == nil else {
            let error = MCError(problem == nil ? .unavailable : .invalidParameter,
                                detail: problem ?? "the advertiser is not on a simulated device")
            if let hub {
                hub.later { [weak self] in if let self { self.delegate?.advertiser(self, didNotStartAdvertisingPeer: error) } }
            } else {
                delegate?.advertiser(self, didNotStartAdvertisingPeer: error)
            }
            return
        }
        isAdvertising = true
        hub.advertise(self)
    }

    /// Stops advertising: the browsers that found it lose it.
    open func stopAdvertisingPeer() {
        guard isAdvertising else { return }
        isAdvertising = false
        hub?.stopAdvertising(self)
    }

    /// An invitation arrived: the app's handler decides, once.
    func invited(by inviter: MCPeerID, from device: PeerID, invitation: UInt64, session remoteSession: UInt64,
                 context: [UInt8]?) {
        guard let delegate, let hub else {
            try? hub?.send(.answer(id: invitation, accepted: false, session: 0, uid: myPeerID.uid, name: ""), to: device)
            return
        }
        var answered = false
        let handler: (Bool, MCSession?) -> Void = { [weak hub] accept, session in
            guard !answered, let hub else { return }
            answered = true
            guard accept, let session, session.hub === hub,
                  session.admit(inviter, on: device, invitation: invitation, remoteSession: remoteSession) else {
                try? hub.send(.answer(id: invitation, accepted: false, session: 0, uid: 0, name: ""), to: device)
                return
            }
            try? hub.send(.answer(id: invitation, accepted: true, session: session.id, uid: session.myPeerID.uid,
                                  name: session.myPeerID.displayName), to: device)
        }
        delegate.advertiser(self, didReceiveInvitationFromPeer: inviter, withContext: context.map { Data($0) },
                            invitationHandler: handler)
    }
}

/// Finds the peers that advertise its service type on the devices its own is connected to in the room, shaped like
/// Apple's browser, on the simulated device whose app makes it, and invites them into sessions.
open class MCNearbyServiceBrowser: NSObject, @unchecked Sendable {
    public weak var delegate: (any MCNearbyServiceBrowserDelegate)?
    public let myPeerID: MCPeerID
    public let serviceType: String
    private(set) var isBrowsing = false
    private let hub: Hub?

    public init(peer myPeerID: MCPeerID, serviceType: String) {
        self.myPeerID = myPeerID
        self.serviceType = serviceType
        SimulatedDevice.madeOffPhone("MCNearbyServiceBrowser(peer:serviceType:)")
        hub = SimulatedDevice.current.flatMap { $0.isStopped ? nil : Hub.of($0) }
        super.init()
    }

    /// Starts browsing: the peers already advertising are found first, then each as it appears.
    open func startBrowsingForPeers() {
        guard !isBrowsing else { return }
        let problem = serviceTypeProblem(serviceType)
        guard let hub, problem == nil else {
            let error = MCError(problem == nil ? .unavailable : .invalidParameter,
                                detail: problem ?? "the browser is not on a simulated device")
            if let hub {
                hub.later { [weak self] in if let self { self.delegate?.browser(self, didNotStartBrowsingForPeers: error) } }
            } else {
                delegate?.browser(self, didNotStartBrowsingForPeers: error)
            }
            return
        }
        isBrowsing = true
        hub.browse(self)
    }

    open func stopBrowsingForPeers() {
        isBrowsing = false
        hub?.stopBrowsing(self)
    }

    /// Invites a found peer into `session`, with `context` for its advertiser's delegate. The session's delegate is
    /// told `.connecting`, then `.connected` when the peer accepts, or `.notConnected` when it declines, when
    /// `timeout` seconds pass without an answer (30 when 0 or less), or when the peer was never found or the
    /// session is full (8 peers). A peer the session already holds (connected, or being connected) is left as it
    /// is and nothing is told: Apple documents no outcome, and a `.notConnected` for a peer that stays in
    /// `connectedPeers` would leave an app believing the opposite of the session.
    open func invitePeer(_ peerID: MCPeerID, to session: MCSession, withContext context: Data?, timeout: TimeInterval) {
        guard SimulatedDevice.admits("MCNearbyServiceBrowser.invitePeer") else { return }
        if session.holds(peerID) { return }
        guard let hub, session.hub === hub, let device = hub.host(of: peerID), session.canAdd(peerID) else {
            if let hub {
                hub.later { [weak session] in
                    guard let session else { return }
                    session.delegate?.session(session, peer: peerID, didChange: .notConnected)
                }
            }
            return
        }
        let invitation = hub.nextID()
        session.inviting(peerID, on: device, invitation: invitation, timeout: timeout > 0 ? timeout : 30)
        try? hub.send(.invite(id: invitation, from: session.myPeerID.uid, name: session.myPeerID.displayName,
                              session: session.id, to: peerID.uid, context: context.map { [UInt8]($0) }), to: device)
    }

    func found(_ peer: MCPeerID, info: [String: String]?) {
        guard isBrowsing else { return }
        delegate?.browser(self, foundPeer: peer, withDiscoveryInfo: info)
    }

    func lost(_ peer: MCPeerID) {
        guard isBrowsing else { return }
        delegate?.browser(self, lostPeer: peer)
    }
}
