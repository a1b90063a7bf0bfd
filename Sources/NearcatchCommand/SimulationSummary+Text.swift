import Foundation
import Simulation
import World

extension SimulationSummary {
    /// The first line of the summary: what the run is, printed as the run starts.
    static func headerLine(_ run: Run) -> String {
        func g(_ x: Double?) -> String { String(format: "%g", x ?? 0) }
        return "nearcatch-sim \(run.version): \(run[RunSettings.peers] ?? 0) peers, \(run.scenario), "
            + "\(run.transport) transport, \(run.clock) clock, \(run[RunSettings.workers] ?? 0) workers, seed \(run.seed), "
            + "\(g(run[RunSettings.duration])) s at \(g(run[RunSettings.rate])) Hz, "
            + "\(run.planner) ranging, \(run.detector) detector, \(run.link) link, \(devices(run.devices)), "
            + (run[RunSettings.imuRate].map { "\(run.sensorProfile ?? "") sensors sampled at \(g($0)) Hz, " } ?? "")
            + (run.groupKey == "development" ? "development key (loopback only)" : "key \(run.groupKey)")
    }

    /// The devices' models: "generic devices", "iphone 50, pixel 50".
    static func devices(_ counts: [String: Int]) -> String {
        if counts.count == 1, let only = counts.keys.first { return "\(only) devices" }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    /// Counts by band of true distance, in centimetres: "3 up to 8 cm, 1 at 8-12 cm, 0 beyond 20 cm".
    static func bands(_ bands: [DistanceCount]) -> String {
        bands.map { band in
            let from = String(format: "%g", band.fromMetres * 100)
            guard let to = band.toMetres else { return "\(band.count) beyond \(from) cm" }
            return band.fromMetres == 0 ? "\(band.count) up to \(String(format: "%g", to * 100)) cm"
                : "\(band.count) at \(from)-\(String(format: "%g", to * 100)) cm"
        }.joined(separator: ", ")
    }

    /// Contacts detected by band of closing speed, "3/10 up to 3 cm/s, ..., 4/4 beyond 1 m/s".
    static func speeds(_ bands: [SpeedCount]) -> String {
        func speed(_ metresPerSecond: Double) -> String {
            metresPerSecond >= 1 ? String(format: "%g m/s", metresPerSecond)
                : String(format: "%g cm/s", metresPerSecond * 100)
        }
        return bands.map { band in
            let found = "\(band.detected)/\(band.contacts)"
            guard let to = band.toMetresPerSecond else { return "\(found) beyond \(speed(band.fromMetresPerSecond))" }
            guard band.fromMetresPerSecond > 0 else { return "\(found) up to \(speed(to))" }
            // One unit for both ends where they share it: "3-10 cm/s", "30 cm/s-1 m/s".
            let from = to < 1 ? String(format: "%g", band.fromMetresPerSecond * 100) : speed(band.fromMetresPerSecond)
            return "\(found) at \(from)-\(speed(to))"
        }.joined(separator: ", ")
    }

    /// The summary as lines for a terminal (all but the header line when that was printed at the start).
    var text: String { text(header: true) }

    func text(header: Bool) -> String {
        func cm(_ x: Double?) -> String { x.map { String(format: "%.1f", $0 * 100) } ?? "-" }
        func deg(_ x: Double?) -> String { x.map { String(format: "%.1f", $0) } ?? "-" }
        func pct(_ x: Double?) -> String { x.map { String(format: "%.1f%%", $0 * 100) } ?? "-" }
        func s(_ x: Double?) -> String { x.map { String(format: "%.2f s", $0) } ?? "-" }
        func count(_ n: Int, _ one: String, _ many: String? = nil) -> String { "\(n) " + (n == 1 ? one : many ?? one + "s") }
        var lines: [String] = []
        if header { lines.append(Self.headerLine(run)) }
        if let reached = run.interruptedAt {
            let duration = String(format: "%g", run[RunSettings.duration] ?? 0)
            lines.append("interrupted at \(String(format: "%.1f", reached)) of \(duration) s: "
                + "the figures cover the time run (a trace is written only for a whole run)")
        }
        lines.append("")
        let converged = discovery.convergenceSeconds.map { "converged in \(s($0))" } ?? "did not converge"
        if let reach = discovery.withinReach {
            let range = reach.range.map { "within reach (\(String(format: "%.1f", $0)) m)" } ?? "within reach"
            lines.append("discovery   \(range), at most \(reach.maximumSessions) sessions a device: \(converged); "
                + "\(discovery.pairs) pairs, \(reach.pairs) within reach at the end: \(reach.sessions) sessions "
                + "running there of at most \(reach.fillable), \(discovery.sessions) in all")
        } else {
            lines.append("discovery   \(converged); \(discovery.pairs) pairs, "
                + "\(discovery.sessions) of \(discovery.expectedSessions) sessions running at the end")
        }
        lines.append("ranging     \(ranging.exchanges) exchanges, \(ranging.received) received, "
            + "\(ranging.updatesDelivered) updates delivered"
            + (ranging.collided > 0 ? "; \(ranging.collided) lost to collisions" : "")
            + (ranging.suspensions > 0 ? "; \(count(ranging.suspensions, "suspension")) by the device limit" : ""))
        let air = ranging.airtime
        lines.append("air         \(air.model.map { "\($0): " } ?? "")the plan asked for \(String(format: "%.0f", air.demandPerSecond)) exchanges/s; "
            + "\(count(air.channels, "channel")) carr\(air.channels == 1 ? "ies" : "y") "
            + "\(String(format: "%.0f", air.capacityPerSecond)) (\(air.slotsPerExchange) slots each): "
            + (air.overCapacity <= 1.5 ? "\(String(format: "%.0f%%", air.overCapacity * 100)) of the air"
                : air.perChannel.isEmpty || ranging.collided > 0
                ? "\(String(format: "%.0f", air.overCapacity)) times the air there is"
                : "\(String(format: "%.1f", air.overCapacity)) times one room's air, slots shared beyond the interference range")
            + air.perChannel.map { c in
                (c.airShare <= 1.5 ? String(format: "; channel %d %.0f%% used", c.channel, c.airShare * 100)
                    : c.collided > 0 ? String(format: "; channel %d asked for %.0f times its air", c.channel, c.airShare)
                    : String(format: "; channel %d used %.1f times over by distance", c.channel, c.airShare))
                    + (c.collided > 0 ? String(format: ", %.0f%% of its exchanges collided",
                                               Double(c.collided) / Double(max(c.exchanges, 1)) * 100) : "")
            }.joined()
            + (air.survival.map { survival in
                String(format: "; %.1f%% survived", survival * 100)
                    + (air.expectedSurvival.map { String(format: " (%.1f%% expected frame by frame)", $0 * 100) } ?? "")
            } ?? "")
            + ((air.reportsLost ?? 0) > 0 ? "; \(air.reportsLost ?? 0) reports lost" : ""))
        lines.append("rate        exchanges per pair per second by true distance: " + ranging.bands.map { band in
            "\(String(format: "%g", band.fromMetres))-\(String(format: "%g", band.toMetres)) m "
                + (band.perPairPerSecond.map { String(format: $0 < 0.1 ? "%.3f" : "%.1f", $0) } ?? "-")
        }.joined(separator: ", "))
        lines.append("age         p95 age of the estimate an app holds, by true distance: " + ranging.bands.map { band in
            "\(String(format: "%g", band.fromMetres))-\(String(format: "%g", band.toMetres)) m "
                + (band.ageP95.map { String(format: $0 < 10 ? "%.2f s" : "%.0f s", $0) } ?? "-")
                + (band.withoutEstimateShare.map { $0 >= 0.005 ? String(format: " (%.0f%% none)", $0 * 100) : "" } ?? "")
        }.joined(separator: ", "))
        lines.append("distance    raw rmse \(cm(distanceRaw.rmse)) cm, p50 \(cm(distanceRaw.p50)) cm, p95 \(cm(distanceRaw.p95)) cm; "
            + "filtered rmse \(cm(distanceFiltered.rmse)) cm, p50 \(cm(distanceFiltered.p50)) cm, p95 \(cm(distanceFiltered.p95)) cm")
        lines.append("direction   p50 \(deg(direction.p50Degrees))°, p95 \(deg(direction.p95Degrees))°, "
            + "none in \(pct(direction.nilShare)) of updates")
        // The bumps NearCatch declined (one push, one bump) only when there were some: most runs have none.
        let declined = bumps.declined.flatMap { $0 > 0 ? " (\($0) more declined: their push had made a bump)" : nil } ?? ""
        lines.append("bumps       \(bumps.fired) fired\(declined), \(bumps.detected) of \(bumps.trueContacts) true contacts detected "
            + "(precision \(pct(bumps.precision)), recall \(pct(bumps.recall))); latency p50 \(s(bumps.latencyP50)), "
            + "p95 \(s(bumps.latencyP95)); \(bumps.earlyDetections) fired before the touch began")
        lines.append("            \(count(bumps.falseBumps, "false bump")), by true distance at firing: "
            + Self.bands(bumps.falseByTrueDistance) + "; \(count(bumps.nearMisses, "near miss", "near misses")), "
            + "by closest approach: " + Self.bands(bumps.nearMissesByDistance))
        lines.append("            \(count(bumps.brushes, "brush", "brushes")); "
            + "\(count(bumps.unscoredBumps, "bump")) on touches that began in the last second (not scored); "
            + "\(count(bumps.profilesDelivered, "profile")) delivered"
            + (bumps.jolts.map { "; jolts sent \($0.sent), heard \($0.heard), refused \($0.refused)" } ?? ""))
        if bumps.bySpeed.contains(where: { $0.contacts > 0 }) {
            lines.append("by speed    touches detected by closing speed: " + Self.speeds(bumps.bySpeed))
        }
        if let byClass = bumps.byClass {
            // The scripted encounters' classes, each as fired of encountered, touches first.
            func scores(touch: Bool) -> String {
                let classes = EncounterClass.allCases.filter { $0.isTouch == touch && byClass[$0.rawValue] != nil }
                return classes.isEmpty ? "none" : classes.map { kind in
                    "\(kind.rawValue) \(byClass[kind.rawValue]!.fired)/\(byClass[kind.rawValue]!.encounters)"
                }.joined(separator: ", ")
            }
            lines.append("by class    fired on touches: \(scores(touch: true)); on the rest: \(scores(touch: false))")
        }
        if let byPose = bumps.byPose {
            // Each pose family named by the file: touches found of those felt, and bumps where the phones stayed apart.
            lines.append("by pose     " + byPose.keys.sorted().map { name in
                let p = byPose[name]!
                return "\(name) touches \(p.detected)/\(p.contacts) (from 3 cm/s \(p.detectedFrom3cmps)/\(p.contactsFrom3cmps)), "
                    + "fired apart \(p.firedApart)/\(p.apart)"
            }.joined(separator: "; "))
        }
        lines.append("performance \(String(format: "%.2f", performance.wallSeconds)) s wall, "
            + "\(String(format: "%.0f", performance.updatesPerSecond)) updates/s, real-time factor "
            + "\(String(format: "%.1f", performance.realTimeFactor)), peak memory \(String(format: "%.0f", performance.peakMemoryMB)) MB"
            + (traceLines.map { "; trace \($0) lines" } ?? ""))
        return lines.joined(separator: "\n")
    }
}
