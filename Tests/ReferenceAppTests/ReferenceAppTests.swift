import Bump
import DeviceInterface
import Foundation
import Planning
@testable import ReferenceApp
import Sessions
import Testing

@Suite struct ReferenceAppTests {
    /// A profile is the JSON `JSONSerialization` writes with sorted keys, byte for byte, whether written directly
    /// (plain names and interests) or by it (anything to escape: quotes, slashes, backslashes, controls, non-ASCII).
    @Test func aProfileIsTheJSONOfItsNameAndInterests() throws {
        let cases: [(String, [String])] = [
            ("peer-0", ["music", "hiking"]), ("peer-17", []), ("a b.c_d", ["x,y", "z"]), ("", [""]),
            ("say \"hi\"", ["a/b"]), ("back\\slash", ["tab\t"]), ("café", ["日本"]), ("peer-3", ["new\nline"]),
        ]
        for (name, interests) in cases {
            let object: [String: String] = ["name": name, "interests": interests.joined(separator: ",")]
            let expected = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
            #expect(ReferenceApp.profile(name: name, interests: interests) == expected, "\(name)")
        }
        #expect(ReferenceApp.profile(name: "peer-0", interests: ["music"]) == Array(#"{"interests":"music","name":"peer-0"}"#.utf8))
    }

    /// An update as a device receives it, `time` on its own clock.
    private func update(_ distance: Float?, at time: Double) -> NearbyUpdate {
        NearbyUpdate(distance: distance, direction: nil, horizontalAngle: nil, verticalEstimate: .unknown, timestamp: time)
    }

    private static let interests = [["music"], ["books", "chess"], []]

    /// The haptic follows the peer a phone holds nearest: a farther peer is ignored while the nearest is heard
    /// within a second, taken after; a nearer one at once. Out of range, nothing plays.
    @Test func theHapticFollowsTheNearestPeer() {
        var app = ReferenceApp(device: 0, interests: ["music"], haptics: HapticCurve())
        let curve = HapticCurve()
        #expect(app.didUpdate(from: 1, update(0.5, at: 1.0)) == curve.intensity(at: 0.5))
        #expect(app.didUpdate(from: 2, update(0.9, at: 1.5)) == nil)
        #expect(app.didUpdate(from: 1, update(0.6, at: 1.6)) == curve.intensity(at: 0.6))
        #expect(app.didUpdate(from: 2, update(0.9, at: 2.7)) == curve.intensity(at: 0.9))
        #expect(app.didUpdate(from: 1, update(0.3, at: 2.8)) == curve.intensity(at: 0.3))
        #expect(app.didUpdate(from: 2, update(nil, at: 2.9)) == nil)
        #expect(curve.intensity(at: 0.3) > curve.intensity(at: 0.6) && curve.intensity(at: 0.6) > 0)
    }

    /// Each phone holds its own nearest: phone 1's first update plays though phone 0 holds a nearer peer.
    @Test func eachPhoneHoldsItsOwnNearest() {
        var phones = Self.phones(sampling: false)
        let curve = HapticCurve()
        #expect(phones.didUpdate(device: 0, peer: 1, update(0.5, at: 1.0)) == curve.intensity(at: 0.5))
        #expect(phones.didUpdate(device: 0, peer: 2, update(1.2, at: 1.1)) == nil)
        #expect(phones.didUpdate(device: 1, peer: 2, update(1.2, at: 1.1)) == curve.intensity(at: 1.2))
    }

    /// A bump sends each side's profile to the other: its name and interests, as JSON, of the profile kind.
    @Test func aBumpSendsBothProfiles() throws {
        let messages = Self.phones(sampling: false).didBump(initiator: 0, responder: 1)
        #expect(messages.map { [$0.from, $0.to] } == [[0, 1], [1, 0]])
        #expect(messages.allSatisfy { $0.kind == ReferenceApp.profileKind })
        let second = try #require(try JSONSerialization.jsonObject(with: Data(messages[1].payload)) as? [String: String])
        #expect(second == ["name": "peer-1", "interests": "books,chess"])
    }

    /// One push, one bump: phone 1's jolt at 5.2 s made a bump with phone 0, so a bump phone 2's pair fires later
    /// on that same jolt is declined, though phone 2's own jolt is new; a bump on phone 1's next jolt is taken, and
    /// one with no jolts (the range-only detector's) always is. A declined bump leaves nothing to remember: phone 2's
    /// jolt still makes a bump with phone 0 after.
    @Test func aPushMakesOneBump() {
        var phones = Self.phones(sampling: false)
        #expect(phones.takesOneBumpAPush)
        let first = BumpJolts(initiator: 5.2 + 0.004, responder: 5.2)
        var taken: [Bool] = []
        taken.append(phones.take(first, initiator: 0, responder: 1, at: 5.3))
        taken.append(phones.take(BumpJolts(initiator: 5.2, responder: 5.21), initiator: 1, responder: 2, at: 5.9))
        taken.append(phones.take(first, initiator: 0, responder: 1, at: 6))
        taken.append(phones.take(BumpJolts(initiator: 7.5, responder: 7.49), initiator: 1, responder: 2, at: 7.6))
        taken.append(phones.take(nil, initiator: 0, responder: 1, at: 7.6))
        taken.append(phones.take(BumpJolts(initiator: 5.4, responder: 5.21), initiator: 0, responder: 2, at: 7.7))
        // A jolt is remembered for as long as a phone keeps jolts (3 s): the same stamp long after is a new jolt.
        taken.append(phones.take(first, initiator: 0, responder: 1, at: 5.3 + PhoneJolts.memory + 0.1))
        #expect(taken == [true, false, false, true, true, true, true])

        var without = Phones(bump: BumpConfiguration(), haptics: HapticCurve(), interests: nil, sampling: nil,
                             bluetooth: BluetoothDistances())
        #expect(!without.takesOneBumpAPush)
        let both = [without.take(first, initiator: 0, responder: 1, at: 5.3),
                    without.take(first, initiator: 0, responder: 1, at: 5.4)]
        #expect(both == [true, true])
    }

