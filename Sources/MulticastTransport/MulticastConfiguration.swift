import NIOCore

/// Where the UDP discovery group is and which interface carries it.
package struct MulticastConfiguration: Sendable, Equatable {
    /// The group address: administratively scoped (239.0.0.0/8, RFC 2365), so routers never forward it.
    package var group: String = "239.255.77.77"
    /// The group's port; every node of the group listens on it.
    package var port: Int = 47_677
    /// The interface that carries the group and the unicast endpoints. Loopback by default: nothing leaves the
    /// machine. Another interface (a veth in a network namespace) is used only when named.
    package var interface: String = "lo"
    /// Bytes asked for each group socket's receive buffer. Every node's group socket receives every announcement of
    /// the group; the default holds the start bursts of 400 peers (3 each) at about 1.5 KiB of kernel accounting
    /// per small datagram on loopback. ``sized(forPeers:)`` sets it for a group size.
    package var groupReceiveBuffer: Int = 2 << 20
    /// Bytes asked for each unicast socket's receive buffer: a node receives up to one invitation or accept from
    /// each peer at once.
    package var unicastReceiveBuffer: Int = 1 << 20

    package init() {}

    /// Kernel accounting of one small datagram in a receive buffer, measured on loopback (skb truesize).
    package static let bytesPerQueuedDatagram = 1536

    /// The configuration with its receive buffers sized for a group of `peers`: each group socket holds every
    /// peer's start burst (`burst` announcements each), each unicast socket one datagram from every peer, twice
    /// over; never under 256 KiB (the usual default) nor over 16 MiB.
    package func sized(forPeers peers: Int, burst: Int) -> MulticastConfiguration {
        var sized = self
        let clamp = { (bytes: Int) in min(max(bytes, 256 << 10), 16 << 20) }
        sized.groupReceiveBuffer = clamp(peers * max(burst, 1) * Self.bytesPerQueuedDatagram)
        sized.unicastReceiveBuffer = clamp(2 * peers * Self.bytesPerQueuedDatagram)
        return sized
    }

    /// Parses `ADDRESS:PORT`, as `--group` takes it.
    package mutating func setGroup(_ text: String) throws(MulticastSetupError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = Int(parts[1]) else { throw .invalidGroup(text, reason: "expected ADDRESS:PORT") }
        group = String(parts[0])
        self.port = port
        try validate()
    }

    /// Checks the group address and port.
    package func validate() throws(MulticastSetupError) {
        let octets = group.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        guard octets.count == 4, octets.allSatisfy({ $0 != nil }) else {
            throw .invalidGroup("\(group):\(port)", reason: "the address is not dotted IPv4")
        }
        guard octets[0] == 239 else {
            throw .invalidGroup("\(group):\(port)", reason: "the address must be administratively scoped (239.x.y.z)")
        }
        guard (1024...65535).contains(port) else {
            throw .invalidGroup("\(group):\(port)", reason: "the port must be between 1024 and 65535")
        }
    }
}

/// Why the UDP transport could not be set up.
package enum MulticastSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidGroup(String, reason: String)
    case noSuchInterface(String, available: [String])
    case socket(String)

    package var description: String {
        switch self {
        case .invalidGroup(let group, let reason): "invalid multicast group \(group): \(reason)"
        case .noSuchInterface(let name, let available):
            "no interface \"\(name)\" with an IPv4 address (available: \(available.joined(separator: ", ")))"
        case .socket(let detail): "could not set up the UDP sockets: \(detail)"
        }
    }
}
