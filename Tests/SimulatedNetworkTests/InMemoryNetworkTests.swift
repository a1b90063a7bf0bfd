import Testing
import SimulatedNetwork
import TransportCore

@Suite struct InMemoryNetworkTests {
    private func network(_ conditions: NetworkConditions, seed: UInt64 = 1) throws -> InMemoryNetwork {
        try InMemoryNetwork(clock: VirtualClock(), conditions: conditions, seed: seed)
    }

    @Test func groupReachesEveryoneTheSenderIncludedAndUnicastOnlyItsTarget() throws {
        let net = try network(NetworkConditions())
        let nodes = (0..<3).map { _ in net.attach() }
        var heard: [Int: [IncomingDatagram]] = [:]
        for (i, node) in nodes.enumerated() { node.onReceive = { heard[i, default: []].append($0) } }
        nodes[0].send([7], to: .group)
        nodes[0].send([8], to: .unicast(nodes[2].unicastEndpoint))
        net.clock.run(until: 1)
        #expect(heard[0]?.map(\.bytes) == [[7]])
        #expect(heard[1]?.map(\.bytes) == [[7]])
        #expect(heard[2]?.map(\.bytes).sorted { $0[0] < $1[0] } == [[7], [8]])
        #expect(heard.values.joined().allSatisfy { $0.source == nodes[0].unicastEndpoint })
        #expect(Set(nodes.map(\.unicastEndpoint)).count == 3)
    }

    /// Hosts at 0, 10 and 30 m with a reach of 15 m: a group datagram reaches the sender and its 10-m neighbour
    /// only, a unicast to the far host is not delivered and is counted; a host placed nowhere is heard by all.
    @Test func aReachDeliversOnlyWithinItsRange() throws {
        let net = try network(NetworkConditions())
        let nodes = (0..<4).map { _ in net.attach() }
        let reach = RadioReach(range: 15)
        reach.place([0, 0, 0, 10, 0, 0, 30, 0, 0])
        net.reach = reach
        var heard: [Int: [UInt8]] = [:]
        for (i, node) in nodes.enumerated() { node.onReceive = { heard[i, default: []] += $0.bytes } }
        nodes[0].send([1], to: .group)
        nodes[0].send([2], to: .unicast(nodes[2].unicastEndpoint))
        nodes[1].send([3], to: .unicast(nodes[2].unicastEndpoint))
        nodes[2].send([4], to: .unicast(nodes[3].unicastEndpoint))
        net.clock.run(until: 1)
        #expect(heard[0] == [1] && heard[1] == [1])
        #expect(heard[2] == nil)
        #expect(heard[3] == [1, 4])
        #expect(net.outOfReach == 3)
        #expect(net.delivered == 4)
        // Moved within reach, the far host hears again.
        reach.place([0, 0, 0, 10, 0, 0, 20, 0, 0])
        nodes[1].send([5], to: .unicast(nodes[2].unicastEndpoint))
        net.clock.run(until: 2)
        #expect(heard[2] == [5])
    }

    @Test func lossAndDuplicationFollowTheirShares() throws {
        var conditions = NetworkConditions(loss: 0.3, duplication: 0.1)
        conditions.jitter = 0
        let net = try network(conditions)
        let a = net.attach()
        let b = net.attach()
        var received = 0
        b.onReceive = { _ in received += 1 }
        for _ in 0..<20_000 { a.send([1], to: .unicast(b.unicastEndpoint)) }
        net.clock.run(until: 1)
        // Each send makes 1.1 copies on average, 70% of which arrive: 0.77 per send.
        #expect(abs(Double(received) / 20_000 - 0.77) < 0.015)
        #expect(net.dropped + received > 20_000)
    }

    /// Datagrams sent 1 ms apart with a share held back by 20 ms: each held datagram is overtaken by the ones sent
    /// after it (unless all the next 19 were held too), so the share overtaken is the share asked for; none without.
    @Test(arguments: [0.0, 0.1, 0.5])
    func reorderingHoldsBackTheShareAskedFor(_ share: Double) throws {
        var conditions = NetworkConditions(loss: 0, reordering: share)
        conditions.jitter = 0
        let net = try network(conditions)
        let a = net.attach()
        let b = net.attach()
        var order: [Int] = []
        b.onReceive = { order.append(Int($0.bytes[0]) << 8 | Int($0.bytes[1])) }
        let count = 4_000
        for i in 0..<count {
            net.clock.schedule(at: Double(i) * 0.001) { a.send([UInt8(i >> 8), UInt8(i & 0xFF)], to: .unicast(b.unicastEndpoint)) }
        }
        net.clock.run(until: 10)
        #expect(order.count == count)
        // A datagram was overtaken when one sent after it arrived before it.
        var overtaken = 0
        var arrivedAt = [Int](repeating: 0, count: count)
        for (position, i) in order.enumerated() { arrivedAt[i] = position }
        var earliestLater = Int.max
        for i in stride(from: count - 1, through: 0, by: -1) {
            if earliestLater < arrivedAt[i] { overtaken += 1 }
            earliestLater = min(earliestLater, arrivedAt[i])
        }
        let measured = Double(overtaken) / Double(count)
        // Binomial spread at 4,000 datagrams: at most 0.008 (one standard deviation); allowed four.
        #expect(abs(measured - share) < 0.032, "\(measured) overtaken for \(share) asked")
    }

    @Test func closedTransportHearsNothing() throws {
        let net = try network(NetworkConditions())
        let a = net.attach()
        let b = net.attach()
        var heard = 0
        b.onReceive = { _ in heard += 1 }
        a.send([1], to: .group)
        b.close()
        net.clock.run(until: 1)
        #expect(heard == 0)
    }

    @Test func badConditionsAreRefusedByName() {
        var c = NetworkConditions()
        c.loss = 1.5
        do {
            _ = try network(c)
            Issue.record("a loss of 1.5 was accepted")
        } catch {
            #expect("\(error)" == "network loss must be between 0 and 1, got 1.5")
        }
    }
}
