import Discovery
import GSL
import Sessions
import TestSupport
import Testing

@Suite struct WireFormatTests {
    static let address = SessionAddress(from: TestIdentities.peer(1), fromIncarnation: 2, to: TestIdentities.peer(3),
                                         toIncarnation: 4)
    static let token = DiscoveryToken(high: 0x1122_3344_5566_7788, low: 0x99AA_BBCC_DDEE_FF00)

    static let interval = AnnounceInterval(milliseconds: 4_250)

    /// The advertisement of `address`'s sender, as an invitation or a solicit carries it.
    static func sender() throws -> Advertisement {
        try Advertisement(serviceType: "nearcatch", signingKey: TestIdentities.identity(address.from).publicKey,
                          incarnation: address.fromIncarnation,
                          displayName: "a", discoveryInfo: ["k": "v"], unicastPort: 5000)
    }

    static func samples() throws -> [WireMessage] {
        let ad = try Advertisement(
            serviceType: "near-catch2", signingKey: TestIdentities.identity(TestIdentities.peer(7)).publicKey,
            incarnation: 7, displayName: "Zoë's phone",
            discoveryInfo: ["interests": "chess,jazz", "v": "1"], unicastPort: 50_123)
        return [
            .announce(ad, sequence: 42, interval: interval),
            .goodbye(peer: TestIdentities.peer(9), incarnation: 3),
            .invite(address, token: token, advertisement: try sender(), interval: interval),
            .accept(address, token: token, echo: DiscoveryToken(high: 1, low: 2)),
            .decline(address, echo: token, code: .activeSessionsLimitExceeded),
            .solicit(address, advertisement: try sender(), interval: interval),
            .sessionData(from: TestIdentities.peer(5), to: TestIdentities.peer(6), token: token, kind: 1, payload: Array("hello".utf8)),
        ]
    }

