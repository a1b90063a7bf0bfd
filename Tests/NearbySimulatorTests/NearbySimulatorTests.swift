import Bump
import DeviceInterface
import Foundation
import NearbySimulator
import Testing

/// A small app in NearCatch's pattern: one session per peer (a peer-to-session dictionary), its token sent to the
/// peer when they connect, the peer's token run when it arrives (a token-to-peer check), updates kept per peer.
final class App: SimulatedDeviceDelegate, NearbySessionDelegate {
    let device: SimulatedDevice
    var sessions: [PeerID: NearbySession] = [:]
    var latest: [PeerID: NearbyUpdate] = [:]
    var updates = 0
    var removed: [PeerID: SessionRemovalReason] = [:]
    var unexpected = 0
    var suspensions = 0
    var resumptions = 0

    init(_ device: SimulatedDevice) {
        self.device = device
        device.delegate = self
    }

    func device(_ device: SimulatedDevice, connected peer: PeerID) {
        // A peer seen again (restarted) gets a new session: the old one is invalidated, never kept beside it.
        sessions[peer]?.invalidate()
        let session = device.makeSession()
        session.delegate = self
        sessions[peer] = session
        try? device.send(session.discoveryToken.data, to: peer)
    }

    func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID) {
        guard let session = sessions[peer] else {
            unexpected += 1
            return
        }
        session.run(with: NearbyToken(data: data))
    }

    func session(_ session: NearbySession, didUpdate update: NearbyUpdate) {
        guard let peer = session.peer else { return }
        latest[peer] = update
        updates += 1
    }

    func session(_ session: NearbySession, didRemove peer: PeerID, reason: SessionRemovalReason) {
        removed[peer] = reason
    }

    func sessionWasSuspended(_ session: NearbySession) { suspensions += 1 }
    func sessionSuspensionEnded(_ session: NearbySession) { resumptions += 1 }
}

@Suite struct NearbySimulatorTests {
    /// 20 devices with every pair in the air's reach (`ideal`): after 10 simulated seconds each app holds one
    /// running session per peer, every one ranging, nine estimates in ten within 45 cm of the truth.
    @Test func oneRunningSessionPerPeerAtTwentyPeers() throws {
        var configuration = RoomConfiguration()
        configuration.policy = .ideal
        // About the sessions, not the bodies: with them, a few pairs turned away behind someone never measure.
        configuration.obstructions = false
        let room = try SimulatedRoom(configuration)
        let apps = room.devices.map(App.init)
        room.advance(by: 10)
        #expect(room.now == 10)
        for app in apps {
            #expect(app.sessions.count == 19)
            #expect(app.sessions.values.allSatisfy { $0.state == .running })
            #expect(Set(app.sessions.values.compactMap(\.peer)) == Set(app.sessions.keys))
            #expect(app.latest.count == 19, "\(app.latest.count)")
            #expect(app.unexpected == 0)
        }
        var errors: [Double] = []
        for app in apps {
            // An update's timestamp is on the device's own clock: the last 0.15 s are those after its reading then.
            let since = try #require(app.device.uptime) - 0.15
            for (peer, update) in app.latest where update.timestamp > since {
                guard let d = update.distance, let other = room.devices.first(where: { $0.peerID == peer }) else { continue }
                errors.append(abs(Double(d) - room.trueDistance(app.device, other)))
            }
        }
        // Of the 380 ordered pairs about three quarters are heard in the last 0.15 s (measured 272): the rest stand
        // far apart with a phone turned away, where the link fades.
        #expect(errors.count > 240)
        // The radio's own spread, not the sessions': the 90th percentile over seeds 1 to 6 is 0.29 to 0.37 m with the
        // peer ids of before keys per node and 0.28 to 0.42 m with those of after (ids feed the pairs' random
        // streams); the 0.3 m this held before passed at seed 1 by a millimetre (0.299), and fails at seeds 2, 5, 6.
        #expect(errors.sorted()[errors.count * 9 / 10] < 0.45, "\(errors.sorted().suffix(5))")
    }

    /// The same configuration gives the same room: the same updates at the same times.
    @Test func sameSeedSameRoom() throws {
        func run() throws -> [Double] {
            let room = try SimulatedRoom()
            let apps = room.devices.map(App.init)
            room.advance(by: 8)
            return apps.flatMap { app in app.latest.values.map { Double($0.distance ?? -1) + $0.timestamp } }.sorted()
        }
        let a = try run()
        #expect(a.count > 10)
        #expect(a == (try run()))
    }

