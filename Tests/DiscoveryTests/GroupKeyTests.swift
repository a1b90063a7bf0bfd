import Crypto
@testable import Discovery
import GSL
import Sessions
import TestSupport
import Testing
import TransportCore

@Suite struct GroupKeyTests {
    static let hex = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF"

    @Test func aKeyIsReadFromHexAndRefusedByNameOtherwise() throws {
        let key = try GroupKey(hex: "  " + Self.hex + "\n")
        #expect(key == (try GroupKey(bytes: (0..<32).map { UInt8(($0 % 16) * 0x11) })))
        #expect(!key.isDevelopmentKey && GroupKey.development.isDevelopmentKey)
        #expect(key.name.count == 16 && key.name != GroupKey.development.name)
        #expect(throws: GroupKeyError.wrongHexLength(63)) { try GroupKey(hex: String(Self.hex.dropLast())) }
        #expect(throws: GroupKeyError.notHex) { try GroupKey(hex: String(Self.hex.dropLast()) + "g") }
        #expect(throws: GroupKeyError.wrongLength(31)) { try GroupKey(bytes: Array(repeating: 1, count: 31)) }
        // Messages never repeat the key's text.
        for error in [GroupKeyError.wrongHexLength(63), .notHex, .wrongLength(31)] {
            #expect(!error.description.contains("0011223344"))
        }
    }

    /// Every single-bit change anywhere in a sealed datagram, and any other key, makes it unauthentic.
    @Test func anyAlterationOrAnotherKeyIsCaught() throws {
        let key = try GroupKey(hex: Self.hex)
        let ad = try Advertisement(serviceType: "nearcatch", signingKey: TestIdentities.identity(TestIdentities.peer(3)).publicKey, incarnation: 1, displayName: "x",
                                   unicastPort: 5000)
        let sealed = TestIdentities.encode(.announce(ad, sequence: 1, interval: AnnounceInterval(seconds: 1)), key: key)
        #expect(WireFormat.isAuthentic(sealed, under: key))
        #expect(!WireFormat.isAuthentic(sealed, under: .development))
        var caught = 0
        for byte in sealed.indices {
            for bit in 0..<8 {
                var altered = sealed
                altered[byte] ^= 1 << bit
                if !WireFormat.isAuthentic(altered, under: key) { caught += 1 }
            }
        }
        #expect(caught == sealed.count * 8)
        #expect(!WireFormat.isAuthentic(Array(sealed.dropLast()), under: key))
        #expect(!WireFormat.isAuthentic([], under: key))
    }

    /// The tag is HMAC-SHA256 as RFC 2104 defines it: on 200 random keys and messages of 0 to 299 bytes (within,
    /// at and across SHA-256's 64-byte blocks), every byte of the code equals swift-crypto's own HMAC's.
    @Test func theTagIsHMACSHA256() throws {
        let random = try RandomSource(seed: 23)
        var equal = 0
        for n in 0..<200 {
            let keyBytes = (0..<GroupKey.size).map { _ in UInt8(random.uniform() * 256) }
            let message = (0..<(n * 3 % 300)).map { _ in UInt8(random.uniform() * 256) }
            let key = try GroupKey(bytes: keyBytes)
            let ours = message.withUnsafeBytes { Array(key.code($0)) }
            let theirs = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: keyBytes)))
            if ours == theirs { equal += 1 }
        }
        #expect(equal == 200)
    }

    @Test func aNodeRefusesWhatIsNotSealedUnderItsKey() throws {
        let key = try GroupKey(hex: Self.hex)
        let configuration = DiscoveryNode.Configuration(serviceType: "nearcatch", identity: TestIdentities.identity(TestIdentities.peer(1)), incarnation: 1,
                                                        displayName: "one", groupKey: key)
        var node = try DiscoveryNode(configuration: configuration, unicastPort: 5000,
                                     tokens: SeededTokenSource(random: RandomSource(seed: 1)),
                                     random: RandomSource(seed: 2))
        _ = node.start(now: 0)
        let ad = try Advertisement(serviceType: "nearcatch", signingKey: TestIdentities.identity(TestIdentities.peer(2)).publicKey, incarnation: 1, displayName: "two",
                                   unicastPort: 5000)
        let there = Endpoint(host: "10.0.0.2", port: 5000)
        for (k, sender) in [GroupKey.development, try GroupKey(bytes: Array(repeating: 7, count: 32))].enumerated() {
            let bytes = TestIdentities.encode(.announce(ad, sequence: UInt32(k + 1), interval: AnnounceInterval(seconds: 1)),
                                          key: sender)
            #expect(node.receive(IncomingDatagram(bytes: bytes, source: there, viaGroup: true), now: 0.1).isEmpty)
        }
        #expect(node.counters.refused == [.unauthenticated: 2])
        #expect(node.peers.isEmpty)
        // Sealed under its key, the same announcement is heard and answered (the lower id invites).
        let good = TestIdentities.encode(.announce(ad, sequence: 3, interval: AnnounceInterval(seconds: 1)), key: key)
        let out = node.receive(IncomingDatagram(bytes: good, source: there, viaGroup: true), now: 0.2)
        #expect(node.peers[TestIdentities.peer(2)] != nil)
        let invite = try #require(out.compactMap { directive -> [UInt8]? in
            if case .send(let bytes, .unicast) = directive { return bytes }
            return nil
        }.first)
        #expect(WireFormat.isAuthentic(invite, under: key) && !WireFormat.isAuthentic(invite, under: .development))
    }
}
