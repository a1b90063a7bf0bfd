import DeviceInterface
import Foundation
import Geometry
import Testing
import TestSupport
@testable import World

@Suite struct WorldTests {
    /// 100 mingling peers for 120 s: the truth sees exactly the planned touches (as contacts of the bodies, backs
    /// together) and the planned near misses (at their gap), and nothing else: strangers keep their distance.
    @Test func mingleMakesExactlyThePlannedTouchesAndNearMisses() throws {
        let world = try World(scenario: .mingle, peers: 100, seed: 3)
        _ = world.advance(to: 120)
        let finished = world.finishedEncounters
        let touches = finished.filter { $0.kind == .touch }
        let misses = finished.filter { $0.kind == .nearMiss }
        // About five encounters a peer (540 here): an approach that stopped a hair above the gesture's start stalled
        // there for the rest of the run, and 108 finished.
        #expect(finished.count > 400)
        let ended = world.tracker.contacts.filter { $0.end != nil }
        let contacts = ended.filter { $0.duration! >= ContactTracker.minimumTouchDuration }
        let brushes = ended.count - contacts.count
        let nearMisses = world.tracker.nearMisses
        // Every contact held is a planned touch, finished or ending as the run stops; every finished touch is one.
        let planned = Set((finished + world.encounters.compactMap { $0 }).filter { $0.kind == .touch }
            .map { [min($0.a, $0.b), max($0.a, $0.b)] })
        #expect(contacts.allSatisfy { planned.contains([$0.a, $0.b]) })
        // The two hands close at the gesture's speed each: the truth sees the backs meet at twice it.
        #expect(contacts.allSatisfy { abs($0.closingSpeed! - 2 * world.mingle.gestureSpeed) < 1e-9 })
        #expect(Set(contacts.map { [$0.a, $0.b] }).count == contacts.count)
        #expect(contacts.count >= touches.count && contacts.count <= touches.count + world.encounters.compactMap { $0 }.count)
        // Strangers are nudged toward 0.6 m apart a few centimetres at a time, never shoved through a neighbour:
        // a stranger's phone touches another rarely if ever.
        #expect(brushes <= touches.count / 100)
        #expect(nearMisses.count >= misses.count)
        for touch in touches {
            let contact = try #require(contacts.first { ($0.a, $0.b) == (min(touch.a, touch.b), max(touch.a, touch.b)) })
            // Upright, backs toward each other: the centres are a phone's depth apart when the backs touch.
            #expect(abs(contact.minimumDistance - world.phone.size.z) < 1e-6)
            #expect(touch.gap == 0)
            // Held about half a second at the gap, plus the last and first centimetres of the gesture.
            #expect(contact.end! - contact.start >= touch.hold && contact.end! - contact.start <= touch.hold + 0.6)
        }
        // Every planned near miss is seen at its planned gap; crowding adds a few unplanned ones, which are real
        // approaches that a detector must also stay quiet on.
        for miss in misses {
            #expect(nearMisses.contains {
                ($0.a, $0.b) == (min(miss.a, miss.b), max(miss.a, miss.b)) && abs($0.gap - miss.gap) < 1e-6
            })
            #expect(miss.gap >= world.mingle.nearMissGap.lowerBound && miss.gap <= world.mingle.nearMissGap.upperBound)
        }
        let share = Double(misses.count) / Double(finished.count)
        #expect(abs(share - 0.25) < 0.1)
        #expect(world.hallSide == 20)
    }

    @Test func minglersOnlyChooseDiscoveredPeers() throws {
        let world = try World(scenario: .mingle, peers: 20, seed: 1)
        world.knows = { _, _ in false }
        _ = world.advance(to: 30)
        #expect(world.encounters.isEmpty)
        #expect(world.tracker.contacts.isEmpty)
    }

    /// A round run ahead stops before the step that pairs people up (the only one that asks who knows whom), and the
    /// round finished from there sees what one run through would: the same changes, poses and samples, over 40
    /// rounds of a sensed mingle in which the two worlds' answers to `knows` differ whenever a run ahead would ask.
    @Test func aRoundRunAheadUntilPairingThenFinishedIsTheSameRound() throws {
        let clocks = (0..<30).map { _ in DeviceClock(uptimeAtStart: 100, rate: 0) }
        let whole = try World(scenario: .mingle, peers: 30, seed: 5)
        let split = try World(scenario: .mingle, peers: 30, seed: 5)
        try whole.startSensing(clocks: clocks, seed: 5)
        try split.startSensing(clocks: clocks, seed: 5)
        var asked = 0, pairedAhead = 0, ahead = 0
        for k in 0..<40 {
            let knows: (Int, Int) -> Bool = { i, j in (i + j + k) % 3 != 0 }
            whole.knows = knows
            split.knows = { _, _ in
                asked += 1
                return false
            }
            let target = Double(k + 1) / 10
            let first = split.advanceBeforePairing(to: target)
            if split.time < target - 1e-12 { pairedAhead += 1 } else { ahead += 1 }
            #expect(asked == 0)
            split.knows = knows
            let rest = split.advance(to: target)
            #expect(first + rest == whole.advance(to: target))
            #expect(split.poses == whole.poses && split.time == whole.time)
        }
        // Pairing every 0.25 s: the rounds that hold a pairing step stop short, the others run through.
        #expect(pairedAhead >= 12 && ahead >= 20, "\(pairedAhead) rounds stopped short, \(ahead) ran through")
        var wholeSamples: [[AccelerometerSample]] = [], splitSamples: [[AccelerometerSample]] = []
        whole.drainSamples { _, fresh, _ in wholeSamples.append(fresh) }
        split.drainSamples { _, fresh, _ in splitSamples.append(fresh) }
        #expect(wholeSamples.count == 30 && wholeSamples.allSatisfy { $0.count > 300 })
        #expect(wholeSamples == splitSamples)
        #expect(whole.tracker.contacts.count == split.tracker.contacts.count)
    }

    @Test func sameSeedSameWorld() throws {
        let a = try World(scenario: .mingle, peers: 30, seed: 5)
        let b = try World(scenario: .mingle, peers: 30, seed: 5)
        let c = try World(scenario: .mingle, peers: 30, seed: 6)
        #expect(a.advance(to: 40) == b.advance(to: 40))
        _ = c.advance(to: 40)
        #expect(a.poses == b.poses)
        #expect(a.poses != c.poses)
        #expect(a.interests.allSatisfy { $0.count == 3 })
    }

    @Test func randomWaypointStaysInTheHall() throws {
        let world = try World(scenario: .randomWaypoint, peers: 50, seed: 2)
        _ = world.advance(to: 60)
        #expect(world.poses.allSatisfy { $0.position.x >= 0 && $0.position.x <= world.hallSide })
        #expect(world.encounters.isEmpty)
    }

    @Test func scriptedPeersFollowTheirWaypoints() throws {
        let json = """
            {"version": 1, "name": "two", "peers": [
              {"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "facing": "B"}, {"t": 2, "x": 1, "y": 0, "facing": "B"}]},
              {"name": "B", "interests": ["jazz"], "waypoints": [{"t": 0, "x": 2, "y": 0, "z": 1.0, "heading": 180}]}
            ]}
            """
        let file = try ScenarioFile.parse(Data(json.utf8), file: "two.json")
        let world = try World(scenario: .scripted(file), peers: 0, seed: 1)
        #expect(world.peerCount == 2 && world.interests == [[], ["jazz"]])
        // The waypoints place the phones' bodies; the poses are their antennas, inside the bodies.
        _ = world.advance(to: 1)
        #expect((world.bodies[0].position - Vector3(0.5, 0, 1.2)).length < 1e-9)
        let toB = (world.bodies[1].position - world.bodies[0].position).normalized
        #expect((world.bodies[0].orientation.boresight - toB).length < 1e-9)
        _ = world.advance(to: 5)
        #expect((world.bodies[0].position - Vector3(1, 0, 1.2)).length < 1e-9)
        #expect((world.bodies[1].orientation.boresight - Vector3(-1, 0, 0)).length < 1e-9)
        for (body, antenna) in zip(world.bodies, world.poses) {
            let box = world.phone.box(centre: body.position, orientation: body.orientation)
            #expect(box.contains(antenna.position) && antenna.orientation == body.orientation)
            #expect(abs((antenna.position - body.position).length - world.phone.antenna.length) < 1e-12)
        }
    }
}

