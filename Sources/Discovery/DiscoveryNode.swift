import GSL
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
    }

    private struct Invitation {
        var startedAt: Double
        var nextSendAt: Double
        var interval: Double
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
    private var tokens: any TokenSource
    private let random: RandomSource
    private var sequence: UInt32 = 0
    private var burstLeft = 0
    private var nextAnnounceAt = Double.infinity
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
    }

    private var me: PeerID { configuration.peer }
    private var timing: DiscoveryTiming { configuration.timing }

    /// The earliest time at which ``tick(now:)`` has work: an announcement, a retransmission, an invitation
    /// timeout or a silent peer to declare lost.
    public var nextDeadline: Double? {
        guard running else { return nil }
        var deadline = nextAnnounceAt
        for invitation in invitations.values {
            deadline = min(deadline, invitation.nextSendAt, invitation.startedAt + timing.invitationTimeout)
        }
        let silence = timing.silenceBeforeLost
        for peer in peers.values { deadline = min(deadline, peer.lastHeard + silence) }
        return deadline
    }

    // MARK: - Life

    /// Starts advertising and browsing.
    public mutating func start(now: Double) -> [NodeDirective] {
        running = true
        burstLeft = timing.burstCount
        nextAnnounceAt = now
        return tick(now: now)
    }

    /// Says goodbye and forgets everything; the node is then silent.
    public mutating func stop(now: Double) -> [NodeDirective] {
        guard running else { return [] }
        running = false
        let goodbye = WireMessage.goodbye(peer: me, incarnation: configuration.incarnation)
        peers = [:]
        invitations = [:]
        for peer in table.peers { table.remove(peer: peer) }
        return [send(goodbye, to: .group)]
    }

    /// Does whatever is due at `now`.
    public mutating func tick(now: Double) -> [NodeDirective] {
        guard running else { return [] }
        var out: [NodeDirective] = []
        if now >= nextAnnounceAt {
            sequence &+= 1
            out.append(send(.announce(advertisement, sequence: sequence), to: .group))
            if burstLeft > 1 {
                burstLeft -= 1
                nextAnnounceAt = now + timing.burstSpacing
            } else {
                burstLeft = 0
                nextAnnounceAt = now + timing.announceInterval * (1 + timing.announceJitter * (2 * random.uniform() - 1))
            }
        }
        let silence = timing.silenceBeforeLost
        // The same sums as in `nextDeadline`, so that a deadline the driver wakes for is always acted on.
        for peer in peers.keys.sorted() where now >= peers[peer]!.lastHeard + silence {
            out += lose(peer, reason: .timeout)
        }
        for peer in invitations.keys.sorted() {
            guard let invitation = invitations[peer] else { continue }
            if now >= invitation.startedAt + timing.invitationTimeout {
                invitations[peer] = nil
                if let entry = table.remove(peer: peer) {
                    let error = SessionError(.invitationTimedOut, peer: peer,
                                             detail: "no answer within \(timing.invitationTimeout) s")
                    out.append(.event(.session(entry.peer, .invalidated(error))))
                }
            } else if now >= invitation.nextSendAt {
                counters.retransmissions += 1
                out += sendInvitation(to: peer, now: now)
            }
        }
        return out
    }

    // MARK: - Receiving

    /// Handles one datagram from `source`.
    public mutating func receive(_ datagram: IncomingDatagram, now: Double) -> [NodeDirective] {
        guard running else { return [] }
        counters.received += 1
        let message: WireMessage
        do {
            message = try WireFormat.decode(datagram.bytes)
        } catch {
            counters.refused[error.kind, default: 0] += 1
            return []
        }
        switch message {
        case .announce(let ad, _):
            return receiveAnnouncement(ad, from: datagram.source, now: now)
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

    private mutating func receiveAnnouncement(_ ad: Advertisement, from source: Endpoint, now: Double) -> [NodeDirective] {
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
                if me.initiates(with: ad.peer) {
                    if shouldInvite(ad.peer, now: now) {
                        out += beginInvitation(to: ad.peer, incarnation: ad.incarnation, now: now)
                    }
                } else if table.session(with: ad.peer) == nil, now - known.discoveredAt >= timing.solicitAfter {
                    let address = SessionAddress(from: me, fromIncarnation: configuration.incarnation, to: ad.peer,
                                                 toIncarnation: ad.incarnation)
                    out.append(send(.solicit(address), to: .unicast(known.endpoint)))
                }
                return out
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
        peers[ad.peer] = KnownPeer(
            advertisement: ad, endpoint: source.with(port: ad.unicastPort), lastHeard: now, discoveredAt: now)
        out.append(.event(.found(ad)))
        if me.initiates(with: ad.peer) {
            out += beginInvitation(to: ad.peer, incarnation: ad.incarnation, now: now)
        }
        return out
    }

    private mutating func receiveInvitation(
        _ address: SessionAddress, token: DiscoveryToken, from source: Endpoint, now: Double
    ) -> [NodeDirective] {
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
            // Our answer was lost: the initiator asks again; answer the same.
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
        guard address.to == me, address.toIncarnation == configuration.incarnation,
              address.from.initiates(with: me) == senderInitiates
        else {
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
        invitations[address.from] = nil
        if case .completed = outcome {
            return [.event(.session(address.from, .began(remoteToken: token)))]
        }
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

    private mutating func beginInvitation(to peer: PeerID, incarnation: Incarnation, now: Double) -> [NodeDirective] {
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
        invitations[peer] = Invitation(startedAt: now, nextSendAt: now, interval: timing.retransmitInterval)
        return sendInvitation(to: peer, now: now)
    }

    private mutating func sendInvitation(to peer: PeerID, now: Double) -> [NodeDirective] {
        guard var invitation = invitations[peer] else { return [] }
        guard let known = peers[peer], let entry = table.session(with: peer), entry.remoteToken == nil else {
            // Nothing left to invite: drop it, or its deadline would stay due for ever.
            invitations[peer] = nil
            return []
        }
        invitation.nextSendAt = now + invitation.interval
        invitation.interval = min(invitation.interval * 2, timing.maximumRetransmitInterval)
        invitations[peer] = invitation
        let address = SessionAddress(from: me, fromIncarnation: configuration.incarnation, to: peer,
                                     toIncarnation: entry.incarnation)
        return [send(.invite(address, token: entry.localToken), to: .unicast(known.endpoint))]
    }

    private mutating func lose(_ peer: PeerID, reason: SessionRemovalReason) -> [NodeDirective] {
        peers[peer] = nil
        invitations[peer] = nil
        declinedAt[peer] = nil
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