    /// A token that is no session's invalidates the session with `invalidConfiguration`, and the app hears it.
    @Test func anUnknownTokenInvalidatesTheSession() async throws {
        let room = try SimulatedRoom()
        let session = room.devices[0].makeSession()
        session.run(with: NearbyToken(data: [1, 2, 3]))
        #expect(session.state == .invalidated)
        var events: [NearbySessionEvent] = []
        for await event in session.events { events.append(event) }
        guard case .invalidated(let error) = events.last else {
            Issue.record("no invalidation: \(events)")
            return
        }
        #expect(error.code == .invalidConfiguration && events.count == 1)
    }

    /// A room may mix device models: a DWM3000 board (one antenna) gives its app distances and never a direction,
    /// while the phones around it measure theirs; a model given to a device the room has not is refused.
    @Test func aMixedRoomGivesEachDeviceItsModel() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 6
        configuration.policy = .ideal
        configuration.obstructions = false
        configuration.deviceModel = .iphone
        configuration.deviceModels = [1: .dw3000]
        let room = try SimulatedRoom(configuration)
        let apps = room.devices.map(App.init)
        room.advance(by: 10)
        #expect(apps[1].latest.count == 5 && apps[1].latest.values.allSatisfy { $0.distance != nil })
        #expect(apps[1].latest.values.allSatisfy { $0.direction == nil })
        #expect(apps.enumerated().contains { $0.offset != 1 && $0.element.latest.values.contains { $0.direction != nil } })
        configuration.deviceModels = [6: .pixel]
        #expect(throws: SimulatorError("deviceModels: device 6 is not in the room, whose devices are 0 to 5")) {
            try SimulatedRoom(configuration)
        }
    }

    private static func room(
        peers: Int = 6, sessionsPerDevice: Int? = nil, policy: RoomConfiguration.Policy = .ideal
    ) throws -> (SimulatedRoom, [App]) {
        var configuration = RoomConfiguration()
        configuration.peers = peers
        configuration.policy = policy
        configuration.sessionsPerDevice = sessionsPerDevice
        let room = try SimulatedRoom(configuration)
        return (room, room.devices.map(App.init))
    }

    /// A peer that restarts comes back with new tokens: each app replaces its session with it (the old one
    /// invalidated), never holds two, and ranges with the new one.
    @Test func aRestartedPeerIsReplacedNotDuplicated() throws {
        let (room, apps) = try Self.room()
        room.advance(by: 5)
        let restarted = room.devices[3]
        let before = try #require(apps[0].sessions[restarted.peerID])
        #expect(before.state == .running)
        let fresh = App(try room.restart(restarted))
        room.advance(by: 15)
        let after = try #require(apps[0].sessions[restarted.peerID])
        #expect(after !== before && after.discoveryToken != before.discoveryToken)
        #expect(before.state == .invalidated && after.state == .running)
        // The old session was removed as timed out when the new life appeared, before its replacement connected.
        #expect(apps[0].removed[restarted.peerID] == .timeout)
        #expect(apps[0].sessions.count == 5)
        #expect(fresh.sessions.count == 5 && fresh.sessions.values.allSatisfy { $0.state == .running })
        let updated = try #require(apps[0].latest[restarted.peerID])
        #expect(updated.timestamp > (try #require(apps[0].device.uptime)) - 0.5)
    }

    /// Data from a peer the app holds no session with (NearCatch's "token from unexpected peer") reaches the app,
    /// which must cope; nothing else changes.
    @Test func anUnexpectedTokenReachesTheApp() throws {
        let (room, apps) = try Self.room()
        room.advance(by: 5)
        let stranger = room.devices[5].makeSession()
        room.inject(stranger.discoveryToken.data, to: room.devices[0], from: PeerID(0xDEAD))
        #expect(apps[0].unexpected == 1)
        room.advance(by: 1)
        #expect(apps[0].sessions.count == 5 && apps[0].sessions.values.allSatisfy { $0.state == .running })
    }

    /// A peer that says goodbye is removed with `peerEnded` at once; one that falls silent, with `timeout` once
    /// its announcements are missed.
    @Test func removalOnGoodbyeAndOnTimeout() throws {
        let (room, apps) = try Self.room()
        room.advance(by: 5)
        let leaving = room.devices[4], silent = room.devices[5]
        room.stop(leaving, goodbye: true)
        room.advance(by: 0.5)
        #expect(apps[0].removed[leaving.peerID] == .peerEnded)
        #expect(apps[0].sessions[leaving.peerID]?.state == .idle)
        room.stop(silent, goodbye: false)
        room.advance(by: 1)
        #expect(apps[0].removed[silent.peerID] == nil)
        room.advance(by: 30)
        #expect(apps[0].removed[silent.peerID] == .timeout)
        #expect((1...3).allSatisfy { apps[$0].removed[silent.peerID] == .timeout && apps[$0].removed[leaving.peerID] == .peerEnded })
    }

    /// With 3 active sessions a device among 6 peers (a limit the air policies keep; `ideal` knows no limit), each
    /// app hears 2 of its 5 sessions suspended; when peers leave, suspended sessions resume.
    @Test(arguments: [RoomConfiguration.Policy.roundRobin, .proximity])
    func suspensionAndItsEnd(_ policy: RoomConfiguration.Policy) throws {
        let (room, apps) = try Self.room(sessionsPerDevice: 3, policy: policy)
        room.advance(by: 5)
        for app in apps { #expect(app.suspensions >= 2, "\(app.suspensions)") }
        let resumedBefore = apps.map(\.resumptions).reduce(0, +)
        room.stop(room.devices[4], goodbye: true)
        room.stop(room.devices[5], goodbye: true)
        room.advance(by: 3)
        #expect(apps.map(\.resumptions).reduce(0, +) > resumedBefore)
        // Device 0 now holds 3 peers and the limit keeps all 3 active: each updated in the last second.
        let uptime = try #require(apps[0].device.uptime)
        for peer in room.devices[1...3].map(\.peerID) {
            #expect(try #require(apps[0].latest[peer]).timestamp > uptime - 1)
        }
    }

    /// Connections by consent: device 0's app invites devices 1, 2 and 3 when it finds them; 1 and 2 accept, 3
    /// declines (says nothing). Only 0-1 and 0-2 connect; 3 was asked once; no one else connects.
    @Test func invitationsWaitForTheAppsConsent() throws {
        final class Inviter: SimulatedDeviceDelegate {
            let invitees: Set<PeerID>
            init(_ invitees: Set<PeerID>) { self.invitees = invitees }
            func device(_ device: SimulatedDevice, found peer: PeerID, discoveryInfo: [String: String]) {
                if invitees.contains(peer) { device.invite(peer) }
            }
        }
        final class Invitee: SimulatedDeviceDelegate {
            let accepts: Bool
            var askedBy: [PeerID] = []
            init(accepts: Bool) { self.accepts = accepts }
            func device(_ device: SimulatedDevice, invitedBy peer: PeerID) {
                askedBy.append(peer)
                if accepts { device.accept(peer) }
            }
        }
        var configuration = RoomConfiguration()
        configuration.peers = 6
        configuration.connections = .byConsent
        let room = try SimulatedRoom(configuration)
        let d = room.devices
        let inviter = Inviter(Set(d[1...3].map(\.peerID)))
        d[0].delegate = inviter
        let invitees = [Invitee(accepts: true), Invitee(accepts: true), Invitee(accepts: false)]
        for (k, invitee) in invitees.enumerated() { d[k + 1].delegate = invitee }
        room.advance(by: 15)
        #expect(d[0].connectedPeers == [d[1].peerID, d[2].peerID])
        #expect(d[1].connectedPeers == [d[0].peerID] && d[2].connectedPeers == [d[0].peerID])
        #expect(d[3].connectedPeers.isEmpty && d[4].connectedPeers.isEmpty && d[5].connectedPeers.isEmpty)
        #expect(invitees.map(\.askedBy) == [[d[0].peerID], [d[0].peerID], [d[0].peerID]])
    }

    /// A device whose app has not started discovery is found by no one and connects to no one; once started, it
    /// is found and connected within a few seconds.
    @Test func discoveryStartsWhenTheAppStartsIt() throws {
        final class Finder: SimulatedDeviceDelegate {
            var found: Set<PeerID> = []
            func device(_ device: SimulatedDevice, found peer: PeerID, discoveryInfo: [String: String]) {
                found.insert(peer)
            }
        }
        var configuration = RoomConfiguration()
        configuration.peers = 4
        configuration.discoveryStartsWithApp = true
        let room = try SimulatedRoom(configuration)
        let d = room.devices
        let finders = d.map { device in
            let finder = Finder()
            device.delegate = finder
            return finder
        }
        for device in d[0...2] { device.startDiscovery() }
        room.advance(by: 5)
        for k in 0...2 {
            #expect(finders[k].found == Set(d[0...2].map(\.peerID)).subtracting([d[k].peerID]))
            #expect(d[k].connectedPeers.count == 2)
        }
        #expect(finders[3].found.isEmpty && d[3].connectedPeers.isEmpty)
        d[3].startDiscovery()
        room.advance(by: 5)
        #expect(finders[3].found.count == 3 && d[3].connectedPeers.count == 3)
        #expect(d[0...2].allSatisfy { $0.connectedPeers.contains(d[3].peerID) })
    }
}


