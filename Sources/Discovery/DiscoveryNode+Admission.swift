import Sessions

/// Who a node sends to unprompted, and who gives way when its table is full: what a member making up ids cannot buy.
///
/// A member of the group can make ids at will (a key pair each) and name any port of its own host in them. Two
/// rules keep that from turning the group against anyone:
///
/// - **Nothing unprompted to an address that has not shown it receives there.** A peer is *validated* once a
///   unicast datagram it signed came from the address it names. Before that, a node contacts it (an invitation or
///   a solicit) only when it found the peer while joining (it was there first: a newcomer contacts the group, the
///   group does not answer every new id) and has heard it announce twice, or once within a budget
///   (``firstContactsPerSecond``); or as a *probe*: after a group's worth of its announcements (at least
///   ``announcementsPerProbe``), a few a second, its invitation sent at most ``DiscoveryNode/sendsBeforeGivingWay``
///   times before a hold-off. Every probe is paid for by more announcements of the peer than the group has members,
///   so the group sends less than one datagram per datagram a member sends, however many ids it makes.
/// - **A full table gives way only to the idle.** A session with a peer not heard announcing twice (a fresh id)
///   gives its place to a newcomer that has been, and one with a peer silent for two of its periods to anyone; one
///   that announces steadily does not, and fresh ids do not push each other out. A fake keeps a place only by
///   announcing, from a socket of its own (``DiscoveryNode/discover`` keeps one id an address), every period.
extension DiscoveryNode {
    /// The fewest announcements of a peer between two probes (``mayContact(_:now:)``), times the most sends of an
    /// unvalidated invitation (``DiscoveryNode/sendsBeforeGivingWay``), in a group this size or smaller.
    static let announcementsPerProbe = 8
    /// Probes a node sends a second at most, to all unvalidated peers together.
    static let probesPerSecond = 4.0
    /// Peers found while joining that a node contacts (invites or solicits) when it has heard them once: a group of
    /// 1,024 at once (a crowd starting together: 1,000 nodes converged in 12 s with half that, in 1.5 s with it),
    /// then 64 a second. Past that, a peer is contacted when heard again, which a member's fresh ids, each announced
    /// once, never are; and a peer heard again goes ahead of the invitations waiting that were not.
    static let firstContactsPerSecond = 64.0
    static let firstContactBurst = 1024.0

    /// What allows this node to send a peer an invitation or a solicit it did not ask for.
    enum Contact {
        /// The peer showed its address, or was found while joining and has announced twice: nothing to spend.
        case free
        /// One of ``firstContactBurst`` contacts with peers found while joining and heard once.
        case first
        /// A probe of an unvalidated peer, earned by its announcements.
        case probe
    }

    /// What would allow this node to contact the peer at `index` unprompted now, spending nothing yet
    /// (``spend(_:on:now:)``); `nil` if nothing does.
    func contact(_ index: Int, now: Double) -> Contact? {
        let known = peers[at: index]
        if known.validated { return .free }
        if known.foundWhileJoining {
            return known.isRegular ? .free : firstContacts.allows(now: now) ? .first : nil
        }
        // A probe answers for up to `sendsBeforeGivingWay` invitations: earned by that many announcements per
        // member, each heard by every member.
        let members = max(Self.announcementsPerProbe, table.count + 1)
        let earned = UInt32(clamping: members * Self.sendsBeforeGivingWay)
        return known.announcementsSinceProbe >= earned && probeBudget.allows(now: now) ? .probe : nil
    }

    /// Spends what ``contact(_:now:)`` found, as the contact is made.
    mutating func spend(_ contact: Contact, on index: Int, now: Double) {
        switch contact {
        case .free: break
        case .first: _ = firstContacts.take(now: now)
        case .probe:
            _ = probeBudget.take(now: now)
            peers[at: index].announcementsSinceProbe = 0
            peers[at: index].probed = true
            counters.probes += 1
        }
    }

    /// Whether this node may send the peer at `index` an invitation or a solicit it did not ask for, spending what
    /// allows it.
    mutating func mayContact(_ index: Int, now: Double) -> Bool {
        guard let contact = contact(index, now: now) else { return false }
        spend(contact, on: index, now: now)
        return true
    }

