/// The timing of announcements, loss detection and the token exchange, in seconds.
public struct DiscoveryTiming: Sendable, Equatable {
    /// Announcements sent at start, `burstSpacing` apart, so that peers find a new node quickly.
    public var burstCount: Int = 3
    public var burstSpacing: Double = 0.15
    /// Period of announcements after the burst.
    public var announceInterval: Double = 1.0
    /// Each period is drawn within +- this share of the interval, so that nodes started together drift apart and do
    /// not announce in lockstep.
    public var announceJitter: Double = 0.2
    /// A peer is lost after this many announcement periods (at their longest) without a word. A trade-off between
    /// noticing a silent departure quickly and not losing live peers to packet loss: with a share p of datagrams
    /// lost, a live peer is lost by mistake with a chance of about p^n per announcement. At 1% loss and 5 that is
    /// 1e-10; at 30% loss, 0.24%, which over the 9,900 peer relations of 100 nodes is about 24 false losses a
    /// second: lossy runs need a larger value (12 at 30% loss).
    public var missedAnnouncements: Int = 5
    /// First wait before an unanswered invitation is sent again; it doubles up to `maximumRetransmitInterval`.
    /// Measured on 100 nodes at 30% loss (seeds 1-4): a cap of 1 s converges in 12-14 s, a cap of 2 s in 22-33 s,
    /// and the longer run of the latter sends more datagrams in all.
    public var retransmitInterval: Double = 0.25
    public var maximumRetransmitInterval: Double = 1.0
    /// An invitation not answered within this time fails with `invitationTimedOut`; a new one is tried on a later
    /// announcement after the same time again.
    public var invitationTimeout: Double = 30
    /// A responder that has known its initiator this long without holding a session with it asks to be invited
    /// (a solicit), at most once per announcement it hears.
    public var solicitAfter: Double = 3

    public init() {}

    /// How long a peer may stay silent before it is lost.
    public var silenceBeforeLost: Double {
        Double(missedAnnouncements) * announceInterval * (1 + announceJitter)
    }

    /// Checks every field; the error names the first one that is out of its range.
    public func validate() throws(DiscoveryTimingError) {
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
        try require(invitationTimeout > 0 && invitationTimeout <= 3600, "invitationTimeout", "above 0 and at most 3600 s")
        try require(solicitAfter > 0 && solicitAfter <= 3600, "solicitAfter", "above 0 and at most 3600 s")
    }
}

/// A timing field out of its range.
public struct DiscoveryTimingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let rule: String

    public var description: String { "discovery timing: \(field) must be \(rule)" }
}
