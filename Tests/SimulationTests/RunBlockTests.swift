import Foundation
import Simulation
import Testing
import TestSupport

/// The summary's `run` block and its schema follow from the settings' declarations (``RunSettings``): a new setting
/// reaches both without being written there. To bring the schema in line after a declaration changed, run
/// `NEARCATCH_RECORD_SCHEMA=1 swift test --filter RunBlockTests`: the test rewrites the trace schema's run block
/// from the declarations (keeping the facts' entries as written) instead of comparing it.
@Suite struct RunBlockTests {
    static let schemaPath = TraceTests.schemaPath

    private static func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    /// The facts' keys: every field of a run's facts, its optional ones set.
    private static var factKeys: Set<String> {
        get throws {
            var run = SimulationSummary.Run(settings: SimulationSettings())
            run.interruptedAt = 1
            run.traceEvery = 2
            return Set(try object(run.facts).keys)
        }
    }

    private static var settingsOfEveryKind: SimulationSettings {
        var s = SimulationSettings()
        s.transport = .memory
        s.sensors = .samples
        s.discoveryRange = 20
        s.workers = 3
        s.imu.rate = 400
        return s
    }

    @Test func theRunBlockHasTheFactsAndEveryReportedSetting() throws {
        let run = SimulationSummary.Run(settings: Self.settingsOfEveryKind)
        let json = try Self.object(run)
        let declared = Set(RunSettings.reported.compactMap { $0.reporting?.key })
        #expect(declared.count == RunSettings.reported.count, "two declarations report under one key")
        #expect(try Self.factKeys.isDisjoint(with: declared), "a setting reports under a fact's key")
        #expect(Set(json.keys) == declared.union(try Self.factKeys).subtracting(["interruptedAt", "traceEvery"]))
        #expect(json["imuRate"] as? Double == 400 && json["workers"] as? Int == 3)
        #expect(json["discoveryRange"] as? Double == 20)
        #expect(run[RunSettings.imuRate] == 400 && run[RunSettings.peers] == 100)
        // A declaration that reports nothing has no value in the block.
        #expect(run[RunSettings.traceDevices] == nil && RunSettings.traceDevices.reporting == nil)
        let decoded = try JSONDecoder().decode(SimulationSummary.Run.self, from: JSONEncoder().encode(run))
        #expect(decoded == run)
    }

    @Test func aSettingIsLeftOutWhereItsDeclarationSaysSo() throws {
        var s = SimulationSettings()
        s.sensors = .peaks
        s.transport = .udp
        let json = try Self.object(SimulationSummary.Run(settings: s))
        #expect(json["imuRate"] == nil && json["clockOffset"] == nil && json["discoveryRange"] == nil)
        #expect(json["maximumSessions"] as? Int == 100 && json["duration"] as? Double == 60)
    }

