import Foundation

extension ReportData {
    /// Reads a trace file and gathers what the report shows.
    ///
    /// - Throws: ``ReportError`` naming the file (and the line) when it cannot be read, is not a trace (no `run`
    ///   header first), or a line is not a JSON object with `t` and `type`.
    package static func read(trace path: String) throws(ReportError) -> ReportData {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReportError(file: path, line: nil, problem: "does not exist")
        }
        guard !isDirectory.boolValue else { throw ReportError(file: path, line: nil, problem: "is a folder") }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReportError(file: path, line: nil, problem: "cannot be read (\((error as NSError).localizedDescription))")
        }
        return try parse(data, file: path)
    }

    /// Gathers the report from a trace's bytes.
    package static func parse(_ data: Data, file: String) throws(ReportError) -> ReportData {
        var builder = Builder()
        var number = 0
        var start = data.startIndex
        while start < data.endIndex {
            let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
            let bytes = data[start..<end]
            start = end < data.endIndex ? data.index(after: end) : end
            number += 1
            guard !bytes.isEmpty else { continue }
            guard let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any],
                  let t = (object["t"] as? NSNumber)?.doubleValue, let type = object["type"] as? String else {
                throw ReportError(file: file, line: number, problem: "is not a trace line (a JSON object with t and type)")
            }
            if number == 1 {
                guard type == "run", let run = object["run"] as? [String: Any] else {
                    throw ReportError(file: file, line: 1, problem: "is not a run header: not a nearcatch-sim trace")
                }
                builder.run = run
                builder.peers = (object["peerIDs"] as? [Any])?.count ?? (run["peers"] as? Int) ?? 0
                builder.every = max(run["traceEvery"] as? Int ?? 1, 1)
                continue
            }
            builder.take(t, type, object)
        }
        guard number > 0, builder.run != nil else { throw ReportError(file: file, line: nil, problem: "is empty") }
        return builder.finish(lines: number)
    }
}

/// Gathers a trace line by line.
private struct Builder {
    var run: [String: Any]?
    var summary: [String: Any]?
    var peers = 0
    /// The trace follows devices 0, `every`, 2 `every`, ... (the run's `traceEvery`).
    var every = 1
    var followed: Int { (peers + every - 1) / every }
    var poseTimes: [Double] = []
    var poses: [Double: (x: [Int32], y: [Int32], heading: [Int16])] = [:]
    var bumps: [ReportData.Mark] = []
    var nearMisses: [ReportData.Mark] = []
    var contacts: [ReportData.Contact] = []
    var open: [Int64: Int] = [:]
    /// Every update of an initiator (the pair's distance is filtered once, so one side tells it), by pair.
    var samples: [Int64: [ReportData.Sample]] = [:]
    var exchanged: [(time: Double, a: Int32, b: Int32)] = []
    var rawError = ReportData.Histogram(from: 0, width: 0.02, bins: 31)
    var filteredError = ReportData.Histogram(from: 0, width: 0.02, bins: 31)
    var directionError = ReportData.Histogram(from: 0, width: 3, bins: 31)
    var air: [(time: Double, exchanges: Int, collided: Int, received: [Int])] = []

    static func key(_ a: Int, _ b: Int) -> Int64 { Int64(min(a, b)) << 32 | Int64(max(a, b)) }

