import GSL
import DequeModule
import HeapModule
import Sessions
import Transport

/// One device's discovery: its advertiser, its browser, its side of every token exchange, and its session table.
///
/// A pure state machine: it takes the time and what arrived, and returns what to send and what to report
/// (``NodeDirective``). It owns no socket and no timer; a driver calls ``tick(now:)`` at ``nextDeadline``.
public struct DiscoveryNode {
    /// Everything a node is configured with.
    public struct Configuration {
        public var serviceType: String
        public var peer: PeerID
        public var incarnation: Incarnation
        public var displayName: String
        public var discoveryInfo: [String: String]
        /// The most sessions this device holds at once (the active-sessions limit).
        public var maximumSessions: Int
        public var timing: DiscoveryTiming
        /// How many peers the node expects to find: its tables are sized for them at start (up to
        /// `maximumSessions`) rather than grown, copied and rehashed as the group is found. 0 sizes nothing.
        public var expectedPeers: Int
        /// The group's shared key: every datagram sent is sealed under it, every one received must be.
        public var groupKey: GroupKey
        /// Whether the node connects only to the peers its app invited or accepted (``consent(to:now:)``), as an
        /// app on a peer-to-peer framework does, rather than to every peer it finds (the command line's nodes).
        /// A peer's invitation or request to be invited is then told to the app (``NodeEvent/invited(_:)``) and
        /// waits for its consent.
        public var connectsByConsent = false

