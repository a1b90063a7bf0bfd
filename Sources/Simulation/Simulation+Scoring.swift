import DiscoveryRun
import Foundation
import Geometry
import Planning
import Ranging
import World

/// Scoring: the summary of a run from the engine's statistics, the air counted, the distance bands and the bumps
/// against the truth's contacts (``BumpScore``). The one place the run's figures are made.
extension Simulation {
    /// Discovery's figures: over the whole group, or, when the reach or the session limit bounded it, within reach.
    private func discoveryFigures(convergence: Double?, sessions: Int) -> SimulationSummary.Discovery {
        let pairs = peers * (peers - 1) / 2
        guard reach.limited else {
            return .init(convergenceSeconds: convergence, pairs: pairs, sessions: sessions, expectedSessions: 2 * pairs)
        }
        let end = reach.count(finalSessions ?? running.snapshot())
        return .init(convergenceSeconds: reach.convergedAt, pairs: pairs, sessions: sessions,
                     expectedSessions: 2 * pairs,
                     withinReach: .init(range: reach.reach?.range, pairs: end.pairs, sessions: end.sessions,
                                        fillable: end.fillable, maximumSessions: settings.maximumSessions))
    }

    func summarise(
        _ outcome: ClusterPacer.Outcome, engine: RoundEngine, convergence: Double?, sessions: Int, wall: Double
    ) -> SimulationSummary {
        let end = outcome.interrupted ? outcome.reached : settings.duration
        let stats = engine.statistics
        func figures(_ squares: Double, _ count: Int, _ h: Histogram) -> SimulationSummary.ErrorFigures {
            SimulationSummary.ErrorFigures(
                rmse: count > 0 ? (squares / Double(count)).squareRoot() : nil, p50: h.quantile(0.5),
                p95: h.quantile(0.95), count: count)
        }
        let collided = airTally.collided.reduce(0, +)
        let bumps = tally.bumps
        let score = BumpScore(bumps: bumps, tracker: world.tracker, end: end)
        let directionTotal = Double(stats.updates)
        var run = runInfo
        run.interruptedAt = outcome.interrupted ? outcome.reached : nil
        return SimulationSummary(
            run: run,
            discovery: discoveryFigures(convergence: convergence, sessions: sessions),
            ranging: .init(exchanges: stats.exchanges + collided, received: stats.received, collided: collided,
                           suspensions: airTally.suspensions, updatesDelivered: stats.updates,
                           sessionsRenewed: stats.sessionsRenewed,
                           // Over the rounds run: each plans a round's air (the one at the end ranges nothing and is not counted).
                           airtime: airtime(exchanges: stats.exchanges + collided,
                                            over: Double(airTally.rounds) / settings.rate),
                           bands: bandFigures(stats.receivedByBand)),
            distanceRaw: figures(stats.rawSquares, stats.rawCount, stats.raw),
            distanceFiltered: figures(stats.filteredSquares, stats.filteredCount, stats.filtered),
            direction: .init(p50Degrees: stats.direction.quantile(0.5).map(Self.degrees(fromHalfChord:)),
                             p95Degrees: stats.direction.quantile(0.95).map(Self.degrees(fromHalfChord:)),
                             nilShare: directionTotal > 0 ? Double(stats.directionMissing) / directionTotal : 0),
            bumps: .init(
                fired: bumps.count, declined: phones.takesOneBumpAPush ? declinedBumps : nil,
                trueContacts: score.contacts, detected: score.detected,
                precision: bumps.count == score.unscored ? nil
                    : Double(score.matchedBumps) / Double(bumps.count - score.unscored),
                recall: score.contacts == 0 ? nil : Double(score.detected) / Double(score.contacts),
                latencyP50: score.latency(0.5), latencyP95: score.latency(0.95), earlyDetections: score.early,
                unscoredBumps: score.unscored,
                falseBumps: bumps.count - score.matchedBumps - score.unscored,
                falseByTrueDistance: Self.bands(score.falseByTrueDistance, from: 0, BumpScore.falseBandLimits, to: nil),
                nearMisses: world.tracker.nearMisses.count,
                nearMissesByDistance: Self.bands(score.nearMissesByDistance, from: 0,
                                                 BumpScore.nearMissBandLimits, to: world.tracker.nearMissDistance),
                brushes: score.brushes,
                bySpeed: score.contactsBySpeed.indices.map { b in
                    let limits = BumpScore.closingSpeedLimits
                    return .init(fromMetresPerSecond: b == 0 ? 0 : limits[b - 1],
                                 toMetresPerSecond: b < limits.count ? limits[b] : nil,
                                 contacts: score.contactsBySpeed[b], detected: score.detectedBySpeed[b])
                },
                profilesDelivered: tally.profiles,
                byClass: classScores(bumps, end: end),
                byPose: poseScores(bumps, score: score, end: end),
                jolts: phones.sendsJolts
                    ? .init(sent: phones.joltsSent, heard: phones.inbox.heard, refused: phones.inbox.refused) : nil),
            performance: .init(wallSeconds: wall, updatesPerSecond: wall > 0 ? Double(stats.updates) / wall : 0,
                               realTimeFactor: wall > 0 ? end / wall : 0, peakMemoryMB: Self.peakMemoryMB()),
            // Set once the trace is published: an interrupted or failed run wrote none.
            traceLines: nil)
    }

