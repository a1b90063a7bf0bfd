import Air
import DeviceInterface
import DiscoveryRun
import Geometry
import Planning
import Ranging
import World

/// The run's step, one a round: the world advances, the devices take in what they observe, plan and range, and
/// what happened is kept in order for ``Simulation/handOut(_:to:)``.
extension Simulation {
    func samplePoses(at time: Double, _ poses: [Pose], into out: inout StepOutput) {
        guard detail.contains(.poses), time - lastPoses >= settings.tracePoseInterval - 1e-9 else { return }
        lastPoses = time
        for (device, pose) in poses.enumerated() {
            out.happened(at: time, .pose(device: device, pose: pose))
        }
    }

    // MARK: - One round

    /// Advances the world and turns what the truth saw on the way into run events.
    func advanceWorld(to time: Double, into out: inout StepOutput) {
        record(world.advance(to: time), until: time, into: &out)
    }

    /// Only the oracle is told the truth: where everyone stands and who walks to whom (`-1`: nobody).
    func oracleTargets() -> [Int32] {
        settings.rangingPolicy.isOracle ? (0..<peers).map { Int32(world.partner(of: $0) ?? -1) } : []
    }

    /// Turns what the truth saw while the world ran to `time` into run events.
    func record(_ changes: [ContactChange], until time: Double, into out: inout StepOutput) {
        for change in changes {
            switch change {
            case .contactStarted(let c):
                out.happened(at: c.start, .contactStarted(device: c.a, peer: c.b))
            case .contactEnded(let c):
                out.happened(at: c.end ?? time, .contactEnded(device: c.a, peer: c.b, minimumDistance: c.minimumDistance))
            case .nearMiss(let m):
                out.happened(at: m.time, .nearMiss(device: m.a, peer: m.b, minimumDistance: m.minimumDistance,
                                                   gap: m.gap))
            }
        }
    }

    /// Hands out what a step saw happen, in the order it happened, to every observer, and sends what the devices
    /// sent.
    func handOut(_ out: StepOutput, to cluster: any Cluster) {
        for event in out.events { emit(event) }
        for m in out.messages { cluster.send(from: m.from, to: m.to, kind: m.kind, payload: m.payload) }
    }

    /// One round, the run's step: the world advances, the devices get what they observe at the round's start, plan
    /// and range, and the air and the distance bands are counted once a second. It touches no observer and no
    /// transport: it returns what happened and what the devices send, for ``handOut(_:to:)``.
    func step(at time: Double, engine: RoundEngine) -> StepOutput {
        var out = StepOutput()
        // The world may have run ahead since the last round (``WorldAhead``): it is this round's again from here.
        let ranAhead = ahead
        ahead = nil
        let aheadChanges = ranAhead?.finish() ?? []
        // Mingling peers choose among the peers they hold sessions with, as of the round's start.
        let sessions = running.snapshot()
        world.knows = { i, j in sessions.holds(i, j) }
        // The world runs a round ahead: an exchange planned at an offset into the round measures the positions at
        // its instant, between the round's start and end.
        if roundStart.isEmpty {
            advanceWorld(to: time, into: &out)
            roundStart = world.poses
        }
        let poses = roundStart
        // The round at the run's end ranges nothing: its exchanges would come after the end.
        let ranges = time < settings.duration - 1e-9
        // What the devices observe of the round's start, read before the world runs on: each phone's own speed as its
        // accelerometer tells it; and, for the oracle alone, who walks to whom.
        let speeds = ranges ? phones.speeds : []
        let targets = ranges ? ranAhead?.targets ?? oracleTargets() : []
        // What the devices take in of the round's start touches nothing of the world's: in a large room it runs on
        // one core while the world runs on through the round on the other.
        var start = StepOutput()
        let takeInStart = {
            // Pairs found or in session since the last round join the engine's before anything is planned for them.
            do {
                try engine.adoptMeetings()
            } catch {
                fatalError("out of memory for the random streams of new pairs: \(error)")
            }
            self.reach.place(poses, sessions: sessions, at: time)
            self.samplePoses(at: time, poses, into: &start)
            if ranges { self.readBluetooth(at: time, poses: poses, engine: engine) }
        }
        let target = time + 1 / settings.rate
        let changes = ranges
            ? aheadChanges + WorldAdvance.run(world, to: target, beside: settings.workers > 1
                                                  && peers >= WorldAdvance.besideFrom && world.time < target - 1e-12,
                                              takeInStart)
            : nil
        if changes == nil { takeInStart() }
        out.events += start.events
        if let changes {
            rangeRound(at: time, poses: poses, sessions: sessions, engine: engine, speeds: speeds, targets: targets,
                       changes: changes, into: &out)
        }
        if bands.isDue(at: time) {
            let received = bands.count(at: time, poses: poses, sessions: sessions, engine: engine)
            let second = airTally.takeSecond()
            out.happened(at: time, .air(exchanges: second.exchanges, collided: second.collided,
                                        receivedByBand: received))
        }
        if runsWorldAhead { runWorldAhead(after: time) }
        return out
    }