@Suite struct ContactTrackerTests {
    /// Two phones upright, backs toward each other, `gap` apart between their backs.
    static func backToBack(gap: Double, phone: PhoneBody = .iPhone15) -> [OrientedBox] {
        let a = Vector3(5, 5, 1), b = Vector3(5 + phone.size.z + gap, 5, 1)
        return [phone.box(centre: a, orientation: .facing(b, from: a)),
                phone.box(centre: b, orientation: .facing(a, from: b))]
    }

    @Test func contactThenNearMiss() {
        var tracker = ContactTracker()
        var changes: [ContactChange] = []
        // Two phones' backs close in until they touch (and press 0.5 mm into each other's cases), part, come back
        // to 15 cm, part.
        let gaps = [1.0, 0.4, 0.2, 0, -0.0005, 0.3, 0.7, 0.3, 0.15, 0.3, 0.9]
        for (k, gap) in gaps.enumerated() {
            changes += tracker.observe(Self.backToBack(gap: gap), at: Double(k))
        }
        let depth = PhoneBody.iPhone15.size.z
        #expect(tracker.contacts.count == 1)
        #expect(tracker.contacts[0].start == 3 && tracker.contacts[0].end == 5)
        #expect(abs(tracker.contacts[0].minimumDistance - (depth - 0.0005)) < 1e-12)
        #expect(tracker.nearMisses.count == 1)
        #expect(tracker.nearMisses[0].time == 8 && abs(tracker.nearMisses[0].gap - 0.15) < 1e-9)
        #expect(abs(tracker.nearMisses[0].minimumDistance - (0.15 + depth)) < 1e-12)
        #expect(changes.count == 3)
    }

