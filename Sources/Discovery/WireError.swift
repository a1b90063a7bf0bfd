/// Why a datagram was refused. Every refusal is counted by its ``kind``; none traps.
package enum WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than the layout needs at `field`.
    case truncated(field: String)
    /// The first four bytes are not the magic "NCSM": not one of ours.
    case badMagic
    /// A version this build does not speak.
    case unsupportedVersion(UInt8)
    /// A type byte this version does not define.
    case unknownType(UInt8)
    /// The header's payload length disagrees with the datagram's size.
    case lengthMismatch(declared: Int, actual: Int)
    /// Larger than the largest datagram of the format.
    case oversized(Int)
    /// A field that decodes but breaks its rule (bad UTF-8, a bad service type, an unknown code, ...).
    case invalidField(field: String, reason: String)
    /// A datagram that speaks for a peer whose key did not sign it: an id not given by the key it carries.
    case forged(String)

    /// The refusal's kind, for counters.
    package var kind: WireRefusal {
        switch self {
        case .truncated: .truncated
        case .badMagic: .badMagic
        case .unsupportedVersion: .unsupportedVersion
        case .unknownType: .unknownType
        case .lengthMismatch: .lengthMismatch
        case .oversized: .oversized
        case .invalidField: .invalidField
        case .forged: .forged
        }
    }

    package var description: String {
        switch self {
        case .truncated(let field): "truncated datagram: ended inside \(field)"
        case .badMagic: "not a nearcatch datagram (bad magic)"
        case .unsupportedVersion(let v): "unsupported wire version \(v)"
        case .unknownType(let t): "unknown message type \(t)"
        case .lengthMismatch(let declared, let actual): "payload length \(declared) declared, \(actual) present"
        case .oversized(let size): "datagram of \(size) bytes is over the \(WireFormat.maximumDatagramSize)-byte limit"
        case .invalidField(let field, let reason): "invalid \(field): \(reason)"
        case .forged(let what): "forged: \(what)"
        }
    }
}

/// Every reason a node refuses a datagram, for the counters a run reports.
package enum WireRefusal: String, Sendable, CaseIterable, Codable, Comparable {
    case truncated, badMagic, unsupportedVersion, unknownType, lengthMismatch, oversized, invalidField
    /// A session datagram whose token is not the one mapped to the peer it claims.
    case tokenMismatch
    /// From an older life of a peer than the one held.
    case staleIncarnation
    /// A unicast datagram addressed to another peer or another life of this one.
    case misaddressed
    /// Well formed, but its tag is not the one the group key gives: sent by someone without the key, or altered.
    case unauthenticated
    /// Authentic, but older than what its sender sent since (or than what a departed peer sent last): a replay.
    case replayed
    /// Under the group key, but not signed by the peer it speaks for (its signature is not that peer's key's, or its
    /// id not the one its key gives): a member speaking for another.
    case forged
    /// Under the group key, from a peer this node does not know and carrying no key to check it by (a goodbye, an
    /// answer or session data): nothing in it is believed.
    case unknownSender
    /// Under the group key and signed, but sent from another port than the one its advertisement gives for answers:
    /// answering would send to an address that did not send it (a reflector).
    case wrongSource

    package static func < (lhs: WireRefusal, rhs: WireRefusal) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
