import NIOCore
import NIOPosix
import TransportCore

/// The default transport: UDP multicast for discovery, UDP unicast for the token exchange, through SwiftNIO.
///
/// Each node has two sockets on one event loop: a group socket bound to the group address and port (shared with
/// every other node of the machine through SO_REUSEADDR; each receives a copy of every datagram, its own included),
/// and a unicast socket on an ephemeral port of the interface's address, which sends everything. Sending from the
/// unicast socket makes a datagram's source the node's unicast endpoint.
///
/// Confined to its event loop, like the node that uses it.
package final class UDPMulticastTransport: DatagramTransport {
    package let unicastEndpoint: Endpoint
    private let sink: DatagramSink
    private let unicast: Channel
    private let groupChannel: Channel
    private let groupAddress: SocketAddress

    package var onReceive: ((IncomingDatagram) -> Void)? {
        get { sink.onReceive }
        set { sink.onReceive = newValue }
    }

    private init(unicast: Channel, groupChannel: Channel, groupAddress: SocketAddress, sink: DatagramSink) throws {
        guard let local = unicast.localAddress, let host = local.ipAddress, let port = local.port else {
            throw MulticastSetupError.socket("the unicast socket has no local address")
        }
        self.unicastEndpoint = Endpoint(host: host, port: UInt16(port))
        self.unicast = unicast
        self.groupChannel = groupChannel
        self.groupAddress = groupAddress
        self.sink = sink
    }

    /// Opens the two sockets of one node on `loop`, joins the group on the configured interface only, and points
    /// outgoing multicast at that interface.
    ///
    /// On Linux `lo` has no MULTICAST flag and SwiftNIO refuses to join on such a device, though the kernel accepts
    /// a membership on 127.0.0.1; a copy of the loopback device marked multicast-capable gets past the check.
    /// Loopback also gets TTL 0, so that nothing sent can leave the host.
    package static func make(
        on loop: EventLoop, configuration: MulticastConfiguration
    ) -> EventLoopFuture<NIOLoopBound<UDPMulticastTransport>> {
        let receiveBuffers = (group: configuration.groupReceiveBuffer, unicast: configuration.unicastReceiveBuffer)
        let device: NIONetworkDevice
        let groupAddress: SocketAddress
        do {
            try configuration.validate()
            device = try interfaceDevice(named: configuration.interface)
            groupAddress = try SocketAddress(ipAddress: configuration.group, port: configuration.port)
        } catch {
            return loop.makeFailedFuture(error)
        }
        guard case .v4(let interfaceAddress)? = device.address, let interfaceHost = device.address?.ipAddress else {
            return loop.makeFailedFuture(MulticastSetupError.noSuchInterface(configuration.interface, available: []))
        }
        let isLoopback = interfaceHost.hasPrefix("127.")

        return loop.flatSubmit {
            let sink = NIOLoopBound(DatagramSink(), eventLoop: loop)
            func bootstrap(viaGroup: Bool) -> DatagramBootstrap {
                // Only the group socket shares its port. On a unicast socket SO_REUSEADDR would let the kernel give
                // two nodes the same ephemeral port, and one would receive the other's token exchange.
                DatagramBootstrap(group: loop)
                    .channelOption(.socketOption(.so_reuseaddr), value: viaGroup ? 1 : 0)
                    .channelOption(.maxMessagesPerRead, value: 16)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                DatagramReader(sink: sink.value, viaGroup: viaGroup))
                        }
                    }
            }
            let unicastFuture = bootstrap(viaGroup: false).bind(host: interfaceHost, port: 0)
                .flatMap { channel -> EventLoopFuture<Channel> in
                    guard let options = channel as? SocketOptionProvider else {
                        return loop.makeFailedFuture(MulticastSetupError.socket("no socket options on the channel"))
                    }
                    return options.setIPMulticastIF(interfaceAddress.address.sin_addr)
                        .flatMap { options.setIPMulticastTTL(isLoopback ? 0 : 1) }
                        .flatMap { options.setIPMulticastLoop(1) }
                        .flatMap { sizeReceiveBuffer(of: channel, to: receiveBuffers.unicast) }
                        .map { channel }
                }
            let groupFuture = bootstrap(viaGroup: true).bind(host: configuration.group, port: configuration.port)
                .flatMap { channel -> EventLoopFuture<Channel> in
                    guard let multicast = channel as? MulticastChannel else {
                        return loop.makeFailedFuture(MulticastSetupError.socket("the group socket is not multicast"))
                    }
                    return multicast.joinGroup(groupAddress, device: device)
                        .flatMap { sizeReceiveBuffer(of: channel, to: receiveBuffers.group) }
                        .map { channel }
                }
            return unicastFuture.and(groupFuture).flatMapThrowing { unicast, group in
                let transport = try UDPMulticastTransport(
                    unicast: unicast, groupChannel: group, groupAddress: groupAddress, sink: sink.value)
                return NIOLoopBound(transport, eventLoop: loop)
            }
        }
    }

    /// Sets a socket's receive buffer to `bytes`: past the system's cap (net.core.rmem_max) when the process may
    /// (SO_RCVBUFFORCE, as root), within it otherwise. A datagram that arrives at a full buffer is lost, and
    /// ``kernelDrops()`` counts it.
    private static func sizeReceiveBuffer(of channel: Channel, to bytes: Int) -> EventLoopFuture<Void> {
        guard let options = channel as? SocketOptionProvider else { return channel.eventLoop.makeSucceededVoidFuture() }
        let value = CInt(clamping: bytes)
        return options.unsafeSetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_RCVBUFFORCE),
                                             value: value)
            .flatMapError { _ in
                options.unsafeSetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_RCVBUF),
                                              value: value)
            }
    }

    /// Datagrams the kernel dropped because one of this node's sockets had a full receive buffer: the sockets' drop
    /// counters (SO_MEMINFO, the count SO_RXQ_OVFL would attach to each datagram read).
    package func kernelDrops() -> EventLoopFuture<Int> {
        func drops(_ channel: Channel) -> EventLoopFuture<Int> {
            guard let options = channel as? SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(0) }
            return options.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_MEMINFO))
                .map { (info: SocketMemoryInfo) in Int(info.drops) }
                .recover { _ in 0 }
        }
        return drops(groupChannel).and(drops(unicast)).map { $0 + $1 }
    }

    /// The named interface's IPv4 device; loopback is marked multicast-capable (see ``make(on:configuration:)``).
    static func interfaceDevice(named name: String) throws -> NIONetworkDevice {
        let devices = try System.enumerateDevices()
        let withIPv4 = devices.filter { $0.address?.protocol == .inet }
        guard var device = withIPv4.first(where: { $0.name == name }) else {
            throw MulticastSetupError.noSuchInterface(name, available: Array(Set(withIPv4.map(\.name))).sorted())
        }
        if device.address?.ipAddress?.hasPrefix("127.") == true { device.multicastSupported = true }
        return device
    }

    package func send(_ bytes: [UInt8], to destination: Destination) {
        let address: SocketAddress
        switch destination {
        case .group:
            address = groupAddress
        case .unicast(let endpoint):
            guard let resolved = try? SocketAddress(ipAddress: endpoint.host, port: Int(endpoint.port)) else { return }
            address = resolved
        }
        let buffer = unicast.allocator.buffer(bytes: bytes)
        unicast.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
    }

    package func close() {
        sink.onReceive = nil
        unicast.close(promise: nil)
        groupChannel.close(promise: nil)
    }
}