    /// Starts the world on the next round's run (``WorldAhead``) when there is one that ranges, at the time the
    /// rounds' clock will give it (``Cluster/repeatAt(rate:until:_:)``: the `k`th at `k / rate`).
    private func runWorldAhead(after time: Double) {
        let rate = settings.rate
        let k = (time * rate).rounded()
        guard Double(k) / rate == time, k + 1 <= (settings.duration * rate).rounded(.down) else { return }
        let next = Double(k + 1) / rate
        guard next < settings.duration - 1e-9 else { return }
        // The world stands at the next round's start: what the oracle is told of it is read now.
        ahead = WorldAhead(world, to: next + 1 / rate, targets: oracleTargets())
    }

    /// Once a reading interval, every pair's Bluetooth signal at the round's start; a pair found since the last
    /// reading is read at once: its devices found each other by their advertisements.
    func readBluetooth(at time: Double, poses: [Pose], engine: RoundEngine) {
        let everyPair = time - lastHeard >= settings.bluetooth.interval - 1e-9
        let first = everyPair ? 0 : signals.readings.count
        let pairs = engine.pairs
        if everyPair { lastHeard = time }
        guard first < pairs.count else { return }
        do {
            try signals.read(poses, from: first, pairs: pairs.count) { (Int(pairs[$0].low), Int(pairs[$0].high)) }
        } catch {
            fatalError("out of memory for the Bluetooth streams of \(pairs.count) pairs: \(error)")
        }
        phones.hear(signals.readings, from: first)
        record {
            (everyPair ? "bluetooth \(time) " : "bluetooth-found \(time) ")
                + signals.readings[first...].map { $0.isFinite ? "\($0)" : "-" }.joined(separator: ",")
        }
    }

