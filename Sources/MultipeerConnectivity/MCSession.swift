import Foundation
@_exported import AppQueues
@_spi(Faces) import NearbySimulator

/// Told what happens in an ``MCSession``, shaped like Apple's delegate. Stream and resource transfers are declared
/// for the API's sake and never happen in the simulated room.
public protocol MCSessionDelegate: NSObjectProtocol {
    /// A peer's state in the session changed: connecting, connected, not connected.
    func session(_ session: MCSession, peer peerID: MCPeerID, didChange state: MCSessionState)
    /// A connected peer sent data.
    func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID)
    func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String, fromPeer peerID: MCPeerID)
    func session(_ session: MCSession, didStartReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID,
                 with progress: Progress)
    func session(_ session: MCSession, didFinishReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID,
                 at localURL: URL?, withError error: Error?)
    /// The peer's certificate: the simulated room has none to check, and by default every peer is accepted.
    func session(_ session: MCSession, didReceiveCertificate certificate: [Any]?, fromPeer peerID: MCPeerID,
                 certificateHandler: @escaping (Bool) -> Void)
}

extension MCSessionDelegate {
    public func session(_ session: MCSession, peer peerID: MCPeerID, didChange state: MCSessionState) {}
    public func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID) {}
    public func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String,
                        fromPeer peerID: MCPeerID) {}
    public func session(_ session: MCSession, didStartReceivingResourceWithName resourceName: String,
                        fromPeer peerID: MCPeerID, with progress: Progress) {}
    public func session(_ session: MCSession, didFinishReceivingResourceWithName resourceName: String,
                        fromPeer peerID: MCPeerID, at localURL: URL?, withError error: Error?) {}
    public func session(_ session: MCSession, didReceiveCertificate certificate: [Any]?, fromPeer peerID: MCPeerID,
                        certificateHandler: @escaping (Bool) -> Void) {
        certificateHandler(true)
    }
}

/// A session of up to 8 peers (this one included), shaped like Apple's `MCSession`, on the simulated device whose
/// app makes it (``SimulatedDevice/current``). Peers join by invitation (``MCNearbyServiceBrowser/invitePeer(_:to:withContext:timeout:)``
/// and the advertiser's invitation handler); connected peers send each other data, `.reliable` (retransmitted, in
/// order) or `.unreliable` (one datagram) over the room's network. A peer whose device is lost, restarted or
/// stopped goes `.notConnected`. The delegate is called on the room's thread at the time on the room's clock a
/// change happens; changes the app itself causes are told after its call returns. A session the app lets go of
/// ends, as Apple's does.
open class MCSession: NSObject, @unchecked Sendable {
    /// Told what happens in the session.
    public weak var delegate: (any MCSessionDelegate)?
    /// This side's identity.
    public let myPeerID: MCPeerID
    /// Accepted for the API's sake.
    public let securityIdentity: [Any]?
    /// Accepted for the API's sake.
    public let encryptionPreference: MCEncryptionPreference

    struct Remote {
        var peer: MCPeerID
        let device: PeerID
        var session: UInt64
        var state: MCSessionState
        let invitation: UInt64
    }

    let hub: Hub?
    let id: UInt64
    private var remotes: [Remote] = []

    public init(peer myPeerID: MCPeerID, securityIdentity identity: [Any]?, encryptionPreference: MCEncryptionPreference) {
        self.myPeerID = myPeerID
        securityIdentity = identity
        self.encryptionPreference = encryptionPreference
        SimulatedDevice.madeOffPhone("MCSession(peer:securityIdentity:encryptionPreference:)")
        hub = SimulatedDevice.current.flatMap { $0.isStopped ? nil : Hub.of($0) }
        id = hub?.nextID() ?? 0
        super.init()
        hub?.sessions[id] = Weak(object: self)
    }

    public convenience init(peer myPeerID: MCPeerID) {
        self.init(peer: myPeerID, securityIdentity: nil, encryptionPreference: .optional)
    }