    mutating func take(_ t: Double, _ type: String, _ o: [String: Any]) {
        let device = o["device"] as? Int ?? -1
        let peer = o["peer"] as? Int ?? -1
        func number(_ name: String) -> Double? { (o[name] as? NSNumber)?.doubleValue }
        switch type {
        case "pose":
            guard device >= 0, device < peers, device % every == 0, let x = number("x"), let y = number("y") else { return }
            if poses[t] == nil {
                poseTimes.append(t)
                poses[t] = ([Int32](repeating: 0, count: followed), [Int32](repeating: 0, count: followed),
                            [Int16](repeating: 0, count: followed))
            }
            let slot = device / every
            poses[t]!.x[slot] = Int32((x * 100).rounded())
            poses[t]!.y[slot] = Int32((y * 100).rounded())
            poses[t]!.heading[slot] = Int16((number("heading") ?? 0).rounded())
        case "bump":
            bumps.append(.init(time: t, a: device, b: peer, value: number("estimate") ?? .nan,
                               trueDistance: number("trueDistance") ?? .nan))
        case "nearMiss":
            let m = number("minimumDistance") ?? .nan
            nearMisses.append(.init(time: t, a: device, b: peer, value: m, trueDistance: m))
        case "contactStart":
            open[Self.key(device, peer)] = contacts.count
            contacts.append(.init(a: min(device, peer), b: max(device, peer), start: t, end: nil))
        case "contactEnd":
            if let k = open.removeValue(forKey: Self.key(device, peer)) {
                let c = contacts[k]
                contacts[k] = .init(a: c.a, b: c.b, start: c.start, end: t)
            }
        case "update":
            guard device >= 0, peer >= 0 else { return }
            // Drawn between two followed devices only: the room shows no other.
            if device % every == 0, peer % every == 0 {
                exchanged.append((t, Int32(min(device, peer)), Int32(max(device, peer))))
            }
            guard let truth = number("trueDistance") else { return }
            let estimate = number("distance"), raw = number("rawDistance")
            if let raw { rawError.add(abs(raw - truth)) }
            if let estimate { filteredError.add(abs(estimate - truth)) }
            if let d = o["direction"] as? [NSNumber], let e = o["trueDirection"] as? [NSNumber], d.count == 3, e.count == 3 {
                let dot = zip(d, e).reduce(0.0) { $0 + $1.0.doubleValue * $1.1.doubleValue }
                directionError.add(acos(min(max(dot, -1), 1)) * 180 / .pi)
            }
            // The initiator's view, or the responder's when the trace does not follow the initiator.
            if o["initiator"] as? Bool ?? true || peer % every != 0 {
                samples[Self.key(device, peer), default: []].append(.init(time: t, estimate: estimate, raw: raw, truth: truth))
            }
        case "air":
            let sum = { (name: String) in (o[name] as? [Int] ?? []).reduce(0, +) }
            air.append((t, sum("exchanges"), sum("collided"), o["receivedByBand"] as? [Int] ?? []))
        case "summary":
            summary = o["summary"] as? [String: Any]
        default:
            break
        }
    }

    func finish(lines: Int) -> ReportData {
        let step = max(1, Int((Double(poseTimes.count) / Double(ReportData.frameLimit)).rounded(.up)))
        let kept = stride(from: 0, to: poseTimes.count, by: step).map { poseTimes[$0] }
        let frames = kept.map { t in
            let p = poses[t]!
            return ReportData.Frame(time: t, x: p.x, y: p.y, heading: p.heading)
        }
        // Who exchanged in each frame's interval (after the frame before, up to the frame), nearest the frame's
        // time last; each pair once.
        var links = [[Int32]](repeating: [], count: frames.count)
        var f = 0
        var seen = Set<Int64>()
        for e in exchanged.sorted(by: { $0.time < $1.time }) {
            while f < frames.count, e.time > frames[f].time + 1e-9 {
                f += 1
                seen.removeAll(keepingCapacity: true)
            }
            guard f < frames.count, links[f].count < 2 * ReportData.linksPerFrame,
                  seen.insert(Int64(e.a) << 32 | Int64(e.b)).inserted else { continue }
            links[f] += [e.a, e.b]
        }
        let events = (bumps + nearMisses).prefix(ReportData.seriesLimit)
        let series = events.map { m in
            (samples[Self.key(m.a, m.b)] ?? []).filter {
                $0.time >= m.time - ReportData.seriesBefore && $0.time <= m.time + ReportData.seriesAfter
            }
        }
        // Bump latency, matched as the summary matches: the first unmatched bump of the pair from 0.5 s before the
        // contact to 1 s after it ends.
        var latency = ReportData.Histogram(from: -0.5, width: 0.05, bins: 41)
        var used = Set<Int>()
        for c in contacts {
            let until = (c.end ?? .infinity) + 1
            if let k = bumps.indices.first(where: { k in
                !used.contains(k) && min(bumps[k].a, bumps[k].b) == c.a && max(bumps[k].a, bumps[k].b) == c.b
                    && bumps[k].time >= c.start - 0.5 && bumps[k].time <= until
            }) {
                used.insert(k)
                latency.add(bumps[k].time - c.start)
            }
        }
        return ReportData(
            run: run ?? [:], summary: summary, peers: peers, every: every, frames: frames, bumps: bumps, nearMisses: nearMisses,
            contacts: contacts, links: links, series: Array(series), rawError: rawError, filteredError: filteredError,
            directionError: directionError, latency: latency, air: air, lines: lines)
    }
}