/// Linux's `struct` of SO_MEMINFO: nine counters of a socket's memory, the last its drops (SK_MEMINFO_DROPS).
struct SocketMemoryInfo: Sendable {
    var counters: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0, 0, 0, 0)

    var drops: UInt32 { counters.8 }
}

/// Where a node's two sockets deliver; set once the node's driver exists.
final class DatagramSink {
    var onReceive: ((IncomingDatagram) -> Void)?
}

/// Reads datagrams off one socket and hands them to the sink, on the socket's event loop.
final class DatagramReader: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let sink: DatagramSink
    private let viaGroup: Bool
    /// Formatting an address as text for every datagram costs more than handling it: the few senders a node hears
    /// from are remembered (the cache is emptied if it ever grows past a group's worth).
    private var endpoints: [SocketAddress: Endpoint] = [:]

    init(sink: DatagramSink, viaGroup: Bool) {
        self.sink = sink
        self.viaGroup = viaGroup
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        let source: Endpoint
        if let known = endpoints[envelope.remoteAddress] {
            source = known
        } else {
            guard let host = envelope.remoteAddress.ipAddress, let port = envelope.remoteAddress.port else { return }
            source = Endpoint(host: host, port: UInt16(port))
            if endpoints.count >= 4096 { endpoints = [:] }
            endpoints[envelope.remoteAddress] = source
        }
        let bytes = Array(envelope.data.readableBytesView)
        sink.onReceive?(IncomingDatagram(bytes: bytes, source: source, viaGroup: viaGroup))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A failed send (an unreachable peer) surfaces here as a read error; UDP carries on.
    }
}
