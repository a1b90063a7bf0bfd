/// A unicast address and port: where a node's token exchange is reached.
public struct Endpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// An IPv4 address in dotted form, or an in-memory host name.
    public let host: String
    public let port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The same host at another port: an announcement names its unicast port, the datagram gives the host.
    public func with(port: UInt16) -> Endpoint {
        Endpoint(host: host, port: port)
    }

    public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool {
        (lhs.host, lhs.port) < (rhs.host, rhs.port)
    }

    public var description: String { "\(host):\(port)" }
}

/// Where a datagram goes.
public enum Destination: Sendable, Hashable {
    /// Every member of the discovery group, the sender included (as multicast loopback does).
    case group
    /// One node's unicast endpoint.
    case unicast(Endpoint)
}

/// A datagram as a node receives it.
public struct IncomingDatagram: Sendable, Equatable {
    public let bytes: [UInt8]
    /// The sender's address and port as the network reports them.
    public let source: Endpoint
    /// Whether it arrived on the group (multicast) or on the node's unicast endpoint.
    public let viaGroup: Bool
    /// Shared by every receiver of one group frame in memory; `nil` otherwise. Not part of the datagram's value.
    public let memo: FrameMemo?

    public init(bytes: [UInt8], source: Endpoint, viaGroup: Bool, memo: FrameMemo? = nil) {
        self.bytes = bytes
        self.source = source
        self.viaGroup = viaGroup
        self.memo = memo
    }

    public static func == (a: IncomingDatagram, b: IncomingDatagram) -> Bool {
        a.bytes == b.bytes && a.source == b.source && a.viaGroup == b.viaGroup
    }
}

/// What the receivers of one frame made of its bytes, kept for the next receiver of the same bytes.
///
/// The in-memory network hands a group frame to all its members in one action: a thousand nodes would otherwise
/// each decode the same announcement (an eighth of a 1,000-peer start). Whatever is kept must follow from the bytes
/// alone, so that using it is the same as decoding again (or, for bytes a sender in this process left unsealed, from
/// the bytes it would have sealed). Written only by that one action's thread, or filled before
/// the action and frozen when the receivers take the frame on several threads (``InMemoryNetwork/frameCopies``),
/// hence unchecked.
public final class FrameMemo: @unchecked Sendable {
    private var kept: AnyObject?
    /// Whether what is kept is final: a frozen memo ignores writes, so that readers on several threads see one value.
    public private(set) var isFrozen = false

    /// What is kept; setting it does nothing once the memo is frozen.
    public var value: AnyObject? {
        get { kept }
        set { if !isFrozen { kept = newValue } }
    }

    /// A memo holding `value`, frozen when `frozen`.
    public init(_ value: AnyObject? = nil, frozen: Bool = false) {
        kept = value
        isFrozen = frozen
    }
}
