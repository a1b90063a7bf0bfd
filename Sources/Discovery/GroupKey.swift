import Crypto
import Foundation

/// The secret every member of a discovery group shares. Each datagram ends with a tag computed under it
/// (HMAC-SHA256 over the whole datagram, truncated to 16 bytes), and a datagram whose tag does not match is refused
/// before anything in it is believed: a sender without the key can neither join the group nor speak for a member.
/// A member holds the key and can speak for any other (docs/security.md).
package struct GroupKey: Sendable, Equatable, CustomStringConvertible {
    /// Bytes of a key.
    package static let size = 32
    /// Bytes of the tag that ends every datagram.
    package static let tagSize = 16

    private let bytes: [UInt8]
    /// HMAC-SHA256 (RFC 2104) kept as its two hashes after the key's blocks: the inner one has taken the key XOR
    /// 0x36, the outer one the key XOR 0x5c. Each tag starts from copies of them, not from the key, which would hash
    /// the two key blocks again on every datagram; and on SHA-256 itself, whose buffer update is concrete, rather
    /// than through `HMAC`'s generic update and finalize, which looked up generic metadata on every datagram (a
    /// fifth of a datagram's authentication).
    /// Held once behind a reference: a key is copied wherever a node reads its configuration, on every datagram, and
    /// two hash states copied were 90 instructions a datagram.
    private let hashes: Hashes
    private final class Hashes: Sendable {
        let inner: SHA256
        let outer: SHA256
        init(inner: SHA256, outer: SHA256) {
            self.inner = inner
            self.outer = outer
        }
    }
    /// Whether this is the built-in development key, which every copy of the program knows (loopback only).
    package let isDevelopmentKey: Bool
    /// The first 8 bytes of the key's SHA-256: names a key in messages and tells keys apart, revealing nothing.
    package let fingerprint: UInt64

    /// A key of exactly 32 bytes.
    ///
    /// - Throws: ``GroupKeyError`` for any other length.
    package init(bytes: [UInt8]) throws(GroupKeyError) {
        guard bytes.count == Self.size else { throw .wrongLength(bytes.count) }
        self.init(checked: bytes, development: false)
    }

    /// A key written as 64 hexadecimal digits (surrounding white space ignored).
    ///
    /// - Throws: ``GroupKeyError`` naming what is wrong with the text, never repeating it.
    package init(hex text: String) throws(GroupKeyError) {
        let digits = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count == 2 * Self.size else { throw .wrongHexLength(digits.count) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.size)
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[pair]), let low = Self.nibble(digits[pair + 1]) else {
                throw .notHex
            }
            bytes.append(high << 4 | low)
        }
        self.init(checked: bytes, development: false)
    }

    /// The key every copy of the program knows: fine for runs that stay on one machine, worthless anywhere else.
    package static let development = GroupKey(
        checked: Array(SHA256.hash(data: Array("nearcatch-sim development group key, loopback only".utf8))),
        development: true)

    private init(checked bytes: [UInt8], development: Bool) {
        self.bytes = bytes
        // A key no longer than SHA-256's 64-byte block is padded with zeros (a group key is 32 bytes).
        let block = bytes + [UInt8](repeating: 0, count: SHA256.blockByteCount - bytes.count)
        var inner = SHA256()
        var outer = SHA256()
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update(bufferPointer: $0) }
        block.map { $0 ^ 0x5c }.withUnsafeBytes { outer.update(bufferPointer: $0) }
        hashes = Hashes(inner: inner, outer: outer)
        isDevelopmentKey = development
        fingerprint = Array(SHA256.hash(data: bytes)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    package static func == (a: GroupKey, b: GroupKey) -> Bool { a.bytes == b.bytes }

    /// `development`, or the fingerprint in 16 hexadecimal digits: what reports print.
    package var name: String {
        isDevelopmentKey ? "development" : String(format: "%016llx", fingerprint)
    }

    /// "development key" or "key 0123456789abcdef" (the fingerprint).
    package var description: String {
        isDevelopmentKey ? "development key" : "key \(name)"
    }

    /// The full HMAC-SHA256 of `body` (the whole datagram but its tag); the tag is its first ``tagSize`` bytes.
    func code(_ body: UnsafeRawBufferPointer) -> SHA256Digest {
        var innerHash = hashes.inner
        innerHash.update(bufferPointer: body)
        var outerHash = hashes.outer
        innerHash.finalize().withUnsafeBytes { outerHash.update(bufferPointer: $0) }
        return outerHash.finalize()
    }

    /// Appends the tag to a datagram.
    func seal(_ datagram: inout [UInt8]) {
        let mac = datagram.withUnsafeBytes { code($0) }
        mac.withUnsafeBytes { datagram.append(contentsOf: $0.prefix(Self.tagSize)) }
    }

    /// Whether the datagram ends with its tag under this key. The comparison takes the same time wherever the tags
    /// differ, so that timing tells a forger nothing.
    func isAuthentic(_ datagram: [UInt8]) -> Bool {
        guard datagram.count >= Self.tagSize else { return false }
        return datagram.withUnsafeBytes { all in
            let tagStart = all.count - Self.tagSize
            let mac = code(UnsafeRawBufferPointer(rebasing: all[..<tagStart]))
            return mac.withUnsafeBytes { expected in
                var difference: UInt8 = 0
                for i in 0..<Self.tagSize { difference |= expected[i] ^ all[tagStart + i] }
                return difference == 0
            }
        }
    }
}

/// Why a group key was refused. The messages never repeat the key's text.
package enum GroupKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongLength(Int)
    case wrongHexLength(Int)
    case notHex

    package var description: String {
        switch self {
        case .wrongLength(let n): "a group key is \(GroupKey.size) bytes, not \(n)"
        case .wrongHexLength(let n): "a group key is \(2 * GroupKey.size) hexadecimal digits, not \(n) characters"
        case .notHex: "a group key is written in hexadecimal digits (0-9, a-f) only"
        }
    }
}