/// The command line's reference app in a room: off unless a test asks, and then firing on the true touches.
@Suite struct ReferenceAppInARoomTests {
    private static var threeBumps: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples/three-bumps.json").path
    }

    /// examples/three-bumps.json: three pairs touch one after another and three stop short. With the reference app
    /// asked for, it fires once on each touch (the pair of a true touch, within a second of it); without, never.
    @Test(arguments: [true, false])
    func theReferenceAppRunsOnlyWhenAskedFor(_ asked: Bool) throws {
        var configuration = RoomConfiguration()
        configuration.crowd = .file(Self.threeBumps)
        configuration.policy = .ideal
        configuration.referenceApp = asked
        let room = try SimulatedRoom(configuration)
        let apps = room.devices.map(App.init)
        room.advance(by: 20)
        #expect(apps.allSatisfy { $0.updates > 0 })
        let touches = room.trueTouches
        #expect(touches.count == 3)
        if asked {
            #expect(room.referenceBumps.count == 3, "\(room.referenceBumps)")
            for bump in room.referenceBumps {
                #expect(touches.contains { t in
                    Set([t.a, t.b]) == Set([bump.initiator, bump.responder]) && abs(bump.time - t.start) <= 1
                }, "\(bump)")
            }
        } else {
            #expect(room.referenceBumps.isEmpty)
        }
    }
}