    /// Top to top, 2 cm apart, the centres are 17 cm apart: no contact, a near miss of 2 cm; side by side the same
    /// centres' distance is far apart. What touches is the bodies, not a distance between centres.
    @Test func theBodiesTouchNotTheCentres() {
        let phone = PhoneBody.iPhone15
        func pair(_ centres: Double, topToTop: Bool) -> [OrientedBox] {
            let up = Orientation(heading: .pi / 2, pitch: -.pi / 2)
            let a = Vector3(0, 0, 1), b = Vector3(0, centres, 1)
            let down = Orientation(right: -up.right, top: -up.top, screen: up.screen)
            return [phone.box(centre: a, orientation: up), phone.box(centre: b, orientation: topToTop ? down : up)]
        }
        // Lying flat, screens up: the first's top toward +y; the second turned round, tops facing.
        var tracker = ContactTracker()
        for (k, centres) in [0.4, phone.size.y + 0.02, 0.4, 1.0].enumerated() {
            _ = tracker.observe(pair(centres, topToTop: true), at: Double(k))
        }
        #expect(tracker.contacts.isEmpty && tracker.nearMisses.count == 1)
        #expect(abs((tracker.nearMisses.first?.gap ?? 0) - 0.02) < 1e-9)
        var touching = ContactTracker()
        for (k, centres) in [0.4, phone.size.y, 0.4, 1.0].enumerated() {
            _ = touching.observe(pair(centres, topToTop: true), at: Double(k))
        }
        #expect(touching.contacts.count == 1 && touching.nearMisses.isEmpty)
    }

    @Test func distantPairsAreNeverChecked() {
        var tracker = ContactTracker()
        let phone = PhoneBody.iPhone15
        let bodies = (0..<400).map {
            phone.box(centre: Vector3(Double($0 % 20) * 2, Double($0 / 20) * 2, 1),
                      orientation: Orientation(heading: 0))
        }
        #expect(tracker.observe(bodies, at: 0).isEmpty)
        #expect(tracker.contacts.isEmpty && tracker.nearMisses.isEmpty)
    }
}

@Suite struct ScenarioFileTests {
    private func error(_ json: String) -> String? {
        do {
            _ = try ScenarioFile.parse(Data(json.utf8), file: "s.json")
            return nil
        } catch {
            return error.description
        }
    }