    /// Plans the round at `time` from what the devices know (`speeds`, and for the oracle `targets`), lets the
    /// world's medium take out what collides, ranges the rest, and handles the bumps: each side sends its profile to
    /// the other, as the app does. `changes`: what the truth saw while the world ran through the round.
    func rangeRound(
        at time: Double, poses: [Pose], sessions: RunningSessions.Snapshot, engine: RoundEngine,
        speeds: [Float], targets: [Int32], changes: [ContactChange], into out: inout StepOutput
    ) {
        let interval = 1 / settings.rate
        let oracle = settings.rangingPolicy.isOracle
        record(changes, until: time + interval, into: &out)
        let end = world.poses
        roundStart = end
        // Each phone's latest tap up to the round's start (the world has felt a round further).
        let felt = feltImpacts(upTo: time + interval, handingOutTo: time)
        let taps = phones.taps(felt, upTo: time)
        let peerTaps = phones.peerTaps(upTo: time, taps: taps, within: settings.proximity.tapWindow)
        planner.plan(PlanningContext(time: time, interval: interval, sessions: sessions, pairs: engine.table,
                                     estimates: engine.estimates, bluetooth: phones.bluetooth.distances,
                                     bluetoothFloor: phones.bluetooth.floor, targets: targets,
                                     speeds: speeds, taps: taps, peerTaps: peerTaps, initiators: engine.initiators,
                                     truth: oracle ? poses : nil,
                                     outsideChanges: phones.bluetooth.revision &+ engine.estimatesRestarted),
                     into: &plan)
        record {
            // Under `ideal` the plan has no channels: each exchange's is 0.
            let channels = plan.channels + repeatElement(0, count: plan.exchanges.count - plan.channels.count)
            let heard = peerTaps.enumerated().flatMap { d, list in list.map { "\(d)<\($0.peer)@\($0.time)" } }
            return "plan \(time) speeds \(speeds) taps \(taps) heard \(heard) "
                + zip(plan.exchanges, channels).map { "\($0.pair):\($0.offset):\($1)" }.joined(separator: ",")
        }
        let positions = poses.map(\.position)
        let timers = settings.rangingPolicy.ownTimers
        if timers.applies, let air {
            // The frame-level figure the air is checked against, on a bounded share of a crowd's exchanges.
            let m = plan.exchanges.count
            let worked = air.expectedSurvival(plan, pairs: engine.pairs, initiators: engine.initiators,
                                              positions: positions, interval: interval, grouped: timers.chips,
                                              victims: max(1, 2_000 / max(m, 1)))
            // Weighted by the round's exchanges, as the simulated share is.
            if worked.count > 0 { airTally.expect((worked.sum / Double(worked.count) * Double(m), m)) }
        }
        air?.resolve(&plan, pairs: engine.pairs, initiators: engine.initiators, positions: positions,
                     interval: interval, circular: planner.roundIsCircular)
        airTally.count(plan, at: time, into: &out)
        let impacts = settings.bump.method == .fused ? felt : []
        record { "impacts \(time) \(impacts)" }
        // What the phones know goes before the engine writes its estimates: held through the round, it would make
        // the engine copy every pair's estimate each round (16 MB at 1,000 peers).
        let (heard, sent) = phones.shareJolts(
            at: time,
            known: PlanningContext(time: time, interval: interval, sessions: sessions, pairs: engine.table,
                                   estimates: engine.estimates, bluetooth: phones.bluetooth.distances,
                                   bluetoothFloor: phones.bluetooth.floor),
            into: &out.messages)
        for jolt in sent { record { "jolt-sent \(time) \(jolt.device) \(jolt.time)" } }
        let result = engine.round(plan, at: time, poses: poses, end: end, interval: interval, sessions: sessions,
                                  impacts: impacts, heard: heard,
                                  record: detail.contains(.updates) || deviceRecord != nil)
        for x in result.exchanges { deliver(x, into: &out) }
        // A round's bumps that share a phone are offered nearest first (then by pair), whatever order the workers
        // found them in; those taken go out in the workers' order, as before there was a choice.
        var taken = Array(repeating: true, count: result.bumps.count)
        for k in result.bumps.indices.sorted(by: { a, b in
            let (x, y) = (result.bumps[a], result.bumps[b])
            return (x.estimate, x.initiator, x.responder) < (y.estimate, y.initiator, y.responder)
        }) {
            let bump = result.bumps[k]
            taken[k] = phones.take(bump.jolts, initiator: bump.initiator, responder: bump.responder, at: time,
                                   estimate: bump.estimate, estimates: engine.estimates, pairs: engine.table)
        }
        for (k, bump) in result.bumps.enumerated() {
            guard taken[k] else {
                declinedBumps += 1
                record { "bump-declined \(time) \(bump.initiator) \(bump.responder)" }
                continue
            }
            out.happened(at: bump.time, .bump(device: bump.initiator, peer: bump.responder, estimate: bump.estimate,
                                          trueDistance: bump.trueDistance))
            out.messages += phones.didBump(initiator: bump.initiator, responder: bump.responder)
        }
    }

    /// Every phone's accelerometer impacts of the last seconds up to `time`: the labelled peaks, or the jolts each
    /// phone found in its own new samples (the app-testing library's apps are told the samples due by `now`).
    func feltImpacts(upTo time: Double, handingOutTo now: Double) -> [[Impact]] {
        guard settings.sensors == .samples else { return world.impacts }
        world.drainSamples { d, fresh, turns in phones.take(fresh, turns: turns, by: d, upTo: time, handingOutTo: now) }
        return phones.felt
    }

    /// Writes a line of the device record, made only when a test asks for it.
    @inline(__always)
    func record(_ line: () -> String) {
        if let deviceRecord { deviceRecord(line()) }
    }

    /// Both sides' updates of one exchange, as their apps receive them (`didUpdate`), and the haptic the reference
    /// app plays.
    func deliver(_ x: RangingExchange, into out: inout StepOutput) {
        let m = x.measurement
        for initiator in [true, false] {
            let (device, peer) = initiator ? (x.initiator, x.responder) : (x.responder, x.initiator)
            // The initiator delivers nothing of an exchange whose report it never received.
            guard let update = initiator ? x.atInitiator : x.atResponder else { continue }
            if let intensity = phones.didUpdate(device: device, peer: peer, update) {
                out.happened(at: x.time, .haptic(device: device, peer: peer, intensity: Double(intensity)))
            }
            let angle = initiator ? m.angleAtInitiator : m.angleAtResponder
            let reading = RunEvent.Reading(
                rawDistance: m.distance, rawHorizontalAngle: angle?.horizontalAngle, trueDistance: x.truth.distance,
                trueDirection: (initiator ? x.truth.bearingFromA : x.truth.bearingFromB).direction,
                initiator: initiator)
            out.happened(at: x.time, .session(device: device, peer: peer, event: .didUpdate(update), reading: reading))
        }
    }
}
