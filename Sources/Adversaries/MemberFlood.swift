import Discovery
import DiscoveryRun
import Sessions
import SimulatedNetwork
import TransportCore

/// A member's flood of fresh identities at a live group, as issue 49 tried it: from 10 s (the group has converged),
/// `perSecond` new ids a second, each from the next of `sockets` sockets of the member's, each announced once to the
/// group and inviting every node it may invite (the lower id of a pair invites), claiming an hour between
/// announcements. Half-way through, a newcomer joins the group. What it measures: whether the group stays whole,
/// how soon the newcomer holds a session with every member, and what the group sends to the member's sockets for
/// what the member sent (the amplification).
package struct MemberFlood {
    /// The members of the group before the newcomer.
    package var peers = 20
    package var perSecond = 2_000
    /// How long the flood lasts, seconds.
    package var seconds = 300.0
    package var sockets = 2_000
    /// Each node's session table.
    package var maximumSessions = 64
    /// When the flood begins: the group has converged long before.
    package static let floodStart = 10.0

    /// What the flood did.
    package struct Outcome: Sendable {
        /// Datagrams and bytes the member sent, and what the group sent its sockets.
        package var sent = 0, sentBytes = 0, reflected = 0, reflectedBytes = 0
        /// When the newcomer held a running session with every member, and each member one with it, seconds after
        /// it started; `nil` if it never did.
        package var newcomerWhole: Double?
        /// Whether every member (the newcomer too) held a running session with every other at the end.
        package var groupWhole: Bool { missing.isEmpty }
        /// The pairs (holder, peer) of members, the newcomer last, where the holder held no running session with the
        /// peer at the end.
        package var missing: [[Int]] = []
        /// The most entries any table or queue of any node held, sampled each second.
        package var mostHeld = 0
        package var fakesSent = 0
        /// The most sessions any node looked at in its searches for a silent peer to give way
        /// (``DiscoveryNode/sessionsSearched``), and the seconds the run lasted.
        package var mostSessionsSearched = 0, seconds = 0.0
        /// The group's counters at the end.
        package var counters = DiscoveryCounters()

        /// Datagrams the group sent the member's sockets per datagram the member sent.
        package var amplification: Double { sent == 0 ? 0 : Double(reflected) / Double(sent) }
        package var byteAmplification: Double { sentBytes == 0 ? 0 : Double(reflectedBytes) / Double(sentBytes) }
    }

    package init() {}

    /// Runs the flood to 10 s after it ends.
    ///
    /// - Parameter everySecond: called each simulated second with the time.
    /// - Throws: a GSL or key error.
    package func run(everySecond: (Double) -> Void = { _ in }) throws -> Outcome {
        let key = try GroupKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 * 43 + 5) })
        var settings = ClusterSettings()
        settings.peers = peers + 1
        settings.groupKey = key
        settings.maximumSessions = maximumSessions
        settings.startsOnRequest = true
        let c = try InMemoryCluster(settings: settings, conditions: NetworkConditions(), recordEvents: false)
        for i in 0..<peers { c.clock.schedule(at: 0.5 * Double(i) / Double(peers)) { c.startNode(i) } }
        let newcomer = peers
        let newcomerStart = Self.floodStart + seconds / 2
        c.clock.schedule(at: newcomerStart) { c.startNode(newcomer) }
        var outcome = Outcome()
        let members = (0...peers).map(c.peerID(of:))
        // Sending-only sockets: a member that floods need not read the group, and the group does not feed them.
        let own = (0..<sockets).map { _ in c.network.attach(joinsGroup: false) }
        for socket in own {
            socket.onReceive = { datagram in
                outcome.reflected += 1
                outcome.reflectedBytes += datagram.bytes.count
            }
        }
        func send(_ bytes: [UInt8], from socket: InMemoryTransport, to destination: Destination) {
            outcome.sent += 1
            outcome.sentBytes += bytes.count
            socket.send(bytes, to: destination)
        }
        let total = Int(seconds * Double(perSecond))
        let batch = 50
        func sendBatch(_ first: Int) {
            for k in first..<min(first + batch, total) {
                let identity = NodeIdentity.derived(from: 0x49F1, index: UInt64(k), scheme: .inProcess)
                let socket = own[k % own.count]
                guard let fake = try? Advertisement(
                    serviceType: settings.serviceType, signingKey: identity.publicKey, incarnation: 1,
                    displayName: "fake", unicastPort: socket.unicastEndpoint.port) else { continue }
                let interval = AnnounceInterval(seconds: 3600)
                send(WireFormat.encode(.announce(fake, sequence: 1, interval: interval), key: key, signer: identity),
                     from: socket, to: .group)
                for (i, member) in members.enumerated() where identity.peer.initiates(with: member)
                    && c.drivers[i].isRunning {
                    let address = SessionAddress(from: identity.peer, fromIncarnation: 1, to: member, toIncarnation: 1)
                    let invite = WireMessage.invite(address, token: DiscoveryToken(high: UInt64(k), low: UInt64(i)),
                                                    advertisement: fake, interval: interval)
                    send(WireFormat.encode(invite, key: key, signer: identity, sequence: 1), from: socket,
                         to: .unicast(c.drivers[i].transport.unicastEndpoint))
                }
                outcome.fakesSent += 1
            }
            guard first + batch < total else { return }
            c.clock.schedule(at: c.clock.now + Double(batch) / Double(perSecond)) { sendBatch(first + batch) }
        }
        c.clock.schedule(at: Self.floodStart) { sendBatch(0) }
        let end = Self.floodStart + seconds + 10
        // Stepped by a tenth of a second: the newcomer's time to that, the tables' sizes each second.
        var step = 1
        while Double(step) / 10 <= end {
            let t = Double(step) / 10
            c.run(until: t)
            if outcome.newcomerWhole == nil, t > newcomerStart,
               newcomerIsWhole(c, newcomer: newcomer, members: members) {
                outcome.newcomerWhole = t - newcomerStart
            }
            if step % 10 == 0 {
                everySecond(t)
                for driver in c.drivers { outcome.mostHeld = max(outcome.mostHeld, driver.node.held.values.max() ?? 0) }
            }
            step += 1
        }
        for i in 0...peers {
            for j in 0...peers where i != j && c.drivers[i].node.table.session(with: members[j])?.remoteToken == nil {
                outcome.missing.append([i, j])
            }
        }
        for driver in c.drivers {
            outcome.counters.add(driver.node.counters)
            outcome.mostSessionsSearched = max(outcome.mostSessionsSearched, driver.node.sessionsSearched)
        }
        outcome.seconds = end
        return outcome
    }

    /// Whether the newcomer holds a running session with every member, and every member one with it.
    private func newcomerIsWhole(_ c: InMemoryCluster, newcomer: Int, members: [PeerID]) -> Bool {
        (0..<peers).allSatisfy { i in
            c.drivers[newcomer].node.table.session(with: members[i])?.remoteToken != nil
                && c.drivers[i].node.table.session(with: members[newcomer])?.remoteToken != nil
        }
    }
}
