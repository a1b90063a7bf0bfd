import Foundation
import MulticastTransport
import NIOCore
import NIOPosix
import Synchronization
import Testing
import TestSupport
import TransportCore

@Suite(.serialized, .tags(.realTime)) struct UDPMulticastTransportTests {
    /// A group of its own for each test, so that runs in parallel processes do not hear each other.
    private func configuration(_ port: Int) -> MulticastConfiguration {
        var c = MulticastConfiguration()
        c.group = "239.255.91.\(port % 200 + 1)"
        c.port = port
        return c
    }

    /// The interfaces that hold a membership of `group`, from the kernel's own table.
    private func memberships(of group: String) throws -> [String] {
        // /proc/net/igmp writes a group as the hex of its address in memory order (little-endian on x86 and arm64).
        let octets = group.split(separator: ".").compactMap { UInt8($0) }
        let hex = octets.reversed().map { String(format: "%02X", $0) }.joined()
        var device = ""
        var found: [String] = []
        for line in try String(contentsOfFile: "/proc/net/igmp", encoding: .utf8).split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if !line.hasPrefix("\t"), fields.count >= 2 { device = String(fields[1]) }
            if line.hasPrefix("\t"), fields.first.map(String.init) == hex { found.append(device) }
        }
        return found
    }

    @Test func groupAndUnicastOnLoopbackOnly() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let config = configuration(47_911)
        let loop = group.next()
        let a = try await UDPMulticastTransport.make(on: loop, configuration: config).get()
        let b = try await UDPMulticastTransport.make(on: loop, configuration: config).get()
        let received = Mutex<[(String, IncomingDatagram)]>([])
        let endpoints = try await loop.submit {
            a.value.onReceive = { d in received.withLock { $0.append(("a", d)) } }
            b.value.onReceive = { d in received.withLock { $0.append(("b", d)) } }
            a.value.send([1, 2, 3], to: .group)
            a.value.send([4], to: .unicast(b.value.unicastEndpoint))
            return (a.value.unicastEndpoint, b.value.unicastEndpoint)
        }.get()
        for _ in 0..<200 where received.withLock({ $0.count }) < 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try memberships(of: config.group) == ["lo"])
        try await loop.submit { a.value.close(); b.value.close() }.get()
        try await group.shutdownGracefully()

        let got = received.withLock { $0 }
        #expect(got.count == 3)
        #expect(endpoints.0.host == "127.0.0.1" && endpoints.1.host == "127.0.0.1")
        #expect(endpoints.0.port != endpoints.1.port)
        // The group returns the sender's own copy; every datagram comes from the sender's unicast endpoint.
        #expect(got.filter { $0.0 == "a" && $0.1.viaGroup && $0.1.bytes == [1, 2, 3] }.count == 1)
        #expect(got.filter { $0.0 == "b" && $0.1.viaGroup && $0.1.bytes == [1, 2, 3] }.count == 1)
        #expect(got.filter { $0.0 == "b" && !$0.1.viaGroup && $0.1.bytes == [4] }.count == 1)
        #expect(got.allSatisfy { $0.1.source == endpoints.0 })
        #expect(try memberships(of: config.group).isEmpty)
    }

    @Test(arguments: [
        ("224.0.0.1:5000", "invalid multicast group 224.0.0.1:5000: the address must be administratively scoped (239.x.y.z)"),
        ("239.1.2.3", "invalid multicast group 239.1.2.3: expected ADDRESS:PORT"),
        ("239.1.2:5000", "invalid multicast group 239.1.2:5000: the address is not dotted IPv4"),
        ("239.1.2.3:80", "invalid multicast group 239.1.2.3:80: the port must be between 1024 and 65535"),
    ])
    func badGroupsAreRefused(_ text: String, _ message: String) {
        var c = MulticastConfiguration()
        do {
            try c.setGroup(text)
            Issue.record("\(text) accepted")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func unknownInterfaceIsNamed() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var c = configuration(47_912)
        c.interface = "nope0"
        do {
            _ = try await UDPMulticastTransport.make(on: group.next(), configuration: c).get()
            Issue.record("joined on a missing interface")
        } catch let error as MulticastSetupError {
            #expect(error.description.hasPrefix("no interface \"nope0\" with an IPv4 address (available: "))
            #expect(error.description.contains("lo"))
        }
        try await group.shutdownGracefully()
    }
}

@Suite struct UnicastPortTests {
    /// 300 transports in one process: every unicast endpoint is a port of its own. With SO_REUSEADDR on the unicast
    /// sockets the kernel could hand two of them the same ephemeral port.
    @Test func everyNodeHasItsOwnUnicastPort() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        var c = MulticastConfiguration()
        c.group = "239.255.91.250"
        c.port = 47_913
        var transports: [NIOLoopBound<UDPMulticastTransport>] = []
        for _ in 0..<300 { transports.append(try await UDPMulticastTransport.make(on: group.next(), configuration: c).get()) }
        var endpoints = Set<Endpoint>()
        for t in transports {
            endpoints.insert(try await t.eventLoop.submit { t.value.unicastEndpoint }.get())
            try await t.eventLoop.submit { t.value.close() }.get()
        }
        try await group.shutdownGracefully()
        #expect(endpoints.count == 300)
    }
}
