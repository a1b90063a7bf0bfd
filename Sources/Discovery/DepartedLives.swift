import DequeModule
import Sessions
import TransportCore

/// What a node remembers of lives that are over, so that no replay of what they sent brings them back
/// (``DiscoveryNode/isFresh(_:incarnation:sequence:_:)``): each life's incarnation, the last announcement taken from
/// it, and whether it said goodbye.
///
/// Two memories, so that a flood of made-up lives cannot push out the real ones:
/// - **recent**: every departure, the oldest forgotten past ``recentKept``. A member's fake ids, found and lost by
///   the thousand, pass through here and push each other out.
/// - **kept**: lives that had shown they were there: a running session with this node, and announcements over at
///   least ``shownOver`` seconds. Taken at most ``keptPerSecond`` a second over a burst of ``keptBurst`` (a group
///   leaving together), so that even a member that keeps fakes announcing that long, one socket each, replaces the
///   oldest of ``keptCapacity`` only after hours: 16,384 at one a second is 4.5 hours of flooding; a real group
///   loses a peer a minute or so.
struct DepartedLives {
    struct Departure: Equatable {
        let incarnation: Incarnation
        let announcedUpTo: UInt32
        /// Whether the life said goodbye: then nothing of it is believed again, whatever its sequence number.
        let ended: Bool
        /// The address the peer had shown it receives at, if it had: heard again there (walked back into range, its
        /// silence over), it is contacted as before, not left to a probe.
        var shownAt: Endpoint? = nil
    }

    static let recentKept = 4096
    static let keptCapacity = 16_384
    static let keptPerSecond = 1.0
    static let keptBurst = 256
    /// How long a life must have announced to be kept, seconds.
    static let shownOver = 10.0

    /// Each memory's records, with the serial of their place in its order: a place whose serial is not the
    /// record's is an older one of the same peer, and is skipped.
    private var recent: [PeerID: (departure: Departure, serial: UInt64)] = [:]
    private var recentOrder = Deque<(peer: PeerID, serial: UInt64)>()
    private var kept: [PeerID: (departure: Departure, serial: UInt64)] = [:]
    private var keptOrder = Deque<(peer: PeerID, serial: UInt64)>()
    private var serial: UInt64 = 0
    /// Kept admissions, as a schedule (the generic cell rate algorithm): when the next would fall at the sustained
    /// rate.
    private var keptTheoretical = -Double.infinity
    /// Departures that had shown they were there but found the kept memory's admissions spent.
    private(set) var keptRefused = 0

    var count: Int { recent.count + kept.count }
    var keptCount: Int { kept.count }

    /// What is remembered of `peer`'s last life, the kept memory first.
    func departure(of peer: PeerID) -> Departure? {
        (kept[peer] ?? recent[peer])?.departure
    }

    /// Remembers `peer`'s life, ended now; kept apart when it `wasShown` to be there (or an earlier life was) and
    /// admissions allow.
    mutating func remember(_ peer: PeerID, _ departure: Departure, wasShown: Bool, now: Double) {
        serial += 1
        if kept[peer] != nil || (wasShown && admitKept(now: now)) {
            kept[peer] = (departure, serial)
            keptOrder.append((peer, serial))
            recent[peer] = nil
            Self.trim(&kept, &keptOrder, to: Self.keptCapacity)
            return
        }
        if wasShown { keptRefused += 1 }
        recent[peer] = (departure, serial)
        recentOrder.append((peer, serial))
        Self.trim(&recent, &recentOrder, to: Self.recentKept)
    }

    /// Forgets `peer`'s departed life: a newer life of it is known now. Its places in the orders go stale.
    mutating func forget(_ peer: PeerID) {
        recent[peer] = nil
        kept[peer] = nil
    }

    /// Forgets the oldest records past `limit`; drops stale places once they are as many as the records.
    private static func trim(
        _ records: inout [PeerID: (departure: Departure, serial: UInt64)],
        _ order: inout Deque<(peer: PeerID, serial: UInt64)>, to limit: Int
    ) {
        while records.count > limit, let oldest = order.popFirst() {
            if records[oldest.peer]?.serial == oldest.serial { records[oldest.peer] = nil }
        }
        if order.count > 2 * max(records.count, 64) {
            order = Deque(order.filter { records[$0.peer]?.serial == $0.serial })
        }
    }

    private mutating func admitKept(now: Double) -> Bool {
        let spacing = 1 / Self.keptPerSecond
        let due = max(keptTheoretical, now)
        guard due - Double(Self.keptBurst - 1) * spacing <= now else { return false }
        keptTheoretical = due + spacing
        return true
    }
}
