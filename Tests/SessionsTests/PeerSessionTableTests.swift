import Sessions
import Synchronization
import Testing

/// The token-mapping suite: one session per peer, reverse lookups, replacement, removal, the cap, spoofed tokens,
/// and consistency under concurrent use.
@Suite struct PeerSessionTableTests {
    /// Distinct tokens 1, 2, 3, ... so that tests can name them.
    final class Tokens: Sendable {
        private let next = Mutex<UInt64>(1)
        func make() -> DiscoveryToken {
            next.withLock { n in
                defer { n += 1 }
                return DiscoveryToken(high: 0xA0, low: n)
            }
        }
    }

    let alice = PeerID(10)
    let bob = PeerID(20)
    let carol = PeerID(30)
    let tokens = Tokens()

    private func token(_ n: UInt64) -> DiscoveryToken { DiscoveryToken(high: 0xB0, low: n) }

    @Test func onePeerOneSession() throws {
        var table = PeerSessionTableState(capacity: 10)
        let first = try table.open(peer: alice, incarnation: 1, remoteToken: token(1), time: 0, makeToken: tokens.make)
        guard case .opened(let entry) = first else { Issue.record("expected opened, got \(first)"); return }
        #expect(entry.state == .running)
        let again = try table.open(peer: alice, incarnation: 1, remoteToken: token(1), time: 1, makeToken: tokens.make)
        #expect(again == .unchanged(entry))
        let pending = try table.open(peer: alice, incarnation: 1, remoteToken: nil, time: 2, makeToken: tokens.make)
        #expect(pending == .unchanged(entry))
        #expect(table.count == 1)
        #expect(table.invariantViolations().isEmpty)
    }

    @Test func reverseLookupsByEitherToken() throws {
        var table = PeerSessionTableState(capacity: 10)
        for (peer, n) in [(alice, UInt64(1)), (bob, 2), (carol, 3)] {
            _ = try table.open(peer: peer, incarnation: 1, remoteToken: token(n), time: 0, makeToken: tokens.make)
        }
        #expect(table.peer(forRemoteToken: token(2)) == bob)
        #expect(table.peer(forRemoteToken: token(4)) == nil)
        let carolsSession = try #require(table.session(with: carol))
        #expect(table.peer(forLocalToken: carolsSession.localToken) == carol)
        #expect(table.peers == [alice, bob, carol])
        let localTokens = Set(table.peers.compactMap { table.session(with: $0)?.localToken })
        #expect(localTokens.count == 3)
    }

    @Test func initiatorSessionCompletesWhenTheAnswerArrives() throws {
        var table = PeerSessionTableState(capacity: 10)
        let invited = try table.open(peer: bob, incarnation: 4, remoteToken: nil, time: 0, makeToken: tokens.make)
        guard case .opened(let pending) = invited else { Issue.record("\(invited)"); return }
        #expect(pending.state == .inviting && pending.remoteToken == nil)
        #expect(table.establishedCount == 0)
        let answered = try table.open(peer: bob, incarnation: 4, remoteToken: token(9), time: 1, makeToken: tokens.make)
        guard case .completed(let running) = answered else { Issue.record("\(answered)"); return }
        #expect(running.state == .running && running.localToken == pending.localToken)
        #expect(table.peer(forRemoteToken: token(9)) == bob)
        #expect(table.establishedCount == 1)
    }

    @Test func newIncarnationReplacesTheOldSession() throws {
        var table = PeerSessionTableState(capacity: 10)
        _ = try table.open(peer: alice, incarnation: 1, remoteToken: token(1), time: 0, makeToken: tokens.make)
        let old = try #require(table.session(with: alice))
        let outcome = try table.open(peer: alice, incarnation: 2, remoteToken: token(2), time: 5, makeToken: tokens.make)
        guard case .replaced(let replaced, let new) = outcome else { Issue.record("\(outcome)"); return }
        #expect(replaced == old)
        #expect(new.incarnation == 2 && new.localToken != old.localToken)
        #expect(table.count == 1)
        #expect(table.peer(forRemoteToken: token(1)) == nil)
        #expect(table.peer(forLocalToken: old.localToken) == nil)
        #expect(table.peer(forRemoteToken: token(2)) == alice)
        #expect(table.invariantViolations().isEmpty)
    }

    @Test func staleIncarnationAndForeignTokensAreRefused() throws {
        var table = PeerSessionTableState(capacity: 10)
        _ = try table.open(peer: alice, incarnation: 5, remoteToken: token(1), time: 0, makeToken: tokens.make)
        _ = try table.open(peer: bob, incarnation: 1, remoteToken: token(2), time: 0, makeToken: tokens.make)
        let before = table.session(with: alice)
        for (incarnation, remote, why) in [
            (Incarnation(4), token(7), "older"), (5, token(8), "is not the session's"),
        ] {
            do {
                _ = try table.open(peer: alice, incarnation: incarnation, remoteToken: remote, time: 1,
                                   makeToken: tokens.make)
                Issue.record("accepted \(remote)")
            } catch {
                #expect(error.code == .invalidConfiguration)
                #expect(error.detail.contains(why))
            }
        }
        // Carol cannot claim Bob's token.
        let claim = Result { () throws(SessionError) in
            try table.open(peer: carol, incarnation: 1, remoteToken: token(2), time: 1, makeToken: tokens.make)
        }
        #expect(throws: SessionError.self) { try claim.get() }
        #expect(table.session(with: alice) == before)
        #expect(table.count == 2)
    }

