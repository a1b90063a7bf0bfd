import Crypto
import Foundation
import Sessions
import Synchronization

/// A node's own key pair (Ed25519, swift-crypto's `Curve25519.Signing`): every datagram it sends is signed with it,
/// and its peer id is derived from its public key, so that no other member of the group, which holds the same group
/// key, can speak for it (docs/security.md).
package struct NodeIdentity: Sendable {
    /// How a node signs what it sends.
    package enum Scheme: Sendable {
        /// Ed25519: what goes on a wire, checked by anyone who has the public key.
        case ed25519
        /// For nodes that all run in this process (a simulated room): a keyed hash of the public key and the body
        /// under a secret this process drew at random (``InProcessSignature``). Only a `NodeIdentity`, and so only the
        /// holder of the private key, makes one for its own public key, and any node of the process checks it, as
        /// with a signature; but it costs 1 µs to make and to check instead of 14 and 70, and no other process can
        /// check it: it never crosses a socket.
        case inProcess
    }

    private let key: Curve25519.Signing.PrivateKey
    /// The public key, as announcements carry it.
    package let publicKey: SigningKey
    /// The peer id the public key gives (``SigningKey/peer``).
    package var peer: PeerID { publicKey.peer }
    package let scheme: Scheme

    /// The identity whose private key is `seed` (32 bytes): the same seed, the same identity, for reproducible runs.
    ///
    /// - Throws: ``NodeIdentityError`` for a seed of another length.
    package init(seed: [UInt8], scheme: Scheme = .ed25519) throws(NodeIdentityError) {
        guard seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            throw NodeIdentityError(seedLength: seed.count)
        }
        self.key = key
        self.scheme = scheme
        publicKey = SigningKey(bytes: Array(key.publicKey.rawRepresentation))
    }

    /// A fresh identity from the system's random generator, as a real node has.
    package static func random() -> NodeIdentity {
        var generator = SystemRandomNumberGenerator()
        let seed = (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        return try! NodeIdentity(seed: seed)
    }

    /// The identity of seed `seed`'s `index`th derivation: `SHA-256("nearcatch-sim node key" | seed | index)`, so
    /// that every node of a seeded run has its own key, and the run the same keys.
    package static func derived(from seed: UInt64, index: UInt64, scheme: Scheme = .ed25519) -> NodeIdentity {
        var hash = SHA256()
        hash.update(data: Array("nearcatch-sim node key".utf8))
        withUnsafeBytes(of: seed.bigEndian) { hash.update(bufferPointer: $0) }
        withUnsafeBytes(of: index.bigEndian) { hash.update(bufferPointer: $0) }
        return try! NodeIdentity(seed: Array(hash.finalize()), scheme: scheme)
    }

    /// The 64-byte signature of `body`: Ed25519, remembered so that a receiver in this process checks it by a
    /// look-up (``SignatureMemo``), or the in-process one.
    func sign(_ body: UnsafeRawBufferPointer) -> [UInt8] {
        if scheme == .inProcess { return InProcessSignature.make(publicKey.bytes, body) }
        guard let signature = try? key.signature(for: body) else { return [UInt8](repeating: 0, count: 64) }
        let bytes = Array(signature)
        SignatureMemo.shared.remember(bytes, publicKey.bytes, body)
        return bytes
    }
}

