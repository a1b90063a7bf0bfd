import Foundation
import GSL
import Sessions
import TestSupport
import Testing
import TransportCore
@testable import Discovery

/// Datagrams from a hostile sender at a live node: random bytes, sealed datagrams mutated (so their tags no longer
/// match), and mutated datagrams signed and sealed again as a member could: with the member's own key (speaking for
/// the peers the datagrams name) or with the key of the peer that sent the original (a member altering what it sends
/// itself). The count is `NEARCATCH_FUZZ_DATAGRAMS` (100,000 in the suite; `tools/fuzz` runs 1,000,000).
@Suite struct NodeFuzzTests {
    static var count: Int {
        ProcessInfo.processInfo.environment["NEARCATCH_FUZZ_DATAGRAMS"].flatMap(Int.init) ?? 100_000
    }

    @Test func fuzzedDatagramsAtALiveNodeAreRefusedOrHandledAndCounted() throws {
        let key = try GroupKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 * 13 + 5) })
        let me = TestIdentities.peer(1_000)
        let member = TestIdentities.identity(TestIdentities.peer(2_000))
        let configuration = DiscoveryNode.Configuration(serviceType: "nearcatch", identity: TestIdentities.identity(me),
                                                        incarnation: 1,
                                                        displayName: "target", maximumSessions: 64, groupKey: key)
        var node = try DiscoveryNode(configuration: configuration, unicastPort: 5000,
                                     tokens: SeededTokenSource(random: RandomSource(seed: 1)),
                                     random: RandomSource(seed: 2))
        _ = node.start(now: 0)
        let random = try RandomSource(seed: 99)
        func int(_ n: Int) -> Int { Int(random.uniform() * Double(n)) }
        func byte() -> UInt8 { UInt8(int(256)) }
        // Seeds from 40 senders: announcements, and unicast messages addressed to the node.
        var seeds: [WireMessage] = []
        for k in 0..<40 {
            let peer = TestIdentities.peer(k + 1)
            let ad = try Advertisement(serviceType: "nearcatch", signingKey: TestIdentities.identity(peer).publicKey,
                                       incarnation: 1, displayName: "p\(k)",
                                       discoveryInfo: ["k": "\(k)"], unicastPort: 5000)
            let address = SessionAddress(from: peer, fromIncarnation: 1, to: me, toIncarnation: 1)
            let interval = AnnounceInterval(seconds: 1)
            seeds += [
                .announce(ad, sequence: 1, interval: interval), .goodbye(peer: peer, incarnation: 1),
                .invite(address, token: DiscoveryToken(high: UInt64(k), low: 1), advertisement: ad, interval: interval),
                .accept(address, token: DiscoveryToken(high: UInt64(k), low: 2), echo: DiscoveryToken(high: 3, low: 3)),
                .solicit(address, advertisement: ad, interval: interval),
                .sessionData(from: peer, to: me, token: DiscoveryToken(high: UInt64(k), low: 4), kind: 1, payload: [1]),
            ]
        }
        let sealed = seeds.map { TestIdentities.encode($0, key: key, sequence: 1) }
        let senders = seeds.map { TestIdentities.identity($0.sender!.peer) }
        let source = Endpoint(host: "10.0.0.9", port: 5000)
        var now = 0.0
        var resealed = 0
        var asThemselves = 0
        for i in 0..<Self.count {
            var bytes: [UInt8]
            switch i % 10 {
            case 0, 1, 2:
                bytes = (0..<int(1300)).map { _ in byte() }
            default:
                let seed = int(sealed.count)
                bytes = sealed[seed]
                for _ in 0...int(3) {
                    switch int(4) {
                    case 0: bytes[int(bytes.count)] ^= 1 << UInt8(int(8))
                    case 1: bytes[int(bytes.count)] = byte()
                    case 2: bytes = Array(bytes.prefix(max(1, int(bytes.count + 1))))
                    default: bytes += (0..<int(20)).map { _ in byte() }
                    }
                }
                // A member's datagrams: the mutated bytes with a fresh sequence number, signed (by the member itself,
                // or by the peer the original came from) and sealed under the key.
                if i % 10 >= 7, bytes.count >= WireFormat.headerSize + WireFormat.trailerSize {
                    bytes = Array(bytes.dropLast(WireFormat.trailerSize))
                    bytes[6] = UInt8((bytes.count - WireFormat.headerSize) >> 8 & 0xFF)
                    bytes[7] = UInt8((bytes.count - WireFormat.headerSize) & 0xFF)
                    let sequence = UInt32(i / 10 + 2)
                    for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: sequence >> UInt32(shift))) }
                    let signer = i % 10 == 9 ? senders[seed] : member
                    bytes += bytes.withUnsafeBytes { signer.sign($0) }
                    key.seal(&bytes)
                    resealed += 1
                    if i % 10 == 9 { asThemselves += 1 }
                }
            }
            now += 0.0001
            _ = node.receive(IncomingDatagram(bytes: bytes, source: source, viaGroup: i % 2 == 0), now: now)
            if i % 1_000 == 0 { _ = node.tick(now: now) }
        }
        let counters = node.counters
        let reasons = counters.refused.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
        print("fuzz: \(Self.count) datagrams (\(resealed) signed and sealed again, \(asThemselves) by their senders); refused \(counters.refusedTotal) "
              + "(\(reasons.joined(separator: ", "))); peers known \(node.peers.count), sessions \(node.table.count)")
        #expect(counters.received == Self.count)
        // Every datagram was counted as refused, or handled; random bytes and broken tags are refused at once.
        #expect(counters.refusedTotal >= Self.count * 3 / 10)
        #expect(counters.refused[.unauthenticated, default: 0] >= Self.count * 3 / 10 - counters.refused[.badMagic, default: 0])
        #expect(resealed >= Self.count / 5)
        // The member's own signatures on datagrams that name other peers: refused as forged, as from a peer the node
        // does not know, or earlier for what the mutation broke (a third of them at least as the first two).
        #expect(counters.refused[.forged, default: 0] + counters.refused[.unknownSender, default: 0]
            >= (resealed - asThemselves) / 3)
        // State stays bounded by the senders there are, whatever arrived: at most the 40 seeds' peers (plus the ids
        // a resealed mutation forged), and the session table within its capacity.
        #expect(node.table.count <= 64)
        // Pending invitations hold at most half the table, whatever a member forged: room stays for real sessions.
        #expect(node.table.count - node.table.establishedCount <= 32)
        #expect(node.table.invariantViolations().isEmpty)
        // Only a key's own signature introduces its id: whatever a member forged, every peer known is one of the 40
        // that signed the seeds (before keys per node, any resealed mutation of an id made a new peer).
        let seedPeers = Set(senders.map(\.peer))
        #expect(node.peers.keys.allSatisfy { seedPeers.contains($0) })
        #expect(node.peers[member.peer] == nil)
    }
}