    /// Two pairs tapping side by side at one moment: phone 0's push matches its own partner's (phone 1) and the
    /// neighbour's across (phone 3), pushed equally and oppositely. A bump of 0 and 3 is declined while phone 0 holds
    /// a fresh estimate of 1 nearer than of 3 and heard 1's jolt at its own's instant; it is taken when 1's
    /// estimate is stale, or 1's jolt came at another instant. The pair 0-1's bump is taken.
    @Test(arguments: [(Float(0.01), 1.05, 1.003, false), (0.01, -1.0, 1.003, true), (0.01, 1.05, 1.2, true),
                      (0.2, 1.05, 1.003, true)])
    func aPushGoesToTheNearestPeerThatFeltIt(_ partner: Float, _ partnerAt: Double, _ partnerJolt: Double,
                                             _ crossTaken: Bool) {
        let clocks = (0..<4).map { DeviceClock(uptimeAtStart: 1000 + 100 * Double($0), rate: 0) }
        var phones = Phones(bump: BumpConfiguration(), haptics: HapticCurve(), interests: [[], [], [], []],
                            sampling: clocks.map { ($0, 0) }, bluetooth: BluetoothDistances())
        func jolt(_ time: Double) -> [UInt8] {
            ImpactMessage.encode(Impact(time: time, magnitude: 9, width: 0.01, direction: SIMD3(1, 0, 0), vertical: 0,
                                        interval: 0.01, known: time + 0.02))
        }
        phones.inbox.receive(jolt(partnerJolt), from: 1, at: 0, time: 1.03)
        phones.inbox.receive(jolt(1.006), from: 3, at: 0, time: 1.03)
        let table = PairTable.everyPair(of: 4)
        let running = RunningSessions(peers: 4)
        let known = PlanningContext(time: 1.1, interval: 0.1, sessions: running.snapshot(), pairs: table,
                                    estimates: [], bluetooth: [], bluetoothFloor: 1)
        var messages: [AppMessage] = []
        _ = phones.shareJolts(at: 1.1, known: known, into: &messages)
        var estimates = Array(repeating: PairEstimate(), count: 6)
        if let q = table.index(0, 1) { estimates[q].take(partner, at: Float(partnerAt)) }
        if let q = table.index(0, 3) { estimates[q].take(0.12, at: 1.08) }
        let cross = phones.take(BumpJolts(initiator: 1.0, responder: 1.006), initiator: 0, responder: 3, at: 1.2,
                                estimate: 0.12, estimates: estimates, pairs: table)
        #expect(cross == crossTaken)
        // Phone 3's jolt is no nearer to phone 0 than phone 1's own: the true pair's bump is taken when the cross
        // one was not (one push, one bump).
        let own = phones.take(BumpJolts(initiator: 1.0, responder: partnerJolt), initiator: 0, responder: 1, at: 1.3,
                              estimate: partner, estimates: estimates, pairs: table)
        #expect(own == !crossTaken)
        // A chip that fails negative flights fired on a failure read as "right here" (0 m): no estimate is nearer,
        // whatever the pair's last reading was.
        var board = Phones(bump: BumpConfiguration(), haptics: HapticCurve(), interests: [[], [], [], []],
                           sampling: clocks.map { ($0, 0) }, bluetooth: BluetoothDistances())
        board.inbox.receive(jolt(1.006), from: 3, at: 0, time: 1.03)
        _ = board.shareJolts(at: 1.1, known: known, into: &messages)
        let here = board.take(BumpJolts(initiator: 1.0, responder: partnerJolt), initiator: 0, responder: 1, at: 1.3,
                              estimate: 0, estimates: estimates, pairs: table)
        #expect(here)
    }

    /// Without NearCatch (an app under test runs its own), the phones play no haptic and send no profile.
    @Test func withoutTheAppNothingIsPlayedOrSent() {
        var phones = Phones(bump: BumpConfiguration(), haptics: HapticCurve(), interests: nil, sampling: nil,
                            bluetooth: BluetoothDistances())
        #expect(!phones.runsApp)
        #expect(phones.didUpdate(device: 0, peer: 1, update(0.5, at: 1.0)) == nil)
        #expect(phones.didBump(initiator: 0, responder: 1).isEmpty)
    }

