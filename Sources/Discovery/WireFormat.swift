import Sessions

/// Encoding and decoding of ``WireMessage``: a fixed 8-byte header (magic "NCSM", version, type, payload length),
/// a big-endian payload, the sender's sequence number, the sender's 64-byte signature (``NodeIdentity``) and a
/// 16-byte tag under the group key (``GroupKey``). Every length is checked; the decoder refuses, it never traps.
/// Whether the tag is right is the receiver's first check (``isAuthentic(_:under:)``), whether the signature is the
/// sender's its second (``isSigned(_:by:)``); the sequence number is what makes a replay detectable
/// (docs/security.md).
package enum WireFormat {
    /// The version this build writes and reads.
    package static let version: UInt8 = 5
    /// Bytes of an Ed25519 signature.
    package static let signatureSize = 64
    /// What follows the payload: the sender's sequence number (u32), its signature and the tag.
    package static let trailerSize = 4 + signatureSize + GroupKey.tagSize
    /// "NCSM".
    package static let magic: [UInt8] = [0x4E, 0x43, 0x53, 0x4D]
    /// Magic, version, type, payload length.
    package static let headerSize = 8
    /// Fits in one unfragmented datagram on any link (IPv6's minimum MTU less headers).
    package static let maximumDatagramSize = 1200
    /// Largest application payload of a session datagram.
    package static let maximumSessionPayload = 1024

    /// The bytes of `message`, stamped with the sender's `sequence` (an announcement's own, whatever is given),
    /// signed by `signer` and sealed under `key`. Without a signer the signature is zeros, which no node takes (for
    /// tests of the decoder and of what a forger sends).
    ///
    /// Not `sealed`, the signature and the tag are left as zeros: the bytes are then only for receivers that read
    /// what their sender knows of them (``DiscoveryNode/memo(ofOwn:message:sealed:)``), in the sender's process.
    package static func encode(
        _ message: WireMessage, key: GroupKey = .development, signer: NodeIdentity? = nil, sequence: UInt32 = 0,
        sealed: Bool = true
    ) -> [UInt8] {
        // The header first, its length patched once the payload is written: one buffer from header to tag.
        var w = ByteWriter()
        w.buffer += magic
        w.u8(version)
        w.u8(message.type.rawValue)
        w.u16(0)
        var stamp = sequence
        switch message {
        case .announce(let ad, let sequence, let interval):
            stamp = sequence
            w.u64(ad.peer.rawValue)
            w.u64(ad.incarnation)
            w.advertised(ad, interval: interval)
        case .goodbye(let peer, let incarnation):
            w.u64(peer.rawValue)
            w.u64(incarnation)
        case .invite(let address, let token, let ad, let interval):
            w.address(address)
            w.token(token)
            w.advertised(ad, interval: interval)
        case .accept(let address, let token, let echo):
            w.address(address)
            w.token(token)
            w.token(echo)
        case .decline(let address, let echo, let code):
            w.address(address)
            w.token(echo)
            w.u8(UInt8(truncatingIfNeeded: code.rawValue))
        case .solicit(let address, let ad, let interval):
            w.address(address)
            w.advertised(ad, interval: interval)
        case .sessionData(let from, let to, let token, let kind, let payload):
            w.u64(from.rawValue)
            w.u64(to.rawValue)
            w.token(token)
            w.u8(kind)
            w.u16(UInt16(truncatingIfNeeded: payload.count))
            w.bytes(payload)
        }
        let payloadLength = w.buffer.count - headerSize
        w.buffer[headerSize - 2] = UInt8(truncatingIfNeeded: payloadLength >> 8)
        w.buffer[headerSize - 1] = UInt8(truncatingIfNeeded: payloadLength)
        w.u32(stamp)
        guard sealed else {
            w.buffer += repeatElement(0, count: signatureSize + GroupKey.tagSize)
            return w.buffer
        }
        let signature = signer.map { who in w.buffer.withUnsafeBytes { who.sign($0) } }
            ?? [UInt8](repeating: 0, count: signatureSize)
        w.buffer += signature
        key.seal(&w.buffer)
        return w.buffer
    }

    /// Whether the datagram's signature is `key`'s over everything before it (header, payload, sequence number).
    /// The frame must have passed ``checkFrame(_:)``.
    package static func isSigned(_ bytes: [UInt8], by key: SigningKey) -> Bool {
        bytes.withUnsafeBytes { all in
            let signatureStart = all.count - GroupKey.tagSize - signatureSize
            return key.isValid(UnsafeRawBufferPointer(rebasing: all[signatureStart..<(signatureStart + signatureSize)]),
                               of: UnsafeRawBufferPointer(rebasing: all[..<signatureStart]))
        }
    }

    /// The sender's sequence number of a datagram that ``checkFrame(_:)`` accepted: for an announcement, its own;
    /// for anything else, the sender's latest announcement's when it was sent (a goodbye's is one more).
    package static func senderSequence(in bytes: [UInt8]) -> UInt32 {
        var value: UInt32 = 0
        for i in (bytes.count - trailerSize)..<(bytes.count - trailerSize + 4) { value = value << 8 | UInt32(bytes[i]) }
        return value
    }

    /// Whether `bytes` end with their tag under `key`.
    package static func isAuthentic(_ bytes: [UInt8], under key: GroupKey) -> Bool {
        key.isAuthentic(bytes)
    }

    /// Checks what can be checked without the key or the payload: size, magic, version, type, and the declared
    /// length against the datagram's (payload plus tag). A receiver checks this first, so that what is not a datagram
    /// of this format is refused for what it is before its tag is computed.
    package static func checkFrame(_ bytes: [UInt8]) throws(WireError) {
        guard bytes.count <= maximumDatagramSize else { throw .oversized(bytes.count) }
        guard bytes.count >= 4 else { throw .truncated(field: "magic") }
        guard bytes[0] == magic[0], bytes[1] == magic[1], bytes[2] == magic[2], bytes[3] == magic[3] else {
            throw .badMagic
        }
        guard bytes.count >= headerSize else { throw .truncated(field: "header") }
        guard bytes[4] == version else { throw .unsupportedVersion(bytes[4]) }
        guard WireType(rawValue: bytes[5]) != nil else { throw .unknownType(bytes[5]) }
        let declared = Int(bytes[6]) << 8 | Int(bytes[7])
        guard bytes.count >= headerSize + trailerSize else { throw .truncated(field: "sequence, signature and tag") }
        guard declared == bytes.count - headerSize - trailerSize else {
            throw .lengthMismatch(declared: declared, actual: bytes.count - headerSize - trailerSize)
        }
    }

    /// The peer id of what looks like an announcement (a whole header of this version, its declared length right),
    /// read at its fixed offset without decoding the rest: the first step of the fast path for announcements heard
    /// before. The rest is only trusted once ``sameAnnouncement(_:_:)`` matches it against one that decoded in full.
    package static func announcedPeer(in bytes: [UInt8]) -> PeerID? {
        guard bytes.count >= headerSize + 8 + trailerSize, bytes.count <= maximumDatagramSize,
              bytes[0] == magic[0], bytes[1] == magic[1], bytes[2] == magic[2], bytes[3] == magic[3],
              bytes[4] == version, bytes[5] == WireType.announce.rawValue,
              Int(bytes[6]) << 8 | Int(bytes[7]) == bytes.count - headerSize - trailerSize
        else { return nil }
        var peer: UInt64 = 0
        for i in headerSize..<headerSize + 8 { peer = peer << 8 | UInt64(bytes[i]) }
        return PeerID(peer)
    }

    /// The sequence number of an announcement that ``announcedPeer(in:)`` accepted.
    package static func announcementSequence(in bytes: [UInt8]) -> UInt32 { senderSequence(in: bytes) }

    /// Whether two announcements are the same but for their sequence numbers (and so their tags): then the second
    /// decodes to what the first did, and need not be decoded again.
    ///
    /// - Complexity: O(n) in the datagram's size, without allocating.
    package static func sameAnnouncement(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count, a.count >= headerSize + trailerSize else { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                var differ: UInt8 = 0
                for i in 0..<(x.count - trailerSize) { differ |= x[i] ^ y[i] }
                return differ == 0
            }
        }
    }

    /// Where an announcement's interval lies: after the header, the peer id, the incarnation and the signing key.
    static let announcementIntervalOffset = headerSize + 8 + 8 + SigningKey.size

    /// A digest of what an announcement says but its sequence number (and so its tag) and its announce interval: two
    /// announcements with one digest say the same but for those, and the second decodes to what the first did but
    /// for its interval, which ``announcementInterval(in:)`` reads in place. A node's interval follows the size of the
    /// group it knows, which changes with every peer it finds or loses: in a crowd where people walk in and out of
    /// reach, nearly every announcement of a known peer differs from the last in it. Never 0 (which stands for no
    /// announcement); 0 for what is too short to be an announcement.
    ///
    /// Kept instead of the announcement itself: comparing against bytes kept elsewhere cost a cache miss or two per
    /// datagram in a crowd. A digest is not a proof, and needs not be: whoever made an announcement with the digest
    /// of another must still sign it with the peer's key, which only the peer holds (its receiver checks the
    /// signature against the key it knows), so a collision could only make a node miss a change the peer itself made,
    /// with a chance of 2^-64.
    ///
    /// - Complexity: O(n) in the datagram's size, eight bytes a step, without allocating.
    package static func advertisementDigest(_ bytes: [UInt8]) -> UInt64 {
        let end = bytes.count - trailerSize
        guard end >= announcementIntervalOffset + 4 else { return 0 }
        var h = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        bytes.withUnsafeBytes { raw in
            func mix(_ word: UInt64) {
                h = (h ^ word) &* 0xBF58_476D_1CE4_E5B9
                h ^= h >> 29
            }
            func words(from start: Int, to end: Int) {
                var i = start
                while i + 8 <= end {
                    mix(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    i += 8
                }
                var last: UInt64 = 0
                for k in i..<end { last = last << 8 | UInt64(raw[k]) }
                mix(last ^ UInt64(end - i) << 56)
            }
            words(from: 0, to: announcementIntervalOffset)
            words(from: announcementIntervalOffset + 4, to: end)
        }
        return h == 0 ? 1 : h
    }

    /// The announce interval of an announcement whose ``advertisementDigest(_:)`` matched one that decoded, or
    /// `nil` when it is outside what the decoder takes (10 ms to 1 hour): such a datagram is left to the decoder,
    /// which refuses it by name.
    package static func announcementInterval(in bytes: [UInt8]) -> AnnounceInterval? {
        guard bytes.count >= announcementIntervalOffset + 4 else { return nil }
        var value: UInt32 = 0
        for i in announcementIntervalOffset..<(announcementIntervalOffset + 4) { value = value << 8 | UInt32(bytes[i]) }
        guard value >= minimumAnnounceMilliseconds, value <= maximumAnnounceMilliseconds else { return nil }
        return AnnounceInterval(milliseconds: value)
    }

    /// The shortest and longest announce intervals a datagram may carry.
    static let minimumAnnounceMilliseconds: UInt32 = 10
    static let maximumAnnounceMilliseconds: UInt32 = 3_600_000

    /// The message in `bytes`.
    ///
    /// - Throws: ``WireError`` for anything that is not a well-formed datagram of this version, including an
    ///   announcement whose fields break the discovery rules.
    ///
    /// The tag is not checked here (``isAuthentic(_:under:)`` does): decoding needs no key.
    package static func decode(_ bytes: [UInt8]) throws(WireError) -> WireMessage {
        try checkFrame(bytes)
        guard let type = WireType(rawValue: bytes[5]) else { throw .unknownType(bytes[5]) }
        let declared = Int(bytes[6]) << 8 | Int(bytes[7])
        var r = ByteReader(bytes, from: headerSize, end: bytes.count - trailerSize)
        let message: WireMessage
        switch type {
        case .announce:
            let peer = PeerID(try r.u64("peer id"))
            let incarnation = try r.u64("incarnation")
            let (ad, interval) = try r.advertised(peer: peer, incarnation: incarnation)
            message = .announce(ad, sequence: senderSequence(in: bytes), interval: interval)
        case .goodbye:
            message = .goodbye(peer: PeerID(try r.u64("peer id")), incarnation: try r.u64("incarnation"))
        case .invite:
            let address = try r.address()
            let token = try r.token("token")
            let (ad, interval) = try r.advertised(peer: address.from, incarnation: address.fromIncarnation)
            message = .invite(address, token: token, advertisement: ad, interval: interval)
        case .accept:
            message = .accept(try r.address(), token: try r.token("token"), echo: try r.token("echoed token"))
        case .decline:
            let address = try r.address()
            let echo = try r.token("echoed token")
            let raw = try r.u8("decline code")
            guard let code = SessionErrorCode(rawValue: Int(raw)) else {
                throw .invalidField(field: "decline code", reason: "\(raw) is not a session error code")
            }
            message = .decline(address, echo: echo, code: code)
        case .solicit:
            let address = try r.address()
            let (ad, interval) = try r.advertised(peer: address.from, incarnation: address.fromIncarnation)
            message = .solicit(address, advertisement: ad, interval: interval)
        case .sessionData:
            let from = PeerID(try r.u64("sender peer id"))
            let to = PeerID(try r.u64("recipient peer id"))
            let token = try r.token("token")
            let kind = try r.u8("data kind")
            let length = Int(try r.u16("data length"))
            guard length <= maximumSessionPayload else {
                throw .invalidField(field: "data length", reason: "\(length) is over \(maximumSessionPayload) bytes")
            }
            message = .sessionData(from: from, to: to, token: token, kind: kind, payload: try r.bytes(length, "data"))
        }
        guard r.isAtEnd else {
            throw .lengthMismatch(declared: declared, actual: r.offset - headerSize)
        }
        return message
    }
}