    /// Each class of scripted encounter, and on how many of those begun by `end` a bump fired for the pair, from
    /// the encounter's start to a second after its end; `nil` without scripted encounters.
    func classScores(_ bumps: [RangingBump], end: Double) -> [String: SimulationSummary.ClassScore]? {
        let scripted = world.scriptedEncounters
        guard !scripted.isEmpty else { return nil }
        var scores: [String: SimulationSummary.ClassScore] = [:]
        for (script, gesture, _) in scripted where script.t < end {
            let pair = (min(script.a, script.b), max(script.a, script.b))
            let window = script.t...(gesture.end + 1)
            let fired = bumps.contains { b in
                (min(b.initiator, b.responder), max(b.initiator, b.responder)) == pair && window.contains(b.time)
            }
            var score = scores[script.kind.rawValue] ?? .init(encounters: 0, fired: 0, touch: script.kind.isTouch)
            score.encounters += 1
            if fired { score.fired += 1 }
            scores[script.kind.rawValue] = score
        }
        return scores
    }

    /// Each pose family a file's encounters name (``EncounterScript/pose``): the true contacts of an encounter's
    /// pair that began within it (from its start to a second after its end) and how many were found, in all and
    /// closing at 3 cm/s or more, and the encounters whose phones never touched and how many a bump fired on; `nil`
    /// without a named pose.
    func poseScores(_ bumps: [RangingBump], score: BumpScore, end: Double) -> [String: SimulationSummary.PoseScore]? {
        let named = world.scriptedEncounters.filter { $0.script.pose != nil && $0.script.t < end }
        guard !named.isEmpty else { return nil }
        var scores: [String: SimulationSummary.PoseScore] = [:]
        for (script, gesture, _) in named {
            let pair = (min(script.a, script.b), max(script.a, script.b))
            let window = script.t...(gesture.end + 1)
            var pose = scores[script.pose!] ?? .init()
            pose.encounters += 1
            let met = score.scored.filter { ($0.contact.a, $0.contact.b) == pair && window.contains($0.contact.start) }
            for (contact, detected) in met {
                pose.contacts += 1
                if detected { pose.detected += 1 }
                if let speed = contact.closingSpeed, speed >= BumpScore.closingSpeedLimits[0] {
                    pose.contactsFrom3cmps += 1
                    if detected { pose.detectedFrom3cmps += 1 }
                }
            }
            let touched = world.tracker.contacts.contains { ($0.a, $0.b) == pair && window.contains($0.start) }
            if !touched {
                pose.apart += 1
                if bumps.contains(where: { b in
                    (min(b.initiator, b.responder), max(b.initiator, b.responder)) == pair && window.contains(b.time)
                }) { pose.firedApart += 1 }
            }
            scores[script.pose!] = pose
        }
        return scores
    }

