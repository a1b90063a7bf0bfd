/// What a node sent, received and refused: the datagram accounting a run reports.
package struct DiscoveryCounters: Sendable, Equatable {
    /// Datagrams sent, by message type.
    package var sent: [WireType: Int] = [:]
    /// Datagrams received (before any check).
    package var received = 0
    /// Refused datagrams, by reason.
    package var refused: [WireRefusal: Int] = [:]
    /// The node's own announcements and goodbyes, returned by the group.
    package var ownIgnored = 0
    /// Announcements of other service types.
    package var otherServiceIgnored = 0
    /// Answers and solicits from peers not discovered yet, left for a later send.
    package var awaitingDiscovery = 0
    /// Initiators discovered by their invitation, before their announcement was heard.
    package var discoveredByInvitation = 0
    /// Responders discovered by their solicit, before their announcement was heard.
    package var discoveredBySolicit = 0
    /// Invitations sent again because no answer came.
    package var retransmissions = 0
    /// Resends put off because this node was behind on its reading (the answer may have waited in its queue).
    package var resendsDeferredWhileBehind = 0
    /// Announcements of known peers taken without decoding, being the same as the one each was discovered by but for
    /// their sequence numbers and announce intervals.
    package var unchangedAnnouncements = 0
    /// Invitations and accepts that repeated one already handled: answered the same, or ignored, holding nothing new.
    package var duplicates = 0
    /// Invitations held back because the node's send budget was spent.
    package var deferredByBudget = 0
    /// Invitations that waited for a place in the window of invitations in flight.
    package var heldForWindow = 0
    /// Peers found that held no session and were forgotten, the oldest first, to keep the node's memory bounded
    /// (``DiscoveryNode/strangersKept``).
    package var strangersForgotten = 0
    /// Peers forgotten because a new id was found at their address (``DiscoveryNode/discover``): one id a socket.
    package var replacedAtAddress = 0
    /// Sessions ended to give their place to a newcomer when the table was full: with a peer that had not shown it
    /// was there (heard announcing over an interval) or had fallen silent for two of its periods.
    package var idleReleased = 0
    /// Peers found that this node did not contact, having been there before them: they contact this node.
    package var leftToContactUs = 0
    /// Unprompted contacts with peers this node neither found while joining nor heard from at their address, each
    /// earned by a group's worth of announcements heard (``DiscoveryNode/mayContact(_:now:)``).
    package var probes = 0

    package init() {}

    /// All sent datagrams.
    package var sentTotal: Int { sent.values.reduce(0, +) }
    /// All refused datagrams.
    package var refusedTotal: Int { refused.values.reduce(0, +) }

    /// Adds another node's counters to these.
    package mutating func add(_ other: DiscoveryCounters) {
        for (k, v) in other.sent { sent[k, default: 0] += v }
        for (k, v) in other.refused { refused[k, default: 0] += v }
        received += other.received
        ownIgnored += other.ownIgnored
        otherServiceIgnored += other.otherServiceIgnored
        awaitingDiscovery += other.awaitingDiscovery
        discoveredByInvitation += other.discoveredByInvitation
        discoveredBySolicit += other.discoveredBySolicit
        retransmissions += other.retransmissions
        resendsDeferredWhileBehind += other.resendsDeferredWhileBehind
        unchangedAnnouncements += other.unchangedAnnouncements
        duplicates += other.duplicates
        deferredByBudget += other.deferredByBudget
        heldForWindow += other.heldForWindow
        strangersForgotten += other.strangersForgotten
        replacedAtAddress += other.replacedAtAddress
        idleReleased += other.idleReleased
        leftToContactUs += other.leftToContactUs
        probes += other.probes
    }
}