    @Test func everyMessageRoundTrips() throws {
        for message in try Self.samples() {
            let bytes = TestIdentities.encode(message)
            #expect(Array(bytes.prefix(5)) == WireFormat.magic + [5])
            // The declared length is the payload's; the 4-byte sequence number, the 64-byte signature and the 16-byte
            // tag follow it.
            #expect(Int(bytes[6]) << 8 | Int(bytes[7]) == bytes.count - 8 - 4 - 64 - 16)
            #expect(try WireFormat.decode(bytes) == message)
            #expect(WireFormat.isAuthentic(bytes, under: .development))
            // Signed by its sender's key, and by no other.
            let sender = TestIdentities.identity(try #require(message.sender).peer)
            #expect(WireFormat.isSigned(bytes, by: sender.publicKey))
            #expect(!WireFormat.isSigned(bytes, by: TestIdentities.identity(TestIdentities.peer(2)).publicKey))
        }
    }

    /// The in-process scheme: a signature holds for its key and bytes alone, one of Ed25519 marked as in-process
    /// holds for nothing, and an in-process one is refused by Ed25519's check (the mark cannot be one of its).
    @Test func inProcessSignaturesHoldForTheirKeyAndBytesAlone() throws {
        let seeds: [UInt64] = [1, 2, 3]
        let signers = seeds.map { NodeIdentity.derived(from: 0xD1CE, index: $0, scheme: .inProcess) }
        let message = WireMessage.goodbye(peer: signers[0].peer, incarnation: 1)
        let bytes = WireFormat.encode(message, signer: signers[0], sequence: 9)
        let signatureEnd = bytes.count - GroupKey.tagSize
        #expect(bytes[signatureEnd - 1] == 0xFF && bytes[(signatureEnd - 32)..<(signatureEnd - 1)].allSatisfy { $0 == 0 })
        #expect(WireFormat.isSigned(bytes, by: signers[0].publicKey))
        #expect(!WireFormat.isSigned(bytes, by: signers[1].publicKey))
        // Another key's in-process signature over the same bytes, put in its place.
        let other = WireFormat.encode(message, signer: signers[1], sequence: 9)
        var swapped = Array(bytes[..<(signatureEnd - WireFormat.signatureSize)])
        swapped += other[(signatureEnd - WireFormat.signatureSize)..<signatureEnd]
        swapped += bytes[signatureEnd...]
        #expect(!WireFormat.isSigned(swapped, by: signers[0].publicKey))
        // Every single bit of the signed part or of the signature changed: refused.
        var refused = 0
        for bit in 0..<(signatureEnd * 8) {
            var flipped = bytes
            flipped[bit / 8] ^= 1 << (bit % 8)
            if !WireFormat.isSigned(flipped, by: signers[0].publicKey) { refused += 1 }
        }
        #expect(refused == signatureEnd * 8)
        // The same identity signing with Ed25519, its last byte set to the mark: neither check takes it.
        let ed = NodeIdentity.derived(from: 0xD1CE, index: 1)
        var marked = WireFormat.encode(message, signer: ed, sequence: 9)
        #expect(WireFormat.isSigned(marked, by: ed.publicKey))
        #expect(marked[signatureEnd - 1] <= 0x10)
        marked[signatureEnd - 1] = 0xFF
        #expect(!WireFormat.isSigned(marked, by: ed.publicKey))
        #expect(ed.peer == signers[0].peer)
    }

    @Test func inviteLayoutIsAsDocumented() throws {
        let bytes = WireFormat.encode(.invite(Self.address, token: Self.token, advertisement: try Self.sender(),
                                              interval: Self.interval))
        // Header 8 + four 8-byte ids + 16-byte token, then the 32-byte signing key, interval u32, port u16,
        // "nearcatch", "a", one entry "k=v", then the sender's sequence number, the 64-byte signature and the 16-byte
        // tag.
        #expect(bytes.count == 8 + 32 + 16 + 32 + 4 + 2 + 10 + 2 + 1 + 4 + 4 + 64 + 16)
        #expect(bytes[5] == 3)
        #expect(Array(bytes[8..<16]) == withUnsafeBytes(of: Self.address.from.rawValue.bigEndian) { Array($0) })
        #expect(Array(bytes[40..<56]) == Self.token.bytes)
        #expect(Array(bytes[56..<88]) == TestIdentities.identity(Self.address.from).publicKey.bytes)
        #expect(Array(bytes[88..<92]) == [0, 0, 0x10, 0x9A])
        #expect(Array(bytes[92..<94]) == [0x13, 0x88])
    }

    @Test func announcementLayoutIsAsDocumented() throws {
        let bytes = WireFormat.encode(try Self.samples()[0])
        // The key at 24, the interval at 56 and the port at 60; the sequence number in the 4 bytes before the
        // signature and the tag (what the fast path skips, with them).
        #expect(Array(bytes[24..<56]) == TestIdentities.identity(TestIdentities.peer(7)).publicKey.bytes)
        #expect(Array(bytes[56..<60]) == [0, 0, 0x10, 0x9A])
        #expect(Array(bytes[60..<62]) == [0xC3, 0xCB])
        #expect(Array(bytes[(bytes.count - 84)..<(bytes.count - 80)]) == [0, 0, 0, 42])
        #expect(WireFormat.senderSequence(in: bytes) == 42)
    }

    /// The digest the fast path compares: the same for announcements that differ in their sequence numbers, tags
    /// and intervals alone (read in place, the decoder's range kept), another for a change in any other byte (a
    /// display name, a port, a key) or in the length; 0 only for what is too short to be an announcement.
    @Test func anAdvertisementDigestLeavesOutTheSequenceAndTheIntervalAlone() throws {
        guard case .announce(let ad, _, _) = try Self.samples()[0] else {
            Issue.record("the first sample is an announcement")
            return
        }
        let base = WireFormat.encode(.announce(ad, sequence: 42, interval: Self.interval))
        let digest = WireFormat.advertisementDigest(base)
        #expect(digest != 0)
        let later = WireFormat.encode(.announce(ad, sequence: 43, interval: AnnounceInterval(milliseconds: 9_990)))
        #expect(WireFormat.advertisementDigest(later) == digest)
        #expect(WireFormat.announcementInterval(in: later) == AnnounceInterval(milliseconds: 9_990))
        var outOfRange = later
        outOfRange.replaceSubrange(56..<60, with: [0, 0, 0, 9])
        #expect(WireFormat.announcementInterval(in: outOfRange) == nil)
        // Every byte of the header and the payload but the interval's four counts, wherever it stands.
        for i in 0..<(base.count - WireFormat.trailerSize) where !(56..<60).contains(i) {
            var changed = base
            changed[i] ^= 0x01
            #expect(WireFormat.advertisementDigest(changed) != digest, "byte \(i)")
        }
        let renamed = try Advertisement(serviceType: ad.serviceType, signingKey: ad.signingKey, incarnation: ad.incarnation,
                                        displayName: ad.displayName + "!", discoveryInfo: ad.discoveryInfo,
                                        unicastPort: ad.unicastPort)
        #expect(WireFormat.advertisementDigest(WireFormat.encode(.announce(renamed, sequence: 42, interval: Self.interval)))
            != digest)
        #expect(WireFormat.advertisementDigest(Array(base.prefix(59 + WireFormat.trailerSize))) == 0)
    }

