import Bump
import DeviceInterface
import Foundation
import Testing
@testable import World

/// The phones' accelerometers: a sharp tap on both phones at every true contact; the steps of a walk, the hand's
/// stops and jolts as noise well under it.
@Suite struct AccelerometerTests {
    /// 40 mingling peers for 60 s with every peak kept. Every contact but one at most is felt by both phones within
    /// 5 ms of its start at or over the detector's 6 m/s^2 (a tap's median is 18; where a chip's sample falls on a
    /// knock of a few milliseconds decides how much of it it reads: one phone of 79 contacts on seed 3 read 5.96);
    /// the noise stays mostly under it.
    @Test func impulsesAtContactsOnly() throws {
        var sensors = AccelerometerSettings()
        sensors.memory = 1000
        let world = try World(scenario: .mingle, peers: 40, seed: 3, sensors: sensors)
        _ = world.advance(to: 60)
        let peaks = world.impacts
        let contacts = world.tracker.contacts
        #expect(contacts.count > 50)
        var felt = 0
        for c in contacts {
            let a = peaks[c.a].contains { abs($0.time - c.start) <= 0.005 && $0.magnitude >= 6 }
            let b = peaks[c.b].contains { abs($0.time - c.start) <= 0.005 && $0.magnitude >= 6 }
            if a && b { felt += 1 }
        }
        #expect(felt >= contacts.count - 1, "\(felt) of \(contacts.count)")
        func atContact(_ device: Int, _ p: Impact) -> Bool {
            contacts.contains { ($0.a == device || $0.b == device) && abs($0.start - p.time) <= 0.005 }
        }
        // The noise: steps (1.8 a second while walking, median 3 m/s^2), stops and jolts (0.2 a second, exponential
        // of mean 2.5). At or over 6 m/s^2 about 0.04 a phone a second (2.4% of steps, 9% of jolts); at or over
        // 12 about 0.002 (jolts only).
        let noise = peaks.enumerated().flatMap { d, list in list.filter { !atContact(d, $0) } }.map(\.magnitude)
        let seconds = 40.0 * 60
        let overThreshold = Double(noise.filter { $0 >= 6 }.count) / seconds
        #expect(overThreshold > 0.02 && overThreshold < 0.08, "\(overThreshold)")
        #expect(Double(noise.filter { $0 >= 12 }.count) / seconds < 0.01)
        // Joint impacts (two phones at or over 6 within 30 ms): every contact is one; chance coincidences between
        // other pairs happen (which is why the detector asks the range to confirm), fewer than the touches.
        var joint = 0, jointAtContact = 0
        for i in 0..<40 {
            for j in (i + 1)..<40 {
                for p in peaks[i] where p.magnitude >= 6 {
                    guard peaks[j].contains(where: { $0.magnitude >= 6 && abs($0.time - p.time) <= 0.03 }) else { continue }
                    joint += 1
                    if contacts.contains(where: { $0.a == i && $0.b == j && abs($0.start - p.time) <= 0.01 }) {
                        jointAtContact += 1
                    }
                }
            }
        }
        #expect(jointAtContact >= contacts.count - 1 && jointAtContact >= felt,
                "\(jointAtContact) of \(contacts.count)")
        #expect(joint - jointAtContact < contacts.count, "\(joint - jointAtContact) chance coincidences")
        let all = peaks.joined().count
        // Steps, stops and jolts: at least half a peak a second a phone.
        #expect(Double(all) / (40 * 60) > 0.5)
    }

    @Test func theSameSeedFeelsTheSame() throws {
        func run() throws -> [[Impact]] {
            let world = try World(scenario: .mingle, peers: 20, seed: 8)
            _ = world.advance(to: 20)
            return world.impacts
        }
        let first = try run()
        #expect(first == (try run()))
        #expect(first.joined().count > 20)
    }
}
