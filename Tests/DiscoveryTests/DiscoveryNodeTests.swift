import Discovery
import GSL
import Sessions
import Testing
import Transport

/// The node as a pure state machine: datagrams in, directives out, with no network at all.
@Suite struct DiscoveryNodeTests {
    let low = PeerID(1)
    let high = PeerID(2)
    let here = Endpoint(host: "10.0.0.1", port: 5000)
    let there = Endpoint(host: "10.0.0.2", port: 5000)

    private func node(_ peer: PeerID, incarnation: Incarnation = 1, service: String = "nearcatch") throws -> DiscoveryNode {
        let c = DiscoveryNode.Configuration(serviceType: service, peer: peer, incarnation: incarnation,
                                            displayName: "node \(peer.rawValue)")
        return try DiscoveryNode(configuration: c, unicastPort: 5000,
                                 tokens: SeededTokenSource(random: RandomSource(seed: peer.rawValue)),
                                 random: RandomSource(seed: 99))
    }

    /// An announcement; the default sequence is past the start burst (a peer that has been running a while).
    private func announce(
        _ peer: PeerID, incarnation: Incarnation = 1, service: String = "nearcatch", sequence: UInt32 = 9
    ) throws -> [UInt8] {
        let ad = try Advertisement(serviceType: service, peer: peer, incarnation: incarnation, displayName: "x",
                                   unicastPort: 5000)
        return WireFormat.encode(.announce(ad, sequence: sequence))
    }

    private func datagram(_ bytes: [UInt8], from source: Endpoint) -> IncomingDatagram {
        IncomingDatagram(bytes: bytes, source: source, viaGroup: false)
    }

    private func sent(_ directives: [NodeDirective]) -> [(WireMessage, Destination)] {
        directives.compactMap {
            guard case .send(let bytes, let destination) = $0, let m = try? WireFormat.decode(bytes) else { return nil }
            return (m, destination)
        }
    }

    @Test func startAnnouncesInABurst() throws {
        var a = try node(low)
        let first = sent(a.start(now: 0))
        #expect(first.count == 1)
        #expect(first.first?.1 == .group)
        #expect(a.nextDeadline == 0.15)
        _ = a.tick(now: 0.15)
        _ = a.tick(now: 0.30)
        #expect(a.counters.sent[.announce] == 3)
        let after = try #require(a.nextDeadline)
        #expect(after >= 0.30 + 0.8 && after <= 0.30 + 1.2)
    }

    @Test func invitationWaitsForOwnAnnouncementWhenThePeerStartedAfterIt() throws {
        var a = try node(low)
        _ = a.start(now: 0)
        // B's first announcement at 0.1: B started after A's only announcement, so B cannot know A yet.
        let found = a.receive(datagram(try announce(high, sequence: 1), from: there), now: 0.1)
        #expect(sent(found).isEmpty)
        #expect(a.table.session(with: high)?.state == .inviting)
        #expect(a.nextDeadline == 0.15)
        let announced = sent(a.tick(now: 0.15))
        #expect(announced.count == 1 && announced.first?.1 == .group)
        #expect(abs(try #require(a.nextDeadline) - 0.17) < 1e-9)
        let invited = sent(a.tick(now: 0.17))
        #expect(invited.count == 1)
        guard case .invite? = invited.first?.0 else { Issue.record("no invitation: \(invited)"); return }
    }

    @Test func invitationFromAnUndiscoveredPeerIsAnsweredOnDiscovery() throws {
        var a = try node(low)
        var b = try node(high)
        _ = a.start(now: 0)
        _ = b.start(now: 0)
        let invite = try #require(sent(a.receive(datagram(try announce(high), from: there), now: 0.1)).first)
        let early = b.receive(datagram(WireFormat.encode(invite.0), from: here), now: 0.11)
        #expect(early.isEmpty)
        #expect(b.counters.awaitingDiscovery == 1)
        // The same invitation again while it waits: still one kept, nothing sent.
        #expect(b.receive(datagram(WireFormat.encode(invite.0), from: here), now: 0.12).isEmpty)
        let discovered = b.receive(datagram(try announce(low), from: here), now: 0.3)
        let answers = sent(discovered)
        #expect(answers.count == 1)
        guard case .accept? = answers.first?.0 else { Issue.record("no accept: \(answers)"); return }
        #expect(discovered.contains { if case .event(.session(low, .began)) = $0 { true } else { false } })
        _ = a.receive(datagram(WireFormat.encode(answers[0].0), from: there), now: 0.31)
        #expect(a.table.establishedCount == 1 && b.table.establishedCount == 1)
        #expect(a.counters.retransmissions == 0)
    }