    @Test func spoofedTokenDoesNotMatch() throws {
        var table = PeerSessionTableState(capacity: 10)
        _ = try table.open(peer: alice, incarnation: 1, remoteToken: token(1), time: 0, makeToken: tokens.make)
        _ = try table.open(peer: bob, incarnation: 1, remoteToken: token(2), time: 0, makeToken: tokens.make)
        #expect(table.matches(peer: alice, remoteToken: token(1)))
        #expect(!table.matches(peer: alice, remoteToken: token(2)))
        #expect(!table.matches(peer: carol, remoteToken: token(1)))
    }

    @Test func removalFreesBothTokensAndRespectsNewerLives() throws {
        var table = PeerSessionTableState(capacity: 10)
        _ = try table.open(peer: alice, incarnation: 3, remoteToken: token(1), time: 0, makeToken: tokens.make)
        let local = try #require(table.session(with: alice)).localToken
        let lateGoodbye = table.remove(peer: alice, upTo: 2)
        #expect(lateGoodbye == nil)
        #expect(table.count == 1)
        let goodbye = table.remove(peer: alice, upTo: 3)
        #expect(goodbye?.peer == alice)
        #expect(table.count == 0)
        #expect(table.peer(forRemoteToken: token(1)) == nil && table.peer(forLocalToken: local) == nil)
        let again = table.remove(peer: alice)
        #expect(again == nil)
        #expect(table.invariantViolations().isEmpty)
    }

    @Test func capYieldsTheActiveSessionsLimitError() throws {
        var table = PeerSessionTableState(capacity: 2)
        _ = try table.open(peer: alice, incarnation: 1, remoteToken: token(1), time: 0, makeToken: tokens.make)
        _ = try table.open(peer: bob, incarnation: 1, remoteToken: token(2), time: 0, makeToken: tokens.make)
        do {
            _ = try table.open(peer: carol, incarnation: 1, remoteToken: token(3), time: 0, makeToken: tokens.make)
            Issue.record("a third session fitted under a cap of 2")
        } catch {
            #expect(error.code == .activeSessionsLimitExceeded)
            #expect(error.code.rawValue == 3)
            #expect(error.peer == carol)
        }
        // Replacing a held peer does not need room; removing one makes room.
        _ = try table.open(peer: bob, incarnation: 2, remoteToken: token(4), time: 1, makeToken: tokens.make)
        #expect(table.count == 2)
        table.remove(peer: alice)
        _ = try table.open(peer: carol, incarnation: 1, remoteToken: token(3), time: 2, makeToken: tokens.make)
        #expect(table.peers == [bob, carol])
    }

    @Test func suspendAndResume() throws {
        var table = PeerSessionTableState(capacity: 4)
        _ = try table.open(peer: alice, incarnation: 1, remoteToken: nil, time: 0, makeToken: tokens.make)
        let pendingSuspended = table.suspend(peer: alice)
        #expect(!pendingSuspended)
        _ = try table.open(peer: alice, incarnation: 1, remoteToken: token(1), time: 0, makeToken: tokens.make)
        let suspended = table.suspend(peer: alice)
        #expect(suspended)
        #expect(table.session(with: alice)?.state == .suspended)
        let twice = table.suspend(peer: alice)
        #expect(!twice)
        let resumed = table.resume(peer: alice)
        #expect(resumed)
        #expect(table.session(with: alice)?.state == .running)
    }

    /// 1,000 tasks open a session each, half of them remove it again, and 200 more race to open the same peer:
    /// the table ends with exactly the survivors, one session per peer, and every token mapped both ways.
    @Test func concurrentInsertsAndRemovalsStayConsistent() async throws {
        let table = PeerSessionTable(capacity: 5000)
        let tokens = self.tokens
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<1000 {
                group.addTask {
                    let peer = PeerID(UInt64(i))
                    _ = try? table.open(peer: peer, incarnation: 1,
                                        remoteToken: DiscoveryToken(high: 0xC0, low: UInt64(i)), time: 0,
                                        makeToken: tokens.make)
                    if i % 2 == 0 { table.remove(peer: peer) }
                }
            }
            for _ in 0..<200 {
                group.addTask {
                    _ = try? table.open(peer: PeerID(5_000), incarnation: 1,
                                        remoteToken: DiscoveryToken(high: 0xD0, low: 1), time: 0,
                                        makeToken: tokens.make)
                }
            }
        }
        let snapshot = table.snapshot
        #expect(snapshot.count == 501)
        #expect(snapshot.invariantViolations().isEmpty)
        #expect(snapshot.peers.filter { $0.rawValue < 1000 }.allSatisfy { $0.rawValue % 2 == 1 })
        for peer in snapshot.peers {
            let entry = try #require(snapshot.session(with: peer))
            #expect(snapshot.peer(forLocalToken: entry.localToken) == peer)
            #expect(snapshot.peer(forRemoteToken: try #require(entry.remoteToken)) == peer)
        }
    }

    @Test func tokenBytesRoundTrip() throws {
        let t = DiscoveryToken(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10)
        #expect(t.bytes == Array(1...16))
        #expect(DiscoveryToken(bytes: t.bytes) == t)
        #expect(DiscoveryToken(bytes: [UInt8](repeating: 0, count: 15)) == nil)
        var system = SystemTokenSource()
        let drawn = Set((0..<1000).map { _ in system.nextToken() })
        #expect(drawn.count == 1000)
    }
}