    /// Whether `known` has shown it is there: heard announcing twice (a start burst does so within 0.15 s; a fresh
    /// id is heard once), and not silent for two of its periods since.
    func isPresent(_ known: KnownPeer, now: Double) -> Bool {
        known.isRegular && !isSilent(known, now: now)
    }

    /// Whether `known` has been silent for two of its periods.
    func isSilent(_ known: KnownPeer, now: Double) -> Bool {
        now >= silentAt(known)
    }

    /// When `known`, not heard again, will have been silent for two of its periods: the period it claimed, or this
    /// node's own if longer. A peer's period grows with the group it knows, as this node's does, and a claim heard
    /// in its start burst is of the few peers it knew then: judged by its claim alone, a peer of 1,000 heard last at
    /// 0.3 s claiming 2.9 s, next due at about 10 s, was silent at 7.3 s to every node at once, which all gave its
    /// session away (8,813 sessions of 1,000 nodes' 100,000 in 30 s, 13,056 in a 60-s run of 1,000 peers).
    func silentAt(_ known: KnownPeer) -> Double {
        known.lastHeard + 2 * max(known.announceInterval, announceInterval.seconds) * (1 + timing.announceJitter)
    }

    /// Notes a session with `peer` made while the peer had not shown it is there: the first to give way.
    mutating func noteNewSession(with peer: PeerID, now: Double) {
        guard let known = peers[peer], !isPresent(known, now: now) else { return }
        if known.foundWhileJoining {
            unprovenJoining.append((peer, now))
        } else {
            unproven.append(peer)
        }
        unprovenQuietFront = nil
        let bound = 2 * max(table.capacity, 64)
        let (peers, table) = (self.peers, self.table)
        let mayGiveWay = { (peer: PeerID) in Self.mayGiveWay(peer, peers: peers, table: table) }
        if unproven.count > bound { unproven = .init(unproven.filter { mayGiveWay($0) }) }
        if unprovenJoining.count > bound { unprovenJoining = .init(unprovenJoining.filter { mayGiveWay($0.peer) }) }
    }

    /// Whether the session with `peer` is still one that may give way: running, with a peer not heard announcing
    /// twice.
    ///
    /// Static, given what it reads, so that no call can copy the node, as
    /// ``cannotKnowUs(peerAnnouncing:now:lastAnnouncedAt:timing:)`` is.
    @inline(__always)
    static func mayGiveWay(_ peer: PeerID, peers: KnownPeers, table: PeerSessionTableState) -> Bool {
        guard let known = peers[peer], !known.isRegular else { return false }
        return table.session(with: peer)?.remoteToken != nil
    }

    /// How long a session with a peer found while this node joined, not yet heard announcing twice, is kept before
    /// it may give way: one of this node's own periods, in which a real peer, announcing at the group's period, is
    /// heard again. Without it, a crowd starting together churned: a node that joined after a peer's start burst knew
    /// it only by its invitation until its next announcement (10 s in a group of 1,000), and gave its session to the
    /// next peer (51,456 sessions of 1,000 nodes' 100,000 released in 5 s, twice the invitations).
    var unprovenGrace: Double {
        announceInterval.seconds * (1 + timing.announceJitter)
    }

    /// The oldest session that may give way to a newcomer that has shown it is there now (``makeRoom(for:now:)``),
    /// taken out of its queue; `nil` if none may. Entries that no longer count are dropped as they come to the front:
    /// each queue is in the order its sessions were made, so a young front means a young queue.
    mutating func takeUnproven(sparing newcomer: PeerID, now: Double) -> PeerID? {
        let (peers, table) = (self.peers, self.table)
        let mayGiveWay = { (peer: PeerID) in Self.mayGiveWay(peer, peers: peers, table: table) }
        while let peer = unproven.first {
            unproven.removeFirst()
            if peer != newcomer, mayGiveWay(peer) { return peer }
        }
        let grace = unprovenGrace
        while let (peer, since) = unprovenJoining.first {
            guard peer != newcomer, mayGiveWay(peer) else {
                unprovenJoining.removeFirst()
                continue
            }
            guard now - since >= grace else { return nil }
            unprovenJoining.removeFirst()
            return peer
        }
        return nil
    }