    @Test func unansweredInvitationBacksOffWithJitterAndKeepsToItsCap() throws {
        var a = try node(low)
        _ = a.start(now: 0)
        var sends: [Double] = []
        sends += sent(a.receive(datagram(try announce(high), from: there), now: 0.1)).map { _ in 0.1 }
        var now = 0.1
        // B keeps announcing (it is alive) but never answers.
        var nextAnnouncement = 1.0
        while now < 20 {
            now = min(try #require(a.nextDeadline), nextAnnouncement)
            var out = a.tick(now: now)
            if now == nextAnnouncement {
                out += a.receive(datagram(try announce(high), from: there), now: now)
                nextAnnouncement += 1
            }
            sends += sent(out).filter { if case .invite = $0.0 { true } else { false } }.map { _ in now }
        }
        let gaps = zip(sends.dropFirst(), sends).map { $0 - $1 }
        // No round trip measured: the first wait is 1 s, the doubling is capped at 1 s, each within +-25%; nothing
        // sends sooner, and the jitter spreads the sends.
        #expect(gaps.count >= 14 && gaps.count <= 26)
        #expect(gaps.allSatisfy { $0 >= 0.75 - 1e-9 && $0 <= 1.25 + 1e-9 })
        #expect(Set(gaps.map { ($0 * 1000).rounded() }).count > gaps.count / 2)
        #expect(a.counters.retransmissions == sends.count - 1)
    }

    @Test func sendBudgetSpacesInvitationsBeyondABurst() throws {
        var c = DiscoveryNode.Configuration(serviceType: "nearcatch", peer: PeerID(1), incarnation: 1, displayName: "a")
        c.timing.sendBudget = 10
        var a = try DiscoveryNode(configuration: c, unicastPort: 5000,
                                  tokens: SeededTokenSource(random: RandomSource(seed: 1)), random: RandomSource(seed: 2))
        _ = a.start(now: 0)
        var times: [Double] = []
        for i in 0..<30 {
            let peer = PeerID(UInt64(100 + i))
            let host = Endpoint(host: "10.0.1.\(i)", port: 5000)
            times += sent(a.receive(datagram(try announce(peer), from: host), now: 0.5)).map { _ in 0.5 }
        }
        #expect(times.count == 10)
        var invited = Set<PeerID>()
        var now = 0.5
        while now < 4 {
            now = try #require(a.nextDeadline)
            for (message, _) in sent(a.tick(now: now)) {
                guard case .invite(let address, _) = message else { continue }
                times.append(now)
                invited.insert(address.to)
            }
        }
        // Ten at once (one second's worth), then one every 0.1 s, retransmissions included: never more than the
        // bucket allows (ten, plus ten a second), and every peer invited in the end.
        #expect(invited.count == 30)
        #expect(a.counters.deferredByBudget >= 20)
        for t in times { #expect(Double(times.filter { $0 <= t + 1e-9 }.count) <= 10 + 10 * (t - 0.5) + 1e-6) }
        #expect(zip(times.dropFirst(10).dropFirst(), times.dropFirst(10)).allSatisfy { $0 - $1 >= 0.1 - 1e-6 })
    }

    @Test func unchangedAnnouncementsSkipTheDecoder() throws {
        var a = try node(low)
        _ = a.start(now: 0)
        _ = a.receive(datagram(try announce(high, sequence: 9), from: there), now: 0.1)
        for k in 10..<20 {
            #expect(a.receive(datagram(try announce(high, sequence: UInt32(k)), from: there), now: Double(k) / 10)
                .isEmpty)
        }
        #expect(a.counters.unchangedAnnouncements == 10)
        #expect(a.peers[high]?.lastHeard == 1.9)
        // Another display name within the same life is decoded in full (and not taken as new).
        let other = try Advertisement(serviceType: "nearcatch", peer: high, incarnation: 1, displayName: "y",
                                      unicastPort: 5000)
        _ = a.receive(datagram(WireFormat.encode(.announce(other, sequence: 30)), from: there), now: 2.0)
        #expect(a.counters.unchangedAnnouncements == 10)
        #expect(a.peers[high]?.lastHeard == 2.0)
    }

    @Test func lowerIdInvitesOnDiscoveryAndHigherIdWaits() throws {
        var a = try node(low)
        var b = try node(high)
        _ = a.start(now: 0)
        _ = b.start(now: 0)
        let fromA = a.receive(datagram(try announce(high), from: there), now: 0.1)
        #expect(fromA.contains(.event(.found(try Advertisement(serviceType: "nearcatch", peer: high, incarnation: 1,
                                                              displayName: "x", unicastPort: 5000)))))
        let invite = try #require(sent(fromA).first)
        guard case .invite(let address, let token) = invite.0 else { Issue.record("\(invite.0)"); return }
        #expect(invite.1 == .unicast(there))
        #expect(address.from == low && address.to == high)
        #expect(a.table.session(with: high)?.state == .inviting)

        let fromB = b.receive(datagram(try announce(low), from: here), now: 0.1)
        #expect(sent(fromB).isEmpty)
        let answer = b.receive(datagram(WireFormat.encode(invite.0), from: here), now: 0.2)
        #expect(answer.contains(.event(.session(low, .began(remoteToken: token)))))
        let accept = try #require(sent(answer).first)
        let done = a.receive(datagram(WireFormat.encode(accept.0), from: there), now: 0.3)
        #expect(a.table.session(with: high)?.state == .running)
        #expect(done.count == 1)
        #expect(a.table.session(with: high)?.remoteToken == b.table.session(with: low)?.localToken)
        #expect(b.table.session(with: low)?.remoteToken == a.table.session(with: high)?.localToken)
    }

    @Test func refusalsAreCountedByReason() throws {
        var a = try node(low, incarnation: 5)
        _ = a.start(now: 0)
        _ = a.receive(datagram([1, 2, 3, 4, 5, 6, 7, 8], from: there), now: 0)
        _ = a.receive(datagram(try announce(low, incarnation: 5), from: here), now: 0)
        _ = a.receive(datagram(try announce(high, service: "other"), from: there), now: 0)
        _ = a.receive(datagram(try announce(high, incarnation: 3), from: there), now: 0.1)
        _ = a.receive(datagram(try announce(high, incarnation: 2), from: there), now: 0.2)
        let toSomeoneElse = SessionAddress(from: PeerID(0), fromIncarnation: 1, to: PeerID(9), toIncarnation: 1)
        _ = a.receive(datagram(WireFormat.encode(.invite(toSomeoneElse, token: DiscoveryToken(high: 1, low: 1))),
                               from: there), now: 0.3)
        let wrongEcho = SessionAddress(from: high, fromIncarnation: 3, to: low, toIncarnation: 5)
        _ = a.receive(datagram(WireFormat.encode(.accept(wrongEcho, token: DiscoveryToken(high: 2, low: 2),
                                                         echo: DiscoveryToken(high: 3, low: 3))), from: there), now: 0.4)
        #expect(a.counters.refused == [.badMagic: 1, .staleIncarnation: 1, .misaddressed: 1, .tokenMismatch: 1])
        #expect(a.counters.ownIgnored == 1)
        #expect(a.counters.otherServiceIgnored == 1)
        #expect(a.counters.received == 7)
        #expect(a.table.session(with: high)?.state == .inviting)
    }

    @Test func unansweredInvitationIsSentAgainThenTimesOutThenTriedAfresh() throws {
        var a = try node(low)
        _ = a.start(now: 0)
        _ = a.receive(datagram(try announce(high), from: there), now: 0)
        let firstToken = try #require(a.table.session(with: high)).localToken
        var invites = 1
        var t = 0.0
        var invalidated: SessionError?
        while t < 31, invalidated == nil {
            t += 0.05
            for directive in a.tick(now: t) {
                if case .send(let bytes, .unicast) = directive, case .invite? = try? WireFormat.decode(bytes) {
                    invites += 1
                }
                if case .event(.session(_, .invalidated(let error))) = directive { invalidated = error }
            }
            // Keep the peer alive: it announces every second but never answers.
            if invalidated == nil, t.truncatingRemainder(dividingBy: 1) < 0.05 {
                _ = a.receive(datagram(try announce(high), from: there), now: t)
            }
        }
        #expect(invalidated?.code == .invitationTimedOut)
        #expect(abs(t - 30) < 0.06)
        // 0.25, 0.5 and then every second: about 31 invitations in 30 s.
        #expect(invites >= 29 && invites <= 32)
        #expect(a.counters.retransmissions == invites - 1)
        #expect(a.table.session(with: high) == nil)
        // The peer is alive (it announces): its next announcement starts a fresh invitation with a new token.
        let again = sent(a.receive(datagram(try announce(high), from: there), now: t + 0.5))
        guard case .invite(_, let token)? = again.first?.0 else { Issue.record("no new invitation"); return }
        #expect(token != firstToken)
        #expect(a.table.session(with: high)?.localToken == token)
    }

    @Test func badTimingIsRefusedByName() throws {
        var c = DiscoveryNode.Configuration(serviceType: "nearcatch", peer: low, incarnation: 1, displayName: "x")
        c.timing.announceInterval = 0
        do {
            _ = try DiscoveryNode(configuration: c, unicastPort: 1, tokens: SystemTokenSource(),
                                  random: RandomSource(seed: 1))
            Issue.record("an announce interval of 0 was accepted")
        } catch {
            #expect("\(error)" == "discovery timing: announceInterval must be between 0.01 and 60 s")
        }
    }
}
