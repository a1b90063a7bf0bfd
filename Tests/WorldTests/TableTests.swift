import DeviceInterface
import Foundation
import Geometry
import Testing
@testable import World

/// Tables a scenario file declares: their checks, the phones lying on them, and a knock or a set-down rung up under
/// every phone on the struck table and no other.
@Suite struct TableTests {
    /// A phone lying flat, screen up, whose body's bottom is on a top at 0.7446 m (the slim case's 10.8 mm, halved).
    private static let lyingZ = 0.75
    private static let topHeight = 0.7446

    /// A and B lie 25 cm apart on the first table, C 81 cm from A on the same one, D on a second table 7 m away; E is
    /// held in the room. `tables` replaces the two tables; `encounter` is A's and B's (or E's and C's).
    private static func file(tables: String? = nil, encounter: String) -> String {
        let flat = #""pitch": -90}], "carry": "table""#
        let declared = tables
            ?? #"[{"x": 0.2, "y": 0, "height": \#(topHeight), "width": 1.4, "depth": 0.9, "mass": 20}, "#
            + #"{"x": 7, "y": 0, "height": \#(topHeight), "width": 1, "depth": 1}]"#
        return #"{"version": 1, "tables": \#(declared), "peers": ["#
            + #"{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "z": \#(lyingZ), \#(flat)}, "#
            + #"{"name": "B", "waypoints": [{"t": 0, "x": 0.25, "y": 0, "z": \#(lyingZ), \#(flat)}, "#
            + #"{"name": "C", "waypoints": [{"t": 0, "x": 0.7, "y": 0.4, "z": \#(lyingZ), \#(flat)}, "#
            + #"{"name": "D", "waypoints": [{"t": 0, "x": 7, "y": 0, "z": \#(lyingZ), \#(flat)}, "#
            + #"{"name": "E", "waypoints": [{"t": 0, "x": 0.9, "y": 0.3, "z": 0.95, "pitch": -90}]}], "#
            + #""encounters": [\#(encounter)]}"#
    }

    private static let knock = #"{"class": "tableKnock", "peers": ["A", "B"], "t": 1, "closingSpeed": 1, "#
        + #""minimumDistance": 0.25, "hold": 0.3}"#

    /// Each phone's largest departure from what it read at rest before 0.9 s, m/s², over the first `end` seconds.
    private func felt(_ text: String, until end: Double = 2.5) throws -> [Double] {
        try stilledDepartures(text, rest: 0.9, window: 0..<end, until: end).departures
    }

