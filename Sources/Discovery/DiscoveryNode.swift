import GSL
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

        public init(
            serviceType: String, peer: PeerID, incarnation: Incarnation, displayName: String,
            discoveryInfo: [String: String] = [:], maximumSessions: Int = 1024, timing: DiscoveryTiming = DiscoveryTiming()
        ) {
            self.serviceType = serviceType
            self.peer = peer
            self.incarnation = incarnation
            self.displayName = displayName
            self.discoveryInfo = discoveryInfo
            self.maximumSessions = maximumSessions
            self.timing = timing
        }
    }

    /// A peer this node has discovered.
    public struct KnownPeer: Sendable, Equatable {
        public let advertisement: Advertisement
        /// Where its token exchange is reached.
        public let endpoint: Endpoint
        /// When it was last heard from, seconds.
        public var lastHeard: Double
        /// When this incarnation of it was discovered, seconds.
        public let discoveredAt: Double
        /// The announcement it was discovered by, as received: a later one equal to it but for the sequence number
        /// is taken without decoding (``WireFormat/sameAnnouncement(_:_:)``).
        let announcement: [UInt8]
        /// The time of its entry in the silence queue; an entry with another time is stale.
        var silenceCheckAt: Double
    }

    private struct Invitation {
        var startedAt: Double
        var nextSendAt: Double
        /// The wait after the next send.
        var interval: Double
        var sends = 0
        var lastSentAt = -Double.infinity
        /// Whether `nextSendAt` is a send reserved in the budget.
        var reserved = false
        /// The time of its entry in the invitation queue; an entry with another time is stale.
        var queuedAt: Double
    }

    /// An invitation from a peer not discovered yet, kept until its announcement arrives.
    private struct ParkedInvitation {
        let address: SessionAddress
        let token: DiscoveryToken
        let source: Endpoint
        let at: Double
    }

    public let configuration: Configuration
    public let advertisement: Advertisement
    public private(set) var table: PeerSessionTableState
    public private(set) var peers: [PeerID: KnownPeer] = [:]
    public private(set) var counters = DiscoveryCounters()
    private var invitations: [PeerID: Invitation] = [:]
    /// Peers that declined an invitation, and when: not invited again before the invitation timeout has passed once
    /// more. An invitation that merely went unanswered is tried again at the peer's next announcement instead: the
    /// peer is alive, only the datagrams were lost.
    private var declinedAt: [PeerID: Double] = [:]
    private var parked: [PeerID: ParkedInvitation] = [:]
    /// Lazy timer queues: an entry may be stale (the peer heard from since, the invitation answered); it is checked
    /// against the state when it falls due. This keeps every datagram's handling free of scans over all peers.
    private var silenceQueue = Heap<PeerDeadline>()
    private var invitationQueue = Heap<PeerDeadline>()
    private var roundTrip = RoundTripEstimator()
    private var budget: SendBudget
    private var tokens: any TokenSource
    private let random: RandomSource
    private var sequence: UInt32 = 0
    private var burstLeft = 0
    private var nextAnnounceAt = Double.infinity
    private var lastAnnouncedAt = -Double.infinity
    /// This node's latest announcement, to recognise it when the group returns it.
    private var ownAnnouncement: [UInt8] = []
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
        self.tokens = tokens
        self.random = random
        self.budget = SendBudget(rate: configuration.timing.sendBudget)
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
        if let due = invitationQueue.min { deadline = min(deadline, due.time) }
        nextDeadline = deadline
    }

    /// The median of this node's latest timed token exchanges (``RoundTripEstimator``), once one has been timed.
    public var roundTripEstimate: Double? { roundTrip.estimate }

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
        parked = [:]
        silenceQueue = Heap()
        invitationQueue = Heap()
        for peer in table.peers { table.remove(peer: peer) }
        return [send(goodbye, to: .group)]
    }

    /// Does whatever is due at `now`.
    ///
    /// - Complexity: O(k log n) for the k timer entries due.
    public mutating func tick(now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        guard running else { return [] }
        var out: [NodeDirective] = []
        if now >= nextAnnounceAt {
            sequence &+= 1
            let announcement = send(.announce(advertisement, sequence: sequence), to: .group)
            if case .send(let bytes, _) = announcement { ownAnnouncement = bytes }
            out.append(announcement)
            lastAnnouncedAt = now
            if burstLeft > 1 {
                burstLeft -= 1
                nextAnnounceAt = now + timing.burstSpacing
            } else {
                burstLeft = 0
                nextAnnounceAt = now + timing.announceInterval * (1 + timing.announceJitter * (2 * random.uniform() - 1))
            }
        }
        let silence = timing.silenceBeforeLost
        while let due = silenceQueue.min, due.time <= now {
            silenceQueue.removeMin()
            guard var known = peers[due.peer], known.silenceCheckAt == due.time else { continue }
            if now >= known.lastHeard + silence {
                out += lose(due.peer, reason: .timeout)
            } else {
                known.silenceCheckAt = known.lastHeard + silence
                peers[due.peer] = known
                silenceQueue.insert(PeerDeadline(time: known.silenceCheckAt, peer: due.peer))
            }
        }
        while let due = invitationQueue.min, due.time <= now {
            invitationQueue.removeMin()
            let peer = due.peer
            guard let invitation = invitations[peer], invitation.queuedAt == due.time else { continue }
            if now >= invitation.startedAt + timing.invitationTimeout {
                invitations[peer] = nil
                if let entry = table.remove(peer: peer) {
                    let error = SessionError(.invitationTimedOut, peer: peer,
                                             detail: "no answer within \(timing.invitationTimeout) s")
                    out.append(.event(.session(entry.peer, .invalidated(error))))
                }
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
        counters.received += 1
        if let peer = WireFormat.announcedPeer(in: datagram.bytes) {
            if peer == me, WireFormat.sameAnnouncement(datagram.bytes, ownAnnouncement) {
                counters.ownIgnored += 1
                return []
            }
            if let index = peers.index(forKey: peer),
               WireFormat.sameAnnouncement(datagram.bytes, peers.values[index].announcement) {
                counters.unchangedAnnouncements += 1
                peers.values[index].lastHeard = now
                // A peer with a session, by far the most common case, needs nothing more (as in `heardAgain`).
                if table.hasSession(with: peer) { return [] }
                return heardAgain(peer, peers.values[index], now: now)
            }
        }
        let message: WireMessage
        do {
            message = try WireFormat.decode(datagram.bytes)
        } catch {
            counters.refused[error.kind, default: 0] += 1
            return []
        }
        switch message {
        case .announce(let ad, let sequence):
            return receiveAnnouncement(ad, sequence: sequence, bytes: datagram.bytes, from: datagram.source, now: now)
        case .goodbye(let peer, let incarnation):
            if peer == me {
                counters.ownIgnored += 1
                return []
            }
            guard let known = peers[peer] else { return [] }
            guard incarnation >= known.advertisement.incarnation else { return refuse(.staleIncarnation) }
            return lose(peer, reason: .peerEnded)
        case .invite(let address, let token):
            return receiveInvitation(address, token: token, from: datagram.source, now: now)
        case .accept(let address, let token, let echo):
            return receiveAnswer(address, echo: echo, now: now) { node in
                node.complete(address, token: token, now: now)
            }
        case .decline(let address, let echo, let code):
            return receiveAnswer(address, echo: echo, now: now) { node in
                node.invitations[address.from] = nil
                node.declinedAt[address.from] = now
                node.table.remove(peer: address.from)
                let error = SessionError(code, peer: address.from, detail: "the peer declined the session")
                return [.event(.session(address.from, .invalidated(error)))]
            }
        case .solicit(let address):
            return receiveSolicit(address, now: now)
        case .sessionData(let from, let to, let token, let kind, let payload):
            guard to == me else { return refuse(.misaddressed) }
            guard table.matches(peer: from, remoteToken: token) else { return refuse(.tokenMismatch) }
            if var known = peers[from] {
                known.lastHeard = now
                peers[from] = known
            }
            return [.event(.data(from, kind: kind, payload: payload))]
        }
    }

    private mutating func receiveAnnouncement(
        _ ad: Advertisement, sequence: UInt32, bytes: [UInt8], from source: Endpoint, now: Double
    ) -> [NodeDirective] {
        if ad.peer == me {
            counters.ownIgnored += 1
            return []
        }
        guard ad.serviceType == configuration.serviceType else {
            counters.otherServiceIgnored += 1
            return []
        }
        var out: [NodeDirective] = []
        if let known = peers[ad.peer] {
            if ad.incarnation < known.advertisement.incarnation { return refuse(.staleIncarnation) }
            if ad.incarnation == known.advertisement.incarnation {
                peers[ad.peer]?.lastHeard = now
                return heardAgain(ad.peer, known, now: now)
            }
            // A new life of a known peer: its old session cannot continue.
            invitations[ad.peer] = nil
            declinedAt[ad.peer] = nil
            if let old = table.remove(peer: ad.peer) {
                let error = SessionError(.peerReplaced, peer: ad.peer,
                                         detail: "incarnation \(ad.incarnation) replaced \(old.incarnation)")
                out.append(.event(.session(ad.peer, .invalidated(error))))
            }
        }
        let silenceCheckAt = now + timing.silenceBeforeLost
        peers[ad.peer] = KnownPeer(
            advertisement: ad, endpoint: source.with(port: ad.unicastPort), lastHeard: now, discoveredAt: now,
            announcement: bytes, silenceCheckAt: silenceCheckAt)
        silenceQueue.insert(PeerDeadline(time: silenceCheckAt, peer: ad.peer))
        out.append(.event(.found(ad)))
        if me.initiates(with: ad.peer) {
            out += beginInvitation(to: ad.peer, incarnation: ad.incarnation,
                                   firstSendAt: firstInvitationTime(toPeerAnnouncing: sequence, now: now), now: now)
        } else if let waiting = parked.removeValue(forKey: ad.peer) {
            if waiting.address.fromIncarnation == ad.incarnation {
                out += receiveInvitation(waiting.address, token: waiting.token, from: waiting.source, now: now)
            }
        }
        return out
    }

    /// Another announcement of a peer's known life (the caller has noted when it was heard): invite the peer if
    /// its invitation is due again, or, as its responder without a session, ask to be invited.
    private mutating func heardAgain(_ peer: PeerID, _ known: KnownPeer, now: Double) -> [NodeDirective] {
        if me.initiates(with: peer) {
            guard shouldInvite(peer, now: now) else { return [] }
            return beginInvitation(to: peer, incarnation: known.advertisement.incarnation, firstSendAt: now, now: now)
        }
        guard table.session(with: peer) == nil, now - known.discoveredAt >= timing.solicitAfter,
              budget.take(now: now)
        else { return [] }
        let address = SessionAddress(from: me, fromIncarnation: configuration.incarnation, to: peer,
                                     toIncarnation: known.advertisement.incarnation)
        return [send(.solicit(address), to: .unicast(known.endpoint))]
    }

    /// When to send the first invitation to a peer just discovered by an announcement with `sequence`.
    ///
    /// A peer still in its start burst that began after this node last announced cannot know this node yet, and
    /// would have to drop the invitation (or park it) until this node's next announcement: the invitation waits for
    /// that announcement instead, which costs no datagram. Any other peer is invited at once.
    private func firstInvitationTime(toPeerAnnouncing sequence: UInt32, now: Double) -> Double {
        guard sequence >= 1, sequence <= UInt32(max(timing.burstCount, 1)) else { return now }
        let peerStartedAt = now - Double(sequence - 1) * timing.burstSpacing
        guard lastAnnouncedAt < peerStartedAt, nextAnnounceAt.isFinite else { return now }
        // Just after the announcement, so that it is received first.
        return nextAnnounceAt + Self.afterAnnouncement
    }

    /// How long after its own announcement a deferred invitation is sent.
    static let afterAnnouncement = 0.02

    private mutating func receiveInvitation(
        _ address: SessionAddress, token: DiscoveryToken, from source: Endpoint, now: Double
    ) -> [NodeDirective] {
        if isAddressed(address, senderInitiates: true), peers[address.from].map({
            address.fromIncarnation > $0.advertisement.incarnation
        }) ?? true {
            return park(address, token: token, from: source, now: now)
        }
        guard let known = knownSender(of: address, senderInitiates: true, now: now) else { return [] }
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
            return out + receiveInvitation(address, token: token, from: source, now: now)
        }
        var out: [NodeDirective] = []
        let entry: SessionEntry
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

    private func isAddressed(_ address: SessionAddress, senderInitiates: Bool) -> Bool {
        address.to == me && address.toIncarnation == configuration.incarnation
            && address.from.initiates(with: me) == senderInitiates
    }

    /// Keeps an invitation from a peer (or a life of it) not discovered yet, to answer once its announcement
    /// arrives: the initiator then need not send again. A repeat replaces the one kept; beyond the bound, parked
    /// invitations older than a peer's allowed silence are dropped first, then new ones are.
    private mutating func park(
        _ address: SessionAddress, token: DiscoveryToken, from source: Endpoint, now: Double
    ) -> [NodeDirective] {
        counters.awaitingDiscovery += 1
        if parked[address.from] == nil, parked.count >= timing.maximumParkedInvitations {
            let oldest = now - timing.silenceBeforeLost
            parked = parked.filter { $0.value.at >= oldest }
            guard parked.count < timing.maximumParkedInvitations else { return [] }
        }
        parked[address.from] = ParkedInvitation(address: address, token: token, source: source, at: now)
        return []
    }

    /// A responder says it holds no session with us: whatever we hold is dead, so invite it afresh.
    private mutating func receiveSolicit(_ address: SessionAddress, now: Double) -> [NodeDirective] {
        guard let known = knownSender(of: address, senderInitiates: false, now: now) else { return [] }
        let incarnation = known.advertisement.incarnation
        // An invitation already under way answers the solicit by itself.
        guard invitations[address.from] == nil else { return [] }
        var out: [NodeDirective] = []
        if let old = table.remove(peer: address.from), old.remoteToken != nil {
            let error = SessionError(.sessionFailed, peer: address.from, detail: "the peer no longer holds the session")
            out.append(.event(.session(address.from, .invalidated(error))))
        }
        return out + beginInvitation(to: address.from, incarnation: incarnation, firstSendAt: now, now: now)
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
        if let invitation = invitations.removeValue(forKey: address.from) {
            if invitation.sends == 1 { roundTrip.add(now - invitation.lastSentAt) }
        }
        if case .completed = outcome {
            return [.event(.session(address.from, .began(remoteToken: token)))]
        }
        counters.duplicates += 1
        return []
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
        guard table.session(with: peer) == nil, invitations[peer] == nil else { return false }
        guard let declined = declinedAt[peer] else { return true }
        return now - declined >= timing.invitationTimeout
    }

    private mutating func beginInvitation(
        to peer: PeerID, incarnation: Incarnation, firstSendAt: Double, now: Double
    ) -> [NodeDirective] {
        declinedAt[peer] = nil
        do {
            var tokens = self.tokens
            defer { self.tokens = tokens }
            _ = try table.open(peer: peer, incarnation: incarnation, remoteToken: nil, time: now) { tokens.nextToken() }
        } catch {
            // This device is full: wait as for a decline rather than failing again at every announcement.
            declinedAt[peer] = now
            return [.event(.session(peer, .invalidated(error)))]
        }
        let first = roundTrip.timeout(initial: timing.initialRetransmitInterval, floor: timing.retransmitInterval,
                                      cap: timing.maximumRetransmitInterval, limit: DiscoveryTiming.retransmitLimit)
        invitations[peer] = Invitation(startedAt: now, nextSendAt: firstSendAt, interval: first, queuedAt: firstSendAt)
        if firstSendAt > now {
            invitationQueue.insert(PeerDeadline(time: firstSendAt, peer: peer))
            return []
        }
        return sendInvitation(to: peer, now: now)
    }

    /// Sends the invitation to `peer` if the budget allows, and queues its next step: the next send after a wait
    /// that doubles each time (with jitter), or the wait for the budget, or the timeout.
    private mutating func sendInvitation(to peer: PeerID, now: Double) -> [NodeDirective] {
        guard var invitation = invitations[peer] else { return [] }
        guard let known = peers[peer], let entry = table.session(with: peer), entry.remoteToken == nil else {
            // Nothing left to invite: drop it, or its deadline would stay due for ever.
            invitations[peer] = nil
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
            out.append(send(.invite(address, token: entry.localToken), to: .unicast(known.endpoint)))
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
        invitationQueue.insert(PeerDeadline(time: invitation.queuedAt, peer: peer))
        return out
    }

    private mutating func lose(_ peer: PeerID, reason: SessionRemovalReason) -> [NodeDirective] {
        peers[peer] = nil
        invitations[peer] = nil
        declinedAt[peer] = nil
        parked[peer] = nil
        var out: [NodeDirective] = [.event(.lost(peer, reason))]
        if let entry = table.remove(peer: peer), entry.remoteToken != nil {
            out.append(.event(.session(peer, .didRemove(reason))))
        }
        return out
    }

    private mutating func send(_ message: WireMessage, to destination: Destination) -> NodeDirective {
        counters.sent[message.type, default: 0] += 1
        return .send(WireFormat.encode(message), to: destination)
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
