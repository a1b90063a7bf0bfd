import Benchmark
import Foundation
import RangingBench

/// The suite. Names use letters, digits and hyphens only: package-benchmark 1.38.1 writes a threshold file under a
/// shell-safe version of the name but looks it up under the name itself, so a name with spaces is never checked.
/// Each round benchmark's iteration is one round of every pair at the given crowd (2 session updates
/// per pair); tools/bench turns the wall-clock medians into session updates per second and the two ratios.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 200,
        // Allocations are the guarded property: absolute counts per iteration, stored per Swift version under
        // Thresholds/ and checked by `tools/bench --check` (only this metric: wall clock on a shared machine is
        // information). A round allocates a fixed handful whatever the crowd; the slack of 8 absorbs the odd
        // buffer growth, while one allocation more per measurement (9,900 a round) fails.
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 8])]
    )
    let workers = ProcessInfo.processInfo.activeProcessorCount

    // (a) one round of 4,950 pairs through the full pipeline, and the two references.
    Benchmark("round-100-peers-pipeline") { benchmark, room in
        for _ in benchmark.scaledIterations { blackHole(room.next()) }
    } setup: { try RoomState(peers: 100, workers: workers) }

    // The same round with every pair within range (a 6 m hall): every exchange does all its work.
    Benchmark("round-100-peers-all-in-range") { benchmark, room in
        for _ in benchmark.scaledIterations { blackHole(room.next()) }
    } setup: { try RoomState(peers: 100, workers: workers, areaPerPeer: 0.01) }

    Benchmark("round-100-peers-naive-baseline", configuration: .init(maxIterations: 20)) { benchmark, naive in
        for _ in benchmark.scaledIterations { await naive.round() }
    } setup: { try NaiveRoom(peers: 100) }

    Benchmark("round-100-peers-compute-floor") { benchmark, floor in
        for _ in benchmark.scaledIterations { blackHole(floor.round()) }
    } setup: { try ComputeFloor(peers: 100, workers: workers) }

    // (b) session set-up: discovery to 9,900 running sessions, in memory.
    Benchmark(
        "setup-100-peers-memory",
        // About 1.3 million allocations (datagrams and dictionaries of discovery); 1% of slack.
        configuration: .init(maxIterations: 10, thresholds: [.mallocCountTotal: .init(absolute: [.p90: 3_200])])
    ) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try setUpSessions(peers: 100)) }
    }

    // (c) session-table operations.
    for peers in [100, 1000] {
        Benchmark("table-\(peers)-peers-insert-lookup-replace") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(tableOperations(peers: peers)) }
        }
    }

    // (d) scaling: a round at 10, 100, 300 and 1,000 peers.
    for peers in [10, 300, 1000] {
        Benchmark("round-\(peers)-peers-pipeline", configuration: .init(maxIterations: peers >= 1000 ? 20 : 200)) {
            benchmark, room in
            for _ in benchmark.scaledIterations { blackHole(room.next()) }
        } setup: { try RoomState(peers: peers, workers: workers) }
    }

    // (f) the policies of the air (docs/airtime.md): a round planned and ranged, and its planning alone, in the
    // standing mingle hall with every session running. Under the air's policies a round ranges about ten
    // exchanges; what the planner costs is the question (at most a tenth of a round's 100 ms at 1,000 peers).
    for policy in [RoomState.Policy.uncoordinated, .roundRobin, .proximity] {
        for peers in [100, 1000] {
            let iterations = peers >= 1000 ? 20 : 200
            Benchmark("round-\(policy.rawValue)-\(peers)-peers", configuration: .init(maxIterations: iterations)) {
                benchmark, room in
                for _ in benchmark.scaledIterations { blackHole(room.next()) }
            } setup: { try RoomState(peers: peers, workers: workers, policy: policy) }
            Benchmark("plan-\(policy.rawValue)-\(peers)-peers", configuration: .init(maxIterations: iterations)) {
                benchmark, room in
                for _ in benchmark.scaledIterations { blackHole(room.nextPlan()) }
            } setup: { try RoomState(peers: peers, workers: workers, policy: policy) }
        }
    }

    // (e) whole runs: discovery, the steady announcements and 10 Hz ranging together, in memory on the virtual
    // clock, as `nearcatch-sim --transport memory` runs them. One iteration is one run; tools/bench divides the
    // simulated seconds by the wall clock (the real-time factor). Allocation counts are information here.
    // Both last the CLI's default 60 s, start included: a 1,000-peer run is then about a minute, run twice (the
    // JSON export needs two samples).
    for peers in [100, 1000] {
        let seconds = 60.0
        Benchmark(
            "whole-run-\(peers)-peers-\(Int(seconds))s-memory",
            configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
                                 warmupIterations: peers >= 1000 ? 0 : 1,
                                 maxIterations: peers >= 1000 ? 2 : 10, thresholds: [:])
        ) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try await wholeRun(peers: peers, seconds: seconds)) }
        }
    }

    // (f) an app test: 20 devices mingling for 60 simulated seconds, each running the example app's session
    // manager against NearbySimulator (issue 12's aim: under a second of wall clock). Allocations are information.
    Benchmark(
        "app-room-20-devices-60s",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident], maxIterations: 10,
                             thresholds: [:])
    ) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try appRoom(devices: 20, seconds: 60)) }
    }

    // (h) a member's flood of a million fake ids: the resident memory it grows the process by stays under
    // `floodGrowthLimitMB` (the benchmark fails past it: FakeIdFlood.swift); one iteration, a minute or two.
    Benchmark(
        "flood-1m-fake-ids",
        configuration: .init(metrics: [.wallClock, .peakMemoryResident], warmupIterations: 0, maxIterations: 1,
                             thresholds: [:])
    ) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try fakeIdFlood()) }
    }

    // (g) an iOS app's own file through Apple's frameworks' faces: 30 devices mingling for 60 simulated seconds, each
    // running examples/nearcatch-app's session manager (issue 24's aim: under 2 s of wall clock).
    Benchmark(
        "apple-faces-30-devices-60s",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident], maxIterations: 10,
                             thresholds: [:])
    ) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try appleFacesRoom(devices: 30, seconds: 60)) }
    }
}

