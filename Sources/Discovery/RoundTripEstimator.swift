/// The round trip of a node's token exchanges, and the retransmission waits it implies.
///
/// The estimate is the median of the latest samples, not RFC 6298's smoothed mean: a few late answers (a responder
/// busy for a moment, a start burst queued ahead of them) move a mean for a long while and a median not at all,
/// while a host that is slow for every exchange moves both. Only invitations answered after a single send are
/// sampled (Karn's rule): the answer to a retransmitted one cannot be matched to the send that caused it.
struct RoundTripEstimator: Sendable, Equatable {
    /// Samples kept for the median.
    static let window = 15
    private var recent: [Double] = []
    private var next = 0
    /// The wait a retransmission backed off to since the last sample: the round trip is at least that long now, so
    /// new invitations start from it too (RFC 6298, 5.5 and 5.7), until a fresh sample says otherwise.
    private var backedOff: Double?

    /// The median of the latest samples; `nil` before the first.
    private(set) var estimate: Double?

    mutating func add(_ sample: Double) {
        backedOff = nil
        if recent.count < Self.window {
            recent.append(sample)
        } else {
            recent[next] = sample
            next = (next + 1) % Self.window
        }
        let sorted = recent.sorted()
        estimate = sorted[sorted.count / 2]
    }

    /// Notes that an invitation went unanswered and is being sent again after the longer wait `wait`.
    mutating func backOff(to wait: Double) {
        backedOff = max(backedOff ?? 0, wait)
    }

    /// The longest wait between two sends: `cap`, or the measured timeout twice over on a host whose round trips
    /// are longer than that (a slow host is then asked less often, however long it stays slow), at most `limit`.
    ///
    /// Before any sample the cap holds too: doubling without it (as TCP does) left nodes that initiate one or two
    /// pairs without any unambiguous sample under 30% loss, waiting up to 30 s per send (measured: 2 of 6 seeds did
    /// not converge in 60 s).
    func longestWait(cap: Double, limit: Double) -> Double {
        min(max(cap, 4 * (estimate ?? 0)), limit)
    }

    /// The first wait before resending an invitation: twice the estimate (`initial` before any sample), or the
    /// backed-off wait if longer, kept within `floor` and ``longestWait(cap:limit:)``.
    func timeout(initial: Double, floor: Double, cap: Double, limit: Double) -> Double {
        var wait = estimate.map { 2 * $0 } ?? initial
        if let backedOff { wait = max(wait, backedOff) }
        return min(max(wait, floor), longestWait(cap: cap, limit: limit))
    }
}