    @Test(arguments: [
        ("{", "scenario file s.json is not valid JSON: the file ends inside the scenario at byte 2, line 1"),
        (#"{"version": 2, "peers": []}"#, "scenario file s.json: version must be 1, not 2"),
        (#"{"version": 1}"#, "scenario file s.json: peers is missing"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}]}"#,
         "scenario file s.json: peers must list at least 2 peers, not 1"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": "left", "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#,
         "scenario file s.json: peers[0].waypoints[0].x must be a number, not a string"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 1, "x": 0, "y": 0}, {"t": 1, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#,
         "scenario file s.json: peers[0].waypoints[1].t must be later than the waypoint before (1.0)"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "facing": "C"}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#,
         "scenario file s.json: peers[0].waypoints[0].facing must name another peer of the file, not \"C\""),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "A", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#,
         "scenario file s.json: peers[1].name \"A\" is used twice"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": []}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#,
         "scenario file s.json: peers[0].waypoints must hold at least one waypoint"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#,
         "scenario file s.json: peers[0].waypoints[0].t is missing"),
        // Unknown fields are refused, not ignored: "headng" would run with a heading of 0.
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}, {"t": 1, "x": 1, "y": 0, "headng": 90}]}]}"#,
         "scenario file s.json: peers[1].waypoints[1].headng is not a field of a waypoint (its fields: t, x, y, z, heading, pitch, roll, facing); did you mean \"heading\"?"),
        (#"{"version": 1, "peers": [{"name": "A", "intrests": ["film"], "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#,
         "scenario file s.json: peers[0].intrests is not a field of a peer (its fields: name, interests, waypoints, carry, device); did you mean \"interests\"?"),
        (#"{"version": 1, "duration": 30, "peers": []}"#,
         "scenario file s.json: duration is not a field of the scenario (its fields: version, name, peers, walls, tables, encounters, motion)"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}], "walls": [{"x1": 0, "y1": 0, "x2": 0, "y2": 0}]}"#,
         "scenario file s.json: walls[0] must join two different points"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}], "walls": [{"x1": 0, "y1": 0, "x2": 1, "y2": 0, "loss": -3}]}"#,
         "scenario file s.json: walls[0].loss must be between 0 and 100 dB"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}], "walls": [{"x1": 0, "y1": 0, "x2": 1, "y2": 0, "los": 3}]}"#,
         "scenario file s.json: walls[0].los is not a field of a wall (its fields: x1, y1, x2, y2, loss); did you mean \"loss\"?"),
        (#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}], "walls": [{"x1": 0, "y1": 0, "x2": 1}]}"#,
         "scenario file s.json: walls[0].y2 is missing"),
    ])
    func malformedFilesNameTheField(_ json: String, _ message: String) {
        #expect(error(json) == message)
    }

    /// Walls are read with their loss, 6 dB when not given.
    @Test func wallsAreRead() throws {
        let json = #"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}], "walls": [{"x1": 0, "y1": -1, "x2": 0, "y2": 1}, {"x1": 2, "y1": 0, "x2": 3, "y2": 0, "loss": 12}]}"#
        let file = try ScenarioFile.parse(Data(json.utf8), file: "w.json")
        #expect(file.walls == [Wall(from: Vector3(0, -1, 0), to: Vector3(0, 1, 0), loss: 6),
                               Wall(from: Vector3(2, 0, 0), to: Vector3(3, 0, 0), loss: 12)])
        let world = try World(scenario: .scripted(file), peers: 0, seed: 1)
        #expect(world.walls == file.walls)
    }

    /// The examples are valid scenario files by the published schema, which refuses what the reader refuses.
    @Test func examplesMatchTheSchemaAndTheSchemaRefusesUnknownFields() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let schema = try JSONSchema(path: root.appendingPathComponent("docs/schemas/scenario.schema.json").path)
        let examples = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("examples").path)
            .filter { $0.hasSuffix(".json") }
        #expect(examples.count >= 2)
        for name in examples {
            let data = try Data(contentsOf: root.appendingPathComponent("examples/\(name)"))
            #expect(schema.problems(try JSONSerialization.jsonObject(with: data)).isEmpty, "\(name)")
            #expect(throws: Never.self) { try ScenarioFile.parse(data, file: name) }
        }
        let misspelled = #"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "headng": 9}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#
        #expect(schema.problems(line: misspelled) == ["$.peers[0].waypoints[0]: the field headng is not in the schema"])
    }

    /// The encounter generators' files (tools/make-encounters) are scenario files the schema and the reader take,
    /// with every class of encounter, set-downs among them, and phones that lie on tables.
    @Test(arguments: [("training", "1"), ("held-out", "1001")])
    func generatedEncountersMatchTheSchema(set: String, seed: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("tools/make-encounters").path, set, seed]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let schema = try JSONSchema(path: root.appendingPathComponent("docs/schemas/scenario.schema.json").path)
        #expect(schema.problems(try JSONSerialization.jsonObject(with: data)).isEmpty)
        let file = try ScenarioFile.parse(data, file: "\(set)-\(seed).json")
        #expect(Set(file.encounters.map(\.kind)) == Set(EncounterClass.allCases))
        #expect(file.peers.filter { $0.carry == .table }.count >= 3)
    }

    /// examples/touch-or-stop.json (made by tools/make-touch-or-stop) is what it says: over a minute, 12 touches
    /// (the backs meet), each held about half a second, and 24 stops short, 12 with the backs 1 to 3 cm apart and
    /// 12 at 8 to 14 cm; no other contact or near miss.
    @Test func touchOrStopHasAsManyStopsShortAsTouches() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try ScenarioFile.load(path: root.appendingPathComponent("examples/touch-or-stop.json").path)
        let world = try World(scenario: .scripted(file), peers: file.peers.count, seed: 1)
        _ = world.advance(to: 60)
        let contacts = world.tracker.contacts
        #expect(contacts.count == 12)
        for contact in contacts {
            #expect(contact.b == contact.a + 1 && contact.a % 2 == 0 && contact.a < 8)
            #expect(abs(contact.minimumDistance - world.phone.size.z) < 1e-4)
            let held = try #require(contact.duration)
            #expect(held >= 0.5 && held <= 0.8, "\(held)")
        }
        let misses = world.tracker.nearMisses
        #expect(misses.count == 24)
        #expect(misses.filter { $0.gap >= 0.01 - 1e-4 && $0.gap <= 0.03 + 1e-4 }.count == 12)
        #expect(misses.filter { $0.gap >= 0.08 - 1e-4 && $0.gap <= 0.14 + 1e-4 }.count == 12)
    }

    /// How fast each pair's backs closed as they met, as the truth saw it, is the script's speed at the meeting,
    /// on examples/bump-classes.json's 36 touches (3.2 cm/s to 79 cm/s), whether the chips sample or not.
    @Test(arguments: [false, true]) func theTruthSeesTheSpeedTheBacksMetAt(sensing: Bool) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try ScenarioFile.load(path: root.appendingPathComponent("examples/bump-classes.json").path)
        let world = try World(scenario: .scripted(file), peers: file.peers.count, seed: 1)
        if sensing {
            let clocks = (0..<file.peers.count).map { _ in DeviceClock(uptimeAtStart: 1000, rate: 0) }
            try world.startSensing(clocks: clocks, seed: 1, imu: IMUSettings(), motion: MotionSettings())
        }
        _ = world.advance(to: file.encounters.map(\.t).max()! + 5)
        let touches = file.encounters.filter(\.kind.isTouch)
        #expect(touches.count == 36)
        for script in touches {
            // The script starts the approach; its contact is the pair's first after that.
            let contact = try #require(world.tracker.contacts.first {
                [$0.a, $0.b] == [min(script.a, script.b), max(script.a, script.b)] && $0.start >= script.t
            })
            let speed = try #require(contact.closingSpeed)
            #expect(abs(speed - script.closingSpeed) <= 0.02 * script.closingSpeed,
                    "\(speed) against \(script.closingSpeed)")
        }
    }

    @Test func missingFileIsNamed() {
        do {
            _ = try ScenarioFile.load(path: "/nonexistent/s.json")
            Issue.record("a missing file loaded")
        } catch {
            #expect(error.description == "scenario file /nonexistent/s.json does not exist")
        }
    }
}

