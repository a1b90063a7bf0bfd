import Discovery
import DiscoveryRun
import Foundation
import SimulatedNetwork

/// What a member's flood of a million fake ids may grow the process's resident memory by, MB: every node's tables
/// and queues stay bounded (FakeIdFloodTests checks them), so what remains is the allocator's own slack.
let floodGrowthLimitMB = 64.0

/// A flood that grew the process's memory past ``floodGrowthLimitMB``: the benchmark fails with it.
struct FloodGrewTooMuch: Error, CustomStringConvertible {
    let grownMB: Double
    var description: String { "a million fake ids grew resident memory by \(grownMB) MB (limit \(floodGrowthLimitMB))" }
}

/// The process's resident memory now, MB (/proc/self/status).
private func residentMB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? .infinity) / 1024
}

/// Two real nodes in session, then a member of the group announces `fakes` new ids at 2,000 a second, each once and
/// claiming an hour between announcements (five hours before silence would lose it): how far the resident memory
/// rose above where it stood once the two had converged, MB, at most, sampled every 50,000 fakes and at the end.
///
/// - Throws: ``FloodGrewTooMuch`` past ``floodGrowthLimitMB``.
func fakeIdFlood(fakes: Int = 1_000_000) throws -> Double {
    let key = try GroupKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) })
    var settings = ClusterSettings()
    settings.peers = 2
    settings.groupKey = key
    settings.maximumSessions = 64
    let c = try InMemoryCluster(settings: settings, conditions: NetworkConditions(), recordEvents: false)
    c.run(until: 5, stopWhenConverged: true)
    let before = residentMB()
    var peak = before
    let insider = c.network.attach()
    let perSecond = 2_000
    let batch = 100
    var failure: (any Error)?
    func sendBatch(_ first: Int) {
        for k in first..<min(first + batch, fakes) {
            let identity = NodeIdentity.derived(from: 0xF100D, index: UInt64(k))
            do {
                let fake = try Advertisement(serviceType: settings.serviceType, signingKey: identity.publicKey,
                                             incarnation: 1, displayName: "fake", unicastPort: 5000)
                insider.send(WireFormat.encode(.announce(fake, sequence: 1, interval: AnnounceInterval(seconds: 3600)),
                                               key: key, signer: identity), to: .group)
            } catch {
                failure = error
                return
            }
        }
        if first % 50_000 == 0 { peak = max(peak, residentMB()) }
        guard first + batch < fakes else { return }
        c.clock.schedule(at: c.clock.now + Double(batch) / Double(perSecond)) { sendBatch(first + batch) }
    }
    c.clock.schedule(at: 5) { sendBatch(0) }
    c.run(until: 5 + Double(fakes / perSecond) + 5)
    if let failure { throw failure }
    peak = max(peak, residentMB())
    let grown = peak - before
    FileHandle.standardError.write(Data("flood: \(fakes) fake ids; resident memory \(before) MB before, at most \(peak) MB (\(grown) MB more)\n".utf8))
    guard grown < floodGrowthLimitMB else { throw FloodGrewTooMuch(grownMB: grown) }
    return grown
}
