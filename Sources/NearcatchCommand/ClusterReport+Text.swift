import DiscoveryRun
import Foundation

extension ClusterReport {
    /// The report as lines for a terminal.
    func text(heading: String) -> String {
        var lines = [heading, ""]
        let perPeer = expectedPeers - 1
        if let at = convergenceSeconds {
            lines.append(String(format: "converged in %.2f s: %d of %d sessions running (%d per peer)",
                                at, sessions, expectedSessions, perPeer))
        } else {
            lines.append("not converged: \(sessions) of \(expectedSessions) sessions running (\(perPeer) per peer needed)")
        }
        let sentParts = sent(datagrams.sent)
        lines.append("datagrams sent \(datagrams.sentTotal) (\(sentParts)), received \(datagrams.received)"
            + (datagramsPerPair.map { String(format: "; %.2f sent per pair", $0) } ?? "")
            + (expectedPeers > peers ? " (over this process's share of the group's pairs)" : ""))
        let refusedTotal = datagrams.refused.values.reduce(0, +)
        let refusedParts = datagrams.refused.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        lines.append("refused \(refusedTotal)" + (refusedParts.isEmpty ? "" : " (\(refusedParts))"))
        lines.append("ignored: own \(datagrams.ownIgnored), other services \(datagrams.otherServiceIgnored); "
            + "unchanged announcements \(datagrams.unchangedAnnouncements), duplicates \(datagrams.duplicates)")
        lines.append("invitations resent \(datagrams.retransmissions) (put off while behind on reading "
            + "\(datagrams.resendsDeferredWhileBehind)), held for the window \(datagrams.heldForWindow), "
            + "for the send budget \(datagrams.deferredByBudget); peers found by invitation \(datagrams.discoveredByInvitation), by solicit "
            + "\(datagrams.discoveredBySolicit)")
        lines.append("admission: left to contact us \(datagrams.leftToContactUs), probes \(datagrams.probes), "
            + "strangers forgotten \(datagrams.strangersForgotten), replaced at their address "
            + "\(datagrams.replacedAtAddress), idle sessions released \(datagrams.idleReleased)")
        lines.append((transport == "memory" ? "dropped by the network \(datagrams.droppedByNetwork), at full receive queues "
                : "dropped by the kernel at full receive buffers ") + "\(datagrams.receiveQueueDrops)")
        lines.append("peers lost by goodbye \(lostPeers["peerEnded"] ?? 0), by silence \(lostPeers["timeout"] ?? 0)")
        lines.append(String(format: "events %d; run %.2f s (%@ clock), wall %.2f s", events, simulatedSeconds,
                            transport == "memory" ? "virtual" : "real", wallSeconds)
            + (eventDigest.map { "; event digest \($0)" } ?? ""))
        if let at = interruptedAt {
            lines.append(String(format: "interrupted by a signal at %.2f s: the nodes said goodbye", at))
        }
        return lines.joined(separator: "\n")
    }

    private func sent(_ byType: [String: Int]) -> String {
        ["announce", "goodbye", "invite", "accept", "decline", "solicit", "sessionData"]
            .compactMap { key in byType[key].flatMap { $0 > 0 ? "\(key) \($0)" : nil } }
            .joined(separator: ", ")
    }
}
