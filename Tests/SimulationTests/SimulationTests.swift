import Bump
import Foundation
import Radio
import Simulation
import MulticastTransport
import Synchronization
import Testing
import TestSupport
import UDPRun
import World

@Suite struct SimulationTests {
    private func settings(_ change: (inout SimulationSettings) -> Void) -> SimulationSettings {
        var s = SimulationSettings()
        s.transport = .memory
        s.clock = .virtual
        // The pipeline at 10 Hz for every pair unless a test chooses a policy of the air.
        s.rangingPolicy = .ideal
        change(&s)
        return s
    }

    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("nearcatch-\(UUID().uuidString)-\(name)").path
    }

    /// A run with its trace, for each number of `workers`: the traces as written, and the summaries without what
    /// depends on the machine (the wall-clock figures, the workers themselves).
    private func runs(
        workers: [Int], _ change: (inout SimulationSettings) -> Void
    ) async throws -> (traces: [Data], summaries: [SimulationSummary]) {
        var traces: [Data] = []
        var summaries: [SimulationSummary] = []
        for count in workers {
            let path = temporaryPath("w\(count).jsonl")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let s = settings {
                change(&$0)
                $0.workers = count
                $0.tracePath = path
            }
            var summary = try await Simulation(settings: s).run()
            summary.performance.wallSeconds = 0
            summary.performance.updatesPerSecond = 0
            summary.performance.realTimeFactor = 0
            summary.performance.peakMemoryMB = 0
            summary.run[RunSettings.workers] = 0
            summaries.append(summary)
            traces.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        return (traces, summaries)
    }

    /// The issue's determinism rule: in virtual time one seed gives a byte-identical trace whatever the number of
    /// workers, and the same summary (the wall-clock figures aside).
    @Test func traceIsByteIdenticalForOneAndFourWorkers() async throws {
        let (traces, summaries) = try await runs(workers: [1, 4]) {
            $0.peers = 30
            $0.duration = 20
            $0.seed = 7
            $0.traceUpdateInterval = 0.5
        }
        #expect(traces[0].count > 100_000)
        #expect(traces[0] == traces[1])
        #expect(summaries[0] == summaries[1])
        // 435 pairs at 10 Hz for 18 s or so, of which about a third of the exchanges arrive: in an 11-m hall the
        // links of phones far apart, turned away or behind someone fade (measured 46,908 updates).
        #expect(summaries[0].ranging.updatesDelivered > 40_000)
        // And another seed gives another trace.
        let other = temporaryPath("other.jsonl")
        defer { try? FileManager.default.removeItem(atPath: other) }
        _ = try await Simulation(settings: settings {
            $0.peers = 30; $0.duration = 20; $0.seed = 8; $0.tracePath = other; $0.traceUpdateInterval = 0.5
        }).run()
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) != traces[0])
    }

    /// From 200 devices in memory the workers also take each announcement's receivers and run the world's round
    /// beside the devices' taking in of its start: the trace and summary are byte-identical to one worker's.
    @Test func aLargeRoomIsByteIdenticalForOneAndTwoWorkers() async throws {
        let (traces, summaries) = try await runs(workers: [1, 2]) {
            $0.peers = 220
            $0.duration = 3
            $0.seed = 11
            $0.rangingPolicy = SimulationSettings().rangingPolicy
        }
        // 220 devices find each other and bring up sessions, at most 100 a device (21,148 of 22,000 within 3 s,
        // measured), and range the pairs near enough: 247 updates on the phones' own air, where each phone controls
        // one exchange a second and some collide (368 under the room-wide slot map).
        #expect(summaries[0].discovery.sessions > 20_000)
        #expect(summaries[0].ranging.updatesDelivered > 200)
        #expect(traces[0].count > 1_000_000)
        #expect(traces[0] == traces[1])
        #expect(summaries[0] == summaries[1])
    }

    /// examples/three-bumps.json: three pairs each touch once (the backs meet) and stop short once (the backs 10.9,
    /// 11.9 and 12.9 cm apart). At the default noise (9 cm per exchange, pair biases of 4 cm) antennas 12 cm apart
    /// cannot be told from 0.5 cm, so this runs
    /// the radio at 1 cm: what is tested is the pipeline and the detector, and they must give exactly 3 bumps, the
    /// right ones, over several seeds.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func scriptedScenarioGivesExactlyThreeBumps(_ seed: UInt64) async throws {
        let file = try ScenarioFile.load(path: Self.examples + "/three-bumps.json")
        let s = settings {
            $0.scenario = .scripted(file)
            $0.duration = 20
            $0.seed = seed
            $0.radio.lineOfSightSigma = 0.01
            $0.radio.antennaDelaySigma = 0
        }
        let summary = try await Simulation(settings: s).run()
        #expect(summary.run[RunSettings.peers] == 6)
        #expect(summary.bumps.fired == 3)
        #expect(summary.bumps.trueContacts == 3)
        #expect(summary.bumps.detected == 3)
        #expect(summary.bumps.falseBumps == 0)
        #expect(summary.bumps.nearMisses == 3)
        #expect(summary.bumps.profilesDelivered == 6)
        #expect(try #require(summary.bumps.latencyP95) <= 0.5)
    }

    /// examples/edges-and-tops.json: four pairs meet side-on, tops together (held flat), both pitched 45° and 2 cm
    /// apart in height, three touches each and one stop 2 cm short, at the default radio, air and sensors (the iOS
    /// profile, 100 Hz). The fused detector asks no direction of a peer outside the antennas' field of view, so it
    /// finds 11 or 12 of the 12 touches in every pose (the gentle 6-cm/s touch of the pair at different heights is
    /// missed on seed 1), and fires on no stop.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func touchesAreFoundInEveryPose(_ seed: UInt64) async throws {
        let file = try ScenarioFile.load(path: Self.examples + "/edges-and-tops.json")
        let s = settings {
            $0.scenario = .scripted(file)
            $0.seed = seed
            $0.sensorProfile = .ios
            $0.rangingPolicy = SimulationSettings().rangingPolicy
        }
        let summary = try await Simulation(settings: s).run()
        #expect(summary.bumps.trueContacts == 12)
        #expect(summary.bumps.detected >= 11 && summary.bumps.falseBumps == 0, "\(summary.bumps)")
        let byPose = try #require(summary.bumps.byPose)
        #expect(Set(byPose.keys) == ["sideOn", "topsTogether", "pitched", "heights"])
        for (pose, score) in byPose {
            #expect(score.contacts == 3 && score.detected >= 2 && score.apart == 1 && score.firedApart == 0, "\(pose)")
        }
    }

    /// Two groups of three standing 50 m apart, beyond the Bluetooth reach of 35.5 m: discovery finds only the peers
    /// of one's own group (six sessions a group, none across), and counts itself converged within reach; with no
    /// limit every device holds a session with the five others.
    @Test func discoveryReachesOnlyTheDevicesWithinItsRange() async throws {
        var peers: [String] = []
        for (i, x) in [0.0, 1, 2, 50, 51, 52].enumerated() {
            peers.append(#"{"name": "P\#(i)", "interests": ["jazz"], "waypoints": [{"t": 0, "x": \#(x), "y": 0, "z": 1.2}]}"#)
        }
        let json = #"{"version": 1, "name": "two groups", "peers": [\#(peers.joined(separator: ","))]}"#
        let file = try ScenarioFile.parse(Data(json.utf8), file: "two-groups.json")
        #expect(abs(SimulationSettings().discoveryRange - 35.48) < 0.01)
        let limited = try await Simulation(settings: settings { $0.scenario = .scripted(file); $0.duration = 5 }).run()
        let reach = try #require(limited.discovery.withinReach)
        #expect(reach.pairs == 6 && reach.sessions == 12)
        #expect(limited.discovery.sessions == 12)
        #expect(try #require(limited.discovery.convergenceSeconds) <= 3)
        let everywhere = try await Simulation(settings: settings {
            $0.scenario = .scripted(file); $0.duration = 5; $0.discoveryRange = .infinity
        }).run()
        #expect(everywhere.discovery.withinReach == nil)
        #expect(everywhere.discovery.sessions == 30)
        #expect(try #require(everywhere.discovery.convergenceSeconds) < 3)
        // Within 35 m of each other, the limit leaves the run as it was.
        let near = try await Simulation(settings: settings { $0.peers = 20; $0.duration = 3 }).run()
        #expect(near.discovery.withinReach == nil && near.discovery.sessions == 380)
    }

    /// Twelve peers all within reach, each allowed four sessions: no device holds more than four, nearly every
    /// place is taken (a device may be left with a place whose peers are all full), refusals stay few, and the
    /// summary counts within the limit.
    @Test func aDeviceHoldsNoMoreSessionsThanItsLimit() async throws {
        let s = settings { $0.peers = 12; $0.duration = 8; $0.maximumSessions = 4 }
        let simulation = try Simulation(settings: s)
        // Each device's sessions as its events tell them, and the most any device held at once.
        let held = Mutex((sessions: [Set<Int>](repeating: [], count: 12), most: 0, refused: 0))
        simulation.observe { event in
            guard case .session(let device, let peer, let change, _) = event.kind else { return }
            held.withLock { h in
                switch change {
                case .began: h.sessions[device].insert(peer)
                case .didRemove: h.sessions[device].remove(peer)
                case .invalidated:
                    if !h.sessions[device].contains(peer) { h.refused += 1 }
                    h.sessions[device].remove(peer)
                default: return
                }
                h.most = max(h.most, h.sessions[device].count)
            }
        }
        let summary = try await simulation.run()
        let (most, refused) = held.withLock { ($0.most, $0.refused) }
        // A full device neither invites nor asks to be invited, and a declined invitation waits 30 s: each of the
        // 66 pairs is refused at most once on each side in 8 s (measured: 30), not at every announcement.
        #expect(refused <= 132, "\(refused)")
        let reach = try #require(summary.discovery.withinReach)
        #expect(reach.maximumSessions == 4 && reach.fillable == 48)
        #expect(most == 4)
        #expect(summary.discovery.sessions <= 48 && summary.discovery.sessions >= 40, "\(summary.discovery.sessions)")
        #expect(reach.sessions == summary.discovery.sessions)
    }

    @Test func hundredPeersHold9900Sessions() async throws {
        let summary = try await Simulation(settings: settings { $0.peers = 100; $0.duration = 6 }).run()
        #expect(summary.discovery.pairs == 4_950)
        #expect(summary.discovery.sessions == 9_900)
        #expect(summary.discovery.expectedSessions == 9_900)
        #expect(try #require(summary.discovery.convergenceSeconds) < 5)
        // Every received exchange updates its responder, and its initiator when the responder's report arrives:
        // one frame more on a link that kept the exchange's three, so most of them (measured 90.3%: in this hall
        // most pairs stand far, where the fade takes a frame in ten).
        let initiators = summary.ranging.updatesDelivered - summary.ranging.received
        #expect(initiators <= summary.ranging.received && Double(initiators) > 0.85 * Double(summary.ranging.received),
                "\(initiators) of \(summary.ranging.received)")
        // 4,950 pairs at 10 Hz for the 4.5 s after discovery ask for 222,750 exchanges; in a 20-m hall most pairs
        // stand beyond 9 m, where the link has faded, or are turned away or behind someone: about a sixth arrive
        // (measured 35,003).
        #expect(summary.ranging.received > 30_000)
    }

    @Test(.tags(.realTime)) func realSocketsRangeInRealTime() async throws {
        var s = SimulationSettings()
        s.peers = 20
        s.duration = 4
        s.rangingPolicy = .ideal
        // The sockets and the pacing are tested, not the radio: every link clear and unfaded.
        s.radio.linkModel = .lineOfSight
        s.radio.fadeSNR = -200
        s.radio.fadeWidth = 0
        var multicast = MulticastConfiguration()
        multicast.group = "239.255.96.1"
        multicast.port = 47_961
        let summary = try await Simulation(settings: s, udp: UDPCluster.maker(multicast: multicast)).run()
        #expect(summary.run.transport == "udp" && summary.run.clock == "real")
        #expect(summary.discovery.sessions == 380)
        #expect(summary.performance.wallSeconds >= 4)
        // 190 pairs for 4 s at 10 Hz, less the second or two of discovery.
        #expect(summary.ranging.received > 3_000 && summary.ranging.received <= 7_600)
    }

    /// Every pair of 100 peers at 10 Hz asks for about 49,500 exchanges a second where one channel carries 100: the
    /// summary says so, in the plan's own count.
    @Test func theIdealPlanAsksForHundredsOfTimesTheAir() async throws {
        // Every link clear and unfaded, so that the bands count the plan.
        let summary = try await Simulation(settings: settings {
            $0.peers = 100; $0.duration = 10; $0.radio.linkModel = .lineOfSight; $0.radio.fadeSNR = -200
            $0.radio.fadeWidth = 0
        }).run()
        let air = summary.ranging.airtime
        #expect(air.channels == 1 && air.slotsPerExchange == 5 && air.capacityPerSecond == 100)
        // Over the 100 rounds run (0, 0.1 ... 9.9 s), each planning 0.1 s of air.
        #expect(abs(air.demandPerSecond - Double(summary.ranging.exchanges) / 10) < 1e-9)
        #expect(air.overCapacity == air.demandPerSecond / 100)
        // Discovery takes the first 1.5 s: 4,950 pairs at 10 Hz for the other 8.5 s at least.
        #expect(air.overCapacity > 420 && air.overCapacity <= 495)
        // Every band near 10 exchanges a pair a second (less the radio's 3% of losses; the pair-seconds are counted
        // once a second, so a band's figure is good to a few percent).
        let bands = summary.ranging.bands
        #expect(bands.map(\.toMetres) == [0.5, 1, 2, 5, 9])
        for band in bands where band.pairSeconds > 200 {
            #expect(try #require(band.perPairPerSecond) > 8.5 && band.perPairPerSecond! < 10.5, "\(band)")
        }
        #expect(bands.reduce(0) { $0 + $1.received } <= summary.ranging.received)
        var three = SimulationSettings()
        three.medium.channels = 3
        three.radio.scheme = .singleSided
        three.transport = .memory
        three.clock = .virtual
        three.peers = 4
        three.duration = 5
        let small = try await Simulation(settings: three).run().ranging.airtime
        #expect(small.capacityPerSecond == 495 && small.slotsPerExchange == 3)
        #expect(small.overCapacity < 0.13)
    }

    /// Under every policy, one seed gives a byte-identical trace for 1 and 4 workers (the planners draw their own
    /// random streams, in pair order); and each stays within what it claims.
    @Test(arguments: SimulationSettings.RangingPolicy.allCases)
    func everyPolicyTracesTheSameForAnyWorkerCount(_ policy: SimulationSettings.RangingPolicy) async throws {
        var traces: [Data] = []
        var summaries: [SimulationSummary] = []
        for workers in [1, 4] {
            let path = temporaryPath("\(policy.rawValue)\(workers).jsonl")
            defer { try? FileManager.default.removeItem(atPath: path) }
            summaries.append(try await Simulation(settings: settings {
                $0.peers = 30; $0.duration = 10; $0.workers = workers; $0.rangingPolicy = policy
                $0.tracePath = path; $0.traceUpdateInterval = 0
                // The plan is compared, not the radio: every link clear and unfaded.
                $0.radio.linkModel = .lineOfSight; $0.radio.fadeSNR = -200; $0.radio.fadeWidth = 0
            }).run())
            traces.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(traces[0] == traces[1] && traces[0].count > 10_000)
        let summary = summaries[0]
        let air = summary.ranging.airtime
        #expect(summary.run.planner == policy.label && air.model == policy.air)
        // One `air` line a simulated second, its counts adding up to the summary's.
        let lines = String(decoding: traces[0], as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let airLines = lines.filter { $0["type"] as? String == "air" }
        #expect(airLines.count == 10)
        let traced = airLines.reduce(0) { $0 + (($1["exchanges"] as? [Int]) ?? []).reduce(0, +) }
        switch policy {
        case .ideal:
            #expect(air.perChannel.isEmpty && traced == 0)
            #expect(summary.ranging.collided == 0 && air.overCapacity > 3)
        case .uncoordinated:
            // 435 sessions at 10 Hz on one channel, 10 ms each: once all run, each exchange shares a device with 56
            // others and survives at most 0.9^56 = 0.3% of the time; only in the first rounds of discovery, with few
            // sessions running, do some get through.
            #expect(Double(summary.ranging.collided) > 0.99 * Double(summary.ranging.exchanges))
            #expect(summary.ranging.received < summary.ranging.exchanges / 100)
            #expect(air.perChannel.map(\.collided) == [summary.ranging.collided])
            #expect(traced == summary.ranging.exchanges)
            #expect(abs(try #require(air.survival) - (try #require(air.expectedSurvival))) < 0.01)
        case .proximity:
            // Each phone keeps to its share of the air it believes there is: together about one channel, at instants
            // no one coordinates, so some collide, as many as the frame-level figure says.
            #expect(air.overCapacity > 0.5 && air.overCapacity < 1.2 && summary.ranging.collided > 0, "\(air)")
            #expect(air.perChannel.map(\.collided) == [summary.ranging.collided])
            let survival = try #require(air.survival), expected = try #require(air.expectedSurvival)
            #expect(abs(survival - expected) < 0.03, "simulated \(survival), expected \(expected)")
            #expect(traced == summary.ranging.exchanges)
        case .roundRobin, .coordinated, .oracle:
            // 100 a second from the first running pair on: at most 1,000 in 10 s, at least the 8 s after discovery.
            #expect(summary.ranging.exchanges <= 1_000 && summary.ranging.exchanges >= 800)
            #expect(air.overCapacity <= 1.001 && air.overCapacity >= 0.8)
            #expect(air.perChannel.count == 1 && air.perChannel[0].exchanges == summary.ranging.exchanges)
            #expect(air.perChannel[0].airShare <= 1.001 && summary.ranging.collided == 0)
            #expect(traced <= summary.ranging.exchanges && traced >= summary.ranging.exchanges - 10)
        }
        if policy == .roundRobin {
            // 100 exchanges a second shared by 435 pairs: about 0.23 a pair a second, whatever the distance.
            for band in summary.ranging.bands where band.pairSeconds > 300 {
                #expect(try #require(band.perPairPerSecond) > 0.12 && band.perPairPerSecond! < 0.3, "\(band)")
            }
        }
    }

    /// examples/approach-in-a-crowd.json: 16 people stand 1.5 m apart and four pairs, one after another, walk 4 m
    /// to touch in 2 s, with no one walking to anyone in the world's sense (a scripted scenario has no partners).
    /// 276 pairs share one channel's 100 exchanges a second: round-robin ranges a pair every 2.8 s and catches no
    /// touch; the proximity ranking re-ranges a pair before it could have walked into touching and catches nearly
    /// all, in the room-wide slot map (`coordinated`), and most on the phones' own air (`proximity`), where a quarter
    /// of the exchanges of 16 phones within 6 m collide. The radio at 1 cm, as for the three bumps: what is compared
    /// is who ranges when.
    @Test func proximityBeatsRoundRobinOnAScriptedApproach() async throws {
        let file = try ScenarioFile.load(path: Self.examples + "/approach-in-a-crowd.json")
        var detected: [SimulationSettings.RangingPolicy: Int] = [:]
        var latencies: [Double] = []
        for policy in [SimulationSettings.RangingPolicy.roundRobin, .coordinated, .proximity] {
            for seed in 1...3 as ClosedRange<UInt64> {
                let summary = try await Simulation(settings: settings {
                    $0.scenario = .scripted(file); $0.duration = 22; $0.seed = seed; $0.rangingPolicy = policy
                    $0.radio.lineOfSightSigma = 0.01; $0.radio.antennaDelaySigma = 0
                    // The range-only detector, which needs two close readings: what a pair's ranging rate decides.
                    $0.bump.method = .range
                }).run()
                #expect(summary.bumps.trueContacts == 4 && summary.bumps.falseBumps == 0)
                #expect(summary.ranging.airtime.overCapacity <= 1.001)
                detected[policy, default: 0] += summary.bumps.detected
                if policy == .coordinated, let p95 = summary.bumps.latencyP95 { latencies.append(p95) }
            }
        }
        // Of 12 touches: none for round-robin (a pair ranged every 2.8 s never sees two readings in a 1-s touch);
        // coordinated at least 11, well within the 1-s touch (measured: 12, a p95 of 0.41 s in each seed): the
        // walkers' phones tell they walk, and a pair that could close at their pace is ranged again in time. On the
        // phones' own air 8 (measured), the collisions costing a touch's second reading.
        #expect(detected[.roundRobin] == 0)
        #expect(detected[.coordinated]! >= 11)
        #expect(detected[.proximity]! >= 8 && detected[.proximity]! <= detected[.coordinated]!)
        #expect(latencies.count == 3 && latencies.allSatisfy { $0 <= 0.6 }, "\(latencies)")
    }

    /// examples/touch-or-stop.json: a minute of 12 touches (the backs meet), 12 stops with the backs 1-3 cm apart
    /// and 12 at 8-14 cm, at the default noise. Over seeds 1-3 the fused detector finds every touch and fires on no
    /// stop (measured: 36 of 36, no false bump); the range-only detector on the same runs fires on stops too: the
    /// estimate alone cannot tell antennas 0.6 cm apart from 2 or 3.
    @Test func theFusedDetectorTellsATouchFromAStopShort() async throws {
        let file = try ScenarioFile.load(path: Self.examples + "/touch-or-stop.json")
        var totals: [BumpConfiguration.Method: (fired: Int, right: Int, contacts: Int, detected: Int)] = [:]
        for method in [BumpConfiguration.Method.fused, .range] {
            for seed in 1...3 as ClosedRange<UInt64> {
                // Without the holders' swipes: a slow swipe under a touch widens its jolt, which then waits for the
                // next (seed 1: one touch of 12 found 0.40 s late); the held-out sweeps judge the detector with them.
                let summary = try await Simulation(settings: settings {
                    // The room-wide air, so that what is judged is the detector (the phones' own air costs latency:
                    // p95 0.35 to 0.54 s, docs/airtime.md).
                    $0.scenario = .scripted(file); $0.seed = seed; $0.rangingPolicy = .coordinated; $0.bump.method = method
                    $0.motion.own.screenSwipeRate = 0
                }).run()
                #expect(summary.run.detector == method.rawValue)
                #expect(summary.bumps.trueContacts == 12 && summary.bumps.nearMisses == 24)
                let b = summary.bumps
                var t = totals[method, default: (0, 0, 0, 0)]
                t.fired += b.fired - b.unscoredBumps
                t.right += b.fired - b.unscoredBumps - b.falseBumps
                t.contacts += b.trueContacts
                t.detected += b.detected
                totals[method] = t
                // Latencies come in the world's 50-ms steps: 0.3 s is six of them (read back as 0.30000000000000426).
                if method == .fused { #expect(try #require(b.latencyP95) <= 0.3 + 1e-9 && b.earlyDetections == 0) }
            }
        }
        let fused = try #require(totals[.fused]), range = try #require(totals[.range])
        #expect(Double(fused.right) / Double(fused.fired) >= 0.98, "\(fused)")
        #expect(Double(fused.detected) / Double(fused.contacts) >= 0.95, "\(fused)")
        #expect(Double(range.right) / Double(range.fired) < 0.7, "\(range)")
    }

    /// examples/bump-classes.json scored by class: every class's encounters counted once, the touch classes
    /// marked, and, under the fused detector (which never fires before a touch), the fired touches the contacts the
    /// detector found (two scorers, one answer). The range detector fires before the touch, the near field reading
    /// the phones at 0 m from 10-15 cm: its class table counts touches the contact scorer finds too early to
    /// count. Without scripted encounters there is no table.
    @Test func encountersAreScoredByClass() async throws {
        let file = try ScenarioFile.load(path: Self.examples + "/bump-classes.json")
        func run(_ method: BumpConfiguration.Method) async throws -> SimulationSummary {
            try await Simulation(settings: settings {
                $0.scenario = .scripted(file); $0.seed = 1; $0.rangingPolicy = .proximity; $0.bump.method = method
            }).run()
        }
        let expected: [EncounterClass: Int] = [.gentleTouch: 18, .hardTap: 18, .softStop: 6, .hardStop: 6, .fistBump: 6,
                                               .handshake: 6, .tableKnock: 6, .walkPast: 6]
        for method in [BumpConfiguration.Method.fused, .range] {
            let summary = try await run(method)
            let byClass = try #require(summary.bumps.byClass)
            #expect(byClass.count == 8)
            for (kind, count) in expected {
                let score = try #require(byClass[kind.rawValue])
                #expect(score.encounters == count && score.touch == kind.isTouch && score.fired <= count)
            }
            let firedOnTouches = byClass.values.filter(\.touch).map(\.fired).reduce(0, +)
            #expect(summary.bumps.trueContacts == 36)
            // The touches by the speed the world saw them close at: the gentle ones at 3.2-9.8 cm/s, the taps at
            // 31-79 cm/s, each in its band; the detected the same contacts the recall counts.
            #expect(summary.bumps.bySpeed.map(\.contacts) == [0, 18, 0, 18, 0])
            #expect(summary.bumps.bySpeed.map(\.detected).reduce(0, +) == summary.bumps.detected)
            #expect(summary.bumps.bySpeed.map(\.toMetresPerSecond) == [0.03, 0.1, 0.3, 1, nil])
            // Some encounters that are no touch fire (fist bumps, stops short): the table shows which.
            #expect(byClass.values.filter { !$0.touch }.map(\.fired).reduce(0, +) > 0)
            if method == .fused {
                #expect(summary.bumps.earlyDetections == 0)
                #expect(firedOnTouches == summary.bumps.detected, "\(firedOnTouches) against \(summary.bumps.detected)")
            } else {
                #expect(summary.bumps.earlyDetections > 0)
                #expect(firedOnTouches >= summary.bumps.detected, "\(firedOnTouches) against \(summary.bumps.detected)")
                #expect(firedOnTouches - summary.bumps.detected <= summary.bumps.falseBumps)
            }
        }
        let mingle = try await Simulation(settings: settings { $0.peers = 6; $0.duration = 3 }).run()
        #expect(mingle.bumps.byClass == nil)
    }

    /// With the accelerometers sampled from physics (docs/simulation.md): the detector reads the jolts' shape. At
    /// 100 Hz it catches every hard tap and most gentle touches (the gentlest push one phone under its 1 m/s²),
    /// rejects the braking, the shaking, the knocks and the walks, and tells only some fist bumps from a tap: both
    /// are one or two samples wide on a phone, but a fist bump's are two on both phones in two thirds of them, a
    /// touch's in under one in a hundred (`ClassFeatureTests`). At 400 Hz a fist bump's softer push is wider than any two phones' and the table
    /// tells all, but for a touch the radio's tail hides.
    @Test func theFusedDetectorOnSampledAccelerometers() async throws {
        let file = try ScenarioFile.load(path: Self.examples + "/bump-classes.json")
        var byRate: [Double: SimulationSummary] = [:]
        for rate in [100.0, 400.0] {
            // What the classes give, without the holders' swipes: a swipe under a gentle touch can hide it at any
            // rate (bump-classes at 400 Hz, seeds 1-3: 53 of 54 with them, docs/simulation.md).
            byRate[rate] = try await Simulation(settings: settings {
                $0.scenario = .scripted(file); $0.seed = 1; $0.rangingPolicy = .proximity; $0.sensors = .samples
                $0.imu.rate = rate
                $0.motion.own.screenSwipeRate = 0
            }).run()
        }
        let at100 = try #require(byRate[100]), at400 = try #require(byRate[400])
        #expect(at100.run.sensors == "samples" && at100.run[RunSettings.imuRate] == 100)
        let classes = try #require(at100.bumps.byClass)
        #expect(classes["hardTap"]?.fired == 18)
        #expect((classes["gentleTouch"]?.fired ?? 0) >= 12)
        #expect((classes["fistBump"]?.fired ?? 0) <= 3)
        for kind in ["softStop", "hardStop", "handshake", "tableKnock", "walkPast"] {
            #expect(classes[kind]?.fired == 0, "\(kind)")
        }
        #expect(try #require(at100.bumps.recall) >= 0.85)
        let faster = try #require(at400.bumps.byClass)
        // All but one gentle touch: at seed 1 one reading 1.09 m long (a gross outlier, docs/radio-model.md,
        // "The tail") puts a pair standing 0.59 m apart at 1.67 m, beyond the reach within which the planner ranges
        // a knocked pair at once, so the pair is not ranged during its touch 5 s later (18 of 18 without outliers).
        #expect(faster["fistBump"]?.fired == 0 && (faster["gentleTouch"]?.fired ?? 0) >= 17
                && faster["hardTap"]?.fired == 18)
        #expect(try #require(at400.bumps.precision) >= 0.95)
    }

    /// The detector on samples was built on bump-classes; touch-or-stop's touches are its waypoints' (no scripted
    /// encounter: the phones feel their cases meet where the path brings them within 8 cm) and its stops short are
    /// the waypoints' too. Over seeds 1-3 it finds every touch and fires on no stop (measured: 36 of 36, none).
    @Test func theSampledDetectorOnTouchOrStop() async throws {
        let file = try ScenarioFile.load(path: Self.examples + "/touch-or-stop.json")
        var fired = 0, detected = 0, falseBumps = 0
        for seed in 1...3 as ClosedRange<UInt64> {
            let b = try await Simulation(settings: settings {
                $0.scenario = .scripted(file); $0.seed = seed; $0.rangingPolicy = .proximity; $0.sensors = .samples
            }).run().bumps
            #expect(b.trueContacts == 12 && b.nearMisses == 24)
            fired += b.fired - b.unscoredBumps
            detected += b.detected
            falseBumps += b.falseBumps
        }
        #expect(detected >= 35 && falseBumps <= 1, "\(detected) detected, \(falseBumps) false of \(fired)")
    }

    /// The jolts cross the data channel: every message sent arrives on a lossless network and none is refused; the
    /// phones' clocks set 10 ms apart at most change no bump of touch-or-stop (measured: 12 of 12 either way), while
    /// clocks up to 300 ms apart hide most touches' pairs of jolts (the window is 30 ms; measured 3 of 12 found).
    @Test func joltsCrossTheDataChannelOnThePhonesClocks() async throws {
        let file = try ScenarioFile.load(path: Self.examples + "/touch-or-stop.json")
        var byOffset: [Double: SimulationSummary.Bumps] = [:]
        for offset in [0.0, 0.01, 0.3] {
            byOffset[offset] = try await Simulation(settings: settings {
                $0.scenario = .scripted(file); $0.seed = 1; $0.rangingPolicy = .proximity; $0.clockOffset = offset
            }).run().bumps
        }
        let synced = try #require(byOffset[0]), usual = try #require(byOffset[0.01]), apart = try #require(byOffset[0.3])
        let jolts = try #require(usual.jolts)
        #expect(jolts.sent > 0 && jolts.heard == jolts.sent && jolts.refused == 0, "\(jolts)")
        #expect(synced.detected >= 11 && usual.detected == synced.detected, "\(synced.detected) \(usual.detected)")
        #expect(apart.detected <= 4, "\(apart.detected) of \(apart.trueContacts)")
        // Without the detector that reads them, the apps send none.
        let range = try await Simulation(settings: settings {
            $0.scenario = .scripted(file); $0.seed = 1; $0.bump.method = .range
        }).run().bumps
        #expect(range.jolts == nil)
    }

    /// The mingle sensed from its physics: each phone's accelerometer follows the world's steps, the walks and the
    /// phones meeting, and the detector finds most touches and fires on nothing else (40 peers, 30 s: 44 touches).
    @Test func theMingleSensedFromItsPhysics() async throws {
        let b = try await Simulation(settings: settings {
            $0.peers = 40; $0.duration = 30; $0.seed = 1; $0.rangingPolicy = .proximity; $0.sensors = .samples
        }).run().bumps
        #expect(b.trueContacts >= 30)
        #expect(try #require(b.recall) >= 0.85, "\(b.detected) of \(b.trueContacts)")
        #expect(try #require(b.precision) >= 0.95, "\(b.falseBumps) false")
    }

    /// 60 people mingling for a minute: bodies stand between a good share of the pairs within 3 m (measured 76%:
    /// a holder's own body for about a third, and the crowd gathers where most lines cross someone), and never
    /// between two phones touching face to face.
    @Test func bodiesObstructInACrowdButNeverATouch() throws {
        let world = try World(scenario: .mingle, peers: 60, seed: 2)
        var near = 0, blocked = 0, touching = 0, touchingBlocked = 0
        for k in 1...600 {
            _ = world.advance(to: Double(k) / 10)
            let poses = world.poses
            let obstacles = Obstacles(holdersOf: poses, walls: [])
            if k % 10 == 0 {
                for i in 0..<60 {
                    for j in (i + 1)..<60 where (poses[i].position - poses[j].position).length < 3 {
                        near += 1
                        if !obstacles.between(poses[i].position, poses[j].position).isClear { blocked += 1 }
                    }
                }
            }
            for c in world.tracker.contacts where c.end == nil {
                touching += 1
                if !obstacles.between(poses[c.a].position, poses[c.b].position).isClear { touchingBlocked += 1 }
            }
        }
        #expect(touching > 300)
        #expect(touchingBlocked == 0)
        let share = Double(blocked) / Double(near)
        #expect(share > 0.2 && share < 0.8, "\(share) of \(near)")
    }

    /// Two people 3 m apart facing each other, and a wall between them in a second file: through the wall every
    /// exchange is obstructed (no direction, the distance read long by the excess path); without it none is.
    @Test func aWallBetweenTwoPeopleObstructsTheirLink() async throws {
        func run(walls: String) async throws -> SimulationSummary {
            let json = #"{"version": 1, "name": "wall", "peers": ["#
                + #"{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "facing": "B"}]}, "#
                + #"{"name": "B", "waypoints": [{"t": 0, "x": 3, "y": 0, "facing": "A"}]}], "walls": ["# + walls + "]}"
            let file = try ScenarioFile.parse(Data(json.utf8), file: "wall.json")
            return try await Simulation(settings: settings {
                $0.scenario = .scripted(file); $0.duration = 20; $0.radio.antennaDelaySigma = 0
            }).run()
        }
        let clear = try await run(walls: "")
        let walled = try await run(walls: #"{"x1": 1.5, "y1": -2, "x2": 1.5, "y2": 2, "loss": 3}"#)
        #expect(clear.direction.nilShare == 0 && walled.direction.nilShare == 1)
        #expect(try #require(clear.distanceRaw.p50) < 0.1)
        #expect(try #require(walled.distanceRaw.p50) > 0.2)
        // A 3-dB wall at 3 m keeps the link alive: the obstruction's own fifth is lost, and a little more.
        #expect(Double(walled.ranging.received) / Double(walled.ranging.exchanges) > 0.7)
    }

    /// A device limit of 4 active sessions among 11 peers: every device's app is told of the suspensions, the
    /// trace records them, and no update reaches a session while it is suspended.
    @Test(arguments: [SimulationSettings.RangingPolicy.roundRobin, .proximity])
    func sessionsOverTheDeviceLimitAreSuspendedAndToldSo(_ policy: SimulationSettings.RangingPolicy) async throws {
        let path = temporaryPath("limit-\(policy.rawValue).jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let summary = try await Simulation(settings: settings {
            $0.peers = 12; $0.duration = 20; $0.rangingPolicy = policy; $0.medium.sessionsPerDevice = 4
            $0.tracePath = path; $0.traceUpdateInterval = 0
        }).run()
        #expect(summary.ranging.suspensions >= 12 * 7)
        var suspended = Set<[Int]>()
        var began = Set<[Int]>()
        var told = 0
        var updates = 0
        var checks = 0
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let j = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            if j["type"] as? String == "air" {
                // At each round's end the limit has seen every session begun: never more than 4 of a device's
                // sessions active. (A session begun between rounds waits for the next to be admitted or suspended,
                // and does not range meanwhile.)
                for d in 0..<12 {
                    #expect(began.count(where: { $0[0] == d }) - suspended.count(where: { $0[0] == d }) <= 4)
                }
                checks += 1
                continue
            }
            guard let device = j["device"] as? Int, let peer = j["peer"] as? Int else { continue }
            switch (j["type"] as? String, j["event"] as? String) {
            case ("session", "began"): began.insert([device, peer])
            case ("session", "suspended"):
                #expect(!suspended.contains([device, peer]))
                suspended.insert([device, peer])
                told += 1
            case ("session", "resumed"): suspended.remove([device, peer])
            case ("update", _):
                updates += 1
                #expect(!suspended.contains([device, peer]), "an update for a suspended session")
            default: break
            }
        }
        #expect(checks == 20)
        #expect(told == summary.ranging.suspensions && updates > 1_000)
    }

    @Test func distanceFiguresMatchTheRadioModel() async throws {
        let summary = try await Simulation(settings: settings {
            $0.peers = 20; $0.duration = 30; $0.radio.linkModel = .lineOfSight
        }).run()
        // Line of sight only: raw errors are the 9 cm noise plus pair biases of 4.2 cm plus the orientation's bias
        // (up to 25 cm with both phones turned away: 13.5 cm RMS over orientations drawn at random, 12.5 cm on
        // average), about 16 cm RMS (beyond the 9 m range nothing is measured), and the tail's gross outliers
        // (0.05% of the readings, some 4 m² each at these distances: 0.002 m² more, 1.5 cm at this RMSE; seeds 1-5
        // measured 17.0 to 20.1 cm); the filter must do better.
        let raw = try #require(summary.distanceRaw.rmse)
        #expect(raw > 0.13 && raw < 0.22, "\(raw)")
        #expect(try #require(summary.distanceFiltered.rmse) < raw)
        #expect(try #require(summary.direction.p50Degrees) < 10)
    }

    /// The trace's first line is encoded, not assembled: a scenario name with a quote and a backslash still gives one
    /// valid JSON object, and it records every setting of the run.
    @Test func traceHeaderIsValidJSONWhateverTheScenarioName() async throws {
        let name = #"the "quoted" room \ west"#
        let scenario = #"{"version": 1, "name": "the \"quoted\" room \\ west", "peers": ["#
            + #"{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#
        let file = try ScenarioFile.parse(Data(scenario.utf8), file: "q.json")
        #expect(file.name == name)
        let path = temporaryPath("q.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await Simulation(settings: settings {
            $0.scenario = .scripted(file); $0.duration = 3; $0.tracePath = path; $0.version = "9.9.9"; $0.loss = 0.1
        }).run()
        let first = try #require(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").first)
        let header = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(header["type"] as? String == "run")
        let run = try #require(header["run"] as? [String: Any])
        #expect(run["scenario"] as? String == name)
        #expect(run["version"] as? String == "9.9.9" && run["loss"] as? Double == 0.1 && run["bumpDistance"] as? Double == 0.08)
        #expect((header["peerIDs"] as? [String])?.count == 2)
    }

    @Test func failedRunLeavesNoTrace() async throws {
        let path = temporaryPath("failed.jsonl")
        var s = SimulationSettings()
        s.peers = 3
        s.tracePath = path
        var multicast = MulticastConfiguration()
        multicast.interface = "nope0"
        await #expect(throws: MulticastSetupError.self) {
            try await Simulation(settings: s, udp: UDPCluster.maker(multicast: multicast)).run()
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix(URL(fileURLWithPath: path).lastPathComponent) }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: [
        ("peers", "--peers must be between 2 and 10000, got 1"),
        ("rate", "--rate must be between 0.5 and 100 Hz, got 0.0"),
        ("clock", "--clock virtual needs --transport memory: real sockets run in real time"),
        ("dropout", "radio configuration: lineOfSightDropout must be between 0 and 1, got 2.0"),
    ])
    func badSettingsAreNamed(_ setting: String, _ message: String) {
        var s = SimulationSettings()
        switch setting {
        case "peers": s.peers = 1
        case "rate": s.rate = 0
        case "clock": s.clock = .virtual
        default: s.radio.lineOfSightDropout = 2
        }
        do {
            try s.validate()
            Issue.record("accepted")
        } catch {
            #expect(error.description == message)
        }
    }

    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples").path
}