    private static func phones(sampling: Bool, offsets: [Double] = [0, 0, 0]) -> Phones {
        let clocks = offsets.indices.map { DeviceClock(uptimeAtStart: 1000 + 100 * Double($0), rate: 0) }
        return Phones(bump: BumpConfiguration(), haptics: HapticCurve(), interests: interests,
                      sampling: sampling ? offsets.indices.map { (clocks[$0], offsets[$0]) } : nil,
                      bluetooth: BluetoothDistances())
    }

    /// A second of a phone lying still on its own clock from `start`, with a two-sample knock along x at 0.5 s.
    private static func knock(clockStart start: Double) -> [AccelerometerSample] {
        var samples = (0..<100).map { k in
            AccelerometerSample(timestamp: start + Double(k) / 100, x: 0.01 * Float(k % 3), y: 0, z: 9.81)
        }
        samples[50] = AccelerometerSample(timestamp: samples[50].timestamp, x: 14, y: 0, z: 9.81)
        samples[51] = AccelerometerSample(timestamp: samples[51].timestamp, x: 20, y: 0, z: 9.81)
        return samples
    }

    /// A knock a phone finds in its own samples is stamped on the time its pairs agree on (its clock carried back,
    /// plus its app's offset), becomes its tap, and goes to the peers it holds a session with and may be near
    /// (by Bluetooth here), not to one out of reach; what arrives is held by the receiving phone.
    @Test func aKnockIsFoundStampedAndSentToThePeersWithinReach() throws {
        var phones = Self.phones(sampling: true, offsets: [0.004, 0, 0])
        // Phone 0's clock reads 1000 at the run's start: the knock peaks at 1000.51 on it, 0.51 s into the run.
        phones.take(Self.knock(clockStart: 1000), by: 0, upTo: 1, handingOutTo: 1)
        let felt = phones.felt
        #expect(felt.map(\.count) == [1, 0, 0])
        let jolt = try #require(felt[0].first)
        #expect(abs(jolt.time - (0.51 + 0.004)) < 1e-9)
        #expect(abs(jolt.magnitude - 20) < 0.05)
        #expect(phones.taps(felt, upTo: 1) == [Float(jolt.time), -.infinity, -.infinity])
        #expect(phones.taps(felt, upTo: 0.5) == [-.infinity, -.infinity, -.infinity])

        // Phone 0 holds sessions with 1 and 2; 1 is heard at 1 m, 2 at 20 m (beyond the app's share reach of 2 m).
        let running = RunningSessions(peers: 3)
        running.began(0, 1)
        running.began(0, 2)
        let table = PairTable.everyPair(of: 3)
        let bluetooth = [Float(1), 20, .nan]
        let known = PlanningContext(time: 1, interval: 0.1, sessions: running.snapshot(), pairs: table,
                                    estimates: [], bluetooth: bluetooth, bluetoothFloor: 1)
        var messages: [AppMessage] = []
        let (_, sent) = phones.shareJolts(at: 1, known: known, into: &messages)
        #expect(messages.map { [$0.from, $0.to] } == [[0, 1]])
        #expect(messages.first?.kind == ImpactMessage.kind)
        #expect(sent.map(\.device) == [0])
        #expect(phones.joltsSent == 1)

        // The message arrives at phone 1; the next round it holds it, and 3 s later it has forgotten it.
        phones.inbox.receive(messages[0].payload, from: 0, at: 1, time: 1.02)
        phones.inbox.receive([1, 2, 3], from: 2, at: 1, time: 1.03)
        var next: [AppMessage] = []
        let (heard, _) = phones.shareJolts(at: 1.1, known: known, into: &next)
        #expect(next.isEmpty)
        #expect(heard.map(\.count) == [0, 1, 0])
        #expect(heard[1].first?.from == 0)
        #expect(abs((heard[1].first?.impact.time ?? 0) - jolt.time) < 1e-6)
        #expect(phones.inbox.heard == 1 && phones.inbox.refused == 1)
        let (later, _) = phones.shareJolts(at: 4.2, known: known, into: &next)
        #expect(later.map(\.count) == [0, 0, 0])
    }

    /// The app-testing library's apps are told a phone's samples only once the run's time has reached them.
    @Test func samplesAreHandedOutWhenTheirTimeHasCome() {
        var phones = Self.phones(sampling: true)
        let told = Told()
        phones.sampleTap = { device, samples, _ in told.append(device, samples.count) }
        // Phone 2's clock reads 1200 at the run's start: by 0.3 s, 31 of the second's samples are due.
        phones.take(Self.knock(clockStart: 1200), by: 2, upTo: 1, handingOutTo: 0.3)
        phones.take([], by: 2, upTo: 1, handingOutTo: 1)
        #expect(told.all == [[2, 31], [2, 69]])
    }

    private final class Told: @unchecked Sendable {
        var all: [[Int]] = []
        func append(_ device: Int, _ count: Int) { all.append([device, count]) }
    }
}