    /// docs/scenario-format.md's sample table, the one A, B and C lie on.
    private static func documented() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/scenario-format.md"), encoding: .utf8)
        let line = try #require(doc.split(separator: "\n").first { $0.hasPrefix(#""tables": "#) })
        return String(line.dropFirst(#""tables": "#.count))
    }

    /// The docs' sample table holds the phones as the docs say (lying flat at 0.75 m on a top at 0.7446 m), and a
    /// knock on it is felt by all three phones lying there.
    @Test func theDocumentedTableHoldsItsPhones() throws {
        let felt = try felt(Self.file(tables: try Self.documented(), encounter: Self.knock))
        #expect(felt[0] > 2 && felt[1] > 2 && felt[2] > 0.5 && felt[3] < 0.1, "\(felt)")
    }

    @Test func aFileReadsItsTables() throws {
        let file = try ScenarioFile.parse(Data(Self.file(encounter: Self.knock).utf8), file: "s.json")
        #expect(file.tables.count == 2)
        #expect(file.tables[0] == ScenarioFile.Table(centre: Vector3(0.2, 0, Self.topHeight), width: 1.4, depth: 0.9,
                                                     heading: 0, mass: 20))
        #expect(file.tables[1].mass == nil)
        // A turned table's width runs along its heading: 1 m long east-west at 0°, north-south at 90°.
        let turned = ScenarioFile.Table(centre: Vector3(0, 0, 0.7), width: 1, depth: 0.2, heading: .pi / 2)
        let phone = PhoneBody.iPhone15
        let flat = Orientation(heading: 0, pitch: -.pi / 2, roll: 0)
        let z = 0.7 + phone.box(centre: .zero, orientation: flat).radius(along: Vector3(0, 0, 1))
        #expect(turned.holds(phone.box(centre: Vector3(0, 0.45, z), orientation: flat)))
        #expect(!turned.holds(phone.box(centre: Vector3(0.45, 0, z), orientation: flat)))
        #expect(!turned.holds(phone.box(centre: Vector3(0, 0, z + 0.003), orientation: flat)))
    }

    @Test(arguments: [
        (#"[{"x": 0, "y": 0, "height": 0.7, "width": 1}]"#, "scenario file s.json: tables[0].depth is missing"),
        (#"[{"x": 0, "y": 0, "height": 0.7, "width": 0.05, "depth": 1}]"#,
         "scenario file s.json: tables[0].width must be between 0.1 and 20.0 metres, got 0.05"),
        (#"[{"x": 0, "y": 0, "height": 4, "width": 1, "depth": 1}]"#,
         "scenario file s.json: tables[0].height must be between 0.05 and 3.0 metres, got 4.0"),
        (#"[{"x": 0, "y": 0, "height": 0.7, "width": 1, "depth": 1, "mass": 0}]"#,
         "scenario file s.json: tables[0].mass must be between 0.1 and 10000 kg, got 0.0"),
        (#"[{"x": 0, "y": 0, "height": 0.7, "width": 1, "depth": 1, "colour": 3}]"#,
         #"scenario file s.json: tables[0].colour is not a field of a table (its fields: x, y, height, width, depth, heading, mass)"#),
    ])
    func aTableOutOfRangeIsRefusedByName(tables: String, problem: String) {
        do {
            _ = try ScenarioFile.parse(Data(Self.file(tables: tables, encounter: Self.knock).utf8), file: "s.json")
            Issue.record("accepted \(tables)")
        } catch {
            #expect(error.description == problem)
        }
    }

    /// A knuckle on the first table rings it up under A and B (a 40-g knuckle at 1 m/s over a 20-kg table: over
    /// 2 m/s² through the chip), and under C, which lies on it 80 cm away; D, on the other table, and E, held, feel
    /// nothing past their chips' noise (0.05 m/s²). A table ten times heavier rings up a tenth as much.
    @Test func aKnockRingsUpTheStruckTableUnderEveryPhoneOnIt() throws {
        let light = try felt(Self.file(encounter: Self.knock))
        // C's samples fall elsewhere on the knock's few milliseconds: a sample's phase sets how much of it shows.
        #expect(light[0] > 2 && light[1] > 2 && light[2] > 0.5, "\(light)")
        #expect(light[3] < 0.1 && light[4] < 0.1, "\(light)")
        let heavy = try felt(Self.file(
            tables: #"[{"x": 0.2, "y": 0, "height": \#(Self.topHeight), "width": 1.4, "depth": 0.9, "mass": 200}]"#,
            encounter: Self.knock))
        #expect(heavy[0] < light[0] / 5 && heavy[2] < light[2] / 5, "\(heavy) against \(light)")
        // Without the file's tables the knock makes a table under A and B alone: C no longer feels it.
        let made = try felt(Self.file(tables: "[]", encounter: Self.knock))
        #expect(made[0] > 2 && made[1] > 2 && made[2] < 0.1, "\(made)")
    }

    /// E sets her phone down on the first table beside C's: the table rings up under A, B and C, not under D.
    @Test func aSetDownRingsUpTheTableItLandsOn() throws {
        let down = #"{"class": "setDown", "peers": ["E", "C"], "t": 1, "closingSpeed": 0.3, "minimumDistance": 0.2, "#
            + #""hold": 1}"#
        let felt = try felt(Self.file(encounter: down), until: 2.6)
        #expect(felt[4] > 5, "\(felt)")
        #expect(felt[0] > 0.15 && felt[1] > 0.15 && felt[2] > 0.15, "\(felt)")
        #expect(felt[3] < 0.1, "\(felt)")
    }
}