/// Scenario files are checked for size before they are read, and what they publish for the discovery rules.
@Suite struct ScenarioFileLimitTests {
    private func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aFileOverTheLimitIsRefusedBeforeItIsRead() throws {
        let path = try write("{")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Sparse: 40 MiB of nothing, which would not even parse; the size alone refuses it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 40 << 20)
        try handle.close()
        #expect(throws: ScenarioError(file: path, field: nil,
                                      problem: "is \(40 << 20) bytes; at most \(32 << 20) (32 MiB) are read")) {
            try ScenarioFile.load(path: path)
        }
    }

    @Test func interestsMustFitTheDiscoveryInfo() throws {
        func scenario(_ interests: [String]) -> String {
            let list = interests.map { "\"\($0)\"" }.joined(separator: ",")
            return #"{"version": 1, "peers": [{"name": "A", "interests": [\#(list)], "waypoints": [{"t": 0, "x": 0, "y": 0}]},"#
                + #" {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#
        }
        // 245 bytes joined is the most: "interests=" and the list make the entry's 255.
        let fits = [String(repeating: "a", count: 120), String(repeating: "b", count: 124)]
        #expect(try ScenarioFile.parse(Data(scenario(fits).utf8), file: "f.json").peers[0].interests == fits)
        let over = [String(repeating: "a", count: 120), String(repeating: "b", count: 125)]
        #expect(throws: ScenarioError(file: "f.json", field: "peers[0].interests", problem:
            "must join (with commas) to at most 245 bytes, not 246: they are published in the discovery info, whose entries hold 255 bytes")) {
            try ScenarioFile.parse(Data(scenario(over).utf8), file: "f.json")
        }
        #expect(throws: ScenarioError(file: "f.json", field: "peers[0].interests[1]",
                                      problem: "must be a word or phrase without commas, not \"b,c\"")) {
            try ScenarioFile.parse(Data(scenario(["a", "b,c"]).utf8), file: "f.json")
        }
    }
}
