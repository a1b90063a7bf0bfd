import Foundation
import Geometry

/// A scripted scenario: named peers with timed waypoints for their phones. Documented in docs/scenario-format.md.
public struct ScenarioFile: Sendable, Equatable {
    /// One waypoint of a phone: where it is at time `t` and how it is turned.
    public struct Waypoint: Sendable, Equatable {
        public let t: Double
        public let position: Vector3
        /// How the phone is turned: explicit angles (radians), or toward another peer's phone.
        public let turn: Turn
    }

    public enum Turn: Sendable, Equatable {
        case angles(heading: Double, pitch: Double, roll: Double)
        case facing(peer: Int)
    }

    public struct Peer: Sendable, Equatable {
        public let name: String
        public let interests: [String]
        public let waypoints: [Waypoint]
    }

    public let name: String
    public let peers: [Peer]
    /// Walls standing in the room (floor to ceiling): a link through one is obstructed and loses its loss.
    public let walls: [Wall]
    /// Scripted encounters, each of a class the summary scores (docs/scenario-format.md), in time order.
    public let encounters: [EncounterScript]
    /// The file's own physics of what the phones feel (contacts, hands, the table, steps), when it gives any: the
    /// defaults with the fields it names (docs/sensors.md).
    public let motion: MotionSettings?

    public init(name: String, peers: [Peer], walls: [Wall] = [], encounters: [EncounterScript] = [],
                motion: MotionSettings? = nil) {
        self.name = name
        self.peers = peers
        self.walls = walls
        self.encounters = encounters
        self.motion = motion
    }

    /// The centres of two touching phones are at most this far apart, metres (the truth's contact distance).
    public static let touchDistance = 0.08

    /// A wall's loss when the file does not say, dB: an interior wall of plasterboard or wood at 6 to 8 GHz.
    public static let defaultWallLoss = 6.0

    /// The largest file read: 1,000 peers with a few hundred waypoints each fit with room to spare, and a file
    /// beyond it is refused before it is read (decoding takes about ten times its size in memory).
    public static let maximumBytes = 32 << 20

    /// The longest list of interests, joined with commas: it is published as the discovery info's entry
    /// `interests=...`, which the discovery rules hold to 255 bytes.
    public static let maximumInterestBytes = 255 - "interests=".utf8.count

    /// Reads and checks a scenario file.
    ///
    /// - Throws: ``ScenarioError`` naming the file and the field that is missing, malformed or out of range.
    public static func load(path: String) throws(ScenarioError) -> ScenarioFile {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ScenarioError(file: path, field: nil, problem: "does not exist")
        }
        guard !isDirectory.boolValue else { throw ScenarioError(file: path, field: nil, problem: "is a folder") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maximumBytes else {
            throw ScenarioError(file: path, field: nil,
                                problem: "is \(size) bytes; at most \(maximumBytes) (32 MiB) are read")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ScenarioError(file: path, field: nil, problem: "cannot be read (\(Self.reason(error)))")
        }
        return try parse(data, file: path)
    }

    /// Parses and checks a scenario from its JSON bytes.
    public static func parse(_ data: Data, file: String) throws(ScenarioError) -> ScenarioFile {
        if let object = try? JSONSerialization.jsonObject(with: data) {
            try checkFields(object, file: file)
        }
        let raw: RawScenario
        do {
            raw = try JSONDecoder().decode(RawScenario.self, from: data)
        } catch let error as DecodingError {
            throw Self.explain(error, file: file)
        } catch {
            throw ScenarioError(file: file, field: nil, problem: "is not valid JSON")
        }
        return try raw.checked(file: file)
    }

    /// The fields each object of a file may have (docs/schemas/scenario.schema.json). A misspelled field would
    /// otherwise be ignored in silence, and `"headng": 90` run with a heading of 0.
    static let fields: [(what: String, names: [String])] = [
        ("the scenario", ["$schema", "version", "name", "peers", "walls", "encounters", "motion"]),
        ("a peer", ["name", "interests", "waypoints"]),
        ("a waypoint", ["t", "x", "y", "z", "heading", "pitch", "roll", "facing"]),
        ("a wall", ["x1", "y1", "x2", "y2", "loss"]),
        ("an encounter", ["class", "peers", "t", "closingSpeed", "minimumDistance", "hold"]),
        ("the motion", RawScenario.RawMotion.fields),
    ]

