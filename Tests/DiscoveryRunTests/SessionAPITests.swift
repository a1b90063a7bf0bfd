import Discovery
import DiscoveryRun
import Sessions
import Testing
import SimulatedNetwork

@Suite struct SessionAPITests {
    @Test func eventsArriveAsAnAsyncSequence() async throws {
        var settings = ClusterSettings()
        settings.peers = 3
        let cluster = try InMemoryCluster(settings: settings, conditions: NetworkConditions())
        let stream = cluster.drivers[0].events()
        cluster.run(until: 10, stopWhenConverged: true)
        cluster.stop(0, goodbye: true)
        var began: [PeerID] = []
        var found = 0
        for await timed in stream {
            switch timed.event {
            case .found: found += 1
            case .session(let peer, .began): began.append(peer)
            default: break
            }
        }
        #expect(found == 2)
        #expect(Set(began) == [cluster.peerID(of: 1), cluster.peerID(of: 2)])
    }

    @Test func suspensionAndItsEnd() throws {
        var settings = ClusterSettings()
        settings.peers = 3
        let cluster = try InMemoryCluster(settings: settings, conditions: NetworkConditions(), recordEvents: true)
        cluster.run(until: 10, stopWhenConverged: true)
        let before = cluster.monitor.log.count
        cluster.drivers[0].apply { $0.suspend() }
        let table = cluster.drivers[0].node.table
        #expect(table.peers.allSatisfy { table.session(with: $0)?.state == .suspended })
        cluster.drivers[0].apply { $0.suspend() }
        cluster.drivers[0].apply { $0.resume() }
        let events = cluster.monitor.log.dropFirst(before).map(\.event)
        let others = [cluster.peerID(of: 1), cluster.peerID(of: 2)].sorted()
        #expect(events == others.map { .session($0, .suspended) } + others.map { .session($0, .suspensionEnded) })
        #expect(cluster.drivers[0].node.table.session(with: others[0])?.state == .running)
    }
}