    deinit {
        hub?.sessions[id] = nil
        guard let hub else { return }
        for remote in remotes where remote.session != 0 {
            try? hub.send(.leave(toSession: remote.session, from: myPeerID.uid), to: remote.device)
        }
    }

    /// The peers connected now, in the order they connected.
    public var connectedPeers: [MCPeerID] { remotes.filter { $0.state == .connected }.map(\.peer) }

    /// Sends `data` to each of `peerIDs`.
    ///
    /// - Throws: ``MCError`` `.notConnected` when one of them is not connected (nothing is sent), `.invalidParameter`
    ///   for no peers or unreliable data too long for one datagram.
    open func send(_ data: Data, toPeers peerIDs: [MCPeerID], with mode: MCSessionSendDataMode) throws {
        guard SimulatedDevice.admits("MCSession.send(_:toPeers:with:)") else {
            throw MCError(.unavailable, detail: "sent from work outside the room's call into the app")
        }
        guard let hub else { throw MCError(.unavailable, detail: "the session is not on a simulated device") }
        guard !peerIDs.isEmpty else { throw MCError(.invalidParameter, detail: "no peers to send to") }
        var targets: [Remote] = []
        for peer in peerIDs {
            guard let remote = remotes.first(where: { $0.peer == peer && $0.state == .connected }) else {
                throw MCError(.notConnected, detail: "\(peer.displayName) is not connected")
            }
            targets.append(remote)
        }
        let payload = [UInt8](data)
        for remote in targets {
            let message = FaceMessage.data(toSession: remote.session, from: myPeerID.uid, payload: payload)
            do {
                try hub.send(message, to: remote.device, mode: mode == .reliable ? .reliable : .unreliable)
            } catch {
                throw MCError(mode == .unreliable ? .invalidParameter : .notConnected, detail: error.message)
            }
        }
    }

    /// Leaves the session: every peer is told, and goes `.notConnected` here and there.
    open func disconnect() {
        guard SimulatedDevice.admits("MCSession.disconnect()") else { return }
        let leaving = remotes
        remotes = []
        for remote in leaving {
            if remote.session != 0 { try? hub?.send(.leave(toSession: remote.session, from: myPeerID.uid), to: remote.device) }
            hub?.later { [weak self] in self?.tell(remote.peer, .notConnected) }
        }
    }

    /// Resource transfers are not simulated: the completion handler is told `unsupported`.
    open func sendResource(at resourceURL: URL, withName resourceName: String, toPeer peerID: MCPeerID,
                           withCompletionHandler completionHandler: ((Error?) -> Void)? = nil) -> Progress? {
        let error = MCError(.unsupported, detail: "resource transfers are not simulated")
        if let hub { hub.later { completionHandler?(error) } } else { completionHandler?(error) }
        return nil
    }

    /// Streams are not simulated.
    ///
    /// - Throws: ``MCError`` `.unsupported`.
    open func startStream(withName streamName: String, toPeer peerID: MCPeerID) throws -> OutputStream {
        throw MCError(.unsupported, detail: "streams are not simulated")
    }

    /// Out-of-band connections are not simulated: the handler is told `unsupported`.
    open func nearbyConnectionData(forPeer peerID: MCPeerID, withCompletionHandler completionHandler: @escaping (Data?, Error?) -> Void) {
        completionHandler(nil, MCError(.unsupported, detail: "out-of-band connections are not simulated"))
    }

    /// Out-of-band connections are not simulated: nothing happens.
    open func connectPeer(_ peerID: MCPeerID, withNearbyConnectionData data: Data) {}

    /// Out-of-band connections are not simulated: nothing happens.
    open func cancelConnectPeer(_ peerID: MCPeerID) {}

    // MARK: - For the hub, the browser and the advertiser

    private func tell(_ peer: MCPeerID, _ state: MCSessionState) {
        guard let delegate else { return }
        delegate.session(self, peer: peer, didChange: state)
    }

    /// Whether the session has room for one more peer and is not already with `peer` (the inviting side).
    /// Whether `peer` is connected to this session or being connected.
    func holds(_ peer: MCPeerID) -> Bool {
        remotes.contains { $0.peer == peer }
    }

