import Discovery
import DiscoveryRun
import SimulatedNetwork

/// A member's flood of new ids at two real nodes in session: each fake announced once, claiming an hour between
/// announcements (taken as 10.24 s, the longest a node takes), at 2,000 a second, from 5 s into the run, after the
/// two have converged, from 8,192 sockets in turn (a node keeps one id an address: from one socket, each fake would
/// only replace the one before). FakeIdFloodTests checks what the nodes hold after it; the benchmark
/// `flood-1m-fake-ids` what
/// it grows the process's memory by.
package struct FakeIdFlood {
    /// The fakes announced, and the most sessions each real node holds.
    package let fakes: Int
    package let maximumSessions = 64
    package let perSecond = 2_000
    /// The member's sockets: twice the strangers a node keeps.
    package let addresses = 2 * DiscoveryNode.strangersKept

    package init(fakes: Int) {
        self.fakes = fakes
    }

    /// Runs the flood to 5 s after its last fake.
    ///
    /// - Parameters:
    ///   - converged: called once the two real nodes hold their session, before the first fake.
    ///   - every50000: called after each 50,000th fake is sent.
    /// - Returns: the cluster, at its end.
    /// - Throws: a GSL or key error; a fake the advertisement's rules refuse.
    package func run(converged: () -> Void = {}, every50000: @escaping () -> Void = {}) throws -> InMemoryCluster {
        let key = try GroupKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) })
        var settings = ClusterSettings()
        settings.peers = 2
        settings.groupKey = key
        settings.maximumSessions = maximumSessions
        let c = try InMemoryCluster(settings: settings, conditions: NetworkConditions(), recordEvents: false)
        c.run(until: 5, stopWhenConverged: true)
        converged()
        let insiders = (0..<addresses).map { _ in c.network.attach(joinsGroup: false) }
        let fakes = self.fakes, perSecond = self.perSecond
        let batch = 100
        var failure: (any Error)?
        // Batches scheduled one from the other: a million closures up front would be a flood of its own.
        func sendBatch(_ first: Int) {
            for k in first..<min(first + batch, fakes) {
                // A key pair each (an id is its key's): about half above the real ids (the nodes invite them), half
                // below (the nodes solicit them).
                let identity = NodeIdentity.derived(from: 0xF100D, index: UInt64(k))
                do {
                    let fake = try Advertisement(serviceType: settings.serviceType, signingKey: identity.publicKey,
                                                 incarnation: 1, displayName: "fake", unicastPort: 5000)
                    let announcement = WireMessage.announce(fake, sequence: 1, interval: AnnounceInterval(seconds: 3600))
                    insiders[k % insiders.count].send(WireFormat.encode(announcement, key: key, signer: identity),
                                                      to: .group)
                } catch {
                    failure = error
                    return
                }
            }
            if first % 50_000 == 0 { every50000() }
            guard first + batch < fakes else { return }
            c.clock.schedule(at: c.clock.now + Double(batch) / Double(perSecond)) { sendBatch(first + batch) }
        }
        c.clock.schedule(at: 5) { sendBatch(0) }
        c.run(until: 5 + Double(fakes / perSecond) + 5)
        if let failure { throw failure }
        return c
    }
}