/// An app's own fused detector in the loop: its device's accelerometer samples, stamped on the device's clock, and
/// timers on the room's clock.
@Suite struct AccelerometerInARoomTests {
    private static var threeBumps: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples/three-bumps.json").path
    }

    /// Each device hands its app 100 samples a second, none before the room's clock reaches it; on each of the three
    /// touches both phones' own samples hold a jolt (found here as an app would, with the library's jolt finder), the
    /// two within 30 ms of each other once each phone's clock is read back to the room's; a timer fires on time.
    @Test func appsGetTheirDevicesSamplesAndTimers() throws {
        var configuration = RoomConfiguration()
        configuration.crowd = .file(Self.threeBumps)
        configuration.accelerometerRate = 100
        let room = try SimulatedRoom(configuration)
        var samples = [[NearbySimulator.AccelerometerSample]](repeating: [], count: room.devices.count)
        var late = 0
        for device in room.devices {
            device.startAccelerometerUpdates { sample in
                samples[device.index].append(sample)
                if sample.timestamp > (device.uptime ?? 0) + 1e-9 { late += 1 }
            }
        }
        var fired: Double?
        room.devices[0].schedule(after: 2.25) { fired = room.now }
        room.advance(by: 20)
        #expect(late == 0)
        #expect(fired == 2.25)
        for d in samples.indices {
            #expect(abs(samples[d].count - 2000) <= 12, "\(samples[d].count)")
        }
        // Each device's clock read back to the room's: its uptime now, less the room's time now.
        let offsets = room.devices.map { ($0.uptime ?? 0) - room.now }
        let touches = room.trueTouches
        #expect(touches.count == 3)
        for touch in touches {
            let pair = room.devices.filter { $0.peerID == touch.a || $0.peerID == touch.b }.map(\.index)
            let jolts = pair.map { d -> [Double] in
                var finder = ImpactExtractor()
                return samples[d].compactMap { finder.take($0) }.filter { $0.peak >= 1.5 }.map { $0.time - offsets[d] }
                    .filter { abs($0 - touch.start) < 0.2 }
            }
            let a = try #require(jolts.first?.first), b = try #require(jolts.last?.first)
            #expect(abs(a - b) < 0.03, "\(a) \(b)")
        }
        // Without a rate set, the room samples at the command line's 100 Hz.
        let plain = try SimulatedRoom(RoomConfiguration())
        var plainTimes: [Double] = []
        plain.devices[0].startAccelerometerUpdates { plainTimes.append($0.timestamp) }
        plain.advance(by: 2)
        #expect(plainTimes.count >= 199 && plainTimes.count <= 201, "\(plainTimes.count)")
        if let first = plainTimes.first, let last = plainTimes.last {
            #expect(abs((last - first) / Double(plainTimes.count - 1) - 0.01) < 1e-4)
        }
    }
}
