import DeviceInterface
/// Told what a device's peer-to-peer framework reports, on the thread that advances the room: peers found and lost
/// (with the discovery info they advertise), connections, data received.
public protocol SimulatedDeviceDelegate: AnyObject {
    /// A peer (this life of it) was found, with the discovery info it advertises.
    func device(_ device: SimulatedDevice, found peer: PeerID, discoveryInfo: [String: String])
    /// A peer said goodbye or fell silent.
    func device(_ device: SimulatedDevice, lost peer: PeerID)
    /// The two devices are connected and may send each other data.
    func device(_ device: SimulatedDevice, connected peer: PeerID)
    /// The connection with a peer ended (the peer was lost, or came back as a new life): data sent to it before
    /// and not yet delivered is lost.
    func device(_ device: SimulatedDevice, disconnected peer: PeerID)
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
    public func device(_ device: SimulatedDevice, disconnected peer: PeerID) {}
    public func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID) {}
    public func device(_ device: SimulatedDevice, invitedBy peer: PeerID) {}
}

/// One simulated phone's life: its discovery (it advertises its discovery info and browses from the start; it
/// connects to every peer it finds, or, with ``RoomConfiguration/Connections/byConsent``, to those its app invites or
/// accepts), its data channel to connected peers, and the ranging sessions its app makes.
///
/// A device object is one life of the phone: ``SimulatedRoom/stop(_:goodbye:)`` ends it and
/// ``SimulatedRoom/restart(_:)`` returns the next one (same index, same peer id). An ended life is cut off, as a
/// killed app is: its delegate, its timers and its accelerometer handler hear nothing more, its sends throw, and its
/// sessions are invalidated (`sessionFailed`, "the device stopped") without a word to their delegates.
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
    /// Times the phone was restarted before this life (0 for the first).
    public let restarts: Int
    /// What the Apple-shaped faces keep for this device, by face.
    @_spi(Faces) public var faceState: [String: AnyObject] = [:]
    /// Whether this life has ended (``SimulatedRoom/stop(_:goodbye:)`` or ``SimulatedRoom/restart(_:)``): nothing
    /// it asks for is done any more.
    public internal(set) var isStopped = false

    weak var room: SimulatedRoom?

    /// The phone's own clock now, seconds since it started (as `ProcessInfo.systemUptime` reads on a phone): what
    /// its updates' timestamps are on. Phones' clocks differ by hours and drift apart by up to 40 µs a second, so a
    /// timestamp from a peer says nothing until the two clocks are compared. `nil` once the room is gone.
    public var uptime: Double? {
        guard let room else { return nil }
        return room.uptime(of: index, at: room.now)
    }

    init(index: Int, peerID: PeerID, discoveryInfo: [String: String], restarts: Int, room: SimulatedRoom) {
        self.index = index
        self.peerID = peerID
        self.discoveryInfo = discoveryInfo
        self.restarts = restarts
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
        guard !isStopped else { return }
        accelerometerHandler = handler
    }

    /// Stops the samples; the handler hears no more.
    public func stopAccelerometerUpdates() {
        accelerometerHandler = nil
    }

    /// The handler of its gyroscope's samples (``startGyroUpdates(_:)``).
    var gyroHandler: ((GyroSample) -> Void)?

    /// Starts handing the device's gyroscope samples to `handler`, as Core Motion's gyro updates do: the rate the
    /// phone turns at about its own axes, rad/s, taken at its accelerometer's instants and handed out as they are. A
    /// second call replaces the handler.
    public func startGyroUpdates(_ handler: @escaping (GyroSample) -> Void) {
        guard !isStopped else { return }
        gyroHandler = handler
    }

    /// Stops the gyroscope's samples; the handler hears no more.
    public func stopGyroUpdates() {
        gyroHandler = nil
    }

    /// A face's own listener to the motion sensors (Core Motion's), beside the app's handlers: each batch of samples
    /// the room's clock has reached, the accelerometer's and the gyroscope's of the same instants.
    @_spi(Faces)
    public struct MotionObserver {
        public weak var owner: AnyObject?
        public let handler: (ArraySlice<AccelerometerSample>, ArraySlice<GyroSample>) -> Void
    }
    var motionObservers: [MotionObserver] = []

    /// Starts handing `owner`'s `handler` the samples, in the order observers were added; again replaces it.
    @_spi(Faces)
    public func observeMotion(_ owner: AnyObject,
                              _ handler: @escaping (ArraySlice<AccelerometerSample>, ArraySlice<GyroSample>) -> Void) {
        guard !isStopped else { return }
        motionObservers.removeAll { $0.owner == nil || $0.owner === owner }
        motionObservers.append(MotionObserver(owner: owner, handler: handler))
    }

    /// `owner` hears no more samples.
    @_spi(Faces)
    public func stopObservingMotion(_ owner: AnyObject) {
        motionObservers.removeAll { $0.owner == nil || $0.owner === owner }
    }

    /// The rate this phone's accelerometer and gyroscope sample at, Hz: the most an app can have.
    @_spi(Faces)
    public var sensorRate: Double? { room?.sensorRate }

    /// Runs `action` as this device's app (``perform(_:)``) after `seconds` of the room's clock, and again every
    /// `repeating` seconds if given (a timer on the app's run loop, as `Timer` or `asyncAfter` set one on a phone).
    /// It never fires once the device's life has ended or the returned timer is cancelled.
    @discardableResult
    public func schedule(after seconds: Double, repeating interval: Double? = nil,
                         _ action: @escaping () -> Void) -> RoomTimer {
        let timer = RoomTimer()
        guard let room, !isStopped else {
            timer.cancel()
            return timer
        }
        room.fire(timer, on: self, at: room.now + max(seconds, 0), repeating: interval.map { max($0, 0.001) }, action)
        return timer
    }

    /// Sends data to a connected peer. `.reliable` (the default) data arrives once, whole and in order, however the
    /// network treats its datagrams: lost ones are sent again until the connection ends. `.unreliable` data
    /// arrives after the network's delay, or never if the network loses it (at most 1,024 bytes a message).
    ///
    /// - Throws: ``SimulatorError`` when the device has stopped, the peer is not in the room or not connected, or
    ///   an unreliable message is too long.
    public func send(_ data: [UInt8], to peer: PeerID, mode: DataMode = .reliable) throws(SimulatorError) {
        guard let room else { throw SimulatorError("the room is gone") }
        guard !isStopped else { throw SimulatorError("device \(peerID) has stopped: its app is cut off") }
        try room.send(data, from: self, to: peer, mode: mode)
    }

    /// With ``RoomConfiguration/discoveryStartsWithApp``: starts advertising the device's discovery info and browsing
    /// for peers (both at once, as the nodes do), on the room's clock; again does nothing.
    public func startDiscovery() {
        guard !isStopped else { return }
        room?.startDiscovery(self)
    }

    /// With ``RoomConfiguration/Connections/byConsent``: invites a found peer to connect (or, found later, when it
    /// is found). The peer's app is asked (``SimulatedDeviceDelegate/device(_:invitedBy:)``).
    public func invite(_ peer: PeerID) {
        guard !isStopped else { return }
        room?.consent(self, to: peer)
    }

    /// With ``RoomConfiguration/Connections/byConsent``: accepts a peer's invitation; both are then connected.
    public func accept(_ peer: PeerID) {
        guard !isStopped else { return }
        room?.consent(self, to: peer)
    }

    /// A new ranging session with a token of its own; run it with the peer session's token. On a stopped device
    /// the session is born invalidated (`sessionFailed`).
    public func makeSession() -> NearbySession {
        guard let room else { preconditionFailure("device \(peerID) outlived its room") }
        return room.makeSession(on: self)
    }
}

/// How ``SimulatedDevice/send(_:to:mode:)`` treats a message, as a peer-to-peer framework's send modes do.
public enum DataMode: Sendable, Equatable {
    /// Arrives once, whole and in order, while the two stay connected: sent again until acknowledged.
    case reliable
    /// One datagram: arrives after the network's delay, or never.
    case unreliable
}

/// A timer on the room's clock (``SimulatedDevice/schedule(after:repeating:_:)``).
public final class RoomTimer {
    /// Whether the timer was cancelled (or never could fire).
    public private(set) var isCancelled = false

    init() {}

    /// The timer fires no more.
    public func cancel() {
        isCancelled = true
    }
}
