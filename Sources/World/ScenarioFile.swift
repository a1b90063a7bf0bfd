import DeviceInterface
import Foundation
import Geometry

/// A scripted scenario: named peers with timed waypoints for their phones. Documented in docs/scenario-format.md.
package struct ScenarioFile: Sendable, Equatable {
    /// One waypoint of a phone: where it is at time `t` and how it is turned.
    package struct Waypoint: Sendable, Equatable {
        package let t: Double
        package let position: Vector3
        /// How the phone is turned: explicit angles (radians), or toward another peer's phone.
        package let turn: Turn
    }

    package enum Turn: Sendable, Equatable {
        case angles(heading: Double, pitch: Double, roll: Double)
        case facing(peer: Int)
    }

    package struct Peer: Sendable, Equatable {
        package let name: String
        package let interests: [String]
        package let waypoints: [Waypoint]
        /// Where the peer carries its phone: in the hand (the default), in a trouser pocket, or in a bag.
        package var carry = Carry.hand
        /// The phone's model, where the file names one (docs/radio-model.md, "Device profiles"); else the run's.
        package var device: DeviceProfile?

        package init(name: String, interests: [String], waypoints: [Waypoint], carry: Carry = .hand,
                     device: DeviceProfile? = nil) {
            self.name = name
            self.interests = interests
            self.waypoints = waypoints
            self.carry = carry
            self.device = device
        }
    }

    /// A table standing in the room: a level top phones may lie on, which a knuckle strikes and a phone set down
    /// meets, ringing up under every phone lying on it (docs/scenario-format.md, "Tables").
    package struct Table: Sendable, Equatable {
        /// The middle of the top's upper surface, metres.
        package let centre: Vector3
        /// Along `heading`, and across it, metres.
        package let width: Double
        package let depth: Double
        /// Radians, counter-clockwise from east.
        package let heading: Double
        /// Its mass, kg; `nil`: the file's `motion.tableMass`.
        package let mass: Double?
        /// The top as a body: its x axis along `heading`, its z up.
        package let top: OrientedBox

        package init(centre: Vector3, width: Double, depth: Double, heading: Double = 0, mass: Double? = nil) {
            self.centre = centre
            self.width = width
            self.depth = depth
            self.heading = heading
            self.mass = mass
            let up = Vector3(0, 0, 1)
            let along = Vector3(cos(heading), sin(heading), 0)
            top = OrientedBox(centre: centre - Vector3(0, 0, Self.thickness / 2),
                              orientation: Orientation(right: along, top: up.cross(along), screen: up),
                              halfExtents: Vector3(width / 2, depth / 2, Self.thickness / 2))
        }

        /// A top's thickness, metres: a table's board.
        package static let thickness = 0.03
        /// A phone lies on a top when its body's lowest point is this close to the surface, above or into it,
        /// metres, and its centre is over the top: the waypoints' precision a file's author can be held to.
        package static let lying = 0.002

        /// Whether `body` lies on the top: its lowest point at the surface (within ``lying``), its centre over it.
        package func holds(_ body: OrientedBox) -> Bool {
            let bottom = body.centre.z - body.radius(along: Vector3(0, 0, 1))
            guard abs(bottom - centre.z) <= Self.lying else { return false }
            let offset = top.orientation.toDevice(body.centre - centre)
            return abs(offset.x) <= width / 2 && abs(offset.y) <= depth / 2
        }
    }

    package let name: String
    package let peers: [Peer]

    /// The phones whose peers name their model, by device id (the peer's index).
    package var deviceProfiles: [UInt64: DeviceProfile] {
        var profiles: [UInt64: DeviceProfile] = [:]
        for (i, peer) in peers.enumerated() { if let device = peer.device { profiles[UInt64(i)] = device } }
        return profiles
    }
    /// Walls standing in the room (floor to ceiling): a link through one is obstructed and loses its loss.
    package let walls: [Wall]
    /// Tables standing in the room.
    package let tables: [Table]
    /// Scripted encounters, each of a class the summary scores (docs/scenario-format.md), in time order.
    package let encounters: [EncounterScript]
    /// The file's own physics of what the phones feel (contacts, hands, the table, steps), when it gives any: the
    /// defaults with the fields it names (docs/sensors.md).
    package let motion: MotionSettings?

    package init(name: String, peers: [Peer], walls: [Wall] = [], tables: [Table] = [],
                 encounters: [EncounterScript] = [], motion: MotionSettings? = nil) {
        self.name = name
        self.peers = peers
        self.walls = walls
        self.tables = tables
        self.encounters = encounters
        self.motion = motion
    }

    /// A wall's loss when the file does not say, dB: an interior wall of plasterboard or wood at 6 to 8 GHz.
    package static let defaultWallLoss = 6.0

    /// The largest file read: 1,000 peers with a few hundred waypoints each fit with room to spare, and a file
    /// beyond it is refused before it is read.
    package static let maximumBytes = 32 << 20

    /// The longest list of interests, joined with commas: it is published as the discovery info's entry
    /// `interests=...`, which the discovery rules hold to 255 bytes.
    package static let maximumInterestBytes = 255 - "interests=".utf8.count

    /// Reads and checks a scenario file, a chunk at a time: a limit is refused where the file crosses it, before
    /// the rest is read, and memory holds what the file describes (about 70 bytes a waypoint), not a tree of it.
    ///
    /// - Throws: ``ScenarioError`` naming the file and the field that is missing, malformed or out of range; a file
    ///   that is not a regular file (a folder, a device, a FIFO) is refused by its kind before it is opened.
    package static func load(path: String) throws(ScenarioError) -> ScenarioFile {
        func fail(_ problem: String) -> ScenarioError { ScenarioError(file: path, field: nil, problem: problem) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw fail(errno == ENOENT || errno == ENOTDIR ? "does not exist" : "cannot be read (\(reason(errno)))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw fail("is a folder")
        case S_IFCHR: throw fail("is a character device, not a file")
        case S_IFBLK: throw fail("is a block device, not a file")
        case S_IFIFO: throw fail("is a FIFO, not a file")
        case S_IFSOCK: throw fail("is a socket, not a file")
        default: throw fail("is not a regular file")
        }
        guard Int(info.st_size) <= maximumBytes else {
            throw fail("is \(info.st_size) bytes; at most \(maximumBytes) (32 MiB) are read")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw fail("cannot be read (\(reason(errno)))") }
        defer { close(fd) }
        var total = 0
        var reader = JSONReader(file: path) { (chunk: inout [UInt8]) throws(ScenarioError) in
            chunk = [UInt8](repeating: 0, count: readChunk)
            var n: Int
            repeat {
                n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            } while n < 0 && errno == EINTR
            guard n >= 0 else { throw fail("cannot be read (\(reason(errno)))") }
            total += n
            // A file that grew since its size was read is held to the same limit.
            guard total <= maximumBytes else { throw fail("is over \(maximumBytes) bytes (32 MiB); no more is read") }
            chunk.removeLast(chunk.count - n)
        }
        return try read(&reader)
    }

    /// How much of a file is read at once.
    static let readChunk = 1 << 16

    /// Parses and checks a scenario from its JSON bytes.
    package static func parse(_ data: Data, file: String) throws(ScenarioError) -> ScenarioFile {
        guard data.count <= maximumBytes else {
            throw ScenarioError(file: file, field: nil, problem: "is \(data.count) bytes; at most \(maximumBytes) (32 MiB) are read")
        }
        var reader = JSONReader(file: file, bytes: [UInt8](data))
        return try read(&reader)
    }

    /// The most waypoints a file holds in all: ten times a 1,000-peer file with a hundred each.
    package static let maximumWaypoints = 1_000_000

    private static func read(_ reader: inout JSONReader) throws(ScenarioError) -> ScenarioFile {
        try reader.checkEncoding()
        var raw = RawScenario()
        try raw.read(&reader)
        try reader.expectEnd()
        return try raw.checked(file: reader.file)
    }

    /// The fields each object of a file may have (docs/schemas/scenario.schema.json). A misspelled field would
    /// otherwise be ignored in silence, and `"headng": 90` run with a heading of 0.
    static let fields: [(what: String, names: [String])] = [
        ("the scenario", ["$schema", "version", "name", "peers", "walls", "tables", "encounters", "motion"]),
        ("a peer", ["name", "interests", "waypoints", "carry", "device"]),
        ("a waypoint", ["t", "x", "y", "z", "heading", "pitch", "roll", "facing"]),
        ("a wall", ["x1", "y1", "x2", "y2", "loss"]),
        ("a table", ["x", "y", "height", "width", "depth", "heading", "mass"]),
        ("an encounter", ["class", "peers", "t", "closingSpeed", "minimumDistance", "hold", "pose"]),
        ("the motion", RawScenario.RawMotion.fields),
    ]

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// A scenario file that cannot be used, with where the problem is.
package struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    package let file: String
    /// The JSON path of the field (`peers[1].waypoints[0].t`), or `nil` for the file as a whole.
    package let field: String?
    package let problem: String

    package var description: String {
        "scenario file \(file)" + (field.map { ": \($0)" } ?? "") + " \(problem)"
    }
}

/// The file as its JSON gives it, before the checks that span fields. A field the file does not give is `nil`
/// (a waypoint's numbers: NaN, which no JSON number reads as, so that a waypoint takes 72 bytes, not 120).
private struct RawScenario {
    struct RawWaypoint {
        var t = Double.nan
        var x = Double.nan
        var y = Double.nan
        var z = Double.nan
        var heading = Double.nan
        var pitch = Double.nan
        var roll = Double.nan
        var facing: String?
    }

    struct RawPeer {
        var name: String?
        var interests: [String]?
        var waypoints: [RawWaypoint]?
        var carry: String?
        var device: String?
    }

    struct RawEncounter {
        var `class`: String?
        var peers: [String]?
        var t: Double?
        var closingSpeed: Double?
        var minimumDistance: Double?
        var hold: Double?
        var pose: String?
    }

    var version: Int?
    var name: String?
    var peers: [RawPeer]?
    /// Each wall's and each table's fields, all numbers, by name.
    var walls: [[String: Double]]?
    var tables: [[String: Double]]?
    var encounters: [RawEncounter]?
    var motion: RawMotion?

    /// The physics a file may set (``MotionSettings``), each optional.
    struct RawMotion {
        static let fields = ["phoneMass", "caseModulus", "contactRadius", "restitution", "handMass", "handModulus",
                             "handRestitution", "knuckleMass", "tableMass", "knockDuration", "stepExcursion", "cadence",
                             "paceChange", "gripSettle", "tremor", "heelStrikeInHand", "heelStrikeInPocket",
                             "heelStrikeInBag",
                             "heelStrikeDuration", "screenTapRate", "screenTapDuration", "fingertipMass",
                             "screenSwipeRate", "swipeForce"]
        var phoneMass: Double?
        var caseModulus: Double?
        var contactRadius: Double?
        var restitution: Double?
        var handMass: Double?
        var handModulus: Double?
        var handRestitution: Double?
        var knuckleMass: Double?
        var tableMass: Double?
        var knockDuration: Double?
        var stepExcursion: Double?
        var cadence: Double?
        var paceChange: Double?
        var gripSettle: Double?
        /// The holders' own motion (``HandSettings``), m/s² for the tremor's and the heel strikes' medians.
        var own: [String: Double] = [:]

        /// Sets the field named `key` (one of ``fields``).
        mutating func set(_ key: String, _ value: Double) {
            switch key {
            case "phoneMass": phoneMass = value
            case "caseModulus": caseModulus = value
            case "contactRadius": contactRadius = value
            case "restitution": restitution = value
            case "handMass": handMass = value
            case "handModulus": handModulus = value
            case "handRestitution": handRestitution = value
            case "knuckleMass": knuckleMass = value
            case "tableMass": tableMass = value
            case "knockDuration": knockDuration = value
            case "stepExcursion": stepExcursion = value
            case "cadence": cadence = value
            case "paceChange": paceChange = value
            case "gripSettle": gripSettle = value
            default: own[key] = value
            }
        }

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
            m.gripSettle = gripSettle ?? m.gripSettle
            m.own.tremorMedian = own["tremor"] ?? m.own.tremorMedian
            m.own.heelStrikeInHand = own["heelStrikeInHand"] ?? m.own.heelStrikeInHand
            m.own.heelStrikeInPocket = own["heelStrikeInPocket"] ?? m.own.heelStrikeInPocket
            m.own.heelStrikeInBag = own["heelStrikeInBag"] ?? m.own.heelStrikeInBag
            m.own.heelStrikeDuration = own["heelStrikeDuration"] ?? m.own.heelStrikeDuration
            m.own.screenTapRate = own["screenTapRate"] ?? m.own.screenTapRate
            m.own.screenTapDuration = own["screenTapDuration"] ?? m.own.screenTapDuration
            m.own.fingertipMass = own["fingertipMass"] ?? m.own.fingertipMass
            m.own.screenSwipeRate = own["screenSwipeRate"] ?? m.own.screenSwipeRate
            m.own.swipeForce = own["swipeForce"] ?? m.own.swipeForce
            if let problem = m.own.problem() {
                throw fail("motion", problem.replacingOccurrences(of: "tremorMedian", with: "tremor"))
            }
            if let problem = m.cases.problem() { throw fail("motion", problem) }
            if let problem = m.hands.problem() {
                throw fail("motion", problem.replacingOccurrences(of: "phoneMass", with: "handMass")
                    .replacingOccurrences(of: "caseModulus", with: "handModulus")
                    .replacingOccurrences(of: "restitution", with: "handRestitution"))
            }
            for (name, value, range) in [("knuckleMass", m.knuckleMass, 0.01...10.0), ("tableMass", m.tableMass, 0.1...10_000.0),
                                         ("knockDuration", m.knockDuration, 0.0001...0.1),
                                         ("stepExcursion", m.stepExcursion, 0.0...0.5), ("cadence", m.cadence, 0.1...5.0),
                                         ("paceChange", m.paceChange, 0.05...5.0),
                                         ("gripSettle", m.gripSettle, 0.001...1.0)] {
                guard value.isFinite, range.contains(value) else {
                    throw fail("motion.\(name)", "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
                }
            }
            return m
        }
    }

    /// Reads the scenario's object, each field by its kind; the lists are refused at the element past their limit.
    mutating func read(_ r: inout JSONReader) throws(ScenarioError) {
        let fields = ScenarioFile.fields
        var waypointsLeft = ScenarioFile.maximumWaypoints
        try r.object("", what: fields[0].what, fields: fields[0].names) { (r, key, path) throws(ScenarioError) in
            switch key {
            case "$schema": _ = try r.string(path)
            case "version": version = try r.integer(path)
            case "name": name = try r.string(path)
            case "peers":
                var list: [RawPeer] = []
                try r.list(path, limit: 1000, tooMany: "must list at most 1000 peers") { (r, _, at) throws(ScenarioError) in
                    list.append(try Self.readPeer(&r, at, waypointsLeft: &waypointsLeft))
                }
                peers = list
            case "walls": walls = try Self.numberObjects(&r, path, fields[3], plural: "walls")
            case "tables": tables = try Self.numberObjects(&r, path, fields[4], plural: "tables")
            case "encounters":
                var list: [RawEncounter] = []
                try r.list(path, limit: 100_000, tooMany: "must list at most 100000 encounters") { (r, _, at) throws(ScenarioError) in
                    list.append(try Self.readEncounter(&r, at))
                }
                encounters = list
            default:
                var m = RawMotion()
                try r.object(path, what: fields[6].what, fields: fields[6].names) { (r, key, path) throws(ScenarioError) in
                    m.set(key, try r.number(path))
                }
                motion = m
            }
        }
    }

    /// A list of objects whose fields are all numbers (walls, tables), each by its fields' names; at most 1000.
    private static func numberObjects(_ r: inout JSONReader, _ path: String, _ field: (what: String, names: [String]),
                                      plural: String) throws(ScenarioError) -> [[String: Double]] {
        var list: [[String: Double]] = []
        try r.list(path, limit: 1000, tooMany: "must list at most 1000 \(plural)") { (r, _, at) throws(ScenarioError) in
            var values: [String: Double] = [:]
            try r.object(at, what: field.what, fields: field.names) { (r, key, path) throws(ScenarioError) in
                values[key] = try r.number(path)
            }
            list.append(values)
        }
        return list
    }

    private static func readPeer(
        _ r: inout JSONReader, _ at: String, waypointsLeft: inout Int
    ) throws(ScenarioError) -> RawPeer {
        let fields = ScenarioFile.fields
        var peer = RawPeer()
        try r.object(at, what: fields[1].what, fields: fields[1].names) { (r, key, path) throws(ScenarioError) in
            switch key {
            case "name": peer.name = try r.string(path)
            case "carry": peer.carry = try r.string(path)
            case "device": peer.device = try r.string(path)
            case "interests":
                peer.interests = try r.strings(
                    path, limit: ScenarioFile.maximumInterestBytes,
                    tooMany: "must join (with commas) to at most \(ScenarioFile.maximumInterestBytes) bytes")
            default:
                var waypoints: [RawWaypoint] = []
                try r.list(path, limit: waypointsLeft,
                           tooMany: "takes the file past \(ScenarioFile.maximumWaypoints) waypoints in all, the most a file holds") {
                    (r, _, at) throws(ScenarioError) in
                    waypoints.append(try readWaypoint(&r, at))
                }
                waypointsLeft -= waypoints.count
                peer.waypoints = waypoints
            }
        }
        return peer
    }

    private static func readWaypoint(_ r: inout JSONReader, _ at: String) throws(ScenarioError) -> RawWaypoint {
        let fields = ScenarioFile.fields
        var w = RawWaypoint()
        try r.object(at, what: fields[2].what, fields: fields[2].names) { (r, key, path) throws(ScenarioError) in
            if key == "facing" {
                w.facing = try r.string(path)
                return
            }
            let value = try r.number(path)
            switch key {
            case "t": w.t = value
            case "x": w.x = value
            case "y": w.y = value
            case "z": w.z = value
            case "heading": w.heading = value
            case "pitch": w.pitch = value
            default: w.roll = value
            }
        }
        return w
    }

    private static func readEncounter(_ r: inout JSONReader, _ at: String) throws(ScenarioError) -> RawEncounter {
        let fields = ScenarioFile.fields
        var e = RawEncounter()
        try r.object(at, what: fields[5].what, fields: fields[5].names) { (r, key, path) throws(ScenarioError) in
            switch key {
            case "class": e.class = try r.string(path)
            case "peers":
                e.peers = try r.strings(path, limit: 2, tooMany: "must name two peers, not more")
            case "t": e.t = try r.number(path)
            case "closingSpeed": e.closingSpeed = try r.number(path)
            case "minimumDistance": e.minimumDistance = try r.number(path)
            case "pose": e.pose = try r.string(path)
            default: e.hold = try r.number(path)
            }
        }
        return e
    }

    /// The scenario, every rule checked. Each peer's waypoints are released as they are converted, so that the
    /// raw and the checked forms of a large file are not held at once.
    mutating func checked(file: String) throws(ScenarioError) -> ScenarioFile {
        func fail(_ field: String?, _ problem: String) -> ScenarioError {
            ScenarioError(file: file, field: field, problem: problem)
        }
        func within(_ value: Double, _ field: String, _ range: ClosedRange<Double>, _ unit: String) throws(ScenarioError) {
            guard range.contains(value) else {
                throw fail(field, "must be between \(Int(range.lowerBound)) and \(Int(range.upperBound)) \(unit), got \(value)")
            }
        }
        guard let version else { throw fail("version", "is missing") }
        guard version == 1 else { throw fail("version", "must be 1, not \(version)") }
        // Not bound to a local: a copy of the list would hold every raw waypoint until the end.
        guard let count = peers?.count else { throw fail("peers", "is missing") }
        guard count >= 2 else { throw fail("peers", "must list at least 2 peers, not \(count)") }
        var index: [String: Int] = [:]
        for i in 0..<count {
            guard let name = peers![i].name else { throw fail("peers[\(i)].name", "is missing") }
            guard !name.isEmpty, name.utf8.count <= 63 else {
                throw fail("peers[\(i)].name", "must be 1 to 63 bytes")
            }
            guard index[name] == nil else { throw fail("peers[\(i)].name", "\"\(name)\" is used twice") }
            index[name] = i
        }
        var result: [ScenarioFile.Peer] = []
        result.reserveCapacity(count)
        let space = 100_000.0
        for i in 0..<count {
            let interests = peers![i].interests ?? []
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
            guard let raw = peers![i].waypoints else { throw fail("peers[\(i)].waypoints", "is missing") }
            guard !raw.isEmpty else { throw fail("peers[\(i)].waypoints", "must hold at least one waypoint") }
            peers![i].waypoints = nil
            var waypoints: [ScenarioFile.Waypoint] = []
            waypoints.reserveCapacity(raw.count)
            for (k, w) in raw.enumerated() {
                let at = "peers[\(i)].waypoints[\(k)]"
                for (name, value) in [("t", w.t), ("x", w.x), ("y", w.y)] where value.isNaN {
                    throw fail("\(at).\(name)", "is missing")
                }
                try within(w.t, "\(at).t", 0...space, "seconds")
                for (name, value) in [("x", w.x), ("y", w.y), ("z", w.z)] where !value.isNaN {
                    try within(value, "\(at).\(name)", -space...space, "metres")
                }
                for (name, value) in [("heading", w.heading), ("pitch", w.pitch), ("roll", w.roll)] where !value.isNaN {
                    try within(value, "\(at).\(name)", -space...space, "degrees")
                }
                if let previous = waypoints.last, w.t <= previous.t {
                    throw fail("\(at).t", "must be later than the waypoint before (\(previous.t))")
                }
                let turn: ScenarioFile.Turn
                if let facing = w.facing {
                    guard w.heading.isNaN, w.pitch.isNaN, w.roll.isNaN else {
                        throw fail("\(at).facing", "cannot be given together with heading, pitch or roll")
                    }
                    guard let target = index[facing], target != i else {
                        throw fail("\(at).facing", "must name another peer of the file, not \"\(facing)\"")
                    }
                    turn = .facing(peer: target)
                } else {
                    func degrees(_ v: Double) -> Double { Angle.radians(fromDegrees: v.isNaN ? 0 : v) }
                    turn = .angles(heading: degrees(w.heading), pitch: degrees(w.pitch), roll: degrees(w.roll))
                }
                waypoints.append(.init(t: w.t, position: Vector3(w.x, w.y, w.z.isNaN ? 1.2 : w.z), turn: turn))
            }
            var carry = Carry.hand
            if let named = peers![i].carry {
                guard let known = Carry(rawValue: named) else {
                    throw fail("peers[\(i)].carry", "must be hand, pocket, bag or table, not \"\(named)\"")
                }
                carry = known
            }
            var device: DeviceProfile?
            if let named = peers![i].device {
                guard let known = DeviceProfile(rawValue: named) else {
                    let names = DeviceProfile.allCases.map(\.rawValue).joined(separator: ", ")
                    throw fail("peers[\(i)].device", "must be one of \(names), not \"\(named)\"")
                }
                device = known
            }
            result.append(.init(name: peers![i].name!, interests: interests, waypoints: waypoints, carry: carry,
                                device: device))
        }
        var checkedWalls: [Wall] = []
        for (k, w) in (walls ?? []).enumerated() {
            var ends: [Double] = []
            for (name, value) in ["x1", "y1", "x2", "y2"].map({ ($0, w[$0]) }) {
                guard let value else { throw fail("walls[\(k)].\(name)", "is missing") }
                try within(value, "walls[\(k)].\(name)", -space...space, "metres")
                ends.append(value)
            }
            guard ends[0] != ends[2] || ends[1] != ends[3] else { throw fail("walls[\(k)]", "must join two different points") }
            let loss = w["loss"] ?? ScenarioFile.defaultWallLoss
            guard loss.isFinite, loss >= 0, loss <= 100 else { throw fail("walls[\(k)].loss", "must be between 0 and 100 dB") }
            checkedWalls.append(Wall(from: Vector3(ends[0], ends[1], 0), to: Vector3(ends[2], ends[3], 0), loss: loss))
        }
        guard checkedWalls.count <= 1000 else { throw fail("walls", "must list at most 1000 walls") }
        var checkedTables: [ScenarioFile.Table] = []
        for (k, given) in (tables ?? []).enumerated() {
            let at = "tables[\(k)]"
            var values: [Double] = []
            let ranges = [("x", -space...space), ("y", -space...space), ("height", 0.05...3), ("width", 0.1...20),
                          ("depth", 0.1...20)]
            for (name, range) in ranges {
                guard let value = given[name] else { throw fail("\(at).\(name)", "is missing") }
                guard range.contains(value) else {
                    let bounds = "\(range.lowerBound) and \(range.upperBound)"
                    throw fail("\(at).\(name)", "must be between \(bounds) metres, got \(value)")
                }
                values.append(value)
            }
            let heading = given["heading"] ?? 0
            try within(heading, "\(at).heading", -360...360, "degrees")
            if let mass = given["mass"], !(mass >= 0.1 && mass <= 10_000) {
                throw fail("\(at).mass", "must be between 0.1 and 10000 kg, got \(mass)")
            }
            checkedTables.append(ScenarioFile.Table(
                centre: Vector3(values[0], values[1], values[2]), width: values[3], depth: values[4],
                heading: heading * .pi / 180, mass: given["mass"]))
        }
        let raw = encounters ?? []
        guard raw.count <= 100_000 else { throw fail("encounters", "must list at most 100000 encounters") }
        var scripts: [EncounterScript] = []
        for (k, given) in raw.enumerated() {
            let at = "encounters[\(k)]"
            guard let className = given.class else { throw fail("\(at).class", "is missing") }
            guard let kind = EncounterClass(rawValue: className) else {
                throw fail("\(at).class", "must be one of \(EncounterClass.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(className)\"")
            }
            guard let names = given.peers else { throw fail("\(at).peers", "is missing") }
            guard names.count == 2 else { throw fail("\(at).peers", "must name two peers, not \(names.count)") }
            guard let a = index[names[0]], let b = index[names[1]], a != b else {
                throw fail("\(at).peers", "must name two different peers of the file, not \(names)")
            }
            var numbers: [Double] = []
            for (name, value) in [("t", given.t), ("closingSpeed", given.closingSpeed), ("minimumDistance", given.minimumDistance)] {
                guard let value else { throw fail("\(at).\(name)", "is missing") }
                numbers.append(value)
            }
            let e = (t: numbers[0], closingSpeed: numbers[1], minimumDistance: numbers[2], hold: given.hold)
            try within(e.t, "\(at).t", 0...space, "seconds")
            guard e.closingSpeed > 0, e.closingSpeed <= 5 else {
                throw fail("\(at).closingSpeed", "must be above 0 and at most 5 m/s, got \(e.closingSpeed)")
            }
            // Whether the phones touch is the bodies' business, not the class's: a touch aimed past the contact
            // stops there, a stop aimed inside it touches.
            try within(e.minimumDistance, "\(at).minimumDistance", 0...10, "metres")
            let hold = e.hold ?? 0.5
            guard hold >= 0, hold <= 60 else { throw fail("\(at).hold", "must be between 0 and 60 seconds, got \(hold)") }
            if let pose = given.pose {
                guard (1...32).contains(pose.utf8.count),
                      pose.utf8.allSatisfy({ $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter
                                                            || Character(Unicode.Scalar($0)).isNumber || $0 == 0x2D) })
                else {
                    throw fail("\(at).pose", "must be 1 to 32 ASCII letters, digits or hyphens, not \"\(pose)\"")
                }
            }
            scripts.append(EncounterScript(kind: kind, a: a, b: b, t: e.t, closingSpeed: e.closingSpeed,
                                           minimumDistance: e.minimumDistance, hold: hold, pose: given.pose))
        }
        // In time order, each fitting between its holders and none of a peer's overlapping the one before.
        let ordered = scripts.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }
        var busyUntil = [Double](repeating: -.infinity, count: result.count)
        for (k, script) in ordered {
            let at = "encounters[\(k)]"
            let (gesture, gap) = World.plan(script, result, phone: .iPhone15)
            if script.kind == .setDown {
                // The setter's phone comes down beside the other's, from the setter's side and from above.
                let pa = World.interpolate(result[script.a].waypoints, at: script.t).position
                let pb = World.interpolate(result[script.b].waypoints, at: script.t).position
                let across = (Vector3(pa.x, pa.y, 0) - Vector3(pb.x, pb.y, 0)).length
                if across < script.minimumDistance {
                    throw fail("\(at).minimumDistance", "is \(script.minimumDistance) m, farther than the \(across) m its two peers' phones are apart across the table")
                }
                if pa.z - pb.z < EncounterScript.setDownLeastHeight {
                    throw fail("\(at).peers", "\(result[script.a].name)'s phone must be at least \(EncounterScript.setDownLeastHeight) m above \(result[script.b].name)'s to be set down beside it, got \(String(format: "%.3f", pa.z - pb.z)) m")
                }
            } else if script.kind != .walkPast, script.kind != .tableKnock, gap < script.minimumDistance {
                throw fail("\(at).minimumDistance", "is \(script.minimumDistance) m, farther than the \(gap) m its two peers stand apart")
            }
            for peer in [script.a, script.b] where busyUntil[peer] > script.t {
                throw fail("\(at).t", "is \(script.t) s, before \(result[peer].name)'s encounter before it ends (\(String(format: "%.2f", busyUntil[peer])) s)")
            }
            busyUntil[script.a] = gesture.end
            busyUntil[script.b] = gesture.end
        }
        return ScenarioFile(name: name ?? file, peers: result, walls: checkedWalls, tables: checkedTables,
                            encounters: ordered.map(\.element), motion: try motion?.checked(fail))
    }
}
