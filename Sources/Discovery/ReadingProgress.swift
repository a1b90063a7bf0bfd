/// How far a node has read what the group sent it, from what the node itself can see: its own announcements coming
/// back from the group, and its sockets' counts of datagrams dropped at full receive buffers.
///
/// Its own value, apart from the node: the node asks it on every timer and many datagrams, and a question put to
/// the whole node from inside one of its mutating methods copies the node (a retain for every table it holds).
struct ReadingProgress: Sendable {
    /// Own announcements whose send times are kept until the group returns them.
    static let tracked = 16

    /// How late an own announcement may come back and the node still count as reading promptly: the shortest
    /// resend wait (``DiscoveryTiming/retransmitInterval``).
    let prompt: Double

    /// When each of the node's latest announcements was sent, by sequence number, until the group returns it.
    private(set) var outstanding: [UInt32: Double] = [:]
    /// The send time of the latest own announcement the group has returned: everything sent to the group before
    /// it has been read. A node behind on its reading must not take for silence what waits in its own queue.
    private(set) var readThrough = -Double.infinity
    /// How long the latest own announcement the group returned took to come back.
    private(set) var echoDelay = 0.0
    /// The receive drops the transport has reported, and when their count last grew: a peer's silence since then
    /// may be its announcements dropped here.
    private(set) var receiveDrops = 0
    private(set) var lastDropAt = -Double.infinity

    init(prompt: Double) {
        self.prompt = prompt
    }

    mutating func noteSent(sequence: UInt32, at now: Double) {
        if outstanding.count >= Self.tracked, let oldest = outstanding.keys.min() { outstanding[oldest] = nil }
        outstanding[sequence] = now
    }

    mutating func noteEcho(sequence: UInt32, now: Double) {
        guard let sentAt = outstanding[sequence] else { return }
        readThrough = max(readThrough, sentAt)
        echoDelay = now - sentAt
        for key in outstanding.keys where key <= sequence { outstanding[key] = nil }
    }

    /// Takes the transport's count of drops since the sockets opened; a count that grew marks `now`.
    mutating func noteDrops(total: Int, now: Double) {
        guard total > receiveDrops else { return }
        receiveDrops = total
        lastDropAt = now
    }

    /// How far behind its reading the node is: if its latest own announcement came back later than ``prompt``, the
    /// time it took, or how long the oldest sent since has been out if longer (it waits in the same queue). Zero
    /// when the latest came back promptly, whatever is out since: on a lossy network an announcement that never
    /// comes back would pass for a queue (at 20% loss with 20 devices, a pair took over 30 s to meet); and zero until
    /// one has come back: a transport may return none.
    func lag(now: Double) -> Double {
        guard echoDelay > prompt else { return 0 }
        return max(echoDelay, now - (outstanding.values.min() ?? now))
    }

    /// When a resend of what was last sent at `lastSentAt` may go, or `nil` if it may go now: no sooner than a
    /// round trip through two queues as far behind as this node's own (the peer's, read in the same way, and this
    /// node's, where the answer would wait). A host behind on its reading cannot tell an answer lost from one still
    /// queued, and resending then only lengthens every queue (a congestion collapse).
    func resendAfter(lastSentAt: Double, now: Double) -> Double? {
        let lag = lag(now: now)
        guard lag > 0, lastSentAt + 2 * lag > now else { return nil }
        return lastSentAt + 2 * lag
    }

    /// The time up to which the node has read what the group sent. With every own announcement returned, it is
    /// current; with some still out, it has read up to the send time of the latest returned, however long ago that
    /// is: unread time is not silence. A node whose own announcements have never returned (a transport without
    /// multicast loopback) counts as `silence` behind, so that a silent peer is then lost that much later.
    ///
    /// Once returned, always trusted: a bound on how far behind a node may be (it was `silence`) lost live peers
    /// whenever reading fell further behind, as it does at 1,000 peers on two cores (up to 249,000 relations in a
    /// process). A returned announcement's successors each move it on, so a lost one holds nothing up for long.
    func heardUpTo(now: Double, silence: Double) -> Double {
        guard readThrough > -Double.infinity else { return now - silence }
        return outstanding.isEmpty ? now : readThrough
    }

    /// When the silence of a peer last heard at `lastHeard` began to count: datagrams dropped at the node's own
    /// buffers after that may have been its announcements, so it counts only from the latest drop.
    func silenceCounts(from lastHeard: Double) -> Double {
        max(lastHeard, lastDropAt)
    }
}