/// A node's public key (32 bytes of Ed25519), and the peer id it gives.
package struct SigningKey: Sendable, Hashable {
    package static let size = 32
    package let bytes: [UInt8]
    /// The first 8 bytes, big-endian, of `SHA-256("nearcatch-sim peer id" | key)`: finding a key for a given id
    /// takes about 2^64 tries, so an id cannot be claimed by another key.
    package let peer: PeerID

    package init(bytes: [UInt8]) {
        self.bytes = bytes
        var hash = SHA256()
        hash.update(data: Array("nearcatch-sim peer id".utf8))
        hash.update(data: bytes)
        peer = PeerID(hash.finalize().prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// Whether `signature` is this key's over `body` (remembered signatures are looked up, others checked).
    func isValid(_ signature: UnsafeRawBufferPointer, of body: UnsafeRawBufferPointer) -> Bool {
        if InProcessSignature.isMarked(signature) { return InProcessSignature.isValid(signature, bytes, body) }
        if SignatureMemo.shared.contains(signature, bytes, body) { return true }
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: bytes),
              key.isValidSignature(Data(signature), for: body) else { return false }
        SignatureMemo.shared.remember(Array(signature), bytes, body)
        return true
    }
}

/// Why an identity could not be made.
package struct NodeIdentityError: Error, Sendable, CustomStringConvertible {
    package let seedLength: Int
    package var description: String { "a node key is made from 32 bytes, not \(seedLength)" }
}

/// The signatures of ``NodeIdentity/Scheme/inProcess``: HMAC-SHA256 under a secret drawn when the process starts, of
/// the public key and the body, in the first 32 bytes; 31 zeros; then 0xFF. An Ed25519 signature's last byte is at
/// most 0x10 (its second half is a number below 2^253), so the mark tells the two apart, and Ed25519 refuses a marked
/// one. Forging one needs the secret, which no code outside this file reads and no other process has.
enum InProcessSignature {
    private static let secret: (inner: SHA256, outer: SHA256) = {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        var inner = SHA256()
        var outer = SHA256()
        key.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update(bufferPointer: $0) }
        key.map { $0 ^ 0x5c }.withUnsafeBytes { outer.update(bufferPointer: $0) }
        return (inner, outer)
    }()

    static let mark: UInt8 = 0xFF

    private static func code(_ key: [UInt8], _ body: UnsafeRawBufferPointer) -> SHA256Digest {
        var inner = secret.inner
        key.withUnsafeBytes { inner.update(bufferPointer: $0) }
        inner.update(bufferPointer: body)
        var outer = secret.outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize()
    }

    static func make(_ key: [UInt8], _ body: UnsafeRawBufferPointer) -> [UInt8] {
        var signature = Array(code(key, body))
        signature += [UInt8](repeating: 0, count: 31)
        signature.append(mark)
        return signature
    }

    static func isMarked(_ signature: UnsafeRawBufferPointer) -> Bool {
        signature.count == 64 && signature[63] == mark
    }

    /// Compares in the same time wherever the bytes differ, as the group tag's check does.
    static func isValid(_ signature: UnsafeRawBufferPointer, _ key: [UInt8], _ body: UnsafeRawBufferPointer) -> Bool {
        let expected = code(key, body)
        var difference: UInt8 = 0
        expected.withUnsafeBytes { e in
            for i in 0..<32 { difference |= e[i] ^ signature[i] }
        }
        for i in 32..<63 { difference |= signature[i] }
        return difference == 0
    }
}

/// The signatures this process made or checked lately, by a 128-bit digest of signature, key and body: checking a
/// signature costs about 70 µs, looking it up about 1. Sound because Ed25519 is deterministic and an entry is only
/// ever made by signing with the private key or by a check that passed: a triple not made so matches no entry
/// (short of a second preimage of SHA-256's first 128 bits). What it saves: in a simulated room every node is in
/// this process, and each multicast datagram is checked by every receiver.
final class SignatureMemo: Sendable {
    static let shared = SignatureMemo()
    /// Entries kept, the oldest forgotten first: about 2 MB, and more than the datagrams a 1,000-node start sends
    /// between a signature and its last check.
    static let capacity = 1 << 16

    private struct Digest: Hashable {
        let high: UInt64
        let low: UInt64
    }

    private struct State {
        var set = Set<Digest>()
        var order: [Digest] = []
        var next = 0
    }

    private let state = Mutex(State())

    private static func digest(_ signature: UnsafeRawBufferPointer, _ key: [UInt8], _ body: UnsafeRawBufferPointer) -> Digest {
        var hash = SHA256()
        hash.update(bufferPointer: signature)
        key.withUnsafeBytes { hash.update(bufferPointer: $0) }
        hash.update(bufferPointer: body)
        return hash.finalize().withUnsafeBytes { bytes in
            Digest(high: bytes.loadUnaligned(as: UInt64.self), low: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    func remember(_ signature: [UInt8], _ key: [UInt8], _ body: UnsafeRawBufferPointer) {
        let digest = signature.withUnsafeBytes { Self.digest($0, key, body) }
        state.withLock { s in
            guard s.set.insert(digest).inserted else { return }
            if s.order.count < Self.capacity {
                s.order.append(digest)
            } else {
                s.set.remove(s.order[s.next])
                s.order[s.next] = digest
                s.next = (s.next + 1) % Self.capacity
            }
        }
    }

    func contains(_ signature: UnsafeRawBufferPointer, _ key: [UInt8], _ body: UnsafeRawBufferPointer) -> Bool {
        let digest = Self.digest(signature, key, body)
        return state.withLock { $0.set.contains(digest) }
    }
}
