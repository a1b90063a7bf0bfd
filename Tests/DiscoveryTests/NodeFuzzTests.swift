import Foundation
import GSL
import Sessions
import Testing
import Transport
@testable import Discovery

/// Datagrams from a hostile sender at a live node: random bytes, sealed datagrams mutated (so their tags no longer
/// match), and mutated datagrams sealed again under the group's key (what a member could send). The count is
/// `NEARCATCH_FUZZ_DATAGRAMS` (100,000 in the suite; `tools/fuzz` runs 1,000,000).
@Suite struct NodeFuzzTests {
    static var count: Int {
        ProcessInfo.processInfo.environment["NEARCATCH_FUZZ_DATAGRAMS"].flatMap(Int.init) ?? 100_000
    }

    @Test func fuzzedDatagramsAtALiveNodeAreRefusedOrHandledAndCounted() throws {
        let key = try GroupKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 * 13 + 5) })
        let me = PeerID(1_000)
        let configuration = DiscoveryNode.Configuration(serviceType: "nearcatch", peer: me, incarnation: 1,
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
            let peer = PeerID(UInt64(k + 1))
            let ad = try Advertisement(serviceType: "nearcatch", peer: peer, incarnation: 1, displayName: "p\(k)",
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
        let sealed = seeds.map { WireFormat.encode($0, key: key, sequence: 1) }
        let source = Endpoint(host: "10.0.0.9", port: 5000)
        var now = 0.0
        var resealed = 0
        for i in 0..<Self.count {
            var bytes: [UInt8]
            switch i % 10 {
            case 0, 1, 2:
                bytes = (0..<int(1300)).map { _ in byte() }
            default:
                bytes = sealed[int(sealed.count)]
                for _ in 0...int(3) {
                    switch int(4) {
                    case 0: bytes[int(bytes.count)] ^= 1 << UInt8(int(8))
                    case 1: bytes[int(bytes.count)] = byte()
                    case 2: bytes = Array(bytes.prefix(max(1, int(bytes.count + 1))))
                    default: bytes += (0..<int(20)).map { _ in byte() }
                    }
                }
                // A member's forgeries: the mutated bytes with a fresh sequence number and a valid tag.
                if i % 10 >= 7, bytes.count >= WireFormat.headerSize + WireFormat.trailerSize {
                    bytes = Array(bytes.dropLast(WireFormat.trailerSize))
                    bytes[6] = UInt8((bytes.count - WireFormat.headerSize) >> 8 & 0xFF)
                    bytes[7] = UInt8((bytes.count - WireFormat.headerSize) & 0xFF)
                    let sequence = UInt32(i / 10 + 2)
                    for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: sequence >> UInt32(shift))) }
                    key.seal(&bytes)
                    resealed += 1
                }
            }
            now += 0.0001
            _ = node.receive(IncomingDatagram(bytes: bytes, source: source, viaGroup: i % 2 == 0), now: now)
            if i % 1_000 == 0 { _ = node.tick(now: now) }
        }
        let counters = node.counters
        let reasons = counters.refused.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
        print("fuzz: \(Self.count) datagrams (\(resealed) resealed under the key); refused \(counters.refusedTotal) "
              + "(\(reasons.joined(separator: ", "))); peers known \(node.peers.count), sessions \(node.table.count)")
        #expect(counters.received == Self.count)
        // Every datagram was counted as refused, or handled; random bytes and broken tags are refused at once.
        #expect(counters.refusedTotal >= Self.count * 3 / 10)
        #expect(counters.refused[.unauthenticated, default: 0] >= Self.count * 3 / 10 - counters.refused[.badMagic, default: 0])
        #expect(resealed >= Self.count / 5)
        // State stays bounded by the senders there are, whatever arrived: at most the 40 seeds' peers (plus the ids
        // a resealed mutation forged), and the session table within its capacity.
        #expect(node.table.count <= 64)
        // Pending invitations hold at most half the table, whatever a member forged: room stays for real sessions.
        #expect(node.table.count - node.table.establishedCount <= 32)
        #expect(node.table.invariantViolations().isEmpty)
        #expect(node.peers.count <= 40 + resealed / 10)
    }
}