    func canAdd(_ peer: MCPeerID) -> Bool {
        remotes.count < kMCSessionMaximumNumberOfPeers - 1 && !remotes.contains { $0.peer == peer }
    }

    /// The inviting side: `peer`, on `device`, is being invited; it times out after `timeout`.
    func inviting(_ peer: MCPeerID, on device: PeerID, invitation: UInt64, timeout: Double) {
        remotes.append(Remote(peer: peer, device: device, session: 0, state: .connecting, invitation: invitation))
        hub?.later { [weak self] in self?.tell(peer, .connecting) }
        hub?.device.schedule(after: timeout) { [weak self] in
            guard let self, let k = self.remotes.firstIndex(where: { $0.invitation == invitation && $0.session == 0 })
            else { return }
            let remote = self.remotes.remove(at: k)
            self.hub?.expired[Invitation(device: device, id: invitation)] = self.myPeerID.uid
            self.tell(remote.peer, .notConnected)
        }
    }

    /// The invited side: the app accepted `peer`'s invitation into this session. `false` when the session is full
    /// or already with the peer. When the two invited each other at once, the invitation of the peer with the lower
    /// identity wins on both sides, so that the pair connects once.
    func admit(_ peer: MCPeerID, on device: PeerID, invitation: UInt64, remoteSession: UInt64) -> Bool {
        let remote = Remote(peer: peer, device: device, session: remoteSession, state: .connecting, invitation: invitation)
        if let k = remotes.firstIndex(where: { $0.peer == peer }) {
            guard remotes[k].state == .connecting, remotes[k].session == 0, peer.uid < myPeerID.uid else { return false }
            remotes[k] = remote
            return true
        }
        guard remotes.count < kMCSessionMaximumNumberOfPeers - 1 else { return false }
        remotes.append(remote)
        hub?.later { [weak self] in self?.tell(peer, .connecting) }
        return true
    }

    /// Whether a peer on `device` is connecting under `invitation` (numbered by whichever side sent it).
    func awaits(invitation: UInt64, on device: PeerID) -> Bool {
        remotes.contains { $0.invitation == invitation && $0.device == device && $0.state == .connecting }
    }

    func answered(invitation: UInt64, accepted: Bool, remoteSession: UInt64) {
        guard let k = remotes.firstIndex(where: { $0.invitation == invitation && $0.session == 0 && $0.state == .connecting })
        else { return }
        let remote = remotes[k]
        guard accepted else {
            remotes.remove(at: k)
            tell(remote.peer, .notConnected)
            return
        }
        remotes[k].session = remoteSession
        remotes[k].state = .connected
        try? hub?.send(.confirm(id: invitation, session: id), to: remote.device)
        tell(remote.peer, .connected)
    }

    func confirmed(invitation: UInt64, from device: PeerID) {
        guard let k = remotes.firstIndex(where: { $0.invitation == invitation && $0.device == device && $0.state == .connecting })
        else { return }
        remotes[k].state = .connected
        tell(remotes[k].peer, .connected)
    }

    /// Data from the peer `uid`; `false` when no such peer is connected in this session.
    func received(_ payload: [UInt8], from uid: UInt64) -> Bool {
        guard let remote = remotes.first(where: { $0.peer.uid == uid && $0.state == .connected }) else { return false }
        delegate?.session(self, didReceive: Data(payload), fromPeer: remote.peer)
        return true
    }

    func left(from uid: UInt64, device: PeerID) {
        guard let k = remotes.firstIndex(where: { $0.peer.uid == uid && $0.device == device }) else { return }
        let remote = remotes.remove(at: k)
        tell(remote.peer, .notConnected)
    }

    /// The room's connection with `device` ended: every peer on it goes `.notConnected`.
    func lost(device: PeerID) {
        let gone = remotes.filter { $0.device == device }
        remotes.removeAll { $0.device == device }
        for remote in gone { tell(remote.peer, .notConnected) }
    }
}
