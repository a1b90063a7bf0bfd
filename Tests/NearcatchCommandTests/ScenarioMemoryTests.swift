import Foundation
import Testing

/// A large scenario file costs memory in proportion to what it describes, not ten times its size: the program's
/// peak resident memory while it reads (and refuses, at its last waypoint) a file of 250,000 waypoints, measured by
/// the kernel (`ru_maxrss` of the child, through Python's `resource`), against the same program refusing a tiny one.
@Suite struct ScenarioMemoryTests {
    private func peakMB(_ scenario: String) throws -> (mb: Double, said: String) {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let binary = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("nearcatch-sim").path
        let measure = """
            import resource, subprocess, sys
            p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
            print(p.stderr.splitlines()[0] if p.stderr else "")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", measure, binary, "--scenario", scenario, "--transport", "memory"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        process.waitUntilExit()
        return (Double(lines.first ?? "") ?? .infinity, lines.count > 1 ? String(lines[1]) : "")
    }

    @Test func aLargeFileTakesASmallMultipleOfItsSize() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var text = #"{"version":1,"peers":["#
        for peer in 0..<250 {
            let waypoints = (0..<1000).map { k in
                #"{"t":\#(Double(k) * 0.1),"x":\#(Double((peer * 7 + k) % 3000) / 100),"y":\#(Double((peer * 13 + k) % 3000) / 100)}"#
            }
            text += (peer > 0 ? "," : "") + #"{"name":"p\#(peer)","waypoints":["# + waypoints.joined(separator: ",") + "]}"
        }
        text += "]}"
        // The last waypoint breaks a rule: the whole file is read, then refused, and nothing runs.
        text = text.replacingOccurrences(of: #"{"t":99.9,"x":"#, with: #"{"t":200000,"x":"#, options: .backwards,
                                         range: text.index(text.endIndex, offsetBy: -200)..<text.endIndex)
        let big = folder + "/big.json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: big))
        let small = folder + "/small.json"
        try Data(#"{"version": 2, "peers": []}"#.utf8).write(to: URL(fileURLWithPath: small))
        let sizeMB = Double(text.utf8.count) / 1_048_576
        let (bigPeak, bigSaid) = try peakMB(big)
        let (smallPeak, smallSaid) = try peakMB(small)
        #expect(bigSaid.hasSuffix("peers[249].waypoints[999].t must be between 0 and 100000 seconds, got 200000.0"), "\(bigSaid)")
        #expect(smallSaid.hasSuffix("version must be 1, not 2"), "\(smallSaid)")
        // About 8 MB of text and 250,000 waypoints of 72 bytes (18 MB) read, then checked into 64-byte ones as the
        // raw ones are let go; the decoder before took about 90 times the file's size.
        #expect(bigPeak - smallPeak <= 4 * sizeMB, "peak \(bigPeak) MB against \(smallPeak) MB for a \(sizeMB) MB file")
    }
}
