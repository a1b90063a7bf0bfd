/// Told what a device's peer-to-peer framework reports, on the thread that advances the room: peers found and lost
/// (with the discovery info they advertise), connections, data received.
public protocol SimulatedDeviceDelegate: AnyObject {
    /// A peer (this life of it) was found, with the discovery info it advertises.
    func device(_ device: SimulatedDevice, found peer: PeerID, discoveryInfo: [String: String])
    /// A peer said goodbye or fell silent.
    func device(_ device: SimulatedDevice, lost peer: PeerID)
    /// The two devices are connected and may send each other data.
    func device(_ device: SimulatedDevice, connected peer: PeerID)
    /// A connected peer sent data (or a test injected it: ``SimulatedRoom/inject(_:to:from:)``).
    func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID)
    /// With ``RoomConfiguration/Connections/byConsent``: `peer` invited this device (or asked to be invited); call
    /// ``SimulatedDevice/accept(_:)`` to connect, now or later, or nothing to decline.
    func device(_ device: SimulatedDevice, invitedBy peer: PeerID)
}

/// Every method is optional: by default it does nothing.
extension SimulatedDeviceDelegate {
    public func device(_ device: SimulatedDevice, found peer: PeerID, discoveryInfo: [String: String]) {}
    public func device(_ device: SimulatedDevice, lost peer: PeerID) {}
    public func device(_ device: SimulatedDevice, connected peer: PeerID) {}
    public func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID) {}
    public func device(_ device: SimulatedDevice, invitedBy peer: PeerID) {}
}

/// One simulated phone: its discovery (it advertises its discovery info and browses from the start; it connects to
/// every peer it finds, or, with ``RoomConfiguration/Connections/byConsent``, to those its app invites or
/// accepts), its data channel to connected peers, and the ranging sessions its app makes.
///
/// Used on the thread that advances the room.
public final class SimulatedDevice {
    /// The device's index in the room, 0 to `peers - 1`.
    public let index: Int
    /// Its identity: the same after a restart.
    public let peerID: PeerID
    /// What it advertises (its interests, under `interests`, comma-separated).
    public let discoveryInfo: [String: String]
    /// Told what the device's peer-to-peer framework reports.
    public weak var delegate: SimulatedDeviceDelegate?
    /// The peers it is connected to now.
    public internal(set) var connectedPeers: Set<PeerID> = []
    /// Times the device was restarted (a new incarnation with new tokens).
    public internal(set) var restarts = 0

    weak var room: SimulatedRoom?

    /// The phone's own clock now, seconds since it started (as `ProcessInfo.systemUptime` reads on a phone): what
    /// its updates' timestamps are on. Phones' clocks differ by hours and drift apart by up to 40 µs a second, so a
    /// timestamp from a peer says nothing until the two clocks are compared. `nil` once the room is gone.
    public var uptime: Double? {
        guard let room else { return nil }
        return room.uptime(of: index, at: room.now)
    }

    init(index: Int, peerID: PeerID, discoveryInfo: [String: String], room: SimulatedRoom) {
        self.index = index
        self.peerID = peerID
        self.discoveryInfo = discoveryInfo
        self.room = room
    }

    /// The handler of its accelerometer's samples (``startAccelerometerUpdates(_:)``).
    var accelerometerHandler: ((AccelerometerSample) -> Void)?

    /// Starts handing the device's accelerometer samples to `handler`, as Core Motion's accelerometer updates do: each
    /// sample once the room's clock has reached it, on the thread that advances the room, at the rate the room's
    /// ``RoomConfiguration/accelerometerRate`` gives, stamped on the device's own clock (``uptime``). The readings are
    /// the specific force in m/s² in the phone's frame (a phone lying screen-up reads +9.8 on z; Core Motion reads
    /// the opposite sign, in g). A second call replaces the handler.
    public func startAccelerometerUpdates(_ handler: @escaping (AccelerometerSample) -> Void) {
        accelerometerHandler = handler
    }

    /// Stops the samples; the handler hears no more.
    public func stopAccelerometerUpdates() {
        accelerometerHandler = nil
    }

    /// Runs `action` on the thread that advances the room after `seconds` of the room's clock (a timer, as an app
    /// sets one on its run loop).
    public func schedule(after seconds: Double, _ action: @escaping () -> Void) {
        guard let room else { return }
        room.schedule(at: room.now + max(seconds, 0), action)
    }

    /// Sends data to a connected peer; it arrives after the network's delay, or never if the network loses it.
    ///
    /// - Throws: ``SimulatorError`` when the peer is not in the room or not connected.
    public func send(_ data: [UInt8], to peer: PeerID) throws(SimulatorError) {
        guard let room else { throw SimulatorError("the room is gone") }
        try room.send(data, from: self, to: peer)
    }

    /// With ``RoomConfiguration/discoveryStartsWithApp``: starts advertising the device's discovery info and browsing
    /// for peers (both at once, as the nodes do), on the room's clock; again does nothing.
    public func startDiscovery() {
        room?.startDiscovery(self)
    }

    /// With ``RoomConfiguration/Connections/byConsent``: invites a found peer to connect (or, found later, when it
    /// is found). The peer's app is asked (``SimulatedDeviceDelegate/device(_:invitedBy:)``).
    public func invite(_ peer: PeerID) {
        room?.consent(self, to: peer)
    }

    /// With ``RoomConfiguration/Connections/byConsent``: accepts a peer's invitation; both are then connected.
    public func accept(_ peer: PeerID) {
        room?.consent(self, to: peer)
    }

    /// A new ranging session with a token of its own; run it with the peer session's token.
    public func makeSession() -> NearbySession {
        guard let room else { preconditionFailure("device \(peerID) outlived its room") }
        return room.makeSession(on: self)
    }
}