    /// Whether ``takeUnproven(sparing:now:)`` would find a session, dropping the entries that no longer count: a full
    /// table solicits only then (the invitation that answers would otherwise be declined).
    mutating func hasUnprovenToGiveWay(now: Double) -> Bool {
        // What the answer is without a look-up, before the tables are taken (a retain and release of each of their
        // arrays, for every announcement of a peer without a session that a full table hears).
        if let since = unprovenQuietFront, now - since < unprovenGrace { return false }
        if unproven.isEmpty {
            guard let (_, since) = unprovenJoining.first else {
                unprovenQuietFront = .infinity
                return false
            }
            if now - since < unprovenGrace {
                unprovenQuietFront = since
                return false
            }
        }
        let (peers, table) = (self.peers, self.table)
        let mayGiveWay = { (peer: PeerID) in Self.mayGiveWay(peer, peers: peers, table: table) }
        while let peer = unproven.first, !mayGiveWay(peer) { unproven.removeFirst() }
        if !unproven.isEmpty { return true }
        // The queue is in the order its sessions were made: a young front, whether it still counts or not, means
        // none may give way yet, which is known without a look-up.
        let grace = unprovenGrace
        if let (_, since) = unprovenJoining.first, now - since < grace { return false }
        while let (peer, _) = unprovenJoining.first, !mayGiveWay(peer) { unprovenJoining.removeFirst() }
        // Not `unprovenJoining.first.map { now - $0.since >= unprovenGrace }`: the closure, reading the node's own
        // property, copied the whole node at each announcement a full table heard (288,834 copies, 0.38 G
        // instructions in the first 5 s of 1,000 peers).
        guard let (_, since) = unprovenJoining.first else { return false }
        return now - since >= grace
    }

    /// Ends a running session with a peer that has not shown it is there, or has fallen silent, so that `newcomer`
    /// can have its place: for a newcomer that has shown it is there, the oldest session made with a peer that has
    /// not; failing that (or for a newcomer that has not shown it either: fresh ids do not push each other out), the
    /// peer silent longest past two of its periods.
    ///
    /// - Returns: what ending it tells the app, or `nil` when every session is with a peer that is there.
    mutating func makeRoom(for newcomer: PeerID, now: Double) -> [NodeDirective]? {
        var chosen: PeerID?
        // Not `peers[newcomer].map { isPresent($0, now: now) }`: the closure copied the whole node, every table's
        // reference retained and released, at each announcement a full table heard (602,433 copies in the first 5 s
        // of 1,000 peers).
        if let known = peers[newcomer], isPresent(known, now: now) {
            chosen = takeUnproven(sparing: newcomer, now: now)
        }
        if chosen == nil, now >= noneSilentBefore {
            var silentSince = Double.infinity
            // A session made after this search has its peer heard as it is made, so is silent no sooner than two of
            // this node's periods from now: a search at least that often (and once a second) finds every silence. At
            // 1,000 peers, tables of 100 searched every second were 12 million look-ups a minute.
            var firstSilence = now + max(1, 2 * announceInterval.seconds * (1 + timing.announceJitter))
            for peer in table.unorderedPeers where peer != newcomer {
                sessionsSearched += 1
                guard let known = peers[peer], table.session(with: peer)?.remoteToken != nil else { continue }
                guard isSilent(known, now: now) else {
                    firstSilence = min(firstSilence, silentAt(known))
                    continue
                }
                if known.lastHeard < silentSince {
                    chosen = peer
                    silentSince = known.lastHeard
                }
            }
            // Hearing a peer only puts its silence off.
            if chosen == nil { noneSilentBefore = firstSilence }
        }
        guard let peer = chosen, table.remove(peer: peer) != nil else { return nil }
        counters.idleReleased += 1
        let error = SessionError(.sessionFailed, peer: peer,
                                 detail: "its place was given to a newcomer: the peer had not been heard announcing")
        return [.event(.session(peer, .invalidated(error)))]
    }
}
