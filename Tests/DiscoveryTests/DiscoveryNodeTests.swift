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

    private func announce(_ peer: PeerID, incarnation: Incarnation = 1, service: String = "nearcatch") throws -> [UInt8] {
        let ad = try Advertisement(serviceType: service, peer: peer, incarnation: incarnation, displayName: "x",
                                   unicastPort: 5000)
        return WireFormat.encode(.announce(ad, sequence: 1))
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
