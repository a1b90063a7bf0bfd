import Foundation
import World

/// A room's crowd written in a test: devices placed and moved by timed waypoints, walls, and scripted encounters
/// (a touch, a stop short, a fist bump...), with the rules and meanings of a scenario file (docs/scenario-format.md),
/// checked the same way. Devices are in the order added: device 0 is the first.
///
/// ```swift
/// var script = RoomScript()
/// script.place("ana", x: 0, y: 0, interests: ["film"])
/// script.place("ben", x: 1, y: 0, facing: "ana")
/// script.move("ana", toX: 0.7, y: 0, at: 5)
/// script.encounter(.gentleTouch, "ana", "ben", at: 8, closingSpeed: 0.3, minimumDistance: 0)
/// configuration.crowd = .script(script)
/// ```
public struct RoomScript: Sendable, Equatable {
    /// Where a device's phone is at a time, and how it is turned.
    public struct Waypoint: Sendable, Equatable {
        /// Seconds from the start.
        public var t: Double
        /// Metres: x east, y north, z up (1.2: a hand's height).
        public var x: Double
        public var y: Double
        public var z: Double
        /// Degrees: the back of the phone faces `heading` (counter-clockwise from east), tilted up by `pitch`,
        /// rolled by `roll`; or, with `facing`, toward that device's phone instead.
        public var heading: Double
        public var pitch: Double
        public var roll: Double
        public var facing: String?

        public init(t: Double, x: Double, y: Double, z: Double = 1.2, heading: Double = 0, pitch: Double = 0,
                    roll: Double = 0, facing: String? = nil) {
            (self.t, self.x, self.y, self.z) = (t, x, y, z)
            (self.heading, self.pitch, self.roll, self.facing) = (heading, pitch, roll, facing)
        }
    }

    /// One device: its name (unique), its user's interests (published in its discovery info) and its waypoints.
    public struct Device: Sendable, Equatable {
        public var name: String
        public var interests: [String]
        public var waypoints: [Waypoint]

        public init(name: String, interests: [String] = [], waypoints: [Waypoint]) {
            self.name = name
            self.interests = interests
            self.waypoints = waypoints
        }
    }

    /// The classes of a scripted encounter (docs/scenario-format.md, "Encounters").
    public enum EncounterKind: String, Sendable, CaseIterable {
        case gentleTouch, hardTap, softStop, hardStop, fistBump, handshake, tableKnock, walkPast, setDown
    }

    /// How two devices' phones meet.
    public struct Encounter: Sendable, Equatable {
        public var kind: EncounterKind
        public var a: String
        public var b: String
        /// When the hands start to move, seconds.
        public var t: Double
        public var closingSpeed: Double
        /// How close the hands bring the phones' centres, metres; they stop sooner where the phones' bodies meet
        /// (backs together, 1.08 cm): a touch aims through the other phone with 0.
        public var minimumDistance: Double
        public var hold: Double

        public init(_ kind: EncounterKind, _ a: String, _ b: String, at t: Double, closingSpeed: Double,
                    minimumDistance: Double, hold: Double = 0.5) {
            (self.kind, self.a, self.b, self.t) = (kind, a, b, t)
            (self.closingSpeed, self.minimumDistance, self.hold) = (closingSpeed, minimumDistance, hold)
        }
    }

    /// A wall from floor to ceiling between two points, with its loss in dB.
    public struct Wall: Sendable, Equatable {
        public var x1, y1, x2, y2: Double
        public var loss: Double

        public init(x1: Double, y1: Double, x2: Double, y2: Double, loss: Double = 6) {
            (self.x1, self.y1, self.x2, self.y2, self.loss) = (x1, y1, x2, y2, loss)
        }
    }

    /// Shown where a run names its scenario.
    public var name: String
    public var devices: [Device]
    public var walls: [Wall]
    public var encounters: [Encounter]

    public init(name: String = "a test's script", devices: [Device] = [], walls: [Wall] = [], encounters: [Encounter] = []) {
        self.name = name
        self.devices = devices
        self.walls = walls
        self.encounters = encounters
    }

    /// Adds a device standing at (x, y) from the start, its back turned to `heading` degrees or toward `facing`.
    public mutating func place(_ name: String, x: Double, y: Double, z: Double = 1.2, heading: Double = 0,
                               facing: String? = nil, interests: [String] = []) {
        devices.append(Device(name: name, interests: interests,
                              waypoints: [Waypoint(t: 0, x: x, y: y, z: z, heading: heading, facing: facing)]))
    }

    /// Moves a device: it walks in a straight line from its last waypoint to arrive at (x, y) at time `t`, turned as
    /// at its last waypoint unless told otherwise. A name not placed yet is left for ``room`` to refuse by name.
    public mutating func move(_ name: String, toX x: Double, y: Double, at t: Double, heading: Double? = nil,
                              facing: String? = nil) {
        guard let k = devices.firstIndex(where: { $0.name == name }) else {
            devices.append(Device(name: name, waypoints: [Waypoint(t: t, x: x, y: y)]))
            return
        }
        var next = devices[k].waypoints.last ?? Waypoint(t: t, x: x, y: y)
        (next.t, next.x, next.y) = (t, x, y)
        if let heading { (next.heading, next.facing) = (heading, nil) }
        if let facing { next.facing = facing }
        devices[k].waypoints.append(next)
    }

    /// Adds a scripted encounter of two devices.
    public mutating func encounter(_ kind: EncounterKind, _ a: String, _ b: String, at t: Double, closingSpeed: Double,
                                   minimumDistance: Double, hold: Double = 0.5) {
        encounters.append(Encounter(kind, a, b, at: t, closingSpeed: closingSpeed, minimumDistance: minimumDistance,
                                    hold: hold))
    }

    /// The script as a scenario file's JSON object.
    var json: [String: Any] {
        func point(_ w: Waypoint) -> [String: Any] {
            var p: [String: Any] = ["t": w.t, "x": w.x, "y": w.y, "z": w.z]
            if let facing = w.facing { p["facing"] = facing } else {
                p["heading"] = w.heading
                p["pitch"] = w.pitch
                p["roll"] = w.roll
            }
            return p
        }
        return [
            "version": 1, "name": name,
            "peers": devices.map { ["name": $0.name, "interests": $0.interests, "waypoints": $0.waypoints.map(point)] as [String: Any] },
            "walls": walls.map { ["x1": $0.x1, "y1": $0.y1, "x2": $0.x2, "y2": $0.y2, "loss": $0.loss] },
            "encounters": encounters.map {
                ["class": $0.kind.rawValue, "peers": [$0.a, $0.b], "t": $0.t, "closingSpeed": $0.closingSpeed,
                 "minimumDistance": $0.minimumDistance, "hold": $0.hold] as [String: Any]
            },
        ]
    }

    /// The scenario, checked by the scenario file's rules.
    ///
    /// - Throws: ``SimulatorError`` naming the field at fault.
    func scenario() throws(SimulatorError) -> ScenarioFile {
        guard JSONSerialization.isValidJSONObject(json),
              let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]) else {
            throw SimulatorError("the room's script holds a number JSON cannot carry (not finite)")
        }
        do { return try ScenarioFile.parse(data, file: "the room's script") } catch {
            throw SimulatorError(error.description)
        }
    }
}