    /// Counts by band: from `from` to the first limit, between limits, and from the last to `to` (`nil`: open).
    static func bands(
        _ counts: [Int], from: Double, _ limits: [Double], to: Double?
    ) -> [SimulationSummary.DistanceCount] {
        counts.indices.map { b in
            SimulationSummary.DistanceCount(fromMetres: b == 0 ? from : limits[b - 1],
                                            toMetres: b < limits.count ? limits[b] : to, count: counts[b])
        }
    }

    func bandFigures(_ received: [Int]) -> [SimulationSummary.Band] {
        RoundEngine.bandLimits.indices.map { b in
            SimulationSummary.Band(
                fromMetres: b == 0 ? 0 : RoundEngine.bandLimits[b - 1], toMetres: RoundEngine.bandLimits[b],
                pairSeconds: bands.pairSeconds[b], received: received[b],
                perPairPerSecond: bands.pairSeconds[b] > 0 ? Double(received[b]) / bands.pairSeconds[b] : nil,
                ageP50: bands.sample.ages[b].quantile(0.5), ageP95: bands.sample.ages[b].quantile(0.95),
                withoutEstimateShare: bands.sample.pairs[b] > 0
                    ? Double(bands.sample.withoutEstimate[b]) / Double(bands.sample.pairs[b]) : nil)
        }
    }

    /// The exchanges asked for against what the medium carries.
    func airtime(exchanges: Int, over seconds: Double) -> SimulationSummary.Airtime {
        let scheme = settings.radio.scheme
        let capacity = settings.medium.capacityPerSecond(scheme)
        let demand = seconds > 0 ? Double(exchanges) / seconds : 0
        let duration = settings.medium.exchangeDuration(scheme)
        let attempted = airTally.exchanges.reduce(0, +)
        return SimulationSummary.Airtime(
            channels: settings.medium.channels, slotsPerExchange: settings.medium.slotsPerExchange(scheme),
            capacityPerSecond: capacity, demandPerSecond: demand, overCapacity: capacity > 0 ? demand / capacity : 0,
            interferenceRange: settings.medium.interferenceRange,
            perChannel: !settings.rangingPolicy.modelsTheAir ? [] : airTally.exchanges.indices.map { c in
                SimulationSummary.ChannelUse(
                    channel: c + 1, exchanges: airTally.exchanges[c], collided: airTally.collided[c],
                    airShare: seconds > 0 ? Double(airTally.exchanges[c]) * duration / seconds : 0)
            },
            model: settings.rangingPolicy.air,
            captureThreshold: settings.rangingPolicy.modelsTheAir ? settings.medium.captureThreshold : nil,
            survival: attempted > 0 && settings.rangingPolicy.modelsTheAir
                ? 1 - Double(airTally.collided.reduce(0, +)) / Double(attempted) : nil,
            expectedSurvival: airTally.expectedCount > 0
                ? airTally.expectedSum / Double(airTally.expectedCount) : nil,
            reportsLost: settings.rangingPolicy.modelsTheAir ? airTally.reportsLost : nil)
    }

    /// The angle between two unit vectors whose chord is twice `halfChord`: 2 asin(halfChord), in degrees.
    static func degrees(fromHalfChord halfChord: Double) -> Double {
        Angle.degrees(fromRadians: 2 * asin(min(halfChord, 1)))
    }

    static func peakMemoryMB() -> Double {
        var usage = rusage()
        #if os(Linux)
        // Glibc spells the constant as an enum case and counts kilobytes.
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
        #else
        // Darwin counts bytes.
        getrusage(RUSAGE_SELF, &usage)
        return Double(usage.ru_maxrss) / 1_048_576
        #endif
    }
}
