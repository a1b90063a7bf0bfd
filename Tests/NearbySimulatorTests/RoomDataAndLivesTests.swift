import NearbySimulator
import Testing

/// Records what one device's app is told, and whose context each call ran in.
private final class Listener: SimulatedDeviceDelegate, NearbySessionDelegate {
    var received: [(PeerID, [UInt8])] = []
    var connected: [PeerID] = []
    var calls = 0
    var outOfContext = 0
    var sessionCalls = 0
    weak var device: SimulatedDevice?

    init(_ device: SimulatedDevice) {
        self.device = device
        device.delegate = self
    }

    private func heard() {
        calls += 1
        if SimulatedDevice.current !== device { outOfContext += 1 }
    }

    func device(_ device: SimulatedDevice, found peer: PeerID, discoveryInfo: [String: String]) { heard() }
    func device(_ device: SimulatedDevice, lost peer: PeerID) { heard() }
    func device(_ device: SimulatedDevice, connected peer: PeerID) {
        heard()
        connected.append(peer)
    }
    func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID) {
        heard()
        received.append((peer, data))
    }
    func session(_ session: NearbySession, didUpdate update: NearbyUpdate) { sessionCalls += 1 }
    func session(_ session: NearbySession, didInvalidateWith error: SessionError) { sessionCalls += 1 }
}

@Suite struct RoomDataTests {
    private static func room(peers: Int = 2, network: NetworkConditions = NetworkConditions(), seed: UInt64 = 1)
        throws -> SimulatedRoom {
        var configuration = RoomConfiguration()
        configuration.peers = peers
        configuration.network = network
        configuration.seed = seed
        configuration.policy = .ideal
        return try SimulatedRoom(configuration)
    }

    /// At 20% loss, 30% duplication and 30% reordering, 300 numbered messages and one of 5,000 bytes sent
    /// `.reliable` arrive each once, whole and in order; the channel paid for the loss with retransmissions.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func reliableDataArrivesOnceWholeAndInOrder(seed: UInt64) throws {
        var network = NetworkConditions(loss: 0.2, duplication: 0.3, reordering: 0.3)
        network.jitter = 0.01
        let room = try Self.room(network: network, seed: seed)
        let (a, b) = (room.devices[0], room.devices[1])
        let listener = Listener(b)
        room.advance(by: 3)
        try #require(a.connectedPeers.contains(b.peerID))
        let big = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for k in 0..<300 {
            try a.send([UInt8(k & 0xFF), UInt8(k >> 8)], to: b.peerID)
            if k == 150 { try a.send(big, to: b.peerID) }
            if k % 10 == 0 { room.advance(by: 0.01) }
        }
        room.advance(by: 20)
        let numbers = listener.received.compactMap { $0.1.count == 2 ? Int($0.1[0]) | Int($0.1[1]) << 8 : nil }
        #expect(numbers == Array(0..<300))
        #expect(listener.received.count == 301)
        #expect(listener.received.filter { $0.1 == big }.count == 1)
        #expect(listener.received.allSatisfy { $0.0 == a.peerID })
        let counters = room.dataCounters
        #expect(counters.reliableMessages == 301 && counters.delivered == 301)
        // Each of the ~306 segments and its acknowledgement crosses a 20%-loss network: about a third go again.
        #expect(counters.retransmissions > 50, "\(counters)")
        #expect(counters.malformed == 0)
    }

    /// `.unreliable` data is one datagram: at 20% loss about a fifth of 1,000 messages never arrive, none twice;
    /// one over 1,024 bytes is refused by name.
    @Test func unreliableDataIsLossy() throws {
        let room = try Self.room(network: NetworkConditions(loss: 0.2))
        let (a, b) = (room.devices[0], room.devices[1])
        let listener = Listener(b)
        room.advance(by: 3)
        for k in 0..<1000 { try a.send([UInt8(k & 0xFF), UInt8(k >> 8)], to: b.peerID, mode: .unreliable) }
        room.advance(by: 1)
        // Binomial(1000, 0.8): 800 ± 12.6; 5 standard deviations either way.
        #expect(abs(listener.received.count - 800) < 64, "\(listener.received.count)")
        #expect(Set(listener.received.map { $0.1 }).count == listener.received.count)
        #expect(throws: SimulatorError.self) { try a.send([UInt8](repeating: 0, count: 1025), to: b.peerID, mode: .unreliable) }
        #expect(room.dataCounters.retransmissions == 0)
    }

    /// Sending to a peer not connected, or not in the room, throws an error that names it.
    @Test func sendingWithoutAConnectionIsRefused() throws {
        let room = try Self.room()
        let (a, b) = (room.devices[0], room.devices[1])
        do {
            try a.send([1], to: b.peerID)
            Issue.record("sent before any connection")
        } catch {
            #expect(error.message.contains("not connected"))
        }
        do {
            try a.send([1], to: PeerID(0xBEEF))
            Issue.record("sent to a stranger")
        } catch {
            #expect(error.message.contains("no device"))
        }
    }
}

