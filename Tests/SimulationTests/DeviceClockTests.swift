import DeviceInterface
import Radio
import Simulation
import Synchronization
import Testing

/// A phone reads its own clock, never the world's: its updates are stamped with its uptime, counted by the crystal
/// that clocks its radio, and no two phones' clocks agree.
@Suite struct DeviceClockTests {
    private func settings(seed: UInt64) -> SimulationSettings {
        var s = SimulationSettings()
        s.transport = .memory
        s.clock = .virtual
        s.peers = 8
        s.duration = 5
        s.seed = seed
        return s
    }

    @Test func eachPhoneStampsItsUpdatesWithItsOwnClock() async throws {
        let simulation = try Simulation(settings: settings(seed: 2))
        let clocks = simulation.clocks
        #expect(clocks.count == 8)
        // The crystal's tolerance bounds the rate; the uptimes spread over a week.
        for clock in clocks {
            #expect(abs(clock.rate) <= 20e-6)
            #expect(clock.uptimeAtStart >= 0 && clock.uptimeAtStart < DeviceClock.uptimeSpread)
            #expect(abs(clock.time(atReading: clock.reading(at: 4.2)) - 4.2) < 1e-9)
            #expect(abs(clock.reading(at: 100) - clock.reading(at: 0) - 100) <= 100 * 20e-6 + 1e-9)
        }
        for a in clocks.indices {
            for b in clocks.indices where b > a {
                #expect(abs(clocks[a].uptimeAtStart - clocks[b].uptimeAtStart) > 1, "\(a) and \(b) agree")
            }
        }
        // Each side's update is stamped when that side holds the exchange's timestamps: the responder at the
        // final's arrival, the initiator at the responder's report (docs/radio-model.md); the event keeps the
        // exchange's time.
        let radio = RadioConfiguration()
        let stamps = Mutex<[(device: Int, peer: Int, time: Double, timestamp: Double)]>([])
        simulation.observe(wanting: .updates) { event in
            guard case .session(let d, let p, .didUpdate(let u), let reading) = event.kind, let reading else { return }
            let held = event.time + (reading.initiator ? radio.initiatorReadingDelay : radio.responderReadingDelay)
            stamps.withLock { $0.append((d, p, held, u.timestamp)) }
        }
        _ = try await simulation.run()
        let all = stamps.withLock { $0 }
        #expect(all.count > 200, "\(all.count)")
        #expect(all.allSatisfy { $0.timestamp == clocks[$0.device].reading(at: $0.time) })
        // The two sides of one exchange read different times: the difference is their clocks' and the 1 ms between
        // the two readings, not the world's.
        var sides = 0
        for (k, u) in all.enumerated() where k + 1 < all.count {
            let v = all[k + 1]
            guard abs(v.time - u.time) < 0.002, v.device == u.peer, v.peer == u.device else { continue }
            sides += 1
            #expect(abs((u.timestamp - v.timestamp) - (clocks[u.device].reading(at: u.time) - clocks[v.device].reading(at: v.time))) < 1e-6)
            #expect(abs(u.timestamp - v.timestamp) > 1)
        }
        #expect(sides > 100, "\(sides)")
    }

    @Test func theClocksAreTheRadiosCrystalsAndTheSeeds() throws {
        let a = try Simulation(settings: settings(seed: 2)).clocks
        #expect(a == (try Simulation(settings: settings(seed: 2)).clocks))
        #expect(a != (try Simulation(settings: settings(seed: 3)).clocks))
        let radios = try DeviceRadio.room(count: 8, runSeed: 2, configuration: SimulationSettings().radio)
        #expect(zip(a, radios).allSatisfy { $0.rate == $1.clockOffset })
    }
}
