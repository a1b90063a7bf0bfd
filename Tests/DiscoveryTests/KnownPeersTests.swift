@testable import Discovery
import Sessions
import Testing
import TransportCore

/// A node's table of known peers, side by side with an index by id, and its book of addresses.
@Suite struct KnownPeersTests {
    /// What a node knows of peer `n` (its key `n` repeated), heard at `heard`.
    static func known(_ n: Int, heard: Double) throws -> DiscoveryNode.KnownPeer {
        let key = (0..<32).map { UInt8(truncatingIfNeeded: n >> (8 * ($0 % 2))) }
        let ad = try Advertisement(serviceType: "nearcatch", signingKey: SigningKey(bytes: key), incarnation: 1,
                                   displayName: "peer \(n)", unicastPort: 5000)
        return DiscoveryNode.KnownPeer(
            announced: UInt64(n), lastHeard: heard, announceInterval: 1, silenceCheckAt: heard + 5, advertisement: ad,
            host: "10.0.\(n / 256).\(n % 256)", discoveredAt: heard, foundWhileJoining: false, validated: false)
    }

    /// 200 peers added, the even ones removed in a scrambled order, the first 50 found again, one forgotten, each
    /// change mirrored in a dictionary: every id finds what was set for it (through the subscript and through its
    /// place), and nothing else is held.
    @Test func everyPeerIsFoundAsSetWhateverWasRemovedBefore() throws {
        var table = KnownPeers()
        table.reserveCapacity(8)
        var mirror: [PeerID: DiscoveryNode.KnownPeer] = [:]
        let first = try (0..<200).map { try Self.known($0, heard: Double($0)) }
        let peers = first.map(\.advertisement.peer)
        for (peer, entry) in zip(peers, first) {
            table[peer] = entry
            mirror[peer] = entry
        }
        for k in stride(from: 0, to: 200, by: 2).map({ ($0 * 37) % 200 }) {
            if k % 4 == 0 {
                #expect(table.removeValue(forKey: peers[k])?.lastHeard == Double(k))
            } else if let place = table.index(forKey: peers[k]) {
                let (peer, entry) = table.remove(at: place)
                #expect(peer == peers[k] && entry.lastHeard == Double(k))
            }
            mirror[peers[k]] = nil
        }
        for k in 0..<50 {
            let entry = try Self.known(k, heard: 1000 + Double(k))
            table[peers[k]] = entry
            mirror[peers[k]] = entry
        }
        if let place = table.index(forKey: peers[1]) { table[at: place].lastHeard = 5000 }
        mirror[peers[1]]?.lastHeard = 5000
        table[peers[3]] = nil
        mirror[peers[3]] = nil
        #expect(Set(peers).count == 200)
        #expect(table.count == mirror.count && table.count == 124)
        #expect(Set(table.keys) == Set(mirror.keys))
        for peer in peers {
            #expect(table[peer] == mirror[peer])
            #expect(table.index(forKey: peer).map { table[at: $0] } == mirror[peer])
        }
    }

    /// 30,000 changes drawn at random over 1,500 peers (adds, changes, removals by id and by place), the table grown
    /// from nothing and held near its fullest, each mirrored in a dictionary: after every 1,000, every id finds what
    /// was set for it and no other. Removals shift later entries of a probe run back; a shift wrong by one bucket
    /// loses a peer within the first few hundred changes.
    @Test func everyPeerIsFoundThroughThousandsOfRandomChanges() throws {
        var table = KnownPeers()
        var mirror: [PeerID: DiscoveryNode.KnownPeer] = [:]
        let pool = try (0..<1_500).map { try Self.known($0, heard: 0) }
        let peers = pool.map(\.advertisement.peer)
        var state: UInt64 = 0x1234_5678
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        var mismatches = 0, removals = 0, largest = 0
        for step in 1...30_000 {
            let k = next(peers.count)
            switch next(10) {
            case 0..<6:
                var entry = pool[k]
                entry.lastHeard = Double(step)
                table[peers[k]] = entry
                mirror[peers[k]] = entry
            case 6..<8:
                removals += table.removeValue(forKey: peers[k]) == nil ? 0 : 1
                mirror[peers[k]] = nil
            default:
                if let place = table.index(forKey: peers[k]) {
                    let (peer, _) = table.remove(at: place)
                    mismatches += peer == peers[k] ? 0 : 1
                    removals += 1
                }
                mirror[peers[k]] = nil
            }
            largest = max(largest, table.count)
            if step % 1_000 == 0 {
                mismatches += table.count == mirror.count ? 0 : 1
                for peer in peers where table[peer] != mirror[peer] { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(Set(table.keys) == Set(mirror.keys))
        #expect(removals > 5_000)
        #expect(largest > 900)
    }

    /// What a node knows of a peer stays within 112 bytes: a node holds one for each peer within reach (a thousand
    /// in a crowd of a thousand).
    @Test func aKnownPeerTakes112Bytes() {
        #expect(MemoryLayout<DiscoveryNode.KnownPeer>.stride <= 112, "\(MemoryLayout<DiscoveryNode.KnownPeer>.stride)")
    }

    /// An IPv4 address and port is one number, distinct for every address and port; anything else is kept by name.
    @Test func addressesAreNumberedWhenTheyAreIPv4() {
        #expect(AddressBook.key(Endpoint(host: "10.0.3.232", port: 5000)) == (0x0A00_03E8 << 16 | 5000))
        #expect(AddressBook.key(Endpoint(host: "255.255.255.255", port: 65535)) == 0xFFFF_FFFF_FFFF)
        for host in ["10.0.3", "10.0.3.256", "10.0.3.2.1", "10..3.2", "host-1", "::1", "1000.0.0.1", "", "10.0.3.2 "] {
            #expect(AddressBook.key(Endpoint(host: host, port: 1)) == nil, "\(host)")
        }
        var book = AddressBook()
        let a = Endpoint(host: "10.0.0.1", port: 5000), b = Endpoint(host: "10.0.0.1", port: 5001)
        let named = Endpoint(host: "host-1", port: 5000)
        book[a] = PeerID(1)
        book[b] = PeerID(2)
        book[named] = PeerID(3)
        #expect(book[a] == PeerID(1) && book[b] == PeerID(2) && book[named] == PeerID(3))
        #expect(book[Endpoint(host: "10.0.0.2", port: 5000)] == nil)
        #expect(book.count == 3)
        book[a] = nil
        book[named] = nil
        #expect(book[a] == nil && book[named] == nil && book[b] == PeerID(2) && book.count == 1)
    }
}
