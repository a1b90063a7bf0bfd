/// The timing of announcements, loss detection and the token exchange, in seconds.
package struct DiscoveryTiming: Sendable, Equatable {
    /// Announcements sent at start, `burstSpacing` apart, so that peers find a new node quickly.
    package var burstCount: Int = 3
    package var burstSpacing: Double = 0.15
    /// Period of announcements after the burst, in a group of up to `groupAnnouncementRate` nodes.
    package var announceInterval: Double = 1.0
    /// Announcements a second the whole group sends at most once started (RTCP's rule, RFC 3550 section 6.2): in a
    /// larger group each node announces every (group size / this) seconds, so that what every node hears stays
    /// the same however many join. Each announcement carries its interval, and each peer is timed out after its own.
    package var groupAnnouncementRate: Double = 100
    /// Each period is drawn within +- this share of the interval, so that nodes started together drift apart and do
    /// not announce in lockstep.
    package var announceJitter: Double = 0.2
    /// A peer is lost after this many announcement periods (at their longest) without a word. A trade-off between
    /// noticing a silent departure quickly and not losing live peers to packet loss: with a share p of datagrams
    /// lost, a live peer is lost by mistake with a chance of about p^n per announcement. At 1% loss and 5 that is
    /// 1e-10; at 30% loss, 0.24%, which over the 9,900 peer relations of 100 nodes is about 24 false losses a
    /// second: lossy runs need a larger value (12 at 30% loss).
    package var missedAnnouncements: Int = 5
    /// The shortest wait before an unanswered invitation is sent again. The first wait is the node's estimate of
    /// the round trip (smoothed as TCP does, RFC 6298: mean plus four deviations) but never below this; each further
    /// wait doubles, with `retransmitJitter`, up to `maximumRetransmitInterval`. A host too slow to answer within the
    /// floor therefore raises the wait instead of drawing more datagrams from every peer (no congestion collapse).
    package var retransmitInterval: Double = 0.25
    /// The first wait before any round trip has been measured (RFC 6298's 1 s): a group that starts together
    /// sends most of its invitations before any answer has come back.
    package var initialRetransmitInterval: Double = 1.0
    /// The longest wait between two sends of one invitation while round trips are short; a host whose measured
    /// retransmission timeout is longer gets twice that instead, up to ``retransmitLimit``. Short, so that random
    /// loss is repaired quickly: measured on 100 nodes in memory at 30% loss, a cap of 1 s converges in about
    /// 13 s, 2 s in about 28 s (docs/discover.md).
    package var maximumRetransmitInterval: Double = 1.0
    /// The longest wait between two sends however slow the peers answer.
    package static let retransmitLimit = 30.0
    /// Each wait is drawn within +- this share, so that invitations that failed together are not retried together.
    package var retransmitJitter: Double = 0.25
    /// Invitations a node may have sent and not yet seen answered (declined, timed out) at once; the next waits
    /// for a place. Sends are then clocked by answers (as TCP's are by acknowledgements): a host slow to answer
    /// receives fewer, however many peers it has. 64 in flight over a 1 ms round trip is 64,000 a second, so a quick
    /// group never waits for it.
    package var invitationWindow: Int = 64
    /// Invitations and solicits a node may send per second (a token bucket holding one second's worth); what is due
    /// beyond it waits for the budget. Answers (accepts, declines) are not counted: each answers one datagram received.
    package var sendBudget: Double = 500
    /// An invitation not answered within this time fails with `invitationTimedOut`; a new one is tried on a later
    /// announcement after the same time again.
    package var invitationTimeout: Double = 30
    /// A responder that has known its initiator this long without holding a session with it asks to be invited
    /// (a solicit), at most once per announcement it hears.
    package var solicitAfter: Double = 3

    package init() {}

    /// How long a peer may stay silent before it is lost, in a group of up to `groupAnnouncementRate` nodes.
    package var silenceBeforeLost: Double { silence(after: announceInterval) }

    /// How long a peer that announces every `interval` seconds may stay silent before it is lost.
    package func silence(after interval: Double) -> Double {
        Double(missedAnnouncements) * interval * (1 + announceJitter)
    }

    /// The announce period of a node that knows a group of `members` (itself included), counting at most
    /// ``largestGroup``.
    package func announceInterval(forGroupOf members: Int) -> Double {
        max(announceInterval, Double(min(members, Self.largestGroup)) / groupAnnouncementRate)
    }

    /// The largest group the announce period grows for: past it, a node announces as often as in a group of this
    /// size, and takes no longer period from a peer's announcement (``longestInterval``). A period is what a peer
    /// claims for itself, and the silence that loses it is five of them: a member's fake ids claiming an hour held
    /// their places for five hours; a group's strangers (up to 4,096 past the table) slowed its announcements.
    package static let largestGroup = 1024

    /// The longest announce period a peer's announcement is taken at: a group of ``largestGroup``'s (10.24 s with
    /// the defaults), so that a silent peer is lost within a minute.
    package var longestInterval: Double { announceInterval(forGroupOf: Self.largestGroup) }

    /// Checks every field; the error names the first one that is out of its range.
    package func validate() throws(DiscoveryTimingError) {
        func require(_ ok: Bool, _ field: String, _ rule: String) throws(DiscoveryTimingError) {
            if !ok { throw DiscoveryTimingError(field: field, rule: rule) }
        }
        try require(burstCount >= 0 && burstCount <= 20, "burstCount", "between 0 and 20")
        try require(burstSpacing > 0 && burstSpacing <= 10, "burstSpacing", "above 0 and at most 10 s")
        try require(announceInterval >= 0.01 && announceInterval <= 60, "announceInterval", "between 0.01 and 60 s")
        try require(announceJitter >= 0 && announceJitter < 1, "announceJitter", "at least 0 and under 1")
        try require(missedAnnouncements >= 1 && missedAnnouncements <= 100, "missedAnnouncements", "between 1 and 100")
        try require(retransmitInterval > 0 && retransmitInterval <= maximumRetransmitInterval,
                    "retransmitInterval", "above 0 and at most maximumRetransmitInterval")
        try require(maximumRetransmitInterval <= 60, "maximumRetransmitInterval", "at most 60 s")
        try require(initialRetransmitInterval > 0 && initialRetransmitInterval <= 60,
                    "initialRetransmitInterval", "above 0 and at most 60 s")
        try require(retransmitJitter >= 0 && retransmitJitter < 1, "retransmitJitter", "at least 0 and under 1")
        try require(sendBudget >= 1 && sendBudget <= 1_000_000, "sendBudget", "between 1 and 1000000 per second")
        try require(invitationWindow >= 1 && invitationWindow <= 100_000, "invitationWindow", "between 1 and 100000")
        try require(groupAnnouncementRate >= 1 && groupAnnouncementRate <= 100_000,
                    "groupAnnouncementRate", "between 1 and 100000 per second")
        try require(invitationTimeout > 0 && invitationTimeout <= 3600, "invitationTimeout", "above 0 and at most 3600 s")
        try require(solicitAfter > 0 && solicitAfter <= 3600, "solicitAfter", "above 0 and at most 3600 s")
    }
}

/// A timing field out of its range.
package struct DiscoveryTimingError: Error, Sendable, Equatable, CustomStringConvertible {
    package let field: String
    package let rule: String

    package var description: String { "discovery timing: \(field) must be \(rule)" }
}
