import GSL
import DequeModule
import HeapModule
import Sessions
import TransportCore

/// Receiving: every datagram checked, refused or handled by its kind; announcements and solicits, who is heard
/// and who is lost.
extension DiscoveryNode {
    /// Handles one datagram from `source`.
    package mutating func receive(_ datagram: IncomingDatagram, now: Double) -> [NodeDirective] {
        defer { refreshDeadline() }
        guard running else { return [] }
        let out = handle(datagram, now: now)
        return inFlight < windowLimit && !waiting.isEmpty ? out + admitWaiting(now: now) : out
    }

    mutating func handle(_ datagram: IncomingDatagram, now: Double) -> [NodeDirective] {
        counters.received += 1
        // What is not a datagram of this format is refused for what it is; what is, but lacks the group's tag, is
        // refused before anything in it is believed.
        do {
            try WireFormat.checkFrame(datagram.bytes)
        } catch {
            counters.refused[error.kind, default: 0] += 1
            return []
        }
        let frame = Self.frame(of: datagram, key: configuration.groupKey)
        guard Self.authenticate(datagram, frame: frame, key: configuration.groupKey) else {
            return refuse(.unauthenticated)
        }
        if let peer = WireFormat.announcedPeer(in: datagram.bytes) {
            if peer == me, WireFormat.sameAnnouncement(datagram.bytes, ownAnnouncement) {
                counters.ownIgnored += 1
                reading.noteEcho(sequence: WireFormat.announcementSequence(in: datagram.bytes), now: now)
                return []
            }
            // Through the in-place accessor: a copy of the peer taken out and written back would cost a retain for
            // every string of its advertisement, on the path every datagram of a steady group takes.
            if let index = peers.index(forKey: peer) {
                let hearing = peers[at: index].hearUnchanged(
                    datagram.bytes, digest: Self.advertisementDigest(datagram, frame: frame), at: now,
                    removals: table.removals, longestInterval: timing.longestInterval
                ) { Self.isSigned(datagram, frame: frame, by: $0) }
                if hearing == .forged { return refuse(.forged) }
                if hearing == .replayed { return refuse(.replayed) }
                if hearing != .changed {
                    if peers[at: index].noteAnnouncement(at: now) { regulars += 1 }
                    counters.unchangedAnnouncements += 1
                    // A peer with a session, by far the most common case, needs nothing more (as in `heardAgain`).
                    if hearing == .sessionHeld { return [] }
                    let insertions = UInt32(truncatingIfNeeded: table.insertions)
                    if peers[at: index].sessionAbsentAt != insertions {
                        if table.hasSession(with: peer) {
                            peers[at: index].sessionSeenAt = UInt32(truncatingIfNeeded: table.removals)
                            return []
                        }
                        peers[at: index].sessionAbsentAt = insertions
                    }
                    return heardAgain(peer, at: index, sequence: WireFormat.senderSequence(in: datagram.bytes),
                                      now: now)
                }
            }
        }
        let message: WireMessage
        do {
            message = try Self.decode(datagram, frame: frame)
        } catch {
            counters.refused[error.kind, default: 0] += 1
            return []
        }
        // Signed by the peer it speaks for: the key it carries (an announcement, an invitation, a solicit, whose id
        // the decoder matched to it), or the key of the peer it names, as this node knows it.
        guard let signer = signingKey(of: message) else { return refuse(.unknownSender) }
        guard Self.isSigned(datagram, frame: frame, by: signer) else { return refuse(.forged) }
        if let (sender, incarnation) = message.sender, sender != me,
           !isFresh(sender, incarnation: incarnation, sequence: WireFormat.senderSequence(in: datagram.bytes),
                    message.type) {
            return refuse(.replayed)
        }
        if let ad = message.advertisement, ad.peer != me, datagram.source.port != ad.unicastPort {
            // Answering it would send to a port that did not send it: a member could aim the group at anyone.
            return refuse(.wrongSource)
        }
        if !datagram.viaGroup, message.type != .announce, message.type != .goodbye, let sender = message.sender?.peer,
           let index = peers.index(forKey: sender), peers[at: index].endpoint == datagram.source {
            // Its own datagram of the exchange, from where it says it is: it is there.
            peers[at: index].validated = true
            peers[at: index].probed = false
        }
        switch message {
        case .announce(let ad, let sequence, let interval):
            if ad.peer == me { reading.noteEcho(sequence: sequence, now: now) }
            return receiveAnnouncement(ad, sequence: sequence, interval: interval, bytes: datagram.bytes,
                                       from: datagram.source, now: now)
        case .goodbye(let peer, let incarnation):
            if peer == me {
                counters.ownIgnored += 1
                return []
            }
            guard let known = peers[peer] else { return [] }
            guard incarnation >= known.advertisement.incarnation else { return refuse(.staleIncarnation) }
            return lose(peer, reason: .peerEnded, now: now)
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

    /// The key `message` must be signed with: the one it carries, this node's own for what the group returns to it,
    /// or the known key of the peer it names; `nil` when it names a peer this node does not know.
    func signingKey(of message: WireMessage) -> SigningKey? {
        switch message {
        case .announce(let ad, _, _), .invite(_, _, let ad, _), .solicit(_, let ad, _):
            return ad.signingKey
        case .goodbye, .accept, .decline, .sessionData:
            guard let sender = message.sender?.peer else { return nil }
            if sender == me { return configuration.identity.publicKey }
            return peers[sender]?.advertisement.signingKey
        }
    }

    /// How far behind the latest sequence number heard from a peer one of its unicast datagrams may be: it may have
    /// been overtaken by a later announcement (one a second; 10 s apart in a group of 1,000), not by three.
    static let replayWindow: UInt32 = 2

    /// Whether a datagram from `sender` stamped `sequence` is new enough to believe, and takes its sequence if so.
    /// An announcement must be newer than every announcement taken from that life of the peer; a goodbye too (its
    /// sender stamps it one past its last announcement); anything else may trail the latest heard by the window.
    ///
    /// A departed life is over for this node: after its goodbye nothing of it is believed again, and a life lost to
    /// silence is heard again only by a newer announcement; nothing else of it (an invitation, a solicit, data)
    /// comes first. So no replay of what it sent brings it back, whatever its sequence number; a new life (a higher
    /// incarnation) is judged as any newcomer.
    mutating func isFresh(
        _ sender: PeerID, incarnation: Incarnation?, sequence: UInt32, _ type: WireType
    ) -> Bool {
        let strict = type == .announce || type == .goodbye
        if let index = peers.index(forKey: sender) {
            // Another life is judged by the incarnation rules, and starts its own count.
            guard incarnation == nil || peers[at: index].life().incarnation == incarnation else { return true }
            if strict { return peers[at: index].hearAnnouncementSequence(sequence) }
            return peers[at: index].hearSequence(sequence, window: Self.replayWindow)
        }
        guard let departed = departures.departure(of: sender), let incarnation else { return true }
        if incarnation < departed.incarnation { return false }
        guard incarnation == departed.incarnation else { return true }
        return !departed.ended && type == .announce && sequence > departed.announcedUpTo
    }

    /// Keeps what a lost peer sent last (``isFresh(_:incarnation:sequence:_:)``), and whether it said goodbye: apart
    /// from strangers when it held a running session with this node and had announced over a while
    /// (``DepartedLives``).
    mutating func rememberDeparture(of peer: PeerID, _ known: KnownPeer, ended: Bool, now: Double) {
        let shown = table.session(with: peer)?.remoteToken != nil
            && known.hasAnnounced(over: DepartedLives.shownOver)
        departures.remember(peer, .init(incarnation: known.advertisement.incarnation,
                                        announcedUpTo: known.announcedUpTo, ended: ended,
                                        shownAt: known.validated ? known.endpoint : nil),
                            wasShown: shown, now: now)
    }

    /// What the receivers of the datagram holding this key found in it, kept in its ``FrameMemo`` (read once per
    /// datagram: each reading is a cast): the group's tag checked once per frame when the network shares a memo
    /// among receivers holding the same key (the check is a function of the bytes and the key), created here by
    /// the first of them. `nil` without a memo, or where a frozen memo holds another key's findings: the receiver
    /// checks for itself.
    ///
    /// Static, as ``cannotKnowUs(peerAnnouncing:now:lastAnnouncedAt:timing:)`` is: a method called from a mutating
    /// one copied the node.
    static func frame(of datagram: IncomingDatagram, key: GroupKey) -> DecodedFrame? {
        guard let memo = datagram.memo else { return nil }
        if let known = memo.value as? DecodedFrame, known.key == key.fingerprint { return known }
        guard !memo.isFrozen else { return nil }
        let frame = DecodedFrame(key: key.fingerprint, authentic: WireFormat.isAuthentic(datagram.bytes, under: key))
        memo.value = frame
        return frame
    }

    /// Whether the datagram carries the group's tag, from its `frame` (``frame(of:key:)``) where it has one.
    static func authenticate(_ datagram: IncomingDatagram, frame: DecodedFrame?, key: GroupKey) -> Bool {
        frame?.authentic ?? WireFormat.isAuthentic(datagram.bytes, under: key)
    }

    /// Whether the datagram is signed by `key`; checked once per frame when the network shares a ``FrameMemo``
    /// (validity is a function of the bytes and the key): a group frame in a simulated room reaches every node,
    /// and even a look-up in the ``SignatureMemo`` (a SHA-256 of the datagram) per receiver was a tenth of a run.
    static func isSigned(_ datagram: IncomingDatagram, frame: DecodedFrame?, by key: SigningKey) -> Bool {
        guard let frame else { return WireFormat.isSigned(datagram.bytes, by: key) }
        if let known = frame.signedBy, Self.sameBytes(known, key.bytes) { return true }
        let valid = WireFormat.isSigned(datagram.bytes, by: key)
        if valid, datagram.memo?.isFrozen == false { frame.signedBy = key.bytes }
        return valid
    }

    /// The digest of the advertisement the datagram carries, taken once per frame when the network shares a
    /// ``FrameMemo``: a function of the bytes alone, asked by every receiver of every steady announcement.
    static func advertisementDigest(_ datagram: IncomingDatagram, frame: DecodedFrame?) -> UInt64 {
        guard let frame else { return WireFormat.advertisementDigest(datagram.bytes) }
        if let known = frame.digest {
            assert(known == WireFormat.advertisementDigest(datagram.bytes), "a frame's memo holds its own digest")
            return known
        }
        let digest = WireFormat.advertisementDigest(datagram.bytes)
        if datagram.memo?.isFrozen == false { frame.digest = digest }
        return digest
    }

    /// Whether two keys' bytes are the same, compared as memory: the generic `==` of two arrays of bytes compared
    /// them one by one, on every receiver of every steady announcement. Public keys: nothing to keep from timing.
    @inline(__always)
    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                var i = 0, difference: UInt64 = 0
                while i + 8 <= x.count {
                    difference |= x.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                        ^ y.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    i += 8
                }
                while i < x.count {
                    difference |= UInt64(x[i] ^ y[i])
                    i += 1
                }
                return difference == 0
            }
        }
    }

    /// The datagram's message, decoded once per frame when the network shares a ``FrameMemo``: decoding is a pure
    /// function of the bytes, so every receiver gets what it would have decoded itself.
    static func decode(_ datagram: IncomingDatagram, frame: DecodedFrame?) throws(WireError) -> WireMessage {
        guard let frame else { return try WireFormat.decode(datagram.bytes) }
        if let known = frame.result { return try known.get() }
        let result = Result { () throws(WireError) in try WireFormat.decode(datagram.bytes) }
        if datagram.memo?.isFrozen == false { frame.result = result }
        return try result.get()
    }

    /// What this node knows of a datagram it made (``send(_:to:)``), for its receivers in this process to read
    /// instead of checking it again: it carries the group's tag under this node's key and this node's signature.
    /// Both follow from the bytes, as everything in a ``FrameMemo`` must: a receiver holding another group key, or
    /// another key for this node, finds nothing here and checks for itself, and a datagram made anywhere else
    /// carries no memo. A unicast datagram was checked in full by its one receiver: two HMAC-SHA256s a datagram,
    /// for every invitation, acceptance, jolt and profile of a run.
    ///
    /// Bytes made not `sealed` (``sendData(to:kind:payload:sealed:)``) carry zeros where the tag and signature go:
    /// the memo holds what sealing them would have made, the tag and signature of the same bytes, and a receiver
    /// that cannot read it (another key) refuses them as it would have refused the sealed ones.
    package func memo(ofOwn bytes: [UInt8], message: WireMessage?, sealed: Bool = true) -> FrameMemo {
        Self.memo(ofOwn: bytes, message: message, sealed: sealed, configuration)
    }

    /// ``memo(ofOwn:message:sealed:)`` for the node configured by `c`: static, so that a driver holding the node
    /// reads its configuration alone (through the method, the whole node was copied for every datagram it sent).
    package static func memo(
        ofOwn bytes: [UInt8], message: WireMessage?, sealed: Bool = true, _ c: borrowing Configuration
    ) -> FrameMemo {
        let frame = DecodedFrame(key: c.groupKey.fingerprint, authentic: true)
        frame.signedBy = c.identity.publicKey.bytes
        if let message { frame.result = .success(message) }
        // Where the tests run (debug builds): every memo made is held to what checking and decoding the bytes find,
        // or, for bytes left unsealed, those of the same message sealed.
        assert(sealed ? carriesOwnSeal(bytes, message, c)
                      : message.map { sealingAgrees(bytes, $0, c) } ?? false,
               "a node's own datagram carries its group's tag, its signature and the message it was made from")
        return FrameMemo(frame)
    }

    private static func carriesOwnSeal(_ bytes: [UInt8], _ message: WireMessage?, _ c: Configuration) -> Bool {
        WireFormat.isAuthentic(bytes, under: c.groupKey) && WireFormat.isSigned(bytes, by: c.identity.publicKey)
            && (message == nil || (try? WireFormat.decode(bytes)) == message)
    }

    /// Whether `bytes` are `message` sealed by this node but for the signature and tag, left as zeros.
    private static func sealingAgrees(_ bytes: [UInt8], _ message: WireMessage, _ c: Configuration) -> Bool {
        let sealed = WireFormat.encode(message, key: c.groupKey, signer: c.identity,
                                       sequence: WireFormat.senderSequence(in: bytes))
        let open = bytes.count - WireFormat.signatureSize - GroupKey.tagSize
        return carriesOwnSeal(sealed, message, c) && sealed.count == bytes.count
            && sealed.prefix(open) == bytes.prefix(open) && bytes.suffix(from: open).allSatisfy { $0 == 0 }
    }

    /// The datagrams made since the last call, with their messages and whether they were sealed; forgets them.
    package mutating func takeMade() -> [Made] {
        // Most takings find none: an empty array costs nothing, and a list handed out is not also emptied in place
        // (which would allocate a new buffer).
        guard !made.isEmpty else { return [] }
        let taken = made
        made = []
        return taken
    }

    /// Copies of a group frame for receivers that take it on `count` threads at once
    /// (the in-memory network's frame copies): each with bytes of its own (the receivers keep references to them, whose
    /// counts two threads would otherwise fight over) and a frozen memo holding what every receiver holding `key`
    /// finds in it. Only an authentic announcement signed by the key it carries is spread: every receiver's checks of
    /// it then read the memo and write nothing. Anything else (`nil`) is handed out whole, receiver after receiver.
    package static func frameCopies(of datagram: IncomingDatagram, key: GroupKey, count: Int) -> [IncomingDatagram]? {
        guard count >= 1, WireFormat.announcedPeer(in: datagram.bytes) != nil,
              WireFormat.isAuthentic(datagram.bytes, under: key) else { return nil }
        let result = Result { () throws(WireError) in try WireFormat.decode(datagram.bytes) }
        guard case .success(.announce(let ad, _, _)) = result, WireFormat.isSigned(datagram.bytes, by: ad.signingKey)
        else { return nil }
        return (0..<count).map { k in
            let frame = DecodedFrame(key: key.fingerprint, authentic: true)
            frame.result = result
            frame.signedBy = ad.signingKey.bytes
            frame.digest = WireFormat.advertisementDigest(datagram.bytes)
            let bytes = k == 0 ? datagram.bytes : datagram.bytes.withUnsafeBufferPointer { [UInt8]($0) }
            return IncomingDatagram(bytes: bytes, source: datagram.source, viaGroup: datagram.viaGroup,
                                    memo: FrameMemo(frame, frozen: true))
        }
    }

    mutating func receiveAnnouncement(
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
                guard let index = peers.index(forKey: ad.peer) else { return [] }
                peers[at: index].lastHeard = now
                peers[at: index].announced = WireFormat.advertisementDigest(bytes)
                peers[at: index].announceInterval = min(interval.seconds, timing.longestInterval)
                if peers[at: index].noteAnnouncement(at: now) { regulars += 1 }
                return heardAgain(ad.peer, at: index, sequence: sequence, now: now)
            }
        }
        let out = discover(ad, interval: interval, announcement: bytes, sequence: sequence, from: source,
                           validated: false, now: now)
        guard let index = peers.index(forKey: ad.peer) else { return out }
        if !peers[at: index].foundWhileJoining { counters.leftToContactUs += 1 }
        return out + heardAgain(ad.peer, at: index, sequence: sequence, now: now)
    }

    /// Whether a peer just heard in its start burst (announcement `sequence`) began after this node last announced,
    /// and so cannot know this node yet.
    ///
    /// Static, given what it reads: a method of the node, called from a mutating one, copied the whole node.
    static func cannotKnowUs(
        peerAnnouncing sequence: UInt32, now: Double, lastAnnouncedAt: Double, timing: DiscoveryTiming
    ) -> Bool {
        guard sequence >= 1, sequence <= UInt32(max(timing.burstCount, 1)) else { return false }
        return lastAnnouncedAt < now - Double(sequence - 1) * timing.burstSpacing
    }

    mutating func solicit(_ peer: PeerID, incarnation: Incarnation, at endpoint: Endpoint) -> NodeDirective {
        let address = SessionAddress(from: me, fromIncarnation: configuration.incarnation, to: peer,
                                     toIncarnation: incarnation)
        return send(.solicit(address, advertisement: advertisement, interval: announceInterval), to: .unicast(endpoint))
    }

    /// A peer, or a new life of one, heard for the first time, by its announcement or by its invitation: a new life
    /// ends the old one's session; the peer is found.
    mutating func discover(
        _ ad: Advertisement, interval: AnnounceInterval, announcement: [UInt8], sequence: UInt32, from source: Endpoint,
        validated: Bool, now: Double
    ) -> [NodeDirective] {
        var out: [NodeDirective] = []
        // Most nodes have told their app of no invitation: an empty set's removal still hashes the id.
        if !toldInvited.isEmpty { toldInvited.remove(ad.peer) }
        let endpoint = source.with(port: ad.unicastPort)
        let address = AddressBook.place(endpoint)
        if let other = atEndpoint[address], other != ad.peer, peers[other] != nil {
            // One id at an address: a new one there is the same socket's new life (a restarted process), and a
            // member with one socket holds one place, however many ids it makes up.
            counters.replacedAtAddress += 1
            out += lose(other, reason: .timeout, now: now)
        }
        if let old = peers[ad.peer] { unlist(ad.peer, old) }
        atEndpoint[address] = ad.peer
        if peers[ad.peer] != nil {
            endInvitation(ad.peer)
            declinedAt[ad.peer] = nil
            if let old = table.remove(peer: ad.peer) {
                let error = SessionError(.peerReplaced, peer: ad.peer,
                                         detail: "incarnation \(ad.incarnation) replaced \(old.incarnation)")
                out.append(.event(.session(ad.peer, .invalidated(error))))
            }
        }
        // A peer that showed it receives at this address, in this life or the one before, still does.
        let shown = departures.departure(of: ad.peer)?.shownAt == endpoint
            || peers[ad.peer].map { $0.validated && $0.endpoint == endpoint } ?? false
        let claimed = min(interval.seconds, timing.longestInterval)
        let silenceCheckAt = now + timing.silence(after: claimed)
        departures.forget(ad.peer)
        var known = KnownPeer(
            announced: announcement.isEmpty ? 0 : WireFormat.advertisementDigest(announcement), lastHeard: now,
            announcedUpTo: announcement.isEmpty ? 0 : sequence,
            heardUpTo: sequence, announceInterval: claimed, silenceCheckAt: silenceCheckAt,
            advertisement: ad, host: endpoint.host, discoveredAt: now,
            foundWhileJoining: now - startedAt <= timing.silence(after: announceInterval.seconds),
            validated: validated || shown)
        if !announcement.isEmpty { known.noteAnnouncement(at: now) }
        peers[ad.peer] = known
        silenceQueue.insert(PeerDeadline(time: silenceCheckAt, peer: ad.peer))
        out.append(.event(.found(ad)))
        strangers.append((ad.peer, now))
        out += forgetStrangers(keeping: ad.peer)
        return out
    }

    /// Peers known without a session kept at most, beyond the session table's: a member announcing new ids (each
    /// claiming an hour between announcements, so a silence of five hours) would otherwise grow the node without
    /// bound. 4,096 strangers take about 4 MB; a flood of 1,500 new ids a second cycles them in under 3 s, and a real
    /// peer, which announces every second or more often, is heard again within its second chance.
    package static let strangersKept = 4096

    /// Forgets the peers found longest ago that hold no session, while more are known than the session table and
    /// ``strangersKept`` allow: each is lost (`timeout`) but not remembered as departed, so that a flood of ids does
    /// not push real departures out of that memory. A stranger heard since it was queued gets a second chance at the
    /// back of the queue (heard within the cycle, as a live peer is, it stays).
    mutating func forgetStrangers(keeping newest: PeerID) -> [NodeDirective] {
        var out: [NodeDirective] = []
        var chances = strangers.count
        while peers.count > configuration.maximumSessions + Self.strangersKept, chances > 0,
              let (peer, since) = strangers.popFirst() {
            chances -= 1
            guard peer != newest, let index = peers.index(forKey: peer), !table.hasSession(with: peer) else { continue }
            let (_, discoveredAt) = peers[at: index].life()
            guard discoveredAt <= since else { continue }
            if peers[at: index].lastHeard > since {
                strangers.append((peer, peers[at: index].lastHeard))
                continue
            }
            counters.strangersForgotten += 1
            unlist(peer, peers.remove(at: index).value)
            heldOff[peer] = nil
            endInvitation(peer)
            declinedAt[peer] = nil
            pendingSolicits[peer] = nil
            toldInvited.remove(peer)
            out.append(.event(.lost(peer, .timeout)))
        }
        // Entries of peers that left or got a session are dropped as they come to the front; past twice the
        // peers known, the queue is rebuilt from those still strangers.
        let bound = 2 * max(peers.count, Self.strangersKept)
        if strangers.count > bound {
            strangers = Deque(strangers.filter { entry in
                peers[entry.peer].map { $0.discoveredAt <= entry.since } ?? false && !table.hasSession(with: entry.peer)
            })
        }
        // The timer queues are lazy: a forgotten peer's entries wait for their time (five claimed hours, say).
        // Past the bound they are rebuilt from the entries still current.
        if silenceQueue.count > bound {
            silenceQueue = DeadlineQueue(silenceQueue.unordered.filter { peers[$0.peer]?.silenceCheckAt == $0.time })
        }
        if waiting.count > bound {
            waiting = Deque(waiting.filter { invitations[$0].map { !$0.inWindow } ?? false })
        }
        if exchangeQueue.count > bound {
            exchangeQueue = DeadlineQueue(exchangeQueue.unordered.filter {
                invitations[$0.peer]?.queuedAt == $0.time || pendingSolicits[$0.peer] == $0.time
            })
        }
        return out
    }

    /// An announcement (`sequence`) of a peer's life, the first or another (the caller has noted when it was
    /// heard): invite the peer if its invitation is due, or, as its responder without a session, ask to be invited;
    /// either only when this node may contact it (``mayContact(_:now:)``): found by its announcement alone, it is
    /// not contacted before it is heard again.
    mutating func heardAgain(
        _ peer: PeerID, at index: Int, sequence: UInt32, now: Double
    ) -> [NodeDirective] {
        let (incarnation, discoveredAt) = peers[at: index].life()
        guard consents(to: peer) else { return [] }
        if me.initiates(with: peer) {
            if peers[at: index].announcements == 2, let invitation = invitations[peer], !invitation.inWindow,
               let position = waiting.firstIndex(of: peer), position > 0 {
                // Heard announcing again, it is there, which the fresh ids ahead of it have not shown: it goes first.
                waiting.remove(at: position)
                waiting.prepend(peer)
            }
            // A full table with no place to give now looks no further: it hears every peer without a session
            // announce (2.2% of a 1,000-peer run's samples were look-ups that ``makeRoom`` then refused).
            if !hasRoom, now < noneSilentBefore, !hasUnprovenToGiveWay(now: now) { return [] }
            guard shouldInvite(peer, now: now), let contact = contact(index, now: now) else { return [] }
            // Room first: a probe spent on an invitation a full table then does not send would be lost.
            var out: [NodeDirective] = []
            if !hasRoom {
                guard let released = makeRoom(for: peer, now: now) else { return [] }
                out = released
            }
            spend(contact, on: index, now: now)
            return out + beginInvitation(to: peer, incarnation: incarnation, now: now)
        }
        // A full table still asks while it holds a session with a peer not heard announcing twice that may give way
        // now: the invitation that answers takes its place (``makeRoom``).
        guard hasRoom || hasUnprovenToGiveWay(now: now), !isHeldOff(peer, now: now), !table.hasSession(with: peer),
              pendingSolicits[peer] == nil
        else { return [] }
        if Self.cannotKnowUs(peerAnnouncing: sequence, now: now, lastAnnouncedAt: lastAnnouncedAt, timing: timing),
           nextAnnounceAt > now + timing.announceInterval, mayContact(index, now: now) {
            // Its invitation would wait for our next announcement, which a large group spaces out: introduce
            // ourselves now, or in our slot of the budget.
            holdOff(peer, now: now)
            let slot = budget.reserve(now: now)
            guard slot <= now else {
                counters.deferredByBudget += 1
                pendingSolicits[peer] = slot
                exchangeQueue.insert(PeerDeadline(time: slot, peer: peer))
                return []
            }
            return [solicit(peer, incarnation: incarnation, at: peers[at: index].endpoint)]
        }
        // A solicit that went unanswered holds the next off, longer each time (``holdOff(_:now:)``): an id that
        // announces and never invites costs a few solicits a minute, not one per announcement. A node behind on its
        // reading waits longer: the invitation may be in its own queue, or in the initiator's behind the
        // announcement that introduced this node.
        // The budget is asked before the contact: a probe taken for a solicit the budget then refused would be lost.
        guard now - discoveredAt >= timing.solicitAfter + 2 * reading.lag(now: now), budget.allows(now: now),
              mayContact(index, now: now), budget.take(now: now)
        else { return [] }
        holdOff(peer, now: now)
        return [solicit(peer, incarnation: incarnation, at: peers[at: index].endpoint)]
    }

    /// How soon a silence that has not been read through yet is looked at again.
    static let readBehindRecheck = 0.25

    /// Takes the transport's count of datagrams dropped at this node's full receive buffers, `total` since it
    /// opened; a count that grew marks `now` as a time this node lost datagrams of its own.
    package mutating func noteReceiveDrops(_ total: Int, now: Double) -> [NodeDirective] {
        reading.noteDrops(total: total, now: now)
        return []
    }

    /// This node's announce period for the group it knows now (``DiscoveryTiming/announceInterval(forGroupOf:)``).
    var announceInterval: AnnounceInterval {
        AnnounceInterval(seconds: timing.announceInterval(forGroupOf: regulars + 1))
    }
}