    @Test func aReadBackValueOfTheWrongKindIsRefused() throws {
        var json = try Self.object(SimulationSummary.Run(settings: Self.settingsOfEveryKind))
        json["peers"] = 2.5
        let data = try JSONSerialization.data(withJSONObject: json)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SimulationSummary.Run.self, from: data) }
        // A number setting written as a whole number reads back as that number.
        json["peers"] = 10
        json["duration"] = 30
        let run = try JSONDecoder().decode(SimulationSummary.Run.self,
                                           from: JSONSerialization.data(withJSONObject: json))
        #expect(run[RunSettings.duration] == 30 && run[RunSettings.peers] == 10)
    }

    /// The trace's first line leaves out what cannot change it: the worker count.
    @Test func theTraceLeavesOutTheSettingsThatCannotChangeIt() {
        #expect(SimulationSummary.Run.keysOutOfTheTrace == ["workers"])
    }

    /// The schema's run block: the facts as written, each setting the trace reports as its declaration says, and
    /// nothing else.
    @Test func theSchemasRunBlockFollowsTheDeclarations() throws {
        var schema = try Self.readSchema()
        let inTrace = RunSettings.reported.filter { $0.reporting?.inTrace == true }
        let declaredKeys = Set(RunSettings.reported.compactMap { $0.reporting?.key })
        var block = try #require(schema.runBlock)
        var properties = try #require(block["properties"] as? [String: Any])
        let facts = properties.filter { !declaredKeys.contains($0.key) }
        let required = Set(block["required"] as? [String] ?? [])
        let expectedRequired = required.subtracting(declaredKeys)
            .union(inTrace.compactMap { $0.reporting?.absentUnless == nil ? $0.reporting?.key : nil })
        if ProcessInfo.processInfo.environment["NEARCATCH_RECORD_SCHEMA"] == "1" {
            properties = facts
            for setting in inTrace { properties[setting.reporting?.key ?? ""] = setting.schemaProperty }
            block["properties"] = properties
            block["required"] = expectedRequired.sorted()
            schema.runBlock = block
            try schema.write()
            return
        }
        // An interrupted run writes no trace.
        #expect(Set(facts.keys) == (try Self.factKeys).subtracting(["interruptedAt"]),
                "the schema's facts are not the run's facts")
        for setting in RunSettings.reported {
            let key = try #require(setting.reporting?.key)
            guard setting.reporting?.inTrace == true else {
                #expect(properties[key] == nil, "\(key) is not in the trace")
                continue
            }
            let written = try #require(properties[key] as? [String: Any], "the schema misses \(key)")
            #expect(try Self.canonical(written) == Self.canonical(setting.schemaProperty),
                    "\(key): the schema is not its declaration (NEARCATCH_RECORD_SCHEMA=1 rewrites it)")
        }
        #expect(required == expectedRequired)
    }

    /// The documented fields of the summary (docs/simulation.md) name every reported setting.
    @Test func theDocumentedRunBlockNamesEveryReportedSetting() throws {
        let docs = try String(contentsOf: URL(fileURLWithPath: Self.schemaPath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("simulation.md"), encoding: .utf8)
        let row = try #require(docs.split(separator: "\n").first { $0.hasPrefix("| `run` |") })
        for key in RunSettings.reported.compactMap({ $0.reporting?.key }) {
            #expect(row.contains("`\(key)`"), "docs/simulation.md's run row does not name \(key)")
        }
    }

    /// JSON text with sorted keys, read back once so that a whole-number `Double` and an `Int` read alike.
    private static func canonical(_ object: [String: Any]) throws -> String {
        let once = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        let again = try JSONSerialization.data(withJSONObject: JSONSerialization.jsonObject(with: once),
                                               options: [.sortedKeys])
        return String(decoding: again, as: UTF8.self)
    }

    private static func readSchema() throws -> SchemaText {
        SchemaText(text: try String(contentsOfFile: schemaPath, encoding: .utf8), path: schemaPath)
    }
}

/// The trace schema's text, with its run block (`$defs.run.properties.run`) read and replaced in place, so that the
/// rest of the file keeps its hand-written layout.
private struct SchemaText {
    var text: String
    let path: String

    /// The block's span: from its opening brace to its closing one.
    private var span: Range<String.Index>? {
        guard let definition = text.range(of: "\n    \"run\": {"),
              let inner = text.range(of: "\n        \"run\": {", range: definition.upperBound..<text.endIndex)
        else { return nil }
        let open = text.index(before: inner.upperBound)
        var depth = 0
        var inString = false
        var escaped = false
        var i = open
        while i < text.endIndex {
            let c = text[i]
            if inString {
                if escaped {
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    inString = false
                }
            } else if c == "\"" {
                inString = true
            } else if c == "{" {
                depth += 1
            } else if c == "}" {
                depth -= 1
                if depth == 0 { return open..<text.index(after: i) }
            }
            i = text.index(after: i)
        }
        return nil
    }

    var runBlock: [String: Any]? {
        get {
            guard let span else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(text[span].utf8))) as? [String: Any]
        }
        set {
            guard let span, let newValue else { return }
            text.replaceSubrange(span, with: Self.layout(newValue))
        }
    }

    func write() throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    /// The block as the file writes it: its keywords a line each, each property on one line.
    private static func layout(_ block: [String: Any]) -> String {
        let indent = "          "
        let properties = (block["properties"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key }
            .map { "\(indent)  \(inline($0.key)): \(inline($0.value))" }.joined(separator: ",\n")
        return "{\n\(indent)\"type\": \"object\",\n\(indent)\"required\": \(inline(block["required"] ?? [])),\n"
            + "\(indent)\"additionalProperties\": false,\n"
            + "\(indent)\"properties\": {\n\(properties)\n\(indent)}\n        }"
    }

    private static let keywordOrder = ["type", "const", "enum", "exclusiveMinimum", "minimum", "maximum", "description"]

    private static func inline(_ value: Any) -> String {
        switch value {
        case let object as [String: Any]:
            let keys = object.keys.sorted {
                (keywordOrder.firstIndex(of: $0) ?? keywordOrder.count, $0)
                    < (keywordOrder.firstIndex(of: $1) ?? keywordOrder.count, $1)
            }
            return "{ " + keys.map { "\(inline($0)): \(inline(object[$0] ?? NSNull()))" }.joined(separator: ", ") + " }"
        case let array as [Any]:
            return "[" + array.map(inline).joined(separator: ", ") + "]"
        default:
            let options: JSONSerialization.WritingOptions = [.fragmentsAllowed, .withoutEscapingSlashes]
            let data = (try? JSONSerialization.data(withJSONObject: value, options: options)) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
