@testable import Discovery
import DiscoveryRun
import Sessions
import SimulatedNetwork
import Testing
import TransportCore

/// Issue 49's third hole: after a flood of made-up departures (fakes that announce and leave, each from a socket of
/// its own), a departed peer's captured announcements, replayed, brought it back at every node. A life that held
/// its sessions and announced over a while is now remembered apart from strangers, and no flood pushes it out.
@Suite struct DepartedLivesTests {
    /// `goodbye`: the peer says goodbye; otherwise it falls silent and is lost to silence.
    @Test(arguments: [true, false])
    func aReplayedDepartedLifeIsNeverTakenBackWhateverWasFloodedBefore(goodbye: Bool) throws {
        let key = try GroupKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 * 13 + 77) })
        var settings = ClusterSettings()
        settings.peers = 6
        settings.groupKey = key
        let n = settings.peers
        let c = try InMemoryCluster(settings: settings, conditions: NetworkConditions(), recordEvents: true)
        // The member hears the group, as anyone on the link does, and keeps the departing peer's announcements.
        let member = c.network.attach()
        let departing = 0
        let gone = c.peerID(of: departing)
        var captured: [[UInt8]] = []
        member.onReceive = { datagram in
            if WireFormat.announcedPeer(in: datagram.bytes) == gone { captured.append(datagram.bytes) }
        }
        c.run(until: 20)
        #expect(c.monitor.establishedSessions == n * (n - 1))
        c.stop(departing, goodbye: goodbye)
        // Lost by every other node: at once by its goodbye, or after its silence (6 s at 1 s announcements).
        c.run(until: 30)
        let lostAt = c.monitor.log.filter { entry in
            if case .lost(gone, _) = entry.event { true } else { false }
        }.count
        #expect(lostAt == n - 1)
        // 10,000 made-up lives, each announced and ended (a goodbye), 2,000 a second, from 2,000 sockets: more than
        // the recent departures a node keeps (4,096), so that the oldest of them, the real one among them before,
        // are forgotten.
        let sockets = (0..<2_000).map { _ in c.network.attach(joinsGroup: false) }
        let fakes = 10_000
        for k in 0..<fakes {
            let identity = NodeIdentity.derived(from: 0xDEAD, index: UInt64(k), scheme: .inProcess)
            let socket = sockets[k % sockets.count]
            let ad = try Advertisement(serviceType: settings.serviceType, signingKey: identity.publicKey,
                                       incarnation: 1, displayName: "fake", unicastPort: socket.unicastEndpoint.port)
            let hello = WireFormat.encode(.announce(ad, sequence: 1, interval: AnnounceInterval(seconds: 1)), key: key,
                                          signer: identity)
            let bye = WireFormat.encode(.goodbye(peer: identity.peer, incarnation: 1), key: key, signer: identity,
                                        sequence: 2)
            let at = 30 + Double(k) / 2_000
            c.clock.schedule(at: at) { socket.send(hello, to: .group) }
            c.clock.schedule(at: at + 0.0001) { socket.send(bye, to: .group) }
        }
        c.run(until: 36)
        for driver in c.drivers.dropFirst() {
            #expect(driver.node.counters.refused[.replayed, default: 0] == 0)
            #expect(driver.node.departures.keptCount == 1)
        }
        // Every announcement of the departed life, replayed to the group; and the latest, to each node directly.
        let replays = captured
        member.onReceive = nil
        #expect(replays.count >= 20)
        for bytes in replays { c.clock.schedule(at: 36.5) { member.send(bytes, to: .group) } }
        let latest = try #require(replays.last)
        for driver in c.drivers.dropFirst() {
            let address = driver.transport.unicastEndpoint
            c.clock.schedule(at: 36.6) { member.send(latest, to: .unicast(address)) }
        }
        func contacts() -> Int {
            c.drivers.dropFirst().reduce(0) {
                $0 + $1.node.counters.sent[.invite, default: 0] + $1.node.counters.sent[.solicit, default: 0]
                    + $1.node.counters.sent[.accept, default: 0]
            }
        }
        let contactsBefore = contacts()
        c.run(until: 45)
        // Nothing sent for it: no invitation, solicit or answer.
        #expect(contacts() == contactsBefore)
        let foundAgain = c.monitor.log.filter { entry in
            if case .found(let ad) = entry.event, ad.peer == gone, entry.time > 30 { true } else { false }
        }
        #expect(foundAgain.isEmpty)
        for driver in c.drivers.dropFirst() {
            // Every replay refused: n - 1 nodes, each replay of the group once and the latest once more.
            #expect(driver.node.counters.refused[.replayed, default: 0] == replays.count + 1)
            #expect(driver.node.peers[gone] == nil)
            #expect(driver.node.table.session(with: gone) == nil)
        }
        // The rest of the group is whole.
        for i in 1..<n {
            for j in 1..<n where i != j {
                #expect(c.drivers[i].node.table.session(with: c.peerID(of: j))?.remoteToken != nil)
            }
        }
    }
}