    @Test func announceIntervalOutsideItsRangeIsRefused() throws {
        var bytes = WireFormat.encode(try Self.samples()[0])
        bytes.replaceSubrange(56..<60, with: [0, 0, 0, 9])
        #expect(throws: WireError.invalidField(field: "announce interval", reason: "9 ms is outside 10 ms to 1 hour")) {
            try WireFormat.decode(bytes)
        }
    }

    @Test func refusalsAreTyped() throws {
        let good = WireFormat.encode(.goodbye(peer: TestIdentities.peer(9), incarnation: 3))
        func refusal(_ bytes: [UInt8]) -> WireError? {
            do { _ = try WireFormat.decode(bytes); return nil } catch { return error }
        }
        #expect(refusal([]) == .truncated(field: "magic"))
        #expect(refusal([0x4E, 0x43, 0x53, 0x4D, 1]) == .truncated(field: "header"))
        #expect(refusal([0, 1, 2, 3, 4, 5, 6, 7]) == .badMagic)
        var v1 = good; v1[4] = 1
        #expect(refusal(v1) == .unsupportedVersion(1))
        var t9 = good; t9[5] = 9
        #expect(refusal(t9) == .unknownType(9))
        #expect(refusal(Array(good.dropLast())) == .lengthMismatch(declared: 16, actual: 15))
        #expect(refusal(Array(good.prefix(20))) == .truncated(field: "sequence, signature and tag"))
        #expect(refusal([UInt8](repeating: 0, count: 1201)) == .oversized(1201))
        var short = Array(good.dropLast(4)); short[7] = 12
        #expect(refusal(short) == .truncated(field: "incarnation"))
        var long = good + [0, 0]; long[7] = 18
        #expect(refusal(long)?.kind == .lengthMismatch)
        var badCode = WireFormat.encode(.decline(Self.address, echo: Self.token, code: .sessionFailed))
        badCode[badCode.count - 1 - 4 - 64 - 16] = 77
        #expect(refusal(badCode) == .invalidField(field: "decline code", reason: "77 is not a session error code"))
    }

    @Test func announcementBreakingTheRulesIsRefused() throws {
        var bytes = WireFormat.encode(try Self.samples()[0])
        // The service type starts after 8 (header) + 8 + 8 + 32 + 4 + 2 bytes and its length byte: make it uppercase.
        bytes[8 + 54 + 1] = UInt8(ascii: "N")
        let error = #expect(throws: WireError.self) { try WireFormat.decode(bytes) }
        #expect(error?.kind == .invalidField)
        #expect(error?.description.contains("service type") == true)
    }

    /// 100,000 datagrams: 30,000 of random bytes and 70,000 valid ones with one to four mutations (bit flips,
    /// random bytes, truncation, extension, a forged length). None traps; each is refused with a typed error or
    /// decoded, and what decodes encodes back to the same message.
    @Test func fuzzNeverTraps() throws {
        let random = try RandomSource(seed: 2026)
        func int(_ n: Int) -> Int { Int(random.uniform() * Double(n)) }
        func byte() -> UInt8 { UInt8(int(256)) }
        let seeds = try Self.samples().map { WireFormat.encode($0) }
        var decoded = 0
        var refused: [WireRefusal: Int] = [:]
        var mutatedDecoded = 0
        for i in 0..<100_000 {
            var bytes: [UInt8]
            let mutated = i >= 30_000
            if mutated {
                bytes = seeds[i % seeds.count]
                for _ in 0...int(4) {
                    switch int(5) {
                    case 0 where !bytes.isEmpty: bytes[int(bytes.count)] ^= 1 << UInt8(int(8))
                    case 1 where !bytes.isEmpty: bytes[int(bytes.count)] = byte()
                    case 2: bytes = Array(bytes.prefix(int(bytes.count + 1)))
                    case 3: bytes += (0..<int(40)).map { _ in byte() }
                    case 4 where bytes.count >= 8: bytes[6] = byte(); bytes[7] = byte()
                    default: break
                    }
                }
            } else {
                bytes = (0..<int(1300)).map { _ in byte() }
                if i % 3 == 0 && bytes.count >= 8 { bytes.replaceSubrange(0..<5, with: WireFormat.magic + [WireFormat.version]) }
            }
            do {
                let message = try WireFormat.decode(bytes)
                decoded += 1
                if mutated { mutatedDecoded += 1 }
                #expect(try WireFormat.decode(WireFormat.encode(message)) == message)
            } catch {
                refused[error.kind, default: 0] += 1
            }
        }
        #expect(decoded + refused.values.reduce(0, +) == 100_000)
        #expect(mutatedDecoded > 1000)
        #expect(refused[.badMagic, default: 0] > 19_000)
        #expect(refused.keys.count >= 6)
    }
}
