import Adversaries
import Discovery
import Foundation
import Testing

/// Issue 49's member with many names: a member of the group floods it with 2,000 fresh ids a second from 2,000
/// sockets, each announcing once and inviting every node it may, while a newcomer joins half-way. The group stays
/// whole, the newcomer holds every session within 10 s, and the group sends the member's sockets at most one
/// datagram per datagram they sent. The suite floods for 20 s; `tools/fuzz --member-flood` for 5 minutes
/// (NEARCATCH_FLOOD_SECONDS).
@Suite struct MemberFloodTests {
    @Test func aMemberWithManyNamesBuysNoPlaceAndNoReflection() throws {
        var flood = MemberFlood()
        flood.seconds = ProcessInfo.processInfo.environment["NEARCATCH_FLOOD_SECONDS"].flatMap(Double.init) ?? 20
        let outcome = try flood.run()
        print("member flood: \(outcome.fakesSent) fresh ids in \(flood.seconds) s; the member sent \(outcome.sent) "
              + "datagrams (\(outcome.sentBytes) bytes), the group sent its sockets \(outcome.reflected) "
              + "(\(outcome.reflectedBytes) bytes): \(outcome.amplification) per datagram, "
              + "\(outcome.byteAmplification) per byte; newcomer whole after \(outcome.newcomerWhole ?? -1) s; "
              + "pairs without a session \(outcome.missing); most held \(outcome.mostHeld); released "
              + "\(outcome.counters.idleReleased), replaced at an address \(outcome.counters.replacedAtAddress), "
              + "left to contact \(outcome.counters.leftToContactUs), probes \(outcome.counters.probes); "
              + "most sessions searched for a silent peer \(outcome.mostSessionsSearched)")
        #expect(outcome.fakesSent == Int(flood.seconds) * flood.perSecond)
        #expect(outcome.groupWhole)
        let newcomer = try #require(outcome.newcomerWhole)
        #expect(newcomer <= 10)
        #expect(outcome.amplification <= 1)
        #expect(outcome.byteAmplification <= 1)
        // Every table and queue bounded: the session table, and the strangers a node keeps past it, twice over.
        #expect(outcome.mostHeld <= 2 * (flood.maximumSessions + DiscoveryNode.strangersKept))
        // A full table is searched for a silent peer about once a second, not at each of the flood's invitations.
        #expect(Double(outcome.mostSessionsSearched) <= 2 * outcome.seconds * Double(flood.maximumSessions))
    }
}