    private static func checkFields(_ object: Any, file: String) throws(ScenarioError) {
        func check(_ value: Any, _ level: Int, _ path: String) throws(ScenarioError) {
            guard let dictionary = value as? [String: Any] else { return }
            let (what, names) = fields[level]
            for key in dictionary.keys.sorted() where !names.contains(key) {
                let near = names.filter { Self.editDistance($0, key) <= 2 }
                let hint = near.isEmpty ? "" : "; did you mean \(near.map { "\"\($0)\"" }.joined(separator: " or "))?"
                throw ScenarioError(
                    file: file, field: path.isEmpty ? key : "\(path).\(key)",
                    problem: "is not a field of \(what) (its fields: \(names.filter { $0 != "$schema" }.joined(separator: ", ")))\(hint)")
            }
            guard level < 2 else { return }
            let child = level == 0 ? "peers" : "waypoints"
            for (i, item) in (dictionary[child] as? [Any] ?? []).enumerated() {
                try check(item, level + 1, path.isEmpty ? "\(child)[\(i)]" : "\(path).\(child)[\(i)]")
            }
            if level == 0 {
                for (i, item) in (dictionary["walls"] as? [Any] ?? []).enumerated() { try check(item, 3, "walls[\(i)]") }
                for (i, item) in (dictionary["encounters"] as? [Any] ?? []).enumerated() {
                    try check(item, 4, "encounters[\(i)]")
                }
                if let motion = dictionary["motion"] { try check(motion, 5, "motion") }
            }
        }
        try check(object, 0, "")
    }

    /// Levenshtein distance, for short field names.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }

    private static func reason(_ error: Error) -> String {
        (error as NSError).localizedDescription
    }

    private static func explain(_ error: DecodingError, file: String) -> ScenarioError {
        func path(_ keys: [CodingKey]) -> String {
            keys.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return ScenarioError(file: file, field: parent.isEmpty ? key.stringValue : parent + "." + key.stringValue,
                                 problem: "is missing")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return ScenarioError(file: file, field: path(context.codingPath), problem: "must be \(Self.name(of: type))")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return ScenarioError(file: file, field: nil, problem: "is not valid JSON")
            }
            return ScenarioError(file: file, field: path(context.codingPath), problem: context.debugDescription)
        @unknown default:
            return ScenarioError(file: file, field: nil, problem: "is not a valid scenario")
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: "a number"
        case is String.Type: "a string"
        case is [Any].Type: "a list"
        default: "\(type)".lowercased()
        }
    }
}

/// A scenario file that cannot be used, with where the problem is.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    /// The JSON path of the field (`peers[1].waypoints[0].t`), or `nil` for the file as a whole.
    public let field: String?
    public let problem: String

    public var description: String {
        "scenario file \(file)" + (field.map { ": \($0)" } ?? "") + " \(problem)"
    }
}

/// The file as JSON gives it, before the checks.
private struct RawScenario: Decodable {
    struct RawWaypoint: Decodable {
        let t: Double
        let x: Double
        let y: Double
        let z: Double?
        let heading: Double?
        let pitch: Double?
        let roll: Double?
        let facing: String?
    }

    struct RawPeer: Decodable {
        let name: String
        let interests: [String]?
        let waypoints: [RawWaypoint]
    }

    struct RawWall: Decodable {
        let x1: Double
        let y1: Double
        let x2: Double
        let y2: Double
        let loss: Double?
    }

    struct RawEncounter: Decodable {
        let `class`: String
        let peers: [String]
        let t: Double
        let closingSpeed: Double
        let minimumDistance: Double
        let hold: Double?
    }

    let version: Int
    let name: String?
    let peers: [RawPeer]
    let walls: [RawWall]?
    let encounters: [RawEncounter]?
    let motion: RawMotion?

    /// The physics a file may set (``MotionSettings``), each optional.
    struct RawMotion: Decodable {
        static let fields = ["phoneMass", "caseModulus", "contactRadius", "restitution", "handMass", "handModulus",
                             "handRestitution", "knuckleMass", "tableMass", "knockDuration", "stepExcursion", "cadence",
                             "paceChange"]
        let phoneMass: Double?
        let caseModulus: Double?
        let contactRadius: Double?
        let restitution: Double?
        let handMass: Double?
        let handModulus: Double?
        let handRestitution: Double?
        let knuckleMass: Double?
        let tableMass: Double?
        let knockDuration: Double?
        let stepExcursion: Double?
        let cadence: Double?
        let paceChange: Double?

