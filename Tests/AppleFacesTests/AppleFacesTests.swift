import Foundation
import MultipeerConnectivity
import NearbyInteraction
import NearbySimulator
import Testing

private func room(peers: Int, network: NetworkConditions = NetworkConditions()) throws -> SimulatedRoom {
    var configuration = RoomConfiguration()
    configuration.peers = peers
    configuration.policy = .ideal
    configuration.obstructions = false
    configuration.network = network
    return try SimulatedRoom(configuration)
}

/// Records a ranging session's delegate calls.
private final class RangingLog: NSObject, NISessionDelegate {
    var invalidations: [NIError.Code] = []
    var invalidatedInsideRun = false
    var inRun = false
    var updates: [NINearbyObject] = []
    /// The true distance at each update's delivery, when `truth` is set.
    var truths: [Double] = []
    var truth: (() -> Double)?
    var removals: [NINearbyObject.RemovalReason] = []

    func session(_ session: NISession, didInvalidateWith error: Error) {
        invalidations.append((error as? NIError)?.code ?? .sessionFailed)
        if inRun { invalidatedInsideRun = true }
    }

    func session(_ session: NISession, didUpdate nearbyObjects: [NINearbyObject]) {
        updates += nearbyObjects
        if let truth { truths += nearbyObjects.map { _ in truth() } }
    }

    func session(_ session: NISession, didRemove nearbyObjects: [NINearbyObject], reason: NINearbyObject.RemovalReason) {
        removals.append(reason)
    }
}

