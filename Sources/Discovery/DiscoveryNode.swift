import GSL
import DequeModule
import HeapModule
import Sessions
import TransportCore

/// One device's discovery: its advertiser, its browser, its side of every token exchange, and its session table.
///
/// A pure state machine: it takes the time and what arrived, and returns what to send and what to report
/// (``NodeDirective``). It owns no socket and no timer; a driver calls ``tick(now:)`` at ``nextDeadline``.
package struct DiscoveryNode {
    /// Everything a node is configured with.
    package struct Configuration {
        package var serviceType: String
        /// The node's key pair: it signs every datagram, and its public key gives the node's peer id.
        package var identity: NodeIdentity
        package var peer: PeerID { identity.peer }
        package var incarnation: Incarnation
        package var displayName: String
        package var discoveryInfo: [String: String]
        /// The most sessions this device holds at once (the active-sessions limit).
        package var maximumSessions: Int
        package var timing: DiscoveryTiming
        /// How many peers the node expects to find: its tables are sized for them at start (its session table up to
        /// `maximumSessions`, its known peers up to what it keeps) rather than grown, copied and rehashed as the
        /// group is found. 0 sizes nothing.
        package var expectedPeers: Int
        /// The group's shared key: every datagram sent is sealed under it, every one received must be.
        package var groupKey: GroupKey
        /// Whether the node connects only to the peers its app invited or accepted (``consent(to:now:)``), as an
        /// app on a peer-to-peer framework does, rather than to every peer it finds (the command line's nodes).
        /// A peer's invitation or request to be invited is then told to the app (``NodeEvent/invited(_:)``) and
        /// waits for its consent.
        package var connectsByConsent = false

        package init(
            serviceType: String, identity: NodeIdentity, incarnation: Incarnation, displayName: String,
            discoveryInfo: [String: String] = [:], maximumSessions: Int = 1024, timing: DiscoveryTiming = DiscoveryTiming(),
            expectedPeers: Int = 0, groupKey: GroupKey = .development
        ) {
            self.serviceType = serviceType
            self.identity = identity
            self.incarnation = incarnation
            self.displayName = displayName
            self.discoveryInfo = discoveryInfo
            self.maximumSessions = maximumSessions
            self.timing = timing
            self.expectedPeers = expectedPeers
            self.groupKey = groupKey
        }
    }

    /// A peer this node has discovered.
    package struct KnownPeer: Sendable, Equatable {
        // The fields every datagram of a steady group reads come first, within one cache line: in a group of a
        // thousand, the peers of all nodes do not fit in any cache, and each field further on costs a miss.

        /// The ``WireFormat/advertisementDigest(_:)`` of its latest announcement that changed: a later one with the
        /// same digest says the same but for its sequence number and announce interval, and is taken without
        /// decoding. 0 when found by its invitation.
        var announced: UInt64
        /// When it was last heard from, seconds.
        package var lastHeard: Double
        /// The table's ``PeerSessionTableState/removals`` when a session with it was last seen held, or `.max`; its
        /// low 32 bits, as ``sessionAbsentAt``'s, so that the entry stays 112 bytes (the count would have to move
        /// by exactly 2^32 between two announcements to be mistaken).
        var sessionSeenAt: UInt32 = .max
        /// The low 32 bits of the table's ``PeerSessionTableState/insertions`` when it was last seen without a
        /// session, or `.max`: most peers a full table hears have none, and the look-up that says so is a cache
        /// miss for each of them.
        var sessionAbsentAt: UInt32 = .max
        /// The highest sequence number of its announcements taken: a later one must be higher (a replay is not).
        var announcedUpTo: UInt32 = 0
        /// The highest sequence number on anything of it taken (``WireFormat/senderSequence(in:)``).
        var heardUpTo: UInt32 = 0
        /// How often it announces, seconds: it is lost after missing a number of these.
        var announceInterval: Double
        /// The time of its entry in the silence queue; an entry with another time is stale.
        var silenceCheckAt: Double
        package let advertisement: Advertisement
        /// The host its token exchange is reached at, at its advertisement's port (``endpoint``): the port is not
        /// held twice, and the entry, 120 bytes with it, is 112 (a node of a thousand peers holds a thousand).
        let host: String
        /// Where its token exchange is reached.
        package var endpoint: Endpoint { Endpoint(host: host, port: advertisement.unicastPort) }
        /// When this incarnation of it was discovered, seconds.
        package let discoveredAt: Double
        /// Whether it was found while this node was joining (within a silence of its own period from its start): then
        /// it was there first, as far as this node can tell, and this node contacts it
        /// (``DiscoveryNode/mayContact(_:now:)``).
        let foundWhileJoining: Bool
        /// Whether it has shown that it receives where it says: a unicast datagram it signed came from there.
        /// Until then nothing is sent to it unprompted but by ``DiscoveryNode/mayContact(_:now:)``'s rules.
        var validated: Bool
        /// Whether this node's contact with it was a probe (``DiscoveryNode/mayContact(_:now:)``): its invitation is
        /// then sent at most ``DiscoveryNode/sendsBeforeGivingWay`` times before a hold-off.
        var probed = false
        /// Announcements of this life taken, the times of the first and the latest, and how many since this node
        /// last contacted it unprompted.
        var announcements: UInt32 = 0
        var announcementsSinceProbe: UInt32 = 0
        var firstAnnouncedAt = Double.infinity
        var lastAnnouncedAt = -Double.infinity

        /// Notes an announcement of this life taken now; returns whether it is the second (the peer is then one of
        /// the node's ``DiscoveryNode/regulars``).
        @discardableResult
        mutating func noteAnnouncement(at now: Double) -> Bool {
            defer { announcements &+= 1 }
            announcementsSinceProbe &+= 1
            firstAnnouncedAt = min(firstAnnouncedAt, now)
            lastAnnouncedAt = now
            return announcements == 1
        }

        /// Whether it is one of the node's ``DiscoveryNode/regulars``.
        var isRegular: Bool { announcements >= 2 }

        /// Whether it has announced over at least `span` seconds: what a peer that is there does, and what a fresh
        /// id, announced once, has not.
        func hasAnnounced(over span: Double) -> Bool {
            announcements >= 2 && lastAnnouncedAt - firstAnnouncedAt >= span
        }

        /// Its incarnation and when it was found, read in place.
        mutating func life() -> (incarnation: Incarnation, discoveredAt: Double) {
            (advertisement.incarnation, discoveredAt)
        }

        /// The times its silence is judged by, read in place.
        mutating func silenceTimes() -> (checkAt: Double, interval: Double, lastHeard: Double) {
            (silenceCheckAt, announceInterval, lastHeard)
        }

        /// What an announcement of a known peer told, as
        /// ``hearUnchanged(_:digest:at:removals:longestInterval:isSigned:)`` found it.
        enum Hearing { case changed, forged, replayed, sessionHeld, sessionUnknown }

        /// Takes `bytes` as heard now when they are its latest announcement but for a higher sequence number and
        /// perhaps another announce interval, taken up to `longestInterval` (and signed by its key: the sequence
        /// number is what a forger would change), and says whether its session is still held by the cache alone. A
        /// new interval is taken as the decoder would have given it. `digest`: the digest of the advertisement in
        /// `bytes` (``WireFormat/advertisementDigest(_:)``).
        mutating func hearUnchanged(
            _ bytes: [UInt8], digest: UInt64, at now: Double, removals: UInt64, longestInterval: Double,
            isSigned: (SigningKey) -> Bool
        ) -> Hearing {
            guard announced != 0, digest == announced,
                  let interval = WireFormat.announcementInterval(in: bytes) else { return .changed }
            guard isSigned(advertisement.signingKey) else { return .forged }
            guard hearAnnouncementSequence(WireFormat.senderSequence(in: bytes)) else { return .replayed }
            lastHeard = now
            announceInterval = min(interval.seconds, longestInterval)
            return sessionSeenAt == UInt32(truncatingIfNeeded: removals) ? .sessionHeld : .sessionUnknown
        }

        /// Takes `sequence` from anything but an announcement, unless it is older than the latest heard by more than
        /// `window` (datagrams of one sender can pass each other; a replay is older than that).
        mutating func hearSequence(_ sequence: UInt32, window: UInt32) -> Bool {
            guard sequence &+ window >= heardUpTo else { return false }
            heardUpTo = max(heardUpTo, sequence)
            return true
        }

        /// Takes an announcement's `sequence` when it is higher than every one taken before.
        mutating func hearAnnouncementSequence(_ sequence: UInt32) -> Bool {
            guard sequence > announcedUpTo else { return false }
            announcedUpTo = sequence
            heardUpTo = max(heardUpTo, sequence)
            return true
        }
    }

    struct Invitation {
        /// The life of the peer it invites.
        let incarnation: Incarnation
        /// When it was begun, or when it took its place in the window after waiting: the timeout counts from here.
        var startedAt: Double
        var nextSendAt: Double
        /// The wait after the next send.
        var interval: Double
        var sends = 0
        var lastSentAt = -Double.infinity
        /// Whether `nextSendAt` is a send reserved in the budget.
        var reserved = false
        /// Whether it holds a place in the window (``DiscoveryTiming/invitationWindow``); otherwise it waits for one.
        var inWindow = false
        /// The time of its entry in the invitation queue; an entry with another time is stale.
        var queuedAt: Double
    }

    package let configuration: Configuration
    package let advertisement: Advertisement
    package internal(set) var table: PeerSessionTableState
    package internal(set) var peers = KnownPeers()
    package internal(set) var counters = DiscoveryCounters()
    var invitations: [PeerID: Invitation] = [:]
    /// With ``Configuration/connectsByConsent``: the peers the app invited or accepted, and those whose invitation
    /// the app has been told of (once a life).
    var consented = Set<PeerID>()
    var toldInvited = Set<PeerID>()
    /// Data from peers we invited that arrived before their acceptance, by peer.
    var earlyData: [PeerID: [(token: DiscoveryToken, kind: UInt8, payload: [UInt8])]] = [:]
    static let earlyDataHeld = 8
    /// Peers that declined an invitation, and when: not invited again before the invitation timeout has passed once
    /// more. An invitation that merely went unanswered is tried again at the peer's next announcement instead: the
    /// peer is alive, only the datagrams were lost.
    var declinedAt: [PeerID: Double] = [:]
    /// Peers that did not answer an invitation or a solicit: not tried again before `until` (``holdOff(_:now:)``).
    var heldOff: [PeerID: (until: Double, failures: Int)] = [:]
    /// Peers known without a session, in the order they were found or given a second chance: the oldest is
    /// forgotten past ``strangersKept`` (``forgetStrangers(keeping:)``). An entry whose peer holds a session, left, or
    /// was found again since is stale and skipped.
    var strangers = Deque<(peer: PeerID, since: Double)>()
    /// What lost peers sent last (``isFresh(_:incarnation:sequence:_:)``).
    var departures = DepartedLives()
    /// Lazy timer queues: an entry may be stale (the peer heard from since, the invitation answered); it is checked
    /// against the state when it falls due. This keeps every datagram's handling free of scans over all peers.
    var silenceQueue = DeadlineQueue()
    var exchangeQueue = DeadlineQueue()
    /// Introductions (solicits) waiting for their slot in the send budget, by the slot's time; queued in
    /// `exchangeQueue` beside the invitations.
    var pendingSolicits: [PeerID: Double] = [:]
    /// Invitations sent and not yet answered, declined or timed out: at most the window. The others wait here, in
    /// the order they were begun, and go out as answers free places: sends are clocked by answers, so a slow host
    /// slows its initiators down instead of drawing more datagrams from them.
    var inFlight = 0
    var waiting = Deque<PeerID>()
    var roundTrip = RoundTripEstimator()
    var budget: SendBudget
    /// Invitations in flight at most: the timing's window, and never more than half the session table, so that
    /// pending invitations always leave room for sessions that peers open with this node.
    let windowLimit: Int
    var tokens: any TokenSource
    let random: RandomSource
    var sequence: UInt32 = 0
    var burstLeft = 0
    var nextAnnounceAt = Double.infinity
    var lastAnnouncedAt = -Double.infinity
    /// The interval the latest announcement promised, and the jitter its period was drawn with.
    var promisedInterval = 0.0
    var announceJitterFactor = 1.0
    /// This node's latest announcement, to recognise it when the group returns it.
    var ownAnnouncement: [UInt8] = []
    /// The datagrams this node made since its driver last took them (``takeMade()``), with their messages: the
    /// driver hands each message on in the datagram's memo (``memo(ofOwn:message:)``), so that no receiver in this
    /// process decodes it again. An invitation carries its sender's advertisement: a 1,000-peer start decoded half a
    /// million of them, a tenth of its work.
    var made: [Made] = []
    static let madeKept = 256
    /// Whether the nodes this one sends to alone are nodes of its own process that read memos (an in-memory room's):
    /// its invitations, answers and data then go unsealed, their tag and signature in the memo alone (docs/security.md,
    /// "In one process"). Set by its driver (``NodeDriver/init(node:transport:clock:inProcessRoom:)``), for a transport
    /// that hands memos on; its group frames, which anything on the network hears, are sealed whatever this says.
    package internal(set) var unicastGoesUnsealed = false
    package typealias Made = (bytes: [UInt8], message: WireMessage, sealed: Bool)
    /// How far this node has read what the group sent it.
    var reading: ReadingProgress
    var running = false
    /// When this node started: a peer found within a silence of it was there first, as far as this node can tell.
    var startedAt = 0.0
    /// Sessions made with peers that had not shown they are there, found after this node joined, oldest first: the
    /// first to give way when the table is full (``makeRoom(for:now:)``). An entry whose peer has shown it since, or
    /// holds no session, is skipped.
    var unproven = Deque<PeerID>()
    /// The same for peers found while this node joined, with when each session was made: they give way once older
    /// than ``unprovenGrace``.
    var unprovenJoining = Deque<(peer: PeerID, since: Double)>()
    /// What ``hasUnprovenToGiveWay(now:)`` last found without a look-up, held in the node: `unproven` empty and
    /// `unprovenJoining`'s front made at this time (infinity: none), until either queue grows. Its front only grows
    /// younger as entries leave, so a front this young answers no for the real one too. Reading the queues'
    /// storage to learn as much was a cache miss for every announcement a full table heard.
    var unprovenQuietFront: Double?
    /// Before when no session's peer can have fallen silent, as the last search of the table found
    /// (``makeRoom(for:now:)``): a full table is searched when a silence may be due (at most once a second), not at
    /// every invitation of a flood or announcement of a crowd.
    var noneSilentBefore = -Double.infinity
    /// Sessions ``makeRoom(for:now:)`` looked at in its searches for a silent peer, all told: what a flood of
    /// invitations to a full table costs.
    package internal(set) var sessionsSearched = 0
    /// Peers known that have been heard announcing twice or more: the group whose size sets this node's announce
    /// period. A member's fake ids, each announced once, would otherwise slow the group's announcements tenfold
    /// (to 10 s, the longest) and with them every newcomer's first contacts.
    var regulars = 0
    /// ``silenceCheckTime(_:step:)``'s step, and the ``regulars`` it was found for.
    private var silenceStep = (regulars: -1, step: 0.0)
    /// The id last found at each address (``discover``).
    var atEndpoint = AddressBook()
    /// Unprompted contacts with unvalidated peers (``mayContact(_:now:)``): a few a second at most.
    var probeBudget = SendBudget(rate: DiscoveryNode.probesPerSecond)
    /// Contacts with peers found while joining and heard once (``mayContact(_:now:)``): enough for a crowd's start,
    /// not for a member's flood of fresh ids.
    var firstContacts = SendBudget(rate: DiscoveryNode.firstContactsPerSecond, burst: DiscoveryNode.firstContactBurst)

    /// A node that will advertise from `unicastPort`.
    ///
    /// - Parameters:
    ///   - tokens: where fresh session tokens come from (system or seeded).
    ///   - random: the stream for announcement jitter.
    /// - Throws: ``DiscoveryRuleError`` for an advertisement that breaks the rules, ``DiscoveryTimingError`` for
    ///   timing out of range.
    package init(
        configuration: Configuration, unicastPort: UInt16, tokens: any TokenSource, random: RandomSource
    ) throws {
        try configuration.timing.validate()
        self.configuration = configuration
        self.advertisement = try Advertisement(
            serviceType: configuration.serviceType, signingKey: configuration.identity.publicKey,
            incarnation: configuration.incarnation, displayName: configuration.displayName,
            discoveryInfo: configuration.discoveryInfo, unicastPort: unicastPort)
        self.table = PeerSessionTableState(capacity: configuration.maximumSessions)
        let expected = max(configuration.expectedPeers, 0)
        table.reserveCapacity(min(expected, configuration.maximumSessions))
        // Peers are known beyond the sessions held: a crowd's are known whether in session or not. An eighth over
        // what is expected, as an estimate of the crowd in reach may fall short: a table grown leaves its first
        // storage behind as a hole the size of the crowd's table (110 KB a node at 1,000 peers: 70 MB of the peak).
        peers.reserveCapacity(min(expected + expected / 8, configuration.maximumSessions + Self.strangersKept))
        self.tokens = tokens
        self.random = random
        self.budget = SendBudget(rate: configuration.timing.sendBudget)
        self.reading = ReadingProgress(prompt: configuration.timing.retransmitInterval)
        self.windowLimit = max(1, min(configuration.timing.invitationWindow, configuration.maximumSessions / 2))
    }

    var me: PeerID { configuration.peer }

    /// Whether the session table has a place for one more session (pending invitations hold theirs).
    var hasRoom: Bool { table.count < table.capacity }

    /// How many entries each of the node's tables and queues holds: what a flood of ids could grow.
    package var held: [String: Int] {
        ["peers": peers.count, "sessions": table.count, "strangers": strangers.count, "invitations": invitations.count,
         "waiting": waiting.count, "heldOff": heldOff.count, "addresses": atEndpoint.count,
         "unproven": unproven.count + unprovenJoining.count, "declined": declinedAt.count,
         "departures": departures.count, "keptDepartures": departures.keptCount,
         "silenceQueue": silenceQueue.count, "exchangeQueue": exchangeQueue.count, "solicits": pendingSolicits.count,
         "toldInvited": toldInvited.count, "earlyData": earlyData.count, "ownAnnouncementsOut": reading.outstanding.count]
    }
    var timing: DiscoveryTiming { configuration.timing }

    /// The earliest time at which ``tick(now:)`` may have work: an announcement, a retransmission, an invitation
    /// timeout or a silent peer to declare lost. It may be early (a queue entry gone stale), never late, but for
    /// silence checks, which wait for the next step of a coarser clock (``silenceCheckTime(_:step:)``).
    ///
    /// Stored, and brought up to date at the end of every change: a driver reads it after each datagram, and a
    /// computed property read through the driver would copy the whole node each time.
    package internal(set) var nextDeadline: Double?

    mutating func refreshDeadline() {
        guard running else {
            nextDeadline = nil
            return
        }
        var deadline = nextAnnounceAt
        if let due = silenceQueue.min {
            // The step moves with the group's size alone, and the deadline is brought up to date for every datagram.
            if silenceStep.regulars != regulars {
                silenceStep = (regulars, announceInterval.seconds / Self.silenceChecksPerInterval)
            }
            deadline = min(deadline, Self.silenceCheckTime(due.time, step: silenceStep.step))
        }
        if let due = exchangeQueue.min { deadline = min(deadline, due.time) }
        nextDeadline = deadline
    }

    /// When a silence check due at `time` is made: at the next step of a clock that ticks
    /// ``silenceChecksPerInterval`` times per announce period, as a phone's system coalesces timers with a
    /// tolerance. A peer is then lost at most that step late (under 3% of its silence of five periods or more), and
    /// one wake-up makes every check due within the step: each peer's silence falls due once per silence, so a node
    /// that knows 775 peers woke 23 times a second for them, nearly always to find the peer heard since.
    /// `step` is the announce period over ``silenceChecksPerInterval``.
    static func silenceCheckTime(_ time: Double, step: Double) -> Double {
        // Never before `time`, should the division round down: the check would not be due when woken.
        return max(time, (time / step).rounded(.up) * step)
    }

    /// How many silence-check steps one announce period holds (``silenceCheckTime(_:step:)``).
    static let silenceChecksPerInterval = 8.0

    // MARK: - Life

    /// Starts advertising and browsing.
    package mutating func start(now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        running = true
        startedAt = now
        burstLeft = timing.burstCount
        nextAnnounceAt = now
        return tick(now: now)
    }

    /// Says goodbye and forgets everything; the node is then silent.
    package mutating func stop(now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        guard running else { return [] }
        running = false
        let goodbye = WireMessage.goodbye(peer: me, incarnation: configuration.incarnation)
        peers = KnownPeers()
        invitations = [:]
        inFlight = 0
        waiting = []
        pendingSolicits = [:]
        heldOff = [:]
        departures = DepartedLives()
        atEndpoint = AddressBook()
        unproven = []
        unprovenJoining = []
        unprovenQuietFront = nil
        noneSilentBefore = -.infinity
        regulars = 0
        strangers = []
        silenceQueue = DeadlineQueue()
        exchangeQueue = DeadlineQueue()
        for peer in table.peers { table.remove(peer: peer) }
        return [send(goodbye, to: .group)]
    }

    /// How many times its promised interval an announcement may be put off by reconsideration: peers count it
    /// missed only after ``DiscoveryTiming/missedAnnouncements`` (5) times that, with jitter.
    static let promiseSlack = 2.5

    /// Does whatever is due at `now`.
    ///
    /// - Complexity: O(k log n) for the k timer entries due.
    package mutating func tick(now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        guard running else { return [] }
        return tickDue(now: now) + admitWaiting(now: now)
    }

    mutating func tickDue(now: Double) -> [NodeDirective] {
        var out: [NodeDirective] = []
        if now >= nextAnnounceAt, burstLeft == 0, lastAnnouncedAt > -Double.infinity,
           case let due = min(lastAnnouncedAt + announceInterval.seconds * announceJitterFactor,
                              lastAnnouncedAt + Self.promiseSlack * promisedInterval), due > now + 1e-9 {
            // Reconsidered (RFC 3550, 6.3.6): the group learned since the period was drawn asks for a longer one;
            // within the slack the last announcement's promise leaves the peers before they count it missed.
            nextAnnounceAt = due
        }
        if now >= nextAnnounceAt {
            sequence &+= 1
            let interval = announceInterval
            let announcement = send(.announce(advertisement, sequence: sequence, interval: interval), to: .group)
            if case .send(let bytes, _) = announcement { ownAnnouncement = bytes }
            out.append(announcement)
            reading.noteSent(sequence: sequence, at: now)
            lastAnnouncedAt = now
            if burstLeft > 1 {
                burstLeft -= 1
                nextAnnounceAt = now + timing.burstSpacing
            } else {
                burstLeft = 0
                announceJitterFactor = 1 + timing.announceJitter * (2 * random.uniform() - 1)
                nextAnnounceAt = now + interval.seconds * announceJitterFactor
            }
            promisedInterval = interval.seconds
        }
        while let due = silenceQueue.min, due.time <= now {
            silenceQueue.removeMin()
            // In place: a copy of the peer out of the dictionary and back would cost a retain per string of its
            // advertisement, for every peer of a steady group every few seconds.
            guard let index = peers.index(forKey: due.peer) else { continue }
            let (silenceCheckAt, announceInterval, lastHeard) = peers[at: index].silenceTimes()
            guard silenceCheckAt == due.time else { continue }
            let silence = timing.silence(after: announceInterval)
            let silentUntil = reading.silenceCounts(from: lastHeard) + silence
            if reading.heardUpTo(now: now, silence: silence) >= silentUntil {
                out += lose(due.peer, reason: .timeout, now: now)
            } else {
                // Not silent yet, or not read up to the end of its silence: look again then, or a little later.
                let next = max(silentUntil, now + Self.readBehindRecheck)
                peers[at: index].silenceCheckAt = next
                silenceQueue.insert(PeerDeadline(time: next, peer: due.peer))
            }
        }
        while let due = exchangeQueue.min, due.time <= now {
            exchangeQueue.removeMin()
            let peer = due.peer
            if pendingSolicits[peer] == due.time {
                pendingSolicits[peer] = nil
                if let known = peers[peer], !table.hasSession(with: peer) {
                    out.append(solicit(peer, incarnation: known.advertisement.incarnation, at: known.endpoint))
                }
                continue
            }
            guard let invitation = invitations[peer], invitation.queuedAt == due.time else { continue }
            if now >= invitation.startedAt + timing.invitationTimeout {
                out += abandonInvitation(peer, detail: "no answer within \(timing.invitationTimeout) s")
            } else if invitation.sends >= Self.sendsBeforeGivingWay,
                      !waiting.isEmpty || peers[peer]?.probed == true {
                // Unanswered while others wait: its place goes to the next, and the peer is tried again later, each
                // time later (an id that never answers costs a few invitations a minute, not one a second).
                let wait = holdOff(peer, now: now)
                out += abandonInvitation(peer, detail: "no answer to \(invitation.sends) invitations while others "
                                             + "waited; tried again in \(Int(wait)) s")
            } else if invitation.sends > 0,
                      let after = reading.resendAfter(lastSentAt: invitation.lastSentAt, now: now) {
                // The answer may be in this node's own unread queue: wait until the node has read that far.
                let later = min(after, invitation.startedAt + timing.invitationTimeout)
                counters.resendsDeferredWhileBehind += 1
                invitations[peer]?.queuedAt = later
                exchangeQueue.insert(PeerDeadline(time: later, peer: peer))
            } else {
                if invitation.sends > 0 { counters.retransmissions += 1 }
                out += sendInvitation(to: peer, now: now)
            }
        }
        return out
    }
}

/// What the receivers of a frame holding one key made of it, as kept in its ``FrameMemo``.
final class DecodedFrame {
    /// The fingerprint of the key it was checked under: receivers with another key check for themselves.
    let key: UInt64
    let authentic: Bool
    var result: Result<WireMessage, WireError>?
    /// The signing key the frame's signature was found valid for: the receivers after the first look no further.
    var signedBy: [UInt8]?
    /// The digest of the advertisement it carries (``WireFormat/advertisementDigest(_:)``, a function of the bytes
    /// alone): each receiver of a steady announcement compares it with the one it holds.
    var digest: UInt64?

    init(key: UInt64, authentic: Bool) {
        self.key = key
        self.authentic = authentic
    }
}