        func checked(_ fail: (String?, String) -> ScenarioError) throws(ScenarioError) -> MotionSettings {
            var m = MotionSettings()
            m.cases.phoneMass = phoneMass ?? m.cases.phoneMass
            m.cases.caseModulus = caseModulus ?? m.cases.caseModulus
            m.cases.contactRadius = contactRadius ?? m.cases.contactRadius
            m.cases.restitution = restitution ?? m.cases.restitution
            m.hands.phoneMass = handMass ?? m.hands.phoneMass
            m.hands.caseModulus = handModulus ?? m.hands.caseModulus
            m.hands.restitution = handRestitution ?? m.hands.restitution
            m.knuckleMass = knuckleMass ?? m.knuckleMass
            m.tableMass = tableMass ?? m.tableMass
            m.knockDuration = knockDuration ?? m.knockDuration
            m.stepExcursion = stepExcursion ?? m.stepExcursion
            m.cadence = cadence ?? m.cadence
            m.paceChange = paceChange ?? m.paceChange
            if let problem = m.cases.problem() { throw fail("motion", problem) }
            if let problem = m.hands.problem() {
                throw fail("motion", problem.replacingOccurrences(of: "phoneMass", with: "handMass")
                    .replacingOccurrences(of: "caseModulus", with: "handModulus")
                    .replacingOccurrences(of: "restitution", with: "handRestitution"))
            }
            for (name, value, range) in [("knuckleMass", m.knuckleMass, 0.01...10.0), ("tableMass", m.tableMass, 0.1...10_000.0),
                                         ("knockDuration", m.knockDuration, 0.0001...0.1),
                                         ("stepExcursion", m.stepExcursion, 0.0...0.5), ("cadence", m.cadence, 0.1...5.0),
                                         ("paceChange", m.paceChange, 0.05...5.0)] {
                guard value.isFinite, range.contains(value) else {
                    throw fail("motion.\(name)", "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
                }
            }
            return m
        }
    }

