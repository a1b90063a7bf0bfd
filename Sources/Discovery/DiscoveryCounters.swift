/// What a node sent, received and refused: the datagram accounting a run reports.
public struct DiscoveryCounters: Sendable, Equatable {
    /// Datagrams sent, by message type.
    public var sent: [WireType: Int] = [:]
    /// Datagrams received (before any check).
    public var received = 0
    /// Refused datagrams, by reason.
    public var refused: [WireRefusal: Int] = [:]
    /// The node's own announcements and goodbyes, returned by the group.
    public var ownIgnored = 0
    /// Announcements of other service types.
    public var otherServiceIgnored = 0
    /// Answers and solicits from peers not discovered yet, left for a later send.
    public var awaitingDiscovery = 0
    /// Initiators discovered by their invitation, before their announcement was heard.
    public var discoveredByInvitation = 0
    /// Responders discovered by their solicit, before their announcement was heard.
    public var discoveredBySolicit = 0
    /// Invitations sent again because no answer came.
    public var retransmissions = 0
    /// Resends put off because this node was behind on its reading (the answer may have waited in its queue).
    public var resendsDeferredWhileBehind = 0
    /// Announcements of known peers taken without decoding, being the same as the one each was discovered by but for
    /// their sequence numbers and announce intervals.
    public var unchangedAnnouncements = 0
    /// Invitations and accepts that repeated one already handled: answered the same, or ignored, holding nothing new.
    public var duplicates = 0
    /// Invitations held back because the node's send budget was spent.
    public var deferredByBudget = 0
    /// Invitations that waited for a place in the window of invitations in flight.
    public var heldForWindow = 0
    /// Peers found that held no session and were forgotten, the oldest first, to keep the node's memory bounded
    /// (``DiscoveryNode/strangersKept``).
    public var strangersForgotten = 0

    public init() {}

    /// All sent datagrams.
    public var sentTotal: Int { sent.values.reduce(0, +) }
    /// All refused datagrams.
    public var refusedTotal: Int { refused.values.reduce(0, +) }

    /// Adds another node's counters to these.
    public mutating func add(_ other: DiscoveryCounters) {
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
    }
}
