import GSL
import DequeModule
import HeapModule
import Sessions
import TransportCore

/// The token exchange: invitations received and answered, sent, retransmitted, held for the window or the send
/// budget, abandoned; the application data a node sends.
extension DiscoveryNode {
    /// The invitation `token` from the initiator `sender` describes (its advertisement, its interval, where it
    /// was sent from): an initiator not heard before, or in a new life, is discovered from it first, so that the
    /// answer never waits for its announcement.
    mutating func receiveInvitation(
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
                if let released = makeRoom(for: address.from, now: now) {
                    return released + receiveInvitation(address, token: token, from: sender, now: now)
                }
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
            noteNewSession(with: address.from, now: now)
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
    mutating func knownSender(
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
    typealias Introduction = (
        advertisement: Advertisement, interval: AnnounceInterval, source: Endpoint, sequence: UInt32
    )

    /// Discovers the sender of an invitation or a solicit from the datagram when it, or this life of it, is not
    /// known yet (found first, then whatever the datagram asks).
    ///
    /// - Returns: the discovery's directives; none when the sender is known (or the datagram is misaddressed, which
    ///   the caller refuses); `nil` when it offers another service and is to be ignored.
    mutating func introduce(
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
        // Sent from where it says (``WireRefusal/wrongSource``), unicast: the sender receives there.
        return discover(sender.advertisement, interval: sender.interval, announcement: [], sequence: sender.sequence,
                        from: sender.source, validated: true, now: now)
    }

    /// Mutating only to be read in place (``consents(to:)``).
    mutating func isAddressed(_ address: SessionAddress, senderInitiates: Bool) -> Bool {
        address.to == me && address.toIncarnation == configuration.incarnation
            && address.from.initiates(with: me) == senderInitiates
    }

    /// A responder says it holds no session with us: whatever we hold is dead, so invite it afresh. A responder not
    /// heard before, or in a new life, is discovered from the solicit first.
    mutating func receiveSolicit(
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
    mutating func receiveAnswer(
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

    mutating func complete(_ address: SessionAddress, token: DiscoveryToken, now: Double) -> [NodeDirective] {
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
            noteNewSession(with: address.from, now: now)
            return [.event(.session(address.from, .began(remoteToken: token)))]
                + early.filter { $0.token == token }.map { .event(.data(address.from, kind: $0.kind, payload: $0.payload)) }
        }
        counters.duplicates += 1
        return []
    }


    /// Sends application data to `peer` within the running session, carrying this side's token.
    ///
    /// - Returns: the directive, or nothing when there is no running session with `peer`.
    ///
    /// Not `sealed`, the datagram carries no signature or tag in its bytes, only in its memo: for a driver whose
    /// receivers are nodes of its own process reading memos (``unicastGoesUnsealed`` says so for all its unicast).
    package mutating func sendData(to peer: PeerID, kind: UInt8, payload: [UInt8], sealed: Bool = true)
        -> [NodeDirective] {
        guard let entry = table.session(with: peer), entry.remoteToken != nil, let known = peers[peer],
              payload.count <= WireFormat.maximumSessionPayload
        else { return [] }
        return [send(.sessionData(from: me, to: peer, token: entry.localToken, kind: kind, payload: payload),
                     to: .unicast(known.endpoint), sealed: sealed)]
    }

    func shouldInvite(_ peer: PeerID, now: Double) -> Bool {
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

    func isHeldOff(_ peer: PeerID, now: Double) -> Bool {
        heldOff[peer].map { now < $0.until } ?? false
    }

    /// Holds off inviting or soliciting `peer`, longer each time it did not answer; returns the wait.
    @discardableResult
    mutating func holdOff(_ peer: PeerID, now: Double) -> Double {
        let failures = (heldOff[peer]?.failures ?? 0) + 1
        let wait = min(Self.firstHoldOff * Double(1 << min(failures - 1, 10)), Self.longestHoldOff)
        heldOff[peer] = (now + wait, failures)
        return wait
    }

    mutating func beginInvitation(to peer: PeerID, incarnation: Incarnation, now: Double) -> [NodeDirective] {
        // A full device invites no one but in an idle session's place: the peer is invited at a later announcement
        // once a place frees.
        var out: [NodeDirective] = []
        if !hasRoom {
            guard let released = makeRoom(for: peer, now: now) else { return [] }
            out = released
        }
        declinedAt[peer] = nil
        let first = roundTrip.timeout(initial: timing.initialRetransmitInterval, floor: timing.retransmitInterval,
                                      cap: timing.maximumRetransmitInterval, limit: DiscoveryTiming.retransmitLimit)
        invitations[peer] = Invitation(incarnation: incarnation, startedAt: now, nextSendAt: now, interval: first,
                                       queuedAt: now)
        guard inFlight < windowLimit else {
            counters.heldForWindow += 1
            waiting.append(peer)
            return out
        }
        return out + admit(peer, now: now)
    }

    /// Gives an invitation its place in the window, and only then its pending session in the table: waiting
    /// invitations hold no session, so however many peers a node hears of (a thousand ids announced by one member of
    /// the group, say), pending invitations hold at most the window, and the window at most half the table.
    mutating func admit(_ peer: PeerID, now: Double) -> [NodeDirective] {
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
    mutating func abandonInvitation(_ peer: PeerID, detail: String) -> [NodeDirective] {
        endInvitation(peer)
        guard let entry = table.remove(peer: peer) else { return [] }
        return [.event(.session(entry.peer, .invalidated(SessionError(.invitationTimedOut, peer: peer, detail: detail))))]
    }

    /// Ends the invitation to `peer`, if any, freeing its place in the window.
    @discardableResult
    mutating func endInvitation(_ peer: PeerID) -> Invitation? {
        guard let invitation = invitations.removeValue(forKey: peer) else { return nil }
        if invitation.inWindow { inFlight -= 1 }
        return invitation
    }

    /// Sends the waiting invitations that the window now has places for, oldest first.
    mutating func admitWaiting(now: Double) -> [NodeDirective] {
        var out: [NodeDirective] = []
        while inFlight < windowLimit, let peer = waiting.popFirst() {
            // Ended while it waited (answered by a new life, the peer lost): nothing to send.
            guard let invitation = invitations[peer], !invitation.inWindow else { continue }
            guard hasRoom else {
                // Full: the waiting invitations are dropped (each is begun again at a later announcement once a
                // place frees) rather than each failing in turn.
                endInvitation(peer)
                while let next = waiting.popFirst() {
                    if invitations[next].map({ !$0.inWindow }) ?? false { endInvitation(next) }
                }
                break
            }
            out += admit(peer, now: now)
        }
        return out
    }

    /// Sends the invitation to `peer` if the budget allows, and queues its next step: the next send after a wait
    /// that doubles each time (with jitter), or the wait for the budget, or the timeout.
    mutating func sendInvitation(to peer: PeerID, now: Double) -> [NodeDirective] {
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

    /// Takes a peer out of what the node keeps counted by peer (the regulars and the id at each address), as it
    /// leaves the table or comes back in a new life: every way out goes through here, so the counts cannot drift.
    mutating func unlist(_ peer: PeerID, _ known: KnownPeer) {
        if known.isRegular { regulars -= 1 }
        let address = AddressBook.place(known.endpoint)
        if atEndpoint[address] == peer { atEndpoint[address] = nil }
    }

    mutating func lose(_ peer: PeerID, reason: SessionRemovalReason, now: Double) -> [NodeDirective] {
        if let known = peers.removeValue(forKey: peer) {
            rememberDeparture(of: peer, known, ended: reason == .peerEnded, now: now)
            unlist(peer, known)
        }
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

    mutating func send(_ message: WireMessage, to destination: Destination, sealed: Bool = true) -> NodeDirective {
        counters.sent[message.type, default: 0] += 1
        // Signing and sealing were most of a crowd's start: a signature and two HMAC-SHA256s for every invitation
        // and answer, read by no receiver in the room.
        var sealed = sealed
        if unicastGoesUnsealed, case .unicast = destination { sealed = false }
        // A goodbye is stamped one past the last announcement: receivers take it only as newer than all of them.
        let stamp = message.type == .goodbye ? sequence &+ 1 : sequence
        let bytes = WireFormat.encode(message, key: configuration.groupKey, signer: configuration.identity,
                                      sequence: stamp, sealed: sealed)
        // Kept for a driver to take; a node driven without one (a test's) keeps only the latest.
        if made.count >= Self.madeKept { made.removeFirst(made.count / 2) }
        made.append((bytes, message, sealed))
        return .send(bytes, to: destination)
    }

    mutating func refuse(_ reason: WireRefusal) -> [NodeDirective] {
        counters.refused[reason, default: 0] += 1
        return []
    }
}