/// Appends big-endian fields.
struct ByteWriter {
    /// Room for the largest fixed-size datagram (an acceptance: 8 + 64 + 84 bytes) without growing; those that
    /// carry an advertisement or a payload grow once or twice.
    var buffer: [UInt8] = {
        var b: [UInt8] = []
        b.reserveCapacity(160)
        return b
    }()

    mutating func u8(_ v: UInt8) { buffer.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.bigEndian) { buffer.append(contentsOf: $0) } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.bigEndian) { buffer.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.bigEndian) { buffer.append(contentsOf: $0) } }
    mutating func bytes(_ b: [UInt8]) { buffer += b }
    mutating func token(_ t: DiscoveryToken) {
        u64(t.high)
        u64(t.low)
    }

    /// A string with a one-byte length; callers keep strings under 256 bytes (the discovery rules do).
    mutating func string8(_ s: String) {
        string8(s, "", "")
    }

    /// The strings written one after another as one string with a one-byte length, cut at 255 bytes: a key, "="
    /// and its value written without joining them first (a string made per entry per invitation was most of the
    /// cost of writing one). Each is copied from its bytes in place: through its UTF-8 view, cut to a prefix, a
    /// string took about 130 instructions, and a 1,000-peer start writes a million of them.
    private mutating func string8(_ first: String, _ second: String, _ third: String) {
        let lengthAt = buffer.count
        u8(0)
        var left = 255
        Self.put(first, into: &buffer, left: &left)
        Self.put(second, into: &buffer, left: &left)
        Self.put(third, into: &buffer, left: &left)
        buffer[lengthAt] = UInt8(255 - left)
    }

    /// Appends `part`'s bytes, at most `left` of them. Its own function taking both in and out: a nested one
    /// capturing them was checked for exclusive access at run time on every write, as much as the copy.
    private static func put(_ part: String, into buffer: inout [UInt8], left: inout Int) {
        var part = part
        part.withUTF8 { bytes in
            let taken = min(bytes.count, left)
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes.prefix(taken)))
            left -= taken
        }
    }

    /// What an announcement and an invitation both carry after their identities: the announce interval and the
    /// advertisement's fields.
    mutating func advertised(_ ad: Advertisement, interval: AnnounceInterval) {
        bytes(ad.signingKey.bytes)
        u32(interval.milliseconds)
        u16(ad.unicastPort)
        string8(ad.serviceType)
        string8(ad.displayName)
        let keys = ad.discoveryInfo.keys.sorted()
        u8(UInt8(truncatingIfNeeded: keys.count))
        for key in keys { string8(key, "=", ad.discoveryInfo[key] ?? "") }
    }

    mutating func address(_ a: SessionAddress) {
        u64(a.from.rawValue)
        u64(a.fromIncarnation)
        u64(a.to.rawValue)
        u64(a.toIncarnation)
    }
}

