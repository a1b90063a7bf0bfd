import Foundation
import Geometry
import NIOCore
import NIOPosix
import UCI
import UCIRoom

/// A UCI endpoint on loopback: each TCP connection is one simulated chip, raw UCI packets both ways (docs/uci.md);
/// optionally pica's HTTP API beside it (UCIWeb.swift). Everything runs on one event loop, which alone touches the
/// room: no locks, and the rounds' reports leave at the loop's timers, set to the room's next due time.
package final class UCIEndpoint: @unchecked Sendable {
    private let group: MultiThreadedEventLoopGroup
    let loop: EventLoop
    let room: UCIRoom
    private var channels: [Int: Channel] = [:]
    private var timer: Scheduled<Void>?
    private var timerDue: Double?
    private let origin = NIODeadline.now()
    private var servers: [Channel] = []
    var webClients: [ObjectIdentifier: Channel] = [:]
    private var capture: UCICapture?
    /// What went wrong on the loop that no host could be told: a connection refused for want of a chip, a host
    /// closed for not reading.
    private var problems: [String] = []
    /// Bytes written to each connection (a host's, or a web client's event stream) and not yet taken by its socket.
    private var unread: [ObjectIdentifier: Int] = [:]
    /// A connection stops being read while its socket holds more than the high mark of its answers, and is read again
    /// below the low one: a host that sends and never reads fills its own socket, not the endpoint's memory.
    package static let watermark = ChannelOptions.Types.WriteBufferWaterMark(low: 32 * 1024, high: 128 * 1024)
    /// A connection whose unread answers pass this many bytes (ranging reports go on while it is not read) is closed.
    package static let unreadLimit = 1 << 20
    /// Bytes taken from a host at one read: each read's answers stay well under the high mark.
    package static let readSize = 4_096
    /// How late each ranging report left after the instant it was due, in bins of 0.1 ms (the last holds 100 ms and
    /// more): what a host's timing can be no better than.
    private var lateness = [Int](repeating: 0, count: 1001)
    /// Called on the loop when a chip comes or goes, for the web API's events.
    var onChipsChanged: ((String, Int) -> Void)?
    /// The web API's coordinates; set before ``serveWeb(host:port:)``.
    package var axes = WebAxes.room

    package init(room: UCIRoom) {
        self.room = room
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
    }

    /// Writes each chip's packets to `directory/device-N.pcapng` (UCICapture.swift). Call before ``listen(host:port:)``.
    package func capture(into directory: URL) {
        capture = UCICapture(directory: directory, epoch: Date().timeIntervalSince1970 - now)
    }


    /// Room time: seconds since the endpoint was made.
    var now: Double { Double((NIODeadline.now() - origin).nanoseconds) / 1e9 }

    /// Listens for hosts on `host`:`port` (0 picks a free port).
    ///
    /// - Returns: the port bound.
    package func listen(host: String = "127.0.0.1", port: Int) throws -> Int {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: Self.watermark)
            .childChannelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.readSize))
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .childChannelInitializer { [self] channel in
                channel.pipeline.addHandler(ConnectionHandler(endpoint: self))
            }
        let server = try bootstrap.bind(host: host, port: port).wait()
        loop.execute { self.servers.append(server) }
        return server.localAddress?.port ?? port
    }

    /// Closes every connection and the listeners.
    ///
    /// - Throws: what stopped the loop first, or its threads from ending.
    package func shutdown() throws {
        try loop.submit {
            self.timer?.cancel()
            for c in self.servers + Array(self.channels.values) + Array(self.webClients.values) { c.close(promise: nil) }
            self.capture?.closeAll()
        }.wait()
        try group.syncShutdownGracefully()
    }

    /// Runs `body` on the loop and waits for it.
    package func onLoop<T: Sendable>(_ body: @escaping @Sendable (UCIRoom) -> T) throws -> T {
        try loop.submit { body(self.room) }.wait()
    }

    /// What the endpoint closes with, read on the loop: the room's counters; how late the ranging reports left after
    /// they were due, milliseconds, the median and the 95th percentile (`nil` before any report); what went wrong
    /// that no host was told (why captures stopped, connections refused).
    package func closingFigures() throws
        -> (counters: UCICounters, lateness: (p50: Double, p95: Double)?, problems: [String])
    {
        try loop.submit {
            (self.room.counters, Self.quantiles(self.lateness),
             (self.capture?.problems ?? []).map { "capture stopped: \($0)" } + self.problems)
        }.wait()
    }

    private static func quantiles(_ bins: [Int]) -> (p50: Double, p95: Double)? {
        let total = bins.reduce(0, +)
        guard total > 0 else { return nil }
        func quantile(_ q: Double) -> Double {
            var seen = 0
            for (k, n) in bins.enumerated() {
                seen += n
                if Double(seen) >= q * Double(total) { return Double(k + 1) / 10 }
            }
            return Double(bins.count) / 10
        }
        return (quantile(0.5), quantile(0.95))
    }

    // MARK: On the loop

    func connected(_ channel: Channel) {
        do {
            let (device, out) = try room.connect(at: now)
            channels[device] = channel
            capture?.open(device)
            deliver(out)
            onChipsChanged?("device-added", device)
        } catch {
            problems.append("a host's connection refused: its chip could not be made: \(error)")
            channel.close(promise: nil)
        }
        reschedule()
    }

    func disconnected(_ channel: Channel) {
        forget(channel)
        guard let device = channels.first(where: { $0.value === channel })?.key else { return }
        onChipsChanged?("device-removed", device)
        channels[device] = nil
        capture?.close(device)
        room.disconnect(device)
        reschedule()
    }

    func received(_ bytes: [UInt8], on channel: Channel) {
        guard let device = channels.first(where: { $0.value === channel })?.key else { return }
        let t = now
        capture?.recordInbound(device, bytes, at: t)
        // Rounds due before these bytes came are run first, so that replies and reports keep the room's order.
        deliver(room.advance(to: t))
        deliver(room.receive(bytes, from: device, at: t))
        reschedule()
    }

    func deliver(_ out: [UCIOutgoing]) {
        guard !out.isEmpty else { return }
        var touched: Set<Int> = []
        let sentAt = now
        for o in out {
            guard let channel = channels[o.device] else { continue }
            if o.message.type == .notification, o.message.group == UCIGroup.sessionControl, o.message.opcode == UCIOpcode.sessionInfo {
                lateness[min(max(Int((sentAt - o.time) * 10_000), 0), lateness.count - 1)] += 1
            }
            capture?.record(o.device, o.message, outbound: true, at: o.time)
            for packet in o.message.packets {
                var buffer = channel.allocator.buffer(capacity: packet.count)
                buffer.writeBytes(packet)
                send(buffer, on: channel)
            }
            touched.insert(o.device)
        }
        for d in touched {
            guard let channel = channels[d] else { continue }
            channel.flush()
            if unread[ObjectIdentifier(channel), default: 0] > Self.unreadLimit {
                problems.append("host of chip \(d) closed: over \(Self.unreadLimit) bytes of its answers unread")
                channel.close(promise: nil)
            }
        }
    }

    /// Writes `buffer` to `channel`, counted unread until its socket takes it.
    func send(_ buffer: ByteBuffer, on channel: Channel) {
        channel.write(buffer, promise: counted(buffer.readableBytes, on: channel))
    }

    /// A write's promise that counts its `count` bytes unread on `channel` until the write completes.
    func counted(_ count: Int, on channel: Channel) -> EventLoopPromise<Void> {
        let key = ObjectIdentifier(channel)
        unread[key, default: 0] += count
        let written = loop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [unowned self] _ in
            if let left = unread[key] { unread[key] = left - count }
        }
        return written
    }

    /// A connection closed: what it left unread goes with it.
    func forget(_ channel: Channel) {
        unread[ObjectIdentifier(channel)] = nil
    }

    /// Reads a connection, or stops reading it, from its handler on the loop; a connection that cannot be told is
    /// closed rather than read without bound.
    static func read(_ on: Bool, _ context: ChannelHandlerContext) {
        do {
            guard let options = context.channel.syncOptions else { return context.close(promise: nil) }
            try options.setOption(ChannelOptions.autoRead, value: on)
        } catch {
            context.close(promise: nil)
        }
    }

    /// Bytes written to `channel` that its socket has not taken.
    func unreadBytes(_ channel: Channel) -> Int { unread[ObjectIdentifier(channel), default: 0] }

    /// Sets the loop's timer to the room's next due time, if that moved.
    func reschedule() {
        guard let due = room.nextDue() else {
            timer?.cancel()
            timer = nil
            timerDue = nil
            return
        }
        if let timerDue, timer != nil, abs(timerDue - due) < 1e-6 { return }
        timer?.cancel()
        timerDue = due
        let deadline = origin + .nanoseconds(Int64((due * 1e9).rounded(.up)))
        timer = loop.scheduleTask(deadline: deadline) { [self] in
            timer = nil
            timerDue = nil
            deliver(room.advance(to: max(now, due)))
            reschedule()
        }
    }

    final class ConnectionHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let endpoint: UCIEndpoint

        init(endpoint: UCIEndpoint) { self.endpoint = endpoint }

        func channelActive(context: ChannelHandlerContext) {
            endpoint.connected(context.channel)
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            endpoint.disconnected(context.channel)
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            if let bytes = buffer.readBytes(length: buffer.readableBytes) { endpoint.received(bytes, on: context.channel) }
            // Its answers fill its socket: read no more of it until they drain.
            if !context.channel.isWritable { UCIEndpoint.read(false, context) }
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            UCIEndpoint.read(context.channel.isWritable, context)
            context.fireChannelWritabilityChanged()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }
}