    func checked(file: String) throws(ScenarioError) -> ScenarioFile {
        func fail(_ field: String?, _ problem: String) -> ScenarioError {
            ScenarioError(file: file, field: field, problem: problem)
        }
        guard version == 1 else { throw fail("version", "must be 1, not \(version)") }
        guard peers.count >= 2 else { throw fail("peers", "must list at least 2 peers, not \(peers.count)") }
        guard peers.count <= 1000 else { throw fail("peers", "must list at most 1000 peers, not \(peers.count)") }
        var index: [String: Int] = [:]
        for (i, peer) in peers.enumerated() {
            guard !peer.name.isEmpty, peer.name.utf8.count <= 63 else {
                throw fail("peers[\(i)].name", "must be 1 to 63 bytes")
            }
            guard index[peer.name] == nil else { throw fail("peers[\(i)].name", "\"\(peer.name)\" is used twice") }
            index[peer.name] = i
        }
        var result: [ScenarioFile.Peer] = []
        for (i, peer) in peers.enumerated() {
            let interests = peer.interests ?? []
            for (k, interest) in interests.enumerated() {
                guard !interest.isEmpty, !interest.contains(",") else {
                    throw fail("peers[\(i)].interests[\(k)]", "must be a word or phrase without commas, not \"\(interest)\"")
                }
            }
            let joined = interests.joined(separator: ",").utf8.count
            guard joined <= ScenarioFile.maximumInterestBytes else {
                throw fail("peers[\(i)].interests",
                           "must join (with commas) to at most \(ScenarioFile.maximumInterestBytes) bytes, not \(joined): "
                               + "they are published in the discovery info, whose entries hold 255 bytes")
            }
            guard !peer.waypoints.isEmpty else { throw fail("peers[\(i)].waypoints", "must hold at least one waypoint") }
            var waypoints: [ScenarioFile.Waypoint] = []
            for (k, w) in peer.waypoints.enumerated() {
                let at = "peers[\(i)].waypoints[\(k)]"
                for (name, value) in [("t", w.t), ("x", w.x), ("y", w.y), ("z", w.z ?? 0), ("heading", w.heading ?? 0),
                                      ("pitch", w.pitch ?? 0), ("roll", w.roll ?? 0)] {
                    guard value.isFinite, abs(value) <= 100_000 else { throw fail("\(at).\(name)", "must be a finite number") }
                }
                guard w.t >= 0 else { throw fail("\(at).t", "must not be negative") }
                if let previous = waypoints.last, w.t <= previous.t {
                    throw fail("\(at).t", "must be later than the waypoint before (\(previous.t))")
                }
                let turn: ScenarioFile.Turn
                if let facing = w.facing {
                    guard w.heading == nil, w.pitch == nil, w.roll == nil else {
                        throw fail("\(at).facing", "cannot be given together with heading, pitch or roll")
                    }
                    guard let target = index[facing], target != i else {
                        throw fail("\(at).facing", "must name another peer of the file, not \"\(facing)\"")
                    }
                    turn = .facing(peer: target)
                } else {
                    turn = .angles(heading: Angle.radians(fromDegrees: w.heading ?? 0),
                                   pitch: Angle.radians(fromDegrees: w.pitch ?? 0),
                                   roll: Angle.radians(fromDegrees: w.roll ?? 0))
                }
                waypoints.append(.init(t: w.t, position: Vector3(w.x, w.y, w.z ?? 1.2), turn: turn))
            }
            result.append(.init(name: peer.name, interests: peer.interests ?? [], waypoints: waypoints))
        }
        var checkedWalls: [Wall] = []
        for (k, w) in (walls ?? []).enumerated() {
            for (name, value) in [("x1", w.x1), ("y1", w.y1), ("x2", w.x2), ("y2", w.y2)] {
                guard value.isFinite, abs(value) <= 100_000 else { throw fail("walls[\(k)].\(name)", "must be a finite number") }
            }
            guard w.x1 != w.x2 || w.y1 != w.y2 else { throw fail("walls[\(k)]", "must join two different points") }
            let loss = w.loss ?? ScenarioFile.defaultWallLoss
            guard loss.isFinite, loss >= 0, loss <= 100 else { throw fail("walls[\(k)].loss", "must be between 0 and 100 dB") }
            checkedWalls.append(Wall(from: Vector3(w.x1, w.y1, 0), to: Vector3(w.x2, w.y2, 0), loss: loss))
        }
        guard checkedWalls.count <= 1000 else { throw fail("walls", "must list at most 1000 walls") }
        let raw = encounters ?? []
        guard raw.count <= 100_000 else { throw fail("encounters", "must list at most 100000 encounters") }
        var scripts: [EncounterScript] = []
        for (k, e) in raw.enumerated() {
            let at = "encounters[\(k)]"
            guard let kind = EncounterClass(rawValue: e.class) else {
                throw fail("\(at).class", "must be one of \(EncounterClass.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(e.class)\"")
            }
            guard e.peers.count == 2 else { throw fail("\(at).peers", "must name two peers, not \(e.peers.count)") }
            guard let a = index[e.peers[0]], let b = index[e.peers[1]], a != b else {
                throw fail("\(at).peers", "must name two different peers of the file, not \(e.peers)")
            }
            for (name, value) in [("t", e.t), ("closingSpeed", e.closingSpeed), ("minimumDistance", e.minimumDistance),
                                  ("hold", e.hold ?? 0)] {
                guard value.isFinite, abs(value) <= 100_000 else { throw fail("\(at).\(name)", "must be a finite number") }
            }
            guard e.t >= 0 else { throw fail("\(at).t", "must not be negative") }
            guard e.closingSpeed > 0, e.closingSpeed <= 5 else {
                throw fail("\(at).closingSpeed", "must be above 0 and at most 5 m/s, got \(e.closingSpeed)")
            }
            let touch = ScenarioFile.touchDistance
            if kind.isTouch {
                guard e.minimumDistance >= 0, e.minimumDistance <= touch else {
                    throw fail("\(at).minimumDistance", "of a touch must be between 0 and \(touch) m, got \(e.minimumDistance)")
                }
            } else {
                guard e.minimumDistance > touch, e.minimumDistance <= 10 else {
                    throw fail("\(at).minimumDistance", "of a \(kind.rawValue) must be above \(touch) m (closer is a touch) and at most 10 m, got \(e.minimumDistance)")
                }
            }
            let hold = e.hold ?? 0.5
            guard hold >= 0, hold <= 60 else { throw fail("\(at).hold", "must be between 0 and 60 seconds, got \(hold)") }
            scripts.append(EncounterScript(kind: kind, a: a, b: b, t: e.t, closingSpeed: e.closingSpeed,
                                           minimumDistance: e.minimumDistance, hold: hold))
        }
        // In time order, each fitting between its holders and none of a peer's overlapping the one before.
        let ordered = scripts.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }
        var busyUntil = [Double](repeating: -.infinity, count: result.count)
        for (k, script) in ordered {
            let at = "encounters[\(k)]"
            let (gesture, gap) = World.plan(script, result)
            if script.kind != .walkPast, script.kind != .tableKnock, gap < script.minimumDistance {
                throw fail("\(at).minimumDistance", "is \(script.minimumDistance) m, farther than the \(gap) m its two peers stand apart")
            }
            for peer in [script.a, script.b] where busyUntil[peer] > script.t {
                throw fail("\(at).t", "is \(script.t) s, before \(result[peer].name)'s encounter before it ends (\(String(format: "%.2f", busyUntil[peer])) s)")
            }
            busyUntil[script.a] = gesture.end
            busyUntil[script.b] = gesture.end
        }
        return ScenarioFile(name: name ?? file, peers: result, walls: checkedWalls, encounters: ordered.map(\.element),
                            motion: try motion?.checked(fail))
    }
}