/// Reads big-endian fields, refusing with the name of the field that does not fit.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset: Int
    /// Where the payload ends: the tag after it is not read.
    private let end: Int

    init(_ bytes: [UInt8], from offset: Int, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var isAtEnd: Bool { offset == end }

    private mutating func take(_ n: Int, _ field: String) throws(WireError) -> ArraySlice<UInt8> {
        guard n >= 0, end - offset >= n else { throw .truncated(field: field) }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    mutating func u8(_ field: String) throws(WireError) -> UInt8 { try take(1, field).first! }

    mutating func u16(_ field: String) throws(WireError) -> UInt16 {
        try take(2, field).reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func u32(_ field: String) throws(WireError) -> UInt32 {
        try take(4, field).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func u64(_ field: String) throws(WireError) -> UInt64 {
        guard end - offset >= 8 else { throw .truncated(field: field) }
        var value: UInt64 = 0
        for i in offset..<offset + 8 { value = value << 8 | UInt64(bytes[i]) }
        offset += 8
        return value
    }

    mutating func bytes(_ n: Int, _ field: String) throws(WireError) -> [UInt8] { Array(try take(n, field)) }

    mutating func token(_ field: String) throws(WireError) -> DiscoveryToken {
        guard end - offset >= 16 else { throw .truncated(field: field) }
        return DiscoveryToken(high: try u64(field), low: try u64(field))
    }

    mutating func string8(_ field: String) throws(WireError) -> String {
        let length = Int(try u8("\(field) length"))
        let raw = try take(length, field)
        guard let s = String(validating: raw, as: UTF8.self) else {
            throw .invalidField(field: field, reason: "not valid UTF-8")
        }
        return s
    }

    /// The fields ``ByteWriter/advertised(_:interval:)`` writes, checked against the discovery rules.
    mutating func advertised(
        peer: PeerID, incarnation: Incarnation
    ) throws(WireError) -> (Advertisement, AnnounceInterval) {
        let key = SigningKey(bytes: try bytes(SigningKey.size, "signing key"))
        // The id is the key's: an id named with another key is a member speaking for someone else.
        guard key.peer == peer else { throw .forged("peer id \(peer) is not the one its signing key gives (\(key.peer))") }
        let interval = AnnounceInterval(milliseconds: try u32("announce interval"))
        guard interval.milliseconds >= WireFormat.minimumAnnounceMilliseconds,
              interval.milliseconds <= WireFormat.maximumAnnounceMilliseconds else {
            throw .invalidField(field: "announce interval",
                                reason: "\(interval.milliseconds) ms is outside 10 ms to 1 hour")
        }
        let port = try u16("unicast port")
        let serviceType = try string8("service type")
        let displayName = try string8("display name")
        let count = try u8("discovery info count")
        var info: [String: String] = [:]
        for _ in 0..<count {
            let entry = try string8("discovery info entry")
            guard let split = entry.firstIndex(of: "=") else {
                throw .invalidField(field: "discovery info entry", reason: "no '=' in \"\(entry)\"")
            }
            let key = String(entry[..<split])
            guard info[key] == nil else {
                throw .invalidField(field: "discovery info entry", reason: "key \"\(key)\" appears twice")
            }
            info[key] = String(entry[entry.index(after: split)...])
        }
        do {
            let ad = try Advertisement(
                serviceType: serviceType, signingKey: key, incarnation: incarnation, displayName: displayName,
                discoveryInfo: info, unicastPort: port)
            return (ad, interval)
        } catch {
            throw .invalidField(field: error.field, reason: error.rule)
        }
    }

    mutating func address() throws(WireError) -> SessionAddress {
        SessionAddress(
            from: PeerID(try u64("sender peer id")), fromIncarnation: try u64("sender incarnation"),
            to: PeerID(try u64("recipient peer id")), toIncarnation: try u64("recipient incarnation"))
    }
}