        public init(
            serviceType: String, peer: PeerID, incarnation: Incarnation, displayName: String,
            discoveryInfo: [String: String] = [:], maximumSessions: Int = 1024, timing: DiscoveryTiming = DiscoveryTiming(),
            expectedPeers: Int = 0, groupKey: GroupKey = .development
        ) {
            self.serviceType = serviceType
            self.peer = peer
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
    public struct KnownPeer: Sendable, Equatable {
        // The fields every datagram of a steady group reads come first, within one cache line: in a group of a
        // thousand, the peers of all nodes do not fit in any cache, and each field further on costs a miss.

        /// Its latest announcement that changed, as received: a later one equal to it but for the sequence number is
        /// taken without decoding (``WireFormat/sameAnnouncement(_:_:)``). Empty when found by its invitation.
        var announcement: [UInt8]
        /// When it was last heard from, seconds.
        public var lastHeard: Double
        /// The table's ``PeerSessionTableState/removals`` when a session with it was last seen held, or `.max`.
        var sessionSeenAt: UInt64 = .max
        /// The highest sequence number of its announcements taken: a later one must be higher (a replay is not).
        var announcedUpTo: UInt32 = 0
        /// The highest sequence number on anything of it taken (``WireFormat/senderSequence(in:)``).
        var heardUpTo: UInt32 = 0
        /// How often it announces, seconds: it is lost after missing a number of these.
        var announceInterval: Double
        /// The time of its entry in the silence queue; an entry with another time is stale.
        var silenceCheckAt: Double
        public let advertisement: Advertisement
        /// Where its token exchange is reached.
        public let endpoint: Endpoint
        /// When this incarnation of it was discovered, seconds.
        public let discoveredAt: Double

        /// Its incarnation and when it was found, read in place.
        mutating func life() -> (incarnation: Incarnation, discoveredAt: Double) {
            (advertisement.incarnation, discoveredAt)
        }

        /// The times its silence is judged by, read in place.
        mutating func silenceTimes() -> (checkAt: Double, interval: Double, lastHeard: Double) {
            (silenceCheckAt, announceInterval, lastHeard)
        }

        /// What an announcement of a known peer told, as ``hearUnchanged(_:at:removals:)`` found it.
        enum Hearing { case changed, replayed, sessionHeld, sessionUnknown }

        /// Takes `bytes` as heard now when they are its latest announcement but for a higher sequence number, and
        /// says whether its session is still held by the cache alone.
        mutating func hearUnchanged(_ bytes: [UInt8], at now: Double, removals: UInt64) -> Hearing {
            guard WireFormat.sameAnnouncement(bytes, announcement) else { return .changed }
            guard hearAnnouncementSequence(WireFormat.senderSequence(in: bytes)) else { return .replayed }
            lastHeard = now
            return sessionSeenAt == removals ? .sessionHeld : .sessionUnknown
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

    private struct Invitation {
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

    public let configuration: Configuration
    public let advertisement: Advertisement
    public private(set) var table: PeerSessionTableState
    public private(set) var peers: [PeerID: KnownPeer] = [:]
    public private(set) var counters = DiscoveryCounters()
    private var invitations: [PeerID: Invitation] = [:]
    /// With ``Configuration/connectsByConsent``: the peers the app invited or accepted, and those whose invitation
    /// the app has been told of (once a life).
    private var consented = Set<PeerID>()
    private var toldInvited = Set<PeerID>()
    /// Data from peers we invited that arrived before their acceptance, by peer.
    private var earlyData: [PeerID: [(token: DiscoveryToken, kind: UInt8, payload: [UInt8])]] = [:]
    static let earlyDataHeld = 8
    /// Peers that declined an invitation, and when: not invited again before the invitation timeout has passed once
    /// more. An invitation that merely went unanswered is tried again at the peer's next announcement instead: the
    /// peer is alive, only the datagrams were lost.
    private var declinedAt: [PeerID: Double] = [:]
    /// Peers that did not answer an invitation or a solicit: not tried again before `until` (``holdOff(_:now:)``).
    private var heldOff: [PeerID: (until: Double, failures: Int)] = [:]
    /// What lost peers sent last (``isFresh(_:incarnation:sequence:_:)``), and the order they left in.
    private var departures: [PeerID: Departure] = [:]
    private var departureOrder = Deque<PeerID>()

    private struct Departure {
        let incarnation: Incarnation
        let announcedUpTo: UInt32
        let heardUpTo: UInt32
    }
    /// Lazy timer queues: an entry may be stale (the peer heard from since, the invitation answered); it is checked
    /// against the state when it falls due. This keeps every datagram's handling free of scans over all peers.
    private var silenceQueue = Heap<PeerDeadline>()
    private var exchangeQueue = Heap<PeerDeadline>()
    /// Introductions (solicits) waiting for their slot in the send budget, by the slot's time; queued in
    /// `exchangeQueue` beside the invitations.
    private var pendingSolicits: [PeerID: Double] = [:]
    /// Invitations sent and not yet answered, declined or timed out: at most the window. The others wait here, in
    /// the order they were begun, and go out as answers free places: sends are clocked by answers, so a slow host
    /// slows its initiators down instead of drawing more datagrams from them.
    private var inFlight = 0
    private var waiting = Deque<PeerID>()
    private var roundTrip = RoundTripEstimator()
    private var budget: SendBudget
    /// Invitations in flight at most: the timing's window, and never more than half the session table, so that
    /// pending invitations always leave room for sessions that peers open with this node.
    private let windowLimit: Int
    private var tokens: any TokenSource
    private let random: RandomSource
    private var sequence: UInt32 = 0
    private var burstLeft = 0
    private var nextAnnounceAt = Double.infinity
    private var lastAnnouncedAt = -Double.infinity
    /// This node's latest announcement, to recognise it when the group returns it.
    private var ownAnnouncement: [UInt8] = []
    /// When each of this node's latest announcements was sent, by sequence number, until the group returns it.
    private var ownSentAt: [UInt32: Double] = [:]
    /// The send time of the latest own announcement the group has returned: everything sent to the group before
    /// it has been read. A node behind on its reading must not take for silence what waits in its own queue.
    private var readThrough = -Double.infinity
    private var running = false

    /// A node that will advertise from `unicastPort`.
    ///
    /// - Parameters:
    ///   - tokens: where fresh session tokens come from (system or seeded).
    ///   - random: the stream for announcement jitter.
    /// - Throws: ``DiscoveryRuleError`` for an advertisement that breaks the rules, ``DiscoveryTimingError`` for
    ///   timing out of range.
    public init(
        configuration: Configuration, unicastPort: UInt16, tokens: any TokenSource, random: RandomSource
    ) throws {
        try configuration.timing.validate()
        self.configuration = configuration
        self.advertisement = try Advertisement(
            serviceType: configuration.serviceType, peer: configuration.peer,
            incarnation: configuration.incarnation, displayName: configuration.displayName,
            discoveryInfo: configuration.discoveryInfo, unicastPort: unicastPort)
        self.table = PeerSessionTableState(capacity: configuration.maximumSessions)
        let expected = min(max(configuration.expectedPeers, 0), configuration.maximumSessions)
        table.reserveCapacity(expected)
        peers.reserveCapacity(expected)
        self.tokens = tokens
        self.random = random
        self.budget = SendBudget(rate: configuration.timing.sendBudget)
        self.windowLimit = max(1, min(configuration.timing.invitationWindow, configuration.maximumSessions / 2))
    }

    private var me: PeerID { configuration.peer }
    private var timing: DiscoveryTiming { configuration.timing }

    /// The earliest time at which ``tick(now:)`` may have work: an announcement, a retransmission, an invitation
    /// timeout or a silent peer to declare lost. It may be early (a queue entry gone stale), never late.
    ///
    /// Stored, and brought up to date at the end of every change: a driver reads it after each datagram, and a
    /// computed property read through the driver would copy the whole node each time.
    public private(set) var nextDeadline: Double?

    private mutating func refreshDeadline() {
        guard running else {
            nextDeadline = nil
            return
        }
        var deadline = nextAnnounceAt
        if let due = silenceQueue.min { deadline = min(deadline, due.time) }
        if let due = exchangeQueue.min { deadline = min(deadline, due.time) }
        nextDeadline = deadline
    }

    // MARK: - Life

    /// Starts advertising and browsing.
    public mutating func start(now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        running = true
        burstLeft = timing.burstCount
        nextAnnounceAt = now
        return tick(now: now)
    }

    /// Says goodbye and forgets everything; the node is then silent.
    public mutating func stop(now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        guard running else { return [] }
        running = false
        let goodbye = WireMessage.goodbye(peer: me, incarnation: configuration.incarnation)
        peers = [:]
        invitations = [:]
        inFlight = 0
        waiting = []
        pendingSolicits = [:]
        heldOff = [:]
        departures = [:]
        departureOrder = []
        silenceQueue = Heap()
        exchangeQueue = Heap()
        for peer in table.peers { table.remove(peer: peer) }
        return [send(goodbye, to: .group)]
    }

    /// Does whatever is due at `now`.
    ///
    /// - Complexity: O(k log n) for the k timer entries due.
    public mutating func tick(now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        guard running else { return [] }
        return tickDue(now: now) + admitWaiting(now: now)
    }

    private mutating func tickDue(now: Double) -> [NodeDirective] {
        var out: [NodeDirective] = []
        if now >= nextAnnounceAt {
            sequence &+= 1
            let interval = announceInterval
            let announcement = send(.announce(advertisement, sequence: sequence, interval: interval), to: .group)
            if case .send(let bytes, _) = announcement { ownAnnouncement = bytes }
            out.append(announcement)
            if ownSentAt.count >= Self.ownAnnouncementsTracked, let oldest = ownSentAt.keys.min() {
                ownSentAt[oldest] = nil
            }
            ownSentAt[sequence] = now
            lastAnnouncedAt = now
            if burstLeft > 1 {
                burstLeft -= 1
                nextAnnounceAt = now + timing.burstSpacing
            } else {
                burstLeft = 0
                nextAnnounceAt = now + interval.seconds * (1 + timing.announceJitter * (2 * random.uniform() - 1))
            }
        }
        while let due = silenceQueue.min, due.time <= now {
            silenceQueue.removeMin()
            // In place: a copy of the peer out of the dictionary and back would cost a retain per string of its
            // advertisement, for every peer of a steady group every few seconds.
            guard let index = peers.index(forKey: due.peer) else { continue }
            let (silenceCheckAt, announceInterval, lastHeard) = peers.values[index].silenceTimes()
            guard silenceCheckAt == due.time else { continue }
            let silence = timing.silence(after: announceInterval)
            if heardUpTo(now: now, silence: silence) >= lastHeard + silence {
                out += lose(due.peer, reason: .timeout)
            } else {
                // Not silent yet, or not read up to the end of its silence: look again then, or a little later.
                let next = max(lastHeard + silence, now + Self.readBehindRecheck)
                peers.values[index].silenceCheckAt = next
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
            } else if invitation.sends >= Self.sendsBeforeGivingWay, !waiting.isEmpty {
                // Unanswered while others wait: its place goes to the next, and the peer is tried again later, each
                // time later (an id that never answers costs a few invitations a minute, not one a second).
                let wait = holdOff(peer, now: now)
                out += abandonInvitation(peer, detail: "no answer to \(invitation.sends) invitations while others "
                                             + "waited; tried again in \(Int(wait)) s")
            } else {
                if invitation.sends > 0 { counters.retransmissions += 1 }
                out += sendInvitation(to: peer, now: now)
            }
        }
        return out
    }

    // MARK: - Receiving

    /// Handles one datagram from `source`.
    public mutating func receive(_ datagram: IncomingDatagram, now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        guard running else { return [] }
        let out = handle(datagram, now: now)
        return inFlight < windowLimit && !waiting.isEmpty ? out + admitWaiting(now: now) : out
    }

    private mutating func handle(_ datagram: IncomingDatagram, now: Double) -> [NodeDirective] {
        counters.received += 1
        // What is not a datagram of this format is refused for what it is; what is, but lacks the group's tag, is
        // refused before anything in it is believed.
        do {
            try WireFormat.checkFrame(datagram.bytes)
        } catch {
            counters.refused[error.kind, default: 0] += 1
            return []
        }
        guard Self.authenticate(datagram, key: configuration.groupKey) else { return refuse(.unauthenticated) }
        if let peer = WireFormat.announcedPeer(in: datagram.bytes) {
            if peer == me, WireFormat.sameAnnouncement(datagram.bytes, ownAnnouncement) {
                counters.ownIgnored += 1
                noteOwnEcho(sequence: WireFormat.announcementSequence(in: datagram.bytes))
                return []
            }
            // Through the in-place accessor: reading `peers.values[index]` would copy the peer, a retain for every
            // string of its advertisement, on the path every datagram of a steady group takes.
            if let index = peers.index(forKey: peer) {
                let hearing = peers.values[index].hearUnchanged(datagram.bytes, at: now, removals: table.removals)
                if hearing == .replayed { return refuse(.replayed) }
                if hearing != .changed {
                    counters.unchangedAnnouncements += 1
                    // A peer with a session, by far the most common case, needs nothing more (as in `heardAgain`).
                    if hearing == .sessionHeld { return [] }
                    if table.hasSession(with: peer) {
                        peers.values[index].sessionSeenAt = table.removals
                        return []
                    }
                    return heardAgain(peer, at: index, now: now)
                }
            }
        }
        let message: WireMessage
        do {
            message = try Self.decode(datagram, key: configuration.groupKey)
        } catch {
            counters.refused[error.kind, default: 0] += 1
            return []
        }
        if let (sender, incarnation) = message.sender, sender != me,
           !isFresh(sender, incarnation: incarnation, sequence: WireFormat.senderSequence(in: datagram.bytes),
                    message.type) {
            return refuse(.replayed)
        }
        switch message {
        case .announce(let ad, let sequence, let interval):
            if ad.peer == me { noteOwnEcho(sequence: sequence) }
            return receiveAnnouncement(ad, sequence: sequence, interval: interval, bytes: datagram.bytes,
                                       from: datagram.source, now: now)
        case .goodbye(let peer, let incarnation):
            if peer == me {
                counters.ownIgnored += 1
                return []
            }
            guard let known = peers[peer] else { return [] }
            guard incarnation >= known.advertisement.incarnation else { return refuse(.staleIncarnation) }
            return lose(peer, reason: .peerEnded)
        case .invite(let address, let token, let ad, let interval):
            return receiveInvitation(address, token: token,
                                     from: (ad, interval, datagram.source, WireFormat.senderSequence(in: datagram.bytes)),
                                     now: now)
        case .accept(let address, let token, let echo):
            return receiveAnswer(address, echo: echo, now: now) { node in
                node.complete(address, token: token, now: now)
            }
        case .decline(let address, let echo, let code):
            return receiveAnswer(address, echo: echo, now: now) { node in
                node.endInvitation(address.from)
                node.earlyData[address.from] = nil
                node.declinedAt[address.from] = now
                node.table.remove(peer: address.from)
                let error = SessionError(code, peer: address.from, detail: "the peer declined the session")
                return [.event(.session(address.from, .invalidated(error)))]
            }
        case .solicit(let address, let ad, let interval):
            return receiveSolicit(address, from: (ad, interval, datagram.source, WireFormat.senderSequence(in: datagram.bytes)),
                                  now: now)
        case .sessionData(let from, let to, let token, let kind, let payload):
            guard to == me else { return refuse(.misaddressed) }
            guard table.matches(peer: from, remoteToken: token) else {
                // The peer took our invitation and sent data at once; its acceptance, sent first, may arrive after
                // the data (jitter, reordering). Held until the acceptance names the same token, a few a peer.
                if invitations[from] != nil, earlyData[from, default: []].count < Self.earlyDataHeld {
                    earlyData[from, default: []].append((token, kind, payload))
                    return []
                }
                return refuse(.tokenMismatch)
            }
            peers[from]?.lastHeard = now
            return [.event(.data(from, kind: kind, payload: payload))]
        }
    }

    /// How far behind the latest sequence number heard from a peer one of its unicast datagrams may be: it may have
    /// been overtaken by a later announcement (one a second; 10 s apart in a group of 1,000), not by three.
    static let replayWindow: UInt32 = 2
    /// Peers lost (by goodbye or silence) whose last sequence numbers are kept, so that replaying what they sent
    /// does not bring them back: the oldest is forgotten past this many.
    static let departuresKept = 4096

    /// Whether a datagram from `sender` stamped `sequence` is new enough to believe, and takes its sequence if so.
    /// An announcement must be newer than every announcement taken from that life of the peer; a goodbye too (its
    /// sender stamps it one past its last announcement); anything else may trail the latest heard by the window.
    /// A departed peer is held to what it sent last, so that a replay does not bring it back.
    private mutating func isFresh(
        _ sender: PeerID, incarnation: Incarnation?, sequence: UInt32, _ type: WireType
    ) -> Bool {
        let strict = type == .announce || type == .goodbye
        if let index = peers.index(forKey: sender) {
            // Another life is judged by the incarnation rules, and starts its own count.
            guard incarnation == nil || peers.values[index].life().incarnation == incarnation else { return true }
            if strict { return peers.values[index].hearAnnouncementSequence(sequence) }
            return peers.values[index].hearSequence(sequence, window: Self.replayWindow)
        }
        guard let departed = departures[sender], let incarnation else { return true }
        if incarnation < departed.incarnation { return false }
        guard incarnation == departed.incarnation else { return true }
        return strict ? sequence > departed.announcedUpTo : sequence &+ Self.replayWindow >= departed.heardUpTo
    }

    /// Keeps what a lost peer sent last (``isFresh(_:incarnation:sequence:_:)``).
    private mutating func rememberDeparture(of peer: PeerID, _ known: KnownPeer) {
        if departures.updateValue(Departure(incarnation: known.advertisement.incarnation,
                                            announcedUpTo: known.announcedUpTo, heardUpTo: known.heardUpTo),
                                  forKey: peer) == nil {
            departureOrder.append(peer)
        }
        while departureOrder.count > Self.departuresKept, let oldest = departureOrder.popFirst() {
            departures[oldest] = nil
        }
    }

    /// Whether the datagram carries the group's tag; checked once per frame when the network shares a
    /// ``FrameMemo`` among receivers holding the same key (the check is a function of the bytes and the key).
    ///
    /// Static, as ``cannotKnowUs(peerAnnouncing:now:lastAnnouncedAt:timing:)`` is: a method called from a mutating
    /// one copied the node.
    private static func authenticate(_ datagram: IncomingDatagram, key: GroupKey) -> Bool {
        guard let memo = datagram.memo else { return WireFormat.isAuthentic(datagram.bytes, under: key) }
        if let known = memo.value as? DecodedFrame, known.key == key.fingerprint { return known.authentic }
        let authentic = WireFormat.isAuthentic(datagram.bytes, under: key)
        memo.value = DecodedFrame(key: key.fingerprint, authentic: authentic)
        return authentic
    }

    /// The datagram's message, decoded once per frame when the network shares a ``FrameMemo``: decoding is a pure
    /// function of the bytes, so every receiver gets what it would have decoded itself.
    private static func decode(_ datagram: IncomingDatagram, key: GroupKey) throws(WireError) -> WireMessage {
        guard let memo = datagram.memo, let frame = memo.value as? DecodedFrame, frame.key == key.fingerprint
        else { return try WireFormat.decode(datagram.bytes) }
        if let known = frame.result { return try known.get() }
        let result = Result { () throws(WireError) in try WireFormat.decode(datagram.bytes) }
        frame.result = result
        return try result.get()
    }

    private mutating func receiveAnnouncement(
        _ ad: Advertisement, sequence: UInt32, interval: AnnounceInterval, bytes: [UInt8], from source: Endpoint,
        now: Double
    ) -> [NodeDirective] {
        if ad.peer == me {
            counters.ownIgnored += 1
            return []
        }
        guard ad.serviceType == configuration.serviceType else {
            counters.otherServiceIgnored += 1
            return []
        }
        if let known = peers[ad.peer] {
            if ad.incarnation < known.advertisement.incarnation { return refuse(.staleIncarnation) }
            if ad.incarnation == known.advertisement.incarnation {
                // The same life, announcing something new (its interval, as its group grew): the fast path compares
                // against this one from now on.
                peers[ad.peer]?.lastHeard = now
                peers[ad.peer]?.announcement = bytes
                peers[ad.peer]?.announceInterval = interval.seconds
                guard let index = peers.index(forKey: ad.peer) else { return [] }
                return heardAgain(ad.peer, at: index, now: now)
            }
        }
        var out = discover(ad, interval: interval, announcement: bytes, sequence: sequence, from: source, now: now)
        guard consents(to: ad.peer) else { return out }
        if me.initiates(with: ad.peer) {
            out += beginInvitation(to: ad.peer, incarnation: ad.incarnation, now: now)
        } else if Self.cannotKnowUs(peerAnnouncing: sequence, now: now, lastAnnouncedAt: lastAnnouncedAt, timing: timing),
                  nextAnnounceAt > now + timing.announceInterval {
            // Its invitation would wait for our next announcement, which a large group spaces out: introduce
            // ourselves now, or in our slot of the budget.
            let slot = budget.reserve(now: now)
            if slot > now {
                counters.deferredByBudget += 1
                pendingSolicits[ad.peer] = slot
                exchangeQueue.insert(PeerDeadline(time: slot, peer: ad.peer))
            } else {
                out.append(solicit(ad.peer, incarnation: ad.incarnation, at: peers[ad.peer]!.endpoint))
            }
        }
        return out
    }

    /// Whether a peer just heard in its start burst (announcement `sequence`) began after this node last announced,
    /// and so cannot know this node yet.
    ///
    /// Static, given what it reads: a method of the node, called from a mutating one, copied the whole node.
    private static func cannotKnowUs(
        peerAnnouncing sequence: UInt32, now: Double, lastAnnouncedAt: Double, timing: DiscoveryTiming
    ) -> Bool {
        guard sequence >= 1, sequence <= UInt32(max(timing.burstCount, 1)) else { return false }
        return lastAnnouncedAt < now - Double(sequence - 1) * timing.burstSpacing
    }

    private mutating func solicit(_ peer: PeerID, incarnation: Incarnation, at endpoint: Endpoint) -> NodeDirective {
        let address = SessionAddress(from: me, fromIncarnation: configuration.incarnation, to: peer,
                                     toIncarnation: incarnation)
        return send(.solicit(address, advertisement: advertisement, interval: announceInterval), to: .unicast(endpoint))
    }

    /// A peer, or a new life of one, heard for the first time, by its announcement or by its invitation: a new life
    /// ends the old one's session; the peer is found.
    private mutating func discover(
        _ ad: Advertisement, interval: AnnounceInterval, announcement: [UInt8], sequence: UInt32, from source: Endpoint,
        now: Double
    ) -> [NodeDirective] {
        var out: [NodeDirective] = []
        toldInvited.remove(ad.peer)
        if peers[ad.peer] != nil {
            endInvitation(ad.peer)
            declinedAt[ad.peer] = nil
            if let old = table.remove(peer: ad.peer) {
                let error = SessionError(.peerReplaced, peer: ad.peer,
                                         detail: "incarnation \(ad.incarnation) replaced \(old.incarnation)")
                out.append(.event(.session(ad.peer, .invalidated(error))))
            }
        }
        let silenceCheckAt = now + timing.silence(after: interval.seconds)
        departures[ad.peer] = nil
        peers[ad.peer] = KnownPeer(
            announcement: announcement, lastHeard: now, announcedUpTo: announcement.isEmpty ? 0 : sequence,
            heardUpTo: sequence, announceInterval: interval.seconds, silenceCheckAt: silenceCheckAt,
            advertisement: ad, endpoint: source.with(port: ad.unicastPort), discoveredAt: now)
        silenceQueue.insert(PeerDeadline(time: silenceCheckAt, peer: ad.peer))
        out.append(.event(.found(ad)))
        return out
    }

    /// Another announcement of a peer's known life (the caller has noted when it was heard): invite the peer if
    /// its invitation is due again, or, as its responder without a session, ask to be invited.
    private mutating func heardAgain(_ peer: PeerID, at index: [PeerID: KnownPeer].Index, now: Double) -> [NodeDirective] {
        let (incarnation, discoveredAt) = peers.values[index].life()
        guard consents(to: peer) else { return [] }
        if me.initiates(with: peer) {
            guard shouldInvite(peer, now: now) else { return [] }
            return beginInvitation(to: peer, incarnation: incarnation, now: now)
        }
        // A solicit that went unanswered holds the next off, longer each time (``holdOff(_:now:)``): an id that
        // announces and never invites costs a few solicits a minute, not one per announcement.
        guard !isHeldOff(peer, now: now), !table.hasSession(with: peer), now - discoveredAt >= timing.solicitAfter,
              budget.take(now: now)
        else { return [] }
        holdOff(peer, now: now)
        return [solicit(peer, incarnation: incarnation, at: peers.values[index].endpoint)]
    }

    /// Own announcements whose send times are kept until the group returns them.
    static let ownAnnouncementsTracked = 16
    /// How soon a silence that has not been read through yet is looked at again.
    static let readBehindRecheck = 0.25

    private mutating func noteOwnEcho(sequence: UInt32) {
        guard let sentAt = ownSentAt[sequence] else { return }
        readThrough = max(readThrough, sentAt)
        for key in ownSentAt.keys where key <= sequence { ownSentAt[key] = nil }
    }

    /// The time up to which this node has read what the group sent. With every own announcement returned, it is
    /// current; with some still out, it has read up to the send time of the latest returned. A node whose own
    /// announcements do not return (a transport without multicast loopback) or return no longer counts as current
    /// once more than `silence` behind, so that a silent peer is then lost at most that much later.
    private func heardUpTo(now: Double, silence: Double) -> Double {
        if ownSentAt.isEmpty, readThrough > -Double.infinity { return now }
        return max(readThrough, now - silence)
    }

    /// This node's announce period for the group it knows now (``DiscoveryTiming/announceInterval(forGroupOf:)``).
    private var announceInterval: AnnounceInterval {
        AnnounceInterval(seconds: timing.announceInterval(forGroupOf: peers.count + 1))
    }

    /// The invitation `token` from the initiator `sender` describes (its advertisement, its interval, where it
    /// was sent from): an initiator not heard before, or in a new life, is discovered from it first, so that the
    /// answer never waits for its announcement.
    private mutating func receiveInvitation(
        _ address: SessionAddress, token: DiscoveryToken,
        from sender: Introduction, now: Double
    ) -> [NodeDirective] {
        guard let introduced = introduce(address, senderInitiates: true, sender, now: now) else { return [] }
        if !introduced.isEmpty { return introduced + receiveInvitation(address, token: token, from: sender, now: now) }
        guard let known = knownSender(of: address, senderInitiates: true, now: now) else { return [] }
        // Unconsented, the invitation waits for the app: the initiator sends it again, and the app's consent asks
        // for it at once.
        guard consents(to: address.from) else { return askApp(address.from) }
        let incarnation = known.advertisement.incarnation
        let outcome: PeerSessionTableState.OpenOutcome
        do {
            var tokens = self.tokens
            defer { self.tokens = tokens }
            outcome = try table.open(peer: address.from, incarnation: incarnation, remoteToken: token, time: now) {
                tokens.nextToken()
            }
        } catch {
            if error.code == .activeSessionsLimitExceeded {
                return [
                    send(.decline(address.reversed, echo: token, code: error.code), to: .unicast(known.endpoint)),
                    .event(.session(address.from, .invalidated(error))),
                ]
            }
            // The same life of the initiator invites with a fresh token: it ended our session on its side (it timed
            // us out) and opened a new one. The initiator owns the pair's session, so the old one gives way.
            guard let old = table.remove(peer: address.from) else { return refuse(.tokenMismatch) }
            var out: [NodeDirective] = []
            if old.remoteToken != nil {
                let ended = SessionError(.sessionFailed, peer: address.from,
                                         detail: "the initiator replaced the session with a new one")
                out.append(.event(.session(address.from, .invalidated(ended))))
            }
            return out + receiveInvitation(address, token: token, from: sender, now: now)
        }
        var out: [NodeDirective] = []
        let entry: SessionEntry
        heldOff[address.from] = nil
        switch outcome {
        case .opened(let new), .completed(let new):
            entry = new
            out.append(.event(.session(address.from, .began(remoteToken: token))))
        case .replaced(let old, let new):
            entry = new
            let error = SessionError(.peerReplaced, peer: address.from,
                                     detail: "incarnation \(new.incarnation) replaced \(old.incarnation)")
            out.append(.event(.session(address.from, .invalidated(error))))
            out.append(.event(.session(address.from, .began(remoteToken: token))))
        case .unchanged(let existing):
            // Our answer was lost or is late: the initiator asks again; answer the same, holding nothing new.
            counters.duplicates += 1
            entry = existing
        }
        out.insert(send(.accept(address.reversed, token: entry.localToken, echo: token), to: .unicast(known.endpoint)),
                   at: 0)
        return out
    }

    /// The discovered peer that sent a token-exchange datagram, once the datagram is shown to be for this life of
    /// this node, from the side of the pair that may send it, and from the life of the peer we know; otherwise the
    /// datagram is refused and counted, or (from a peer not discovered yet) counted and left for a retransmission.
    private mutating func knownSender(
        of address: SessionAddress, senderInitiates: Bool, now: Double
    ) -> KnownPeer? {
        guard isAddressed(address, senderInitiates: senderInitiates) else {
            _ = refuse(.misaddressed)
            return nil
        }
        guard let known = peers[address.from], address.fromIncarnation <= known.advertisement.incarnation else {
            counters.awaitingDiscovery += 1
            return nil
        }
        guard address.fromIncarnation == known.advertisement.incarnation else {
            _ = refuse(.staleIncarnation)
            return nil
        }
        peers[address.from]?.lastHeard = now
        return known
    }

    /// Who sent an invitation or a solicit, as the datagram says: its advertisement, its interval, its address.
    private typealias Introduction = (
        advertisement: Advertisement, interval: AnnounceInterval, source: Endpoint, sequence: UInt32
    )

    /// Discovers the sender of an invitation or a solicit from the datagram when it, or this life of it, is not
    /// known yet (found first, then whatever the datagram asks).
    ///
    /// - Returns: the discovery's directives; none when the sender is known (or the datagram is misaddressed, which
    ///   the caller refuses); `nil` when it offers another service and is to be ignored.
    private mutating func introduce(
        _ address: SessionAddress, senderInitiates: Bool, _ sender: Introduction, now: Double
    ) -> [NodeDirective]? {
        guard isAddressed(address, senderInitiates: senderInitiates),
              peers[address.from].map({ address.fromIncarnation > $0.advertisement.incarnation }) ?? true
        else { return [] }
        guard sender.advertisement.serviceType == configuration.serviceType else {
            counters.otherServiceIgnored += 1
            return nil
        }
        if senderInitiates { counters.discoveredByInvitation += 1 } else { counters.discoveredBySolicit += 1 }
        return discover(sender.advertisement, interval: sender.interval, announcement: [], sequence: sender.sequence,
                        from: sender.source, now: now)
    }

    private func isAddressed(_ address: SessionAddress, senderInitiates: Bool) -> Bool {
        address.to == me && address.toIncarnation == configuration.incarnation
            && address.from.initiates(with: me) == senderInitiates
    }

    /// A responder says it holds no session with us: whatever we hold is dead, so invite it afresh. A responder not
    /// heard before, or in a new life, is discovered from the solicit first.
    private mutating func receiveSolicit(
        _ address: SessionAddress,
        from sender: Introduction, now: Double
    ) -> [NodeDirective] {
        guard var out = introduce(address, senderInitiates: false, sender, now: now) else { return [] }
        guard let known = knownSender(of: address, senderInitiates: false, now: now) else { return out }
        guard consents(to: address.from) else { return out + askApp(address.from) }
        let incarnation = known.advertisement.incarnation
        // An invitation already under way answers the solicit by itself; one still waiting goes to the front: a peer
        // that asks for its session is there, which is more than the ids ahead of it have shown.
        heldOff[address.from] = nil
        if let invitation = invitations[address.from] {
            if !invitation.inWindow, let position = waiting.firstIndex(of: address.from) {
                waiting.remove(at: position)
                waiting.prepend(address.from)
            }
            return out
        }
        if let old = table.remove(peer: address.from), old.remoteToken != nil {
            let error = SessionError(.sessionFailed, peer: address.from, detail: "the peer no longer holds the session")
            out.append(.event(.session(address.from, .invalidated(error))))
        }
        return out + beginInvitation(to: address.from, incarnation: incarnation, now: now)
    }

    /// Checks an accept or decline against the pending invitation before `handle` applies it.
    private mutating func receiveAnswer(
        _ address: SessionAddress, echo: DiscoveryToken, now: Double,
        handle: (inout DiscoveryNode) -> [NodeDirective]
    ) -> [NodeDirective] {
        guard address.to == me, address.toIncarnation == configuration.incarnation else { return refuse(.misaddressed) }
        guard let entry = table.session(with: address.from) else { return refuse(.tokenMismatch) }
        guard entry.localToken == echo else { return refuse(.tokenMismatch) }
        guard address.fromIncarnation == entry.incarnation else { return refuse(.staleIncarnation) }
        peers[address.from]?.lastHeard = now
        return handle(&self)
    }

    private mutating func complete(_ address: SessionAddress, token: DiscoveryToken, now: Double) -> [NodeDirective] {
        let outcome: PeerSessionTableState.OpenOutcome
        do {
            outcome = try table.open(
                peer: address.from, incarnation: address.fromIncarnation, remoteToken: token, time: now
            ) { DiscoveryToken(high: 0, low: 0) }
        } catch {
            return refuse(.tokenMismatch)
        }
        if let invitation = endInvitation(address.from), invitation.sends == 1 {
            roundTrip.add(now - invitation.lastSentAt)
        }
        let early = earlyData.removeValue(forKey: address.from) ?? []
        if case .completed = outcome {
            heldOff[address.from] = nil
            return [.event(.session(address.from, .began(remoteToken: token)))]
                + early.filter { $0.token == token }.map { .event(.data(address.from, kind: $0.kind, payload: $0.payload)) }
        }
        counters.duplicates += 1
        return []
    }

    // MARK: - Consent

    /// With ``Configuration/connectsByConsent``: the app invites `peer`, or accepts its invitation. The initiator of
    /// the pair (the lower peer id) invites at once; the responder asks to be invited. Nothing more to do for a
    /// peer not found yet: it is invited when found.
    public mutating func consent(to peer: PeerID, now: Double) -> [NodeDirective] {
        guard consented.insert(peer).inserted, let known = peers[peer], !table.hasSession(with: peer) else { return [] }
        heldOff[peer] = nil
        if me.initiates(with: peer) {
            guard invitations[peer] == nil else { return [] }
            return beginInvitation(to: peer, incarnation: known.advertisement.incarnation, now: now)
        }
        return [solicit(peer, incarnation: known.advertisement.incarnation, at: known.endpoint)]
    }

    @inline(__always)
    private func consents(to peer: PeerID) -> Bool {
        !configuration.connectsByConsent || consented.contains(peer)
    }

    /// Tells the app, once a life, that `peer` wants to connect.
    private mutating func askApp(_ peer: PeerID) -> [NodeDirective] {
        guard toldInvited.insert(peer).inserted else { return [] }
        return [.event(.invited(peer))]
    }

    // MARK: - Sending

    /// Sends application data to `peer` within the running session, carrying this side's token.
    ///
    /// - Returns: the directive, or nothing when there is no running session with `peer`.
    public mutating func sendData(to peer: PeerID, kind: UInt8, payload: [UInt8]) -> [NodeDirective] {
        guard let entry = table.session(with: peer), entry.remoteToken != nil, let known = peers[peer],
              payload.count <= WireFormat.maximumSessionPayload
        else { return [] }
        return [send(.sessionData(from: me, to: peer, token: entry.localToken, kind: kind, payload: payload),
                     to: .unicast(known.endpoint))]
    }

    private func shouldInvite(_ peer: PeerID, now: Double) -> Bool {
        guard !table.hasSession(with: peer), invitations[peer] == nil, !isHeldOff(peer, now: now) else { return false }
        guard let declined = declinedAt[peer] else { return true }
        return now - declined >= timing.invitationTimeout
    }

    /// Invitations sent to a peer before it gives its place in the window to a waiting one.
    static let sendsBeforeGivingWay = 4
    /// The first wait before a peer that let its invitation or solicit go unanswered is tried again; it doubles with
    /// each further failure, up to ``longestHoldOff``.
    static let firstHoldOff = 2.0
    static let longestHoldOff = 120.0

    private func isHeldOff(_ peer: PeerID, now: Double) -> Bool {
        heldOff[peer].map { now < $0.until } ?? false
    }

    /// Holds off inviting or soliciting `peer`, longer each time it did not answer; returns the wait.
    @discardableResult
    private mutating func holdOff(_ peer: PeerID, now: Double) -> Double {
        let failures = (heldOff[peer]?.failures ?? 0) + 1
        let wait = min(Self.firstHoldOff * Double(1 << min(failures - 1, 10)), Self.longestHoldOff)
        heldOff[peer] = (now + wait, failures)
        return wait
    }

    private mutating func beginInvitation(to peer: PeerID, incarnation: Incarnation, now: Double) -> [NodeDirective] {
        declinedAt[peer] = nil
        let first = roundTrip.timeout(initial: timing.initialRetransmitInterval, floor: timing.retransmitInterval,
                                      cap: timing.maximumRetransmitInterval, limit: DiscoveryTiming.retransmitLimit)
        invitations[peer] = Invitation(incarnation: incarnation, startedAt: now, nextSendAt: now, interval: first,
                                       queuedAt: now)
        guard inFlight < windowLimit else {
            counters.heldForWindow += 1
            waiting.append(peer)
            return []
        }
        return admit(peer, now: now)
    }

    /// Gives an invitation its place in the window, and only then its pending session in the table: waiting
    /// invitations hold no session, so however many peers a node hears of (a thousand ids announced by one member of
    /// the group, say), pending invitations hold at most the window, and the window at most half the table.
    private mutating func admit(_ peer: PeerID, now: Double) -> [NodeDirective] {
        guard let invitation = invitations[peer] else { return [] }
        do {
            var tokens = self.tokens
            defer { self.tokens = tokens }
            _ = try table.open(peer: peer, incarnation: invitation.incarnation, remoteToken: nil, time: now) {
                tokens.nextToken()
            }
        } catch {
            // This device is full: wait as for a decline rather than failing again at every announcement.
            endInvitation(peer)
            declinedAt[peer] = now
            return [.event(.session(peer, .invalidated(error)))]
        }
        invitations[peer]?.inWindow = true
        invitations[peer]?.startedAt = now
        inFlight += 1
        return sendInvitation(to: peer, now: now)
    }

    /// Ends an unanswered invitation and its pending session, which the app learns was not made.
    private mutating func abandonInvitation(_ peer: PeerID, detail: String) -> [NodeDirective] {
        endInvitation(peer)
        guard let entry = table.remove(peer: peer) else { return [] }
        return [.event(.session(entry.peer, .invalidated(SessionError(.invitationTimedOut, peer: peer, detail: detail))))]
    }

    /// Ends the invitation to `peer`, if any, freeing its place in the window.
    @discardableResult
    private mutating func endInvitation(_ peer: PeerID) -> Invitation? {
        guard let invitation = invitations.removeValue(forKey: peer) else { return nil }
        if invitation.inWindow { inFlight -= 1 }
        return invitation
    }

    /// Sends the waiting invitations that the window now has places for, oldest first.
    private mutating func admitWaiting(now: Double) -> [NodeDirective] {
        var out: [NodeDirective] = []
        while inFlight < windowLimit, let peer = waiting.popFirst() {
            // Ended while it waited (answered by a new life, the peer lost): nothing to send.
            guard let invitation = invitations[peer], !invitation.inWindow else { continue }
            out += admit(peer, now: now)
        }
        return out
    }

    /// Sends the invitation to `peer` if the budget allows, and queues its next step: the next send after a wait
    /// that doubles each time (with jitter), or the wait for the budget, or the timeout.
    private mutating func sendInvitation(to peer: PeerID, now: Double) -> [NodeDirective] {
        guard var invitation = invitations[peer] else { return [] }
        guard let known = peers[peer], let entry = table.session(with: peer), entry.remoteToken == nil else {
            // Nothing left to invite: drop it, or its deadline would stay due for ever.
            endInvitation(peer)
            return []
        }
        var out: [NodeDirective] = []
        let slot = invitation.reserved ? now : budget.reserve(now: now)
        if slot > now {
            counters.deferredByBudget += 1
            invitation.nextSendAt = slot
            invitation.reserved = true
        } else {
            invitation.reserved = false
            let address = SessionAddress(from: me, fromIncarnation: configuration.incarnation, to: peer,
                                         toIncarnation: entry.incarnation)
            out.append(send(.invite(address, token: entry.localToken, advertisement: advertisement,
                                    interval: announceInterval), to: .unicast(known.endpoint)))
            invitation.sends += 1
            invitation.lastSentAt = now
            let jitter = 1 + timing.retransmitJitter * (2 * random.uniform() - 1)
            invitation.nextSendAt = now + invitation.interval * jitter
            invitation.interval = min(invitation.interval * 2, roundTrip.longestWait(
                cap: timing.maximumRetransmitInterval, limit: DiscoveryTiming.retransmitLimit))
            if invitation.sends > 1 { roundTrip.backOff(to: invitation.interval) }
        }
        invitation.queuedAt = min(invitation.nextSendAt, invitation.startedAt + timing.invitationTimeout)
        invitations[peer] = invitation
        exchangeQueue.insert(PeerDeadline(time: invitation.queuedAt, peer: peer))
        return out
    }

    private mutating func lose(_ peer: PeerID, reason: SessionRemovalReason) -> [NodeDirective] {
        if let known = peers.removeValue(forKey: peer) { rememberDeparture(of: peer, known) }
        heldOff[peer] = nil
        endInvitation(peer)
        declinedAt[peer] = nil
        pendingSolicits[peer] = nil
        var out: [NodeDirective] = [.event(.lost(peer, reason))]
        if let entry = table.remove(peer: peer), entry.remoteToken != nil {
            out.append(.event(.session(peer, .didRemove(reason))))
        }
        return out
    }

    private mutating func send(_ message: WireMessage, to destination: Destination) -> NodeDirective {
        counters.sent[message.type, default: 0] += 1
        // A goodbye is stamped one past the last announcement: receivers take it only as newer than all of them.
        let stamp = message.type == .goodbye ? sequence &+ 1 : sequence
        return .send(WireFormat.encode(message, key: configuration.groupKey, sequence: stamp), to: destination)
    }

    private mutating func refuse(_ reason: WireRefusal) -> [NodeDirective] {
        counters.refused[reason, default: 0] += 1
        return []
    }

    // MARK: - Suspension

    /// Suspends every running session (the app went to the background).
    public mutating func suspend() -> [NodeDirective] {
        table.peers.filter { table.suspend(peer: $0) }.map { .event(.session($0, .suspended)) }
    }

    /// Resumes every suspended session.
    public mutating func resume() -> [NodeDirective] {
        table.peers.filter { table.resume(peer: $0) }.map { .event(.session($0, .suspensionEnded)) }
    }
}

/// What the receivers of a frame holding one key made of it, as kept in its ``FrameMemo``.
private final class DecodedFrame {
    /// The fingerprint of the key it was checked under: receivers with another key check for themselves.
    let key: UInt64
    let authentic: Bool
    var result: Result<WireMessage, WireError>?

    init(key: UInt64, authentic: Bool) {
        self.key = key
        self.authentic = authentic
    }
}
