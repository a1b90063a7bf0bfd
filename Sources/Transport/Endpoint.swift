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

    public init(bytes: [UInt8], source: Endpoint, viaGroup: Bool) {
        self.bytes = bytes
        self.source = source
        self.viaGroup = viaGroup
    }
}