@Suite struct DeviceLifeTests {
    /// Every call the room makes to an app (found, connected, data, session updates, timers, samples) runs in
    /// its device's context.
    @Test func appsAreCalledInTheirDevicesContext() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 4
        let room = try SimulatedRoom(configuration)
        let listeners = room.devices.map(Listener.init)
        var timerContext: [Bool] = []
        var sampleContexts = 0, samples = 0, turns = 0
        for device in room.devices {
            device.schedule(after: 1) { timerContext.append(SimulatedDevice.current === device) }
            device.startAccelerometerUpdates { _ in
                samples += 1
                if SimulatedDevice.current === device { sampleContexts += 1 }
            }
            device.startGyroUpdates { _ in
                turns += 1
                if SimulatedDevice.current === device { sampleContexts += 1 }
            }
        }
        room.advance(by: 4)
        #expect(listeners.allSatisfy { $0.calls >= 6 && $0.outOfContext == 0 })
        #expect(timerContext == [true, true, true, true])
        // Four phones' 100-Hz samples over 4 s, each phone's stamps up to 10 ms late (the iOS profile's lag): the
        // last one of each may not be due yet.
        #expect(samples >= 1596 && samples <= 1600 && turns == samples && sampleContexts == samples + turns)
        #expect(SimulatedDevice.current == nil)
        #expect(room.devices[2].perform { SimulatedDevice.current } === room.devices[2])
    }

    /// A repeating timer fires every interval on the room's clock until cancelled; a stopped device's timers never fire.
    @Test func timersRepeatUntilCancelledAndDieWithTheirLife() throws {
        let room = try SimulatedRoom()
        var times: [Double] = []
        let timer = room.devices[0].schedule(after: 0.5, repeating: 0.25) { times.append(room.now) }
        var stoppedFired = 0
        room.devices[1].schedule(after: 1, repeating: 1) { stoppedFired += 1 }
        room.advance(by: 1.6)
        timer.cancel()
        room.stop(room.devices[1], goodbye: false)
        room.advance(by: 3)
        #expect(times == [0.5, 0.75, 1.0, 1.25, 1.5])
        #expect(stoppedFired == 1)
        #expect(room.devices[1].schedule(after: 0) {}.isCancelled)
    }

    /// A stopped device's old app is cut off: no callbacks, its sends refused, its sessions invalidated with
    /// `sessionFailed` without a word to their delegates, a session made afterwards born invalidated.
    @Test func aStoppedDevicesAppIsCutOff() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 4
        configuration.policy = .ideal
        let room = try SimulatedRoom(configuration)
        let apps = room.devices.map(App.init)
        room.advance(by: 5)
        let stopped = room.devices[0], old = apps[0]
        let listener = Listener(stopped)
        let session = try #require(old.sessions.values.first)
        session.delegate = listener
        try #require(session.state == .running)
        room.stop(stopped, goodbye: false)
        #expect(stopped.isStopped && stopped.connectedPeers.isEmpty)
        #expect(session.state == .invalidated && session.invalidationError?.code == .sessionFailed)
        #expect(listener.sessionCalls == 0)
        let callsAtStop = listener.calls
        room.advance(by: 20)
        #expect(listener.calls == callsAtStop && listener.sessionCalls == 0)
        #expect(throws: SimulatorError.self) { try stopped.send([1], to: room.devices[1].peerID) }
        let late = stopped.makeSession()
        #expect(late.state == .invalidated && late.invalidationError?.code == .sessionFailed)
        // Its peers removed it, having heard nothing from it since.
        #expect(apps[1...].allSatisfy { $0.removed[stopped.peerID] == .timeout })
    }

    /// A silent stop is noticed when the announcements stop coming: with the default timing, 5 to 6 s later.
    @Test func aSilentStopIsNoticedWithinSixSeconds() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 6
        let room = try SimulatedRoom(configuration)
        let apps = room.devices.map(App.init)
        room.advance(by: 5)
        let stopped = room.devices[5]
        var removedAt: [Double] = []
        final class Watch: NearbySessionDelegate {
            let onRemove: () -> Void
            init(_ onRemove: @escaping () -> Void) { self.onRemove = onRemove }
            func session(_ session: NearbySession, didRemove peer: PeerID, reason: SessionRemovalReason) { onRemove() }
        }
        let watch = Watch { removedAt.append(room.now) }
        for app in apps.prefix(5) { app.sessions[stopped.peerID]?.delegate = watch }
        room.stop(stopped, goodbye: false)
        room.advance(by: 15)
        #expect(removedAt.count == 5)
        #expect(removedAt.allSatisfy { $0 - 5 >= 4 && $0 - 5 <= 7 }, "\(removedAt.map { $0 - 5 })")
    }

    /// 30 devices; 5 restart at once, each given a new app on its new life: within 10 s every pair is connected
    /// both ways with one running session per peer, nothing duplicated, and the old lives heard nothing.
    @Test func restartsAtThirtyDevicesLeaveNoPairHalfConnected() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 30
        configuration.policy = .ideal
        configuration.obstructions = false
        let room = try SimulatedRoom(configuration)
        var apps = room.devices.map(App.init)
        room.advance(by: 8)
        let restarted = [3, 7, 11, 19, 28]
        let olds = restarted.map { apps[$0] }
        let heardBefore = olds.map { ($0.updates, $0.sessions.count, $0.removed.count) }
        for k in restarted {
            apps[k] = App(try room.restart(room.devices[k]))
            #expect(!room.devices[k].isStopped && room.devices[k].restarts == 1)
        }
        #expect(olds.allSatisfy { $0.device.isStopped })
        room.advance(by: 10)
        #expect(olds.map { ($0.updates, $0.sessions.count, $0.removed.count) }.elementsEqual(heardBefore, by: ==))
        for (k, app) in apps.enumerated() {
            #expect(app.device.connectedPeers.count == 29, "device \(k): \(app.device.connectedPeers.count)")
            #expect(app.sessions.count == 29 && app.sessions.values.allSatisfy { $0.state == .running },
                    "device \(k): \(app.sessions.values.filter { $0.state != .running }.count) not running")
        }
    }
}