@Suite struct NearbyInteractionFaceTests {
    /// A token archived with NSKeyedArchiver (secure coding) comes back equal, hashes alike, and finds its entry in
    /// a dictionary; an archive of anything else gives no token, and no trap.
    @Test func tokensRoundTripThroughTheKeyedArchiver() throws {
        let room = try room(peers: 2)
        let session = room.devices[0].perform { NISession() }
        let token = try #require(session.discoveryToken)
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NIDiscoveryToken.self, from: data))
        #expect(back == token && back.hash == token.hash && back !== token)
        #expect([token: 7][back] == 7)
        let other = room.devices[1].perform { NISession() }
        #expect(other.discoveryToken != token)
        let notAToken = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "hello"), requiringSecureCoding: true)
        // Refused: Foundation on Linux returns nil for the wrong class where Apple's throws; garbage throws on both.
        #expect(((try? NSKeyedUnarchiver.unarchivedObject(ofClass: NIDiscoveryToken.self, from: notAToken)) ?? nil) == nil)
        #expect(throws: (any Error).self) { try NSKeyedUnarchiver.unarchivedObject(ofClass: NIDiscoveryToken.self, from: Data([1, 2, 3])) }
    }

    /// Apple's error codes and values, and the matching forms apps write.
    @Test func errorsCarryApplesCodes() {
        #expect(NIError.Code.unsupportedPlatform.rawValue == -5889 && NIError.Code.userDidNotAllow.rawValue == -5884)
        let error: any Error = NIError(.invalidConfiguration)
        #expect((error as NSError).domain == NIErrorDomain && (error as NSError).code == -5888)
        var matched = false
        if case NIError.invalidConfiguration = error { matched = true }
        #expect(matched)
        #expect(MCError.Code.notConnected.rawValue == 1 && (MCError(.timedOut) as NSError).domain == MCErrorDomain)
    }

    /// Off a simulated device there is no hardware: not supported, no token, and running invalidates the session
    /// with `unsupportedPlatform`.
    @Test func offADeviceTheHardwareIsMissing() throws {
        #expect(!NISession.isSupported && !NISession.deviceCapabilities.supportsPreciseDistanceMeasurement)
        let session = NISession()
        let log = RangingLog()
        session.delegate = log
        #expect(session.discoveryToken == nil)
        let room = try room(peers: 2)
        #expect(room.devices[0].perform { NISession.isSupported })
        let peer = room.devices[0].perform { NISession() }
        session.run(NINearbyPeerConfiguration(peerToken: try #require(peer.discoveryToken)))
        #expect(log.invalidations == [.unsupportedPlatform])
    }

    /// A token no session holds invalidates the session with `invalidConfiguration`, told after `run` returns, on
    /// the room's clock; a session the app invalidates tells its delegate nothing.
    @Test func aBadTokenInvalidatesAfterRunReturns() throws {
        let room = try room(peers: 3)
        let (a, b) = (room.devices[0], room.devices[1])
        let log = RangingLog()
        let session = a.perform { NISession() }
        session.delegate = log
        let stranger = b.perform { NISession() }
        let strangerToken = try #require(stranger.discoveryToken)
        stranger.invalidate()
        log.inRun = true
        session.run(NINearbyPeerConfiguration(peerToken: strangerToken))
        log.inRun = false
        #expect(log.invalidations.isEmpty)
        room.advance(by: 0.01)
        #expect(log.invalidations == [.invalidConfiguration] && !log.invalidatedInsideRun)
        let quiet = RangingLog()
        let other = a.perform { NISession() }
        other.delegate = quiet
        other.invalidate()
        room.advance(by: 1)
        #expect(quiet.invalidations.isEmpty)
    }

    /// Two sessions run with each other's token range: updates carry the peer's token, a distance within 30 cm of
    /// the truth when it arrives (half of them within 15 cm) and a unit direction; the peer's goodbye removes it with
    /// `peerEnded`.
    @Test func twoSessionsRangeAndThePeersGoodbyeRemovesIt() throws {
        let room = try room(peers: 2)
        let (a, b) = (room.devices[0], room.devices[1])
        let (sa, sb) = (a.perform { NISession() }, b.perform { NISession() })
        let log = RangingLog()
        log.truth = { room.trueDistance(a, b) }
        sa.delegate = log
        sa.run(NINearbyPeerConfiguration(peerToken: try #require(sb.discoveryToken)))
        sb.run(NINearbyPeerConfiguration(peerToken: try #require(sa.discoveryToken)))
        room.advance(by: 3)
        let last = try #require(log.updates.last)
        #expect(log.updates.count > 20)
        #expect(last.discoveryToken == sb.discoveryToken)
        // Against the truth when each update arrived: the two walk, and the last update may be some tenths old.
        let errors = try zip(log.updates, log.truths).map { abs(Double(try #require($0.distance)) - $1) }
        #expect(errors.count == log.updates.count && errors.last! < 0.3, "\(errors)")
        #expect(errors.sorted()[errors.count / 2] < 0.15, "\(errors)")
        if let direction = last.direction { #expect(abs(simd_length(direction) - 1) < 1e-3) }
        room.stop(b, goodbye: true)
        room.advance(by: 1)
        #expect(log.removals == [.peerEnded])
    }
}

@Suite struct MultipeerConnectivityFaceTests {
    /// Records what an app's advertiser, browser and session hear.
    private final class Peer: NSObject, MCSessionDelegate, MCNearbyServiceAdvertiserDelegate, MCNearbyServiceBrowserDelegate {
        let me: MCPeerID
        let session: MCSession
        let advertiser: MCNearbyServiceAdvertiser
        let browser: MCNearbyServiceBrowser
        var accepts = true
        var answers = true
        var found: [String] = []
        var lost: [String] = []
        var states: [String] = []
        var received: [String] = []
        var contexts: [String] = []
        var notStarted: [MCError.Code] = []

        init(_ name: String, serviceType: String = "faces-test") {
            me = MCPeerID(displayName: name)
            session = MCSession(peer: me)
            advertiser = MCNearbyServiceAdvertiser(peer: me, discoveryInfo: ["name": name], serviceType: serviceType)
            browser = MCNearbyServiceBrowser(peer: me, serviceType: serviceType)
            super.init()
            session.delegate = self
            advertiser.delegate = self
            browser.delegate = self
        }

        func browser(_ browser: MCNearbyServiceBrowser, foundPeer peerID: MCPeerID, withDiscoveryInfo info: [String: String]?) {
            found.append("\(peerID.displayName)=\(info?["name"] ?? "?")")
        }
        func browser(_ browser: MCNearbyServiceBrowser, lostPeer peerID: MCPeerID) { lost.append(peerID.displayName) }
        func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didNotStartAdvertisingPeer error: Error) {
            notStarted.append((error as? MCError)?.code ?? .unknown)
        }
        func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didReceiveInvitationFromPeer peerID: MCPeerID,
                        withContext context: Data?, invitationHandler: @escaping (Bool, MCSession?) -> Void) {
            contexts.append(context.flatMap { String(data: $0, encoding: .utf8) } ?? "-")
            if answers { invitationHandler(accepts, session) }
        }
        func session(_ session: MCSession, peer peerID: MCPeerID, didChange state: MCSessionState) {
            states.append("\(peerID.displayName):\(state)")
        }
        func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID) {
            received.append("\(peerID.displayName):\(String(decoding: data, as: UTF8.self))")
        }
        func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String, fromPeer peerID: MCPeerID) {}
        func session(_ session: MCSession, didStartReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID,
                     with progress: Progress) {}
        func session(_ session: MCSession, didFinishReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID,
                     at localURL: URL?, withError error: Error?) {}
    }

    private static func peers(_ room: SimulatedRoom) -> [Peer] {
        room.devices.map { device in device.perform { Peer("p\(device.index)") } }
    }

    /// A peer on every device, each advertising and browsing.
    private static func advertisingAndBrowsing(_ room: SimulatedRoom) -> [Peer] {
        let peers = peers(room)
        for peer in peers {
            peer.advertiser.startAdvertisingPeer()
            peer.browser.startBrowsingForPeers()
        }
        return peers
    }

    /// Browsers find the advertisers of their service type with their discovery info, once each; an invitation
    /// carries its context; accepted, both sessions go connecting then connected, and data flows both ways in order.
    @Test func findInviteConnectAndSend() throws {
        let room = try room(peers: 3, network: NetworkConditions(loss: 0.2))
        let p = Self.peers(room)
        let loner = room.devices[2].perform { Peer("other", serviceType: "another-type") }
        loner.advertiser.startAdvertisingPeer()
        loner.browser.startBrowsingForPeers()
        for peer in p.prefix(2) {
            peer.advertiser.startAdvertisingPeer()
            peer.browser.startBrowsingForPeers()
        }
        room.advance(by: 5)
        #expect(p[0].found == ["p1=p1"] && p[1].found == ["p0=p0"] && loner.found.isEmpty)
        p[0].browser.invitePeer(p[1].me, to: p[0].session, withContext: Data("hi".utf8), timeout: 10)
        room.advance(by: 2)
        #expect(p[1].contexts == ["hi"])
        #expect(p[0].states == ["p1:connecting", "p1:connected"] && p[1].states == ["p0:connecting", "p0:connected"])
        #expect(p[0].session.connectedPeers == [p[1].me] && p[1].session.connectedPeers.map(\.displayName) == ["p0"])
        for k in 0..<50 {
            try p[0].session.send(Data("m\(k)".utf8), toPeers: p[0].session.connectedPeers, with: .reliable)
        }
        try p[1].session.send(Data("back".utf8), toPeers: p[1].session.connectedPeers, with: .reliable)
        room.advance(by: 5)
        #expect(p[1].received == (0..<50).map { "p0:m\($0)" })
        #expect(p[0].received == ["p1:back"])
    }

    /// A declined invitation, an unanswered one (after its timeout, to the tenth of a second), one to a peer never
    /// found, and sending to a peer not connected: each ends `.notConnected` or throws `notConnected`.
    @Test func declinedTimedOutAndUnknownInvitations() throws {
        let room = try room(peers: 3)
        let p = Self.advertisingAndBrowsing(room)
        room.advance(by: 5)
        p[1].accepts = false
        p[2].answers = false
        let (one, two) = (p[1].me, p[2].me)
        let stranger = MCPeerID(displayName: "stranger")
        p[0].browser.invitePeer(one, to: p[0].session, withContext: nil, timeout: 10)
        p[0].browser.invitePeer(two, to: p[0].session, withContext: nil, timeout: 3)
        p[0].browser.invitePeer(stranger, to: p[0].session, withContext: nil, timeout: 3)
        let start = room.now
        room.advance(by: 1)
        #expect(p[0].states.contains("p1:notConnected") && p[0].states.contains("stranger:notConnected"))
        #expect(!p[0].states.contains("p2:notConnected"))
        room.advance(by: 1.9)
        #expect(!p[0].states.contains("p2:notConnected"))
        room.advance(by: 0.2)
        #expect(p[0].states.contains("p2:notConnected"), "\(room.now - start)")
        #expect(throws: MCError.self) { try p[0].session.send(Data([1]), toPeers: [one], with: .reliable) }
        #expect(p[0].session.connectedPeers.isEmpty)
    }

    /// Inviting a peer the session already holds (NIPeekaboo's browser does after any disconnect) leaves it
    /// connected and tells nothing: the state the delegate heard stays what `connectedPeers` says.
    @Test func reinvitingAConnectedPeerLeavesItConnected() throws {
        let room = try room(peers: 2)
        let p = Self.advertisingAndBrowsing(room)
        room.advance(by: 5)
        p[0].browser.invitePeer(p[1].me, to: p[0].session, withContext: nil, timeout: 10)
        room.advance(by: 2)
        #expect(p[0].states == ["p1:connecting", "p1:connected"])
        p[0].browser.invitePeer(p[1].me, to: p[0].session, withContext: nil, timeout: 10)
        p[1].browser.invitePeer(p[0].me, to: p[1].session, withContext: nil, timeout: 10)
        room.advance(by: 12)
        #expect(p[0].states == ["p1:connecting", "p1:connected"] && p[1].states == ["p0:connecting", "p0:connected"])
        #expect(p[0].session.connectedPeers == [p[1].me] && p[1].session.connectedPeers.count == 1)
        #expect(p[1].contexts.count == 1)
        try p[0].session.send(Data("still".utf8), toPeers: [p[1].me], with: .reliable)
        room.advance(by: 1)
        #expect(p[1].received == ["p0:still"])
    }

    /// simd's functions take doubles as Apple's overloads do: a position in `simd_double3` and its length, a
    /// direction made unit, a cross product.
    @Test func simdTakesDoublesAndFloats() {
        let p = simd_make_double3(3, 4, 12)
        #expect(simd_length(p) == 13 && length_squared(p) == 169)
        #expect(abs(simd_length(simd_normalize(p)) - 1) < 1e-15)
        #expect(simd_distance(p, simd_double3(3, 4, 0)) == 12 && dot(p, simd_double3(1, 0, 0)) == 3)
        #expect(simd_cross(simd_double3(1, 0, 0), simd_double3(0, 1, 0)) == simd_double3(0, 0, 1))
        #expect(simd_length(simd_float2(3, 4)) == 5 && simd_float(p) == simd_float3(3, 4, 12))
        #expect(simd_length(simd_float4(1, 1, 1, 1)) == 2)
    }

    /// Apple's enums are non-frozen: a `switch` takes `default:` without a warning (the build fails on one) and a
    /// value no case names, and each prints its case's name.
    @Test func applesEnumsAreNonFrozen() {
        func reason(_ r: NINearbyObject.RemovalReason) -> String {
            switch r {
            case .timeout: "timeout"
            case .peerEnded: "peerEnded"
            default: "other"
            }
        }
        func state(_ s: MCSessionState) -> String {
            switch s {
            case .notConnected: "notConnected"
            case .connecting: "connecting"
            case .connected: "connected"
            @unknown default: "other"
            }
        }
        #expect(reason(.timeout) == "timeout" && reason(.peerEnded) == "peerEnded")
        #expect(NINearbyObject.RemovalReason(rawValue: 9).map(reason) == "other")
        #expect(state(.connected) == "connected" && MCSessionState(rawValue: 5).map(state) == "other")
        #expect(NINearbyObject.RemovalReason.peerEnded.rawValue == 1 && MCSessionState.connecting.rawValue == 1)
        #expect("\(MCSessionState.connected)" == "connected" && "\(MCSessionSendDataMode.unreliable)" == "unreliable")
        #expect("\(NINearbyObject.VerticalDirectionEstimate.aboveOrBelow)" == "aboveOrBelow")
    }

    /// A session holds at most 8 peers, itself included: the eighth invitation ends `.notConnected`.
    @Test func aSessionHoldsEightPeers() throws {
        let room = try room(peers: 9)
        let p = Self.advertisingAndBrowsing(room)
        room.advance(by: 6)
        for k in 1...8 { p[0].browser.invitePeer(p[k].me, to: p[0].session, withContext: nil, timeout: 5) }
        room.advance(by: 3)
        #expect(p[0].session.connectedPeers.count == 7)
        #expect(p[0].states.filter { $0.hasSuffix(":notConnected") }.count == 1)
    }

    /// Stopping an advertiser makes its browsers lose it; a device that stops takes its peers out of every
    /// session (`.notConnected`) and out of the browsers; a bad service type does not start.
    @Test func losingAdvertisersAndDevices() throws {
        let room = try room(peers: 3)
        let p = Self.advertisingAndBrowsing(room)
        room.advance(by: 5)
        p[0].browser.invitePeer(p[2].me, to: p[0].session, withContext: nil, timeout: 5)
        room.advance(by: 1)
        #expect(p[0].session.connectedPeers == [p[2].me])
        p[1].advertiser.stopAdvertisingPeer()
        room.advance(by: 1)
        #expect(p[0].lost == ["p1"] && p[2].lost == ["p1"])
        room.stop(room.devices[2], goodbye: false)
        room.advance(by: 10)
        #expect(p[0].lost == ["p1", "p2"])
        #expect(p[0].states.last == "p2:notConnected" && p[0].session.connectedPeers.isEmpty)
        let bad = room.devices[0].perform { Peer("bad", serviceType: "Not_Valid") }
        bad.advertiser.startAdvertisingPeer()
        room.advance(by: 0.1)
        #expect(bad.notStarted == [.invalidParameter])
    }

    /// An app in another style (one shared session, a delegate queue, the top-level unarchiver): 5 devices in one
    /// group all connect in one session and range, every update on the app's queue.
    @Test func anotherAppStyleRunsUnchanged() throws {
        let room = try room(peers: 5)
        let apps = room.devices.map { device in device.perform { GroupRangingManager(name: "g\(device.index)", group: "a") } }
        room.advance(by: 10)
        for app in apps {
            #expect(app.supported)
            #expect(app.mcSession.connectedPeers.count == 4, "\(app.localPeer.displayName): \(app.states)")
            #expect(app.nearby.count == 4 && app.errors.isEmpty && app.updatesOffQueue == 0 && app.nonUnitDirections == 0)
        }
        #expect(apps.map(\.contexts.count).reduce(0, +) == 10)
    }
}

@Suite struct FaceLifetimeTests {
    /// A ranging session the app lets go of stops ranging: its peer's session hears no more updates.
    @Test func aSessionLetGoOfStopsRanging() throws {
        let room = try room(peers: 2)
        let (a, b) = (room.devices[0], room.devices[1])
        var sa: NISession? = a.perform { NISession() }
        let sb = b.perform { NISession() }
        let log = RangingLog()
        sb.delegate = log
        sa?.run(NINearbyPeerConfiguration(peerToken: try #require(sb.discoveryToken)))
        sb.run(NINearbyPeerConfiguration(peerToken: try #require(sa?.discoveryToken)))
        room.advance(by: 2)
        #expect(log.updates.count > 10)
        sa = nil
        let heard = log.updates.count
        room.advance(by: 2)
        #expect(log.updates.count == heard)
    }

    /// A stopped device's faces are cut off: its ranging session's delegate hears nothing, its peer-to-peer session
    /// cannot send, and its peers see it go `.notConnected`.
    @Test func aStoppedDevicesFacesAreCutOff() throws {
        let room = try room(peers: 4)
        let apps = room.devices.map { device in device.perform { GroupRangingManager(name: "g\(device.index)", group: "a") } }
        room.advance(by: 8)
        let gone = apps[3]
        #expect(gone.mcSession.connectedPeers.count == 3)
        let heard = gone.nearby.count
        let states = gone.states.count
        room.stop(room.devices[3], goodbye: false)
        room.advance(by: 10)
        #expect(gone.states.count == states && gone.nearby.count == heard && gone.errors.isEmpty)
        #expect(throws: (any Error).self) {
            try gone.mcSession.send(Data([1]), toPeers: gone.mcSession.connectedPeers, with: .reliable)
        }
        for app in apps.prefix(3) {
            #expect(app.mcSession.connectedPeers.count == 2, "\(app.localPeer.displayName): \(app.states)")
            #expect(app.states.last == "g3:0")
        }
    }
}

/// Apple's sample pattern: one session each, every found peer invited, every invitation accepted into it.
private final class EveryoneInvites: NSObject, MCSessionDelegate, MCNearbyServiceAdvertiserDelegate, MCNearbyServiceBrowserDelegate {
    let me: MCPeerID
    let session: MCSession
    let advertiser: MCNearbyServiceAdvertiser
    let browser: MCNearbyServiceBrowser
    var states: [String] = []

    init(_ name: String) {
        me = MCPeerID(displayName: name)
        session = MCSession(peer: me, securityIdentity: nil, encryptionPreference: .required)
        advertiser = MCNearbyServiceAdvertiser(peer: me, discoveryInfo: nil, serviceType: "everyone")
        browser = MCNearbyServiceBrowser(peer: me, serviceType: "everyone")
        super.init()
        session.delegate = self
        advertiser.delegate = self
        browser.delegate = self
        advertiser.startAdvertisingPeer()
        browser.startBrowsingForPeers()
    }

    func browser(_ browser: MCNearbyServiceBrowser, foundPeer peerID: MCPeerID, withDiscoveryInfo info: [String: String]?) {
        browser.invitePeer(peerID, to: session, withContext: nil, timeout: 10)
    }
    func browser(_ browser: MCNearbyServiceBrowser, lostPeer peerID: MCPeerID) {}
    func advertiser(_ advertiser: MCNearbyServiceAdvertiser, didReceiveInvitationFromPeer peerID: MCPeerID,
                    withContext context: Data?, invitationHandler: @escaping (Bool, MCSession?) -> Void) {
        invitationHandler(true, session)
    }
    func session(_ session: MCSession, peer peerID: MCPeerID, didChange state: MCSessionState) {
        states.append("\(peerID.displayName):\(state)")
    }
    func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID) {}
    func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String, fromPeer peerID: MCPeerID) {}
    func session(_ session: MCSession, didStartReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID,
                 with progress: Progress) {}
    func session(_ session: MCSession, didFinishReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID,
                 at localURL: URL?, withError error: Error?) {}
}

@Suite struct CrossedInvitationTests {
    /// When both sides invite each other at once, the pair connects once: 6 devices, every one connected to the
    /// 5 others in its one session, each peer told connecting then connected, never not connected.
    @Test func crossedInvitationsConnectEachPairOnce() throws {
        let room = try room(peers: 6)
        let apps = room.devices.map { device in device.perform { EveryoneInvites("e\(device.index)") } }
        room.advance(by: 8)
        for app in apps {
            #expect(app.session.connectedPeers.count == 5, "\(app.me.displayName): \(app.states)")
            #expect(app.states.count == 10 && !app.states.contains { $0.hasSuffix("notConnected") }, "\(app.states)")
        }
    }
}
