import Foundation
import Testing
@testable import World

/// A scenario file is read as a stream: limits refused where they are crossed, the memory it takes a small multiple
/// of the file's size, every refusal naming the field in the doc's words; other encodings, keys given twice and
/// special files refused.
@Suite struct ScenarioReadingTests {
    private static let two = #"{"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}"#

    private func error(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ScenarioFile.parse(Data(bytes), file: "s.json")
            return nil
        } catch {
            return error.description
        }
    }

    private func error(_ text: String) -> String? { error(Array(text.utf8)) }

    private func write(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).json").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func otherEncodingsAreRefusedByName() {
        let text = #"{"version": 1, "peers": []}"#
        #expect(error([0xEF, 0xBB, 0xBF] + Array(text.utf8))
            == "scenario file s.json starts with a byte order mark; save it as UTF-8 without one (JSON text has none)")
        let utf16 = "scenario file s.json is UTF-16 or UTF-32; save it as UTF-8, the encoding of JSON text"
        let littleEndian = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let bigEndian = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(error([0xFF, 0xFE] + littleEndian) == utf16)
        #expect(error([0xFE, 0xFF] + bigEndian) == utf16)
        #expect(error(littleEndian) == utf16)
        #expect(error(bigEndian) == utf16)
        // Latin-1 in a name: not UTF-8, named by its field.
        let latin1 = Array(#"{"version": 1, "peers": [{"name": "Zo"#.utf8) + [0xEB]
            + Array(#"", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, \#(Self.two)]}"#.utf8)
        #expect(error(latin1) == "scenario file s.json: peers[0].name must be valid UTF-8 (the file's encoding)")
        #expect(error([]) == "scenario file s.json is empty")
    }

    @Test(arguments: [
        (#"{"version": 1, "version": 1, "peers": []}"#, "scenario file s.json: version appears twice; a field is given once"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "x": 5, "y": 0}]}, \#(two)]}"#,
         "scenario file s.json: peers[0].waypoints[0].x appears twice; a field is given once"),
        (#"[{"version": 1}]"#,
         "scenario file s.json must be an object (the scenario, with the fields version, name, peers, walls, tables, encounters, motion), not a list"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 100001, "x": 0, "y": 0}]}, \#(two)]}"#,
         "scenario file s.json: peers[0].waypoints[0].t must be between 0 and 100000 seconds, got 100001.0"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": -1, "x": 0, "y": 0}]}, \#(two)]}"#,
         "scenario file s.json: peers[0].waypoints[0].t must be between 0 and 100000 seconds, got -1.0"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 1e6}]}, \#(two)]}"#,
         "scenario file s.json: peers[0].waypoints[0].y must be between -100000 and 100000 metres, got 1000000.0"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "heading": 1e400}]}, \#(two)]}"#,
         "scenario file s.json: peers[0].waypoints[0].heading must be a finite number, not one of over 308 digits"),
        (#"{"version": 1.5, "peers": []}"#, "scenario file s.json: version must be a whole number, not 1.5"),
        (#"{"version": 1, "peers": {}}"#, "scenario file s.json: peers must be a list, not an object"),
        (#"{"version": 1, "peers": [3]}"#,
         "scenario file s.json: peers[0] must be an object (a peer, with the fields name, interests, waypoints, carry, device), not a number"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, \#(two)], "walls": [{"x1": 0, "y1": 0, "x2": 1, "y2": 1e9}]}"#,
         "scenario file s.json: walls[0].y2 must be between -100000 and 100000 metres, got 1000000000.0"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, \#(two)]} x"#,
         "scenario file s.json is not valid JSON: text after the scenario's closing brace at byte 139, line 1"),
        (#"{"version": 01, "peers": []}"#, "scenario file s.json is not valid JSON: a number with a leading zero at byte 13, line 1"),
        ("{\"version\": 1,\n \"peers\": [NaN]}", "scenario file s.json is not valid JSON: 'N', which begins no JSON value, where an object (a peer, with the fields name, interests, waypoints, carry, device) should be at byte 27, line 2"),
        (#"{"version": 1, "peers": [{"name": "A\u0000"}]}"#, nil as String?),
    ])
    func refusalsNameTheFieldInTheDocsWords(_ json: String, _ message: String?) {
        if let message {
            #expect(error(json) == message)
        } else {
            // A NUL written as an escape is a character of the name; the peer then lacks its waypoints.
            #expect(error(json) == "scenario file s.json: peers must list at least 2 peers, not 1")
        }
    }

    @Test func escapesAreDecoded() throws {
        let json = #"{"version": 1, "name": "caf\u00e9 \ud83d\ude00 \"q\" \\ \/", "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, \#(Self.two)]}"#
        #expect(try ScenarioFile.parse(Data(json.utf8), file: "s.json").name == "café 😀 \"q\" \\ /")
        #expect(error(#"{"version": 1, "name": "\ud83d", "peers": []}"#)?.contains("a lone surrogate escape") == true)
    }

    @Test func limitsAreRefusedWhereTheyAreCrossedBeforeTheRestIsRead() throws {
        // 1,001 peers, then bytes that are not JSON: refused at the 1,001st, never reaching them.
        let peer = #"{"name": "P", "waypoints": [{"t": 0, "x": 0, "y": 0}]}"#
        let peers = (0...1000).map { peer.replacingOccurrences(of: "\"P\"", with: "\"p\($0)\"") }.joined(separator: ",")
        let text = #"{"version": 1, "peers": ["# + peers + ", \u{1}\u{2} not json at all"
        let path = try write(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ScenarioError(file: path, field: "peers", problem: "must list at most 1000 peers")) {
            try ScenarioFile.load(path: path)
        }
        // Waypoints past the file's total: the peer that crosses it is named.
        let many = (0...ScenarioFile.maximumWaypoints / 2).map { #"{"t":\#($0),"x":0,"y":0}"# }.joined(separator: ",")
        let big = #"{"version":1,"peers":[{"name":"A","waypoints":[\#(many)]},{"name":"B","waypoints":[\#(many)]}]}"#
        #expect(throws: ScenarioError(file: "s.json", field: "peers[1].waypoints",
                                      problem: "takes the file past 1000000 waypoints in all, the most a file holds")) {
            try ScenarioFile.parse(Data(big.utf8), file: "s.json")
        }
    }

    @Test func specialFilesAreRefusedByKindWithoutBeingOpened() throws {
        #expect(throws: ScenarioError(file: "/dev/zero", field: nil, problem: "is a character device, not a file")) {
            try ScenarioFile.load(path: "/dev/zero")
        }
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // Opening a FIFO with no writer would wait forever; it is refused first.
        #expect(throws: ScenarioError(file: fifo, field: nil, problem: "is a FIFO, not a file")) {
            try ScenarioFile.load(path: fifo)
        }
    }

    @Test func aFileReadInChunksIsTheSameAsOneParsedWhole() throws {
        // Waypoints and escapes straddle the 64 KiB chunks of a file of about 300 KB.
        let wps = (0..<4000).map { #"{"t":\#(Double($0) * 0.25),"x":\#(Double($0 % 7) * 0.5),"y":-1.5e-1,"heading":12.5}"# }
            .joined(separator: ",\n")
        let text = #"{"version": 1, "name": "long \u00e9", "peers": [{"name": "A", "waypoints": [\#(wps)]}, \#(Self.two)]}"#
        let path = try write(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try ScenarioFile.load(path: path)
        let parsed = try ScenarioFile.parse(Data(text.utf8), file: path)
        #expect(loaded == parsed)
        #expect(loaded.peers[0].waypoints.count == 4000)
        #expect(loaded.peers[0].waypoints[3999].t == 999.75)
        #expect(loaded.peers[0].waypoints[13].position.y == -0.15)
        #expect(loaded.name == "long é")
    }
}
