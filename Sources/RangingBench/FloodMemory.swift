import Foundation
import Adversaries

/// What a member's flood of a million fake ids may grow the process's resident memory by, MB: every node's tables
/// and queues stay bounded (FakeIdFloodTests checks them), so what remains is the allocator's own slack.
public let floodGrowthLimitMB = 64.0

/// A flood that grew the process's memory past ``floodGrowthLimitMB``: the benchmark fails with it.
public struct FloodGrewTooMuch: Error, CustomStringConvertible {
    public let grownMB: Double
    public var description: String {
        "a million fake ids grew resident memory by \(grownMB) MB (limit \(floodGrowthLimitMB))"
    }
}

/// The process's resident memory now, MB (/proc/self/status).
private func residentMB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? .infinity) / 1024
}

/// A member's flood of `fakes` ids (``FakeIdFlood``, module Adversaries): how far the resident memory rose above
/// where it stood once the two real nodes had converged, MB, at most, sampled every 50,000 fakes and at the end.
///
/// - Throws: ``FloodGrewTooMuch`` past ``floodGrowthLimitMB``.
public func fakeIdFlood(fakes: Int = 1_000_000) throws -> Double {
    var before = 0.0
    var peak = 0.0
    _ = try FakeIdFlood(fakes: fakes).run(converged: {
        before = residentMB()
        peak = before
    }, every50000: { peak = max(peak, residentMB()) })
    peak = max(peak, residentMB())
    let grown = peak - before
    let said = "flood: \(fakes) fake ids; resident memory \(before) MB before, at most \(peak) MB (\(grown) MB more)\n"
    FileHandle.standardError.write(Data(said.utf8))
    guard grown < floodGrowthLimitMB else { throw FloodGrewTooMuch(grownMB: grown) }
    return grown
}
