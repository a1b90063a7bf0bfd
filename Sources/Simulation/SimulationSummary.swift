/// The outcome of a simulation run, scored against the truth. Field names are the JSON output's, and stable
/// (docs/simulation.md). Distances in metres, angles in degrees, times in seconds.
package struct SimulationSummary: Sendable, Codable, Equatable {
    /// What the run is: its facts (``Facts``, read as `run.scenario`) and the value of every setting its declaration
    /// reports (``RunSettings/reported``, read as `run[RunSettings.peers]`), side by side in one JSON object.
    @dynamicMemberLookup
    package struct Run: Sendable, Codable, Equatable {
        package struct Facts: Sendable, Codable, Equatable {
            package var scenario: String
            package var transport: String
            package var clock: String
            package var seed: UInt64
            /// The simulated time reached when a signal (SIGINT, SIGTERM) ended the run early; absent when it ran to
            /// the end. The figures then cover the time run, and no trace is written.
            package var interruptedAt: Double?
            /// The key the discovery group's datagrams were sealed under: `development` (built in, loopback only) or
            /// the given key's fingerprint.
            package var groupKey: String
            /// The program's version.
            package var version: String
            package var bumpDistance: Double
            package var link: String
            /// What the chips report when the error exceeds the distance: `zero` (0 m) or `fail` (no measurement).
            package var negativeDistance: String
            /// How many devices are of each model (`generic`, `iphone`, `pixel`, `galaxy`, `dw3000`;
            /// docs/radio-model.md, "Device profiles").
            package var devices: [String: Int]
            /// Who ranges when: `proximity`, `coordinated`, `ideal`, `uncoordinated`, `round-robin` or `oracle`
            /// (docs/airtime.md).
            package var planner: String
            /// How bumps are decided: `range` (the estimate alone) or `fused` (a joint accelerometer impact
            /// confirmed by range).
            package var detector: String
            /// What the accelerometers are made of: `peaks` or `samples` (docs/sensors.md).
            package var sensors: String
            /// With sampled sensors: the platform whose sensors the phones had (`ios`, `android`,
            /// `android-high-rate`).
            package var sensorProfile: String?
            /// With a trace that follows some of the devices (``SimulationSettings/traceDevices``): it follows
            /// devices 0, k, 2k, ...; this is k. Absent: the trace follows every device (or there is no trace).
            package var traceEvery: Int?
        }

        package var facts: Facts
        /// The reported settings' values by their key; a setting left out (``Reporting/absentUnless``) has none.
        package var settings: [String: ReportedValue]

        package subscript<T>(dynamicMember path: WritableKeyPath<Facts, T>) -> T {
            get { facts[keyPath: path] }
            set { facts[keyPath: path] = newValue }
        }

        /// A reported setting's value; `nil` where the run block leaves it out.
        package subscript<Value>(_ setting: RunSetting<Value>) -> Value? {
            get { setting.reporting.flatMap { settings[$0.key] }.flatMap(Value.init(reported:)) }
            set {
                guard let key = setting.reporting?.key else { return }
                settings[key] = newValue?.reported
            }
        }
    }

    package struct Discovery: Sendable, Codable, Equatable {
        /// When every peer first held a running session with every other; `nil` if never. When discovery was
        /// bounded (``withinReach``): the first whole second at which every device held a session with each peer
        /// within reach, or as many as it may hold.
        package var convergenceSeconds: Double?
        package var pairs: Int
        /// Running sessions at the end, and how many a full mesh has.
        package var sessions: Int
        package var expectedSessions: Int
        /// Present when discovery's reach left some pair out, or some device had more peers within reach than it
        /// may hold, at a whole second before discovery converged.
        package var withinReach: WithinReach?

        package struct WithinReach: Sendable, Codable, Equatable {
            /// Metres (``SimulationSettings/discoveryRange``); `nil`: every device hears every other.
            package var range: Double?
            /// Pairs within reach at the end, and the running sessions they held (two a pair at most) ...
            package var pairs: Int
            package var sessions: Int
            /// ... of the most the devices could have held there: each device its peers within reach, up to
            /// ``maximumSessions``.
            package var fillable: Int
            package var maximumSessions: Int
        }
    }

    package struct Ranging: Sendable, Codable, Equatable {
        /// Exchanges attempted (those the policy planned, collided ones included) and received (not lost).
        package var exchanges: Int
        package var received: Int
        /// Exchanges lost because another overlapped them in hearing (`uncoordinated`).
        package var collided: Int
        /// Times a device's session limit suspended one of its sessions (``Medium/sessionsPerDevice``).
        package var suspensions: Int
        /// Updates delivered to apps (two per received exchange, one per side).
        package var updatesDelivered: Int
        /// Times a pair's sessions were replaced (a restart, a repair) and its estimators and detector started
        /// afresh.
        package var sessionsRenewed: Int
        /// The air the plan asked for against the air there is (docs/airtime.md).
        package var airtime: Airtime
        /// How often a pair of running sessions ranged, by its true distance (0-0.5, 0.5-1, 1-2, 2-5, 5-9 m).
        package var bands: [Band]
    }

    package struct Band: Sendable, Codable, Equatable {
        package var fromMetres: Double
        package var toMetres: Double
        /// Seconds pairs of running sessions spent in the band (counted once a simulated second), and the exchanges
        /// received from pairs in it.
        package var pairSeconds: Double
        package var received: Int
        /// Received exchanges per pair per second; absent without pair-seconds.
        package var perPairPerSecond: Double?
        /// The age of the estimate an app holds for a peer in the band (seconds since it was measured), sampled with
        /// the pair-seconds; absent when no pair in the band held one. And the share of the sampled pairs whose app
        /// held no estimate at all.
        package var ageP50: Double?
        package var ageP95: Double?
        package var withoutEstimateShare: Double?
    }

    package struct Airtime: Sendable, Codable, Equatable {
        /// Channels, and the slots one exchange takes (by the radio's ranging scheme).
        package var channels: Int
        package var slotsPerExchange: Int
        /// Exchanges a second all channels carry where every device hears every other.
        package var capacityPerSecond: Double
        /// Exchanges a second the plan asked for, over the time run.
        package var demandPerSecond: Double
        /// Demand over capacity: above 1, a plan no real channel could carry.
        package var overCapacity: Double
        /// Metres within which two exchanges may not share a slot.
        package var interferenceRange: Double
        /// Each channel's use, from the policies that model the air (empty under `ideal`).
        package var perChannel: [ChannelUse]
        /// The air the run models, in words: the phones' own chips (the default), sessions each on its own timer,
        /// a room-wide slot map phones do not have, or none.
        package var model: String?
        /// The capture threshold frames were received with, dB (absent: no capture).
        package var captureThreshold: Double?
        /// The share of the exchanges asked for that the air did not lose (absent under `ideal` or with none asked).
        package var survival: Double?
        /// The same worked out frame by frame (docs/airtime.md, "Frames and capture"), where sessions run on their
        /// own timers (`proximity`, `uncoordinated`).
        package var expectedSurvival: Double?
        /// Exchanges that lost only the responder's report: the responder read them, the initiator did not.
        package var reportsLost: Int?
    }

    package struct ChannelUse: Sendable, Codable, Equatable {
        /// The channel, from 1.
        package var channel: Int
        /// Exchanges attempted on it, and those lost to collisions.
        package var exchanges: Int
        package var collided: Int
        /// Air used: the seconds its exchanges occupied over the time run. Above 1 only where exchanges far apart
        /// shared slots.
        package var airShare: Double
    }

    package struct ErrorFigures: Sendable, Codable, Equatable {
        package var rmse: Double?
        package var p50: Double?
        package var p95: Double?
        package var count: Int
    }

    package struct Direction: Sendable, Codable, Equatable {
        package var p50Degrees: Double?
        package var p95Degrees: Double?
        /// Share of updates without a direction (outside the field of view, obstructed, out of range).
        package var nilShare: Double
    }

    package struct Bumps: Sendable, Codable, Equatable {
        /// Bumps fired.
        package var fired: Int
        /// With NearCatch and the fused detector: bumps a pair's detector found on a push one of its phones had
        /// already made a bump with another peer on, which the app declined (one push, one bump); not in `fired`.
        package var declined: Int?
        /// True contacts (held at least 0.2 s), and those a bump was matched to.
        package var trueContacts: Int
        package var detected: Int
        package var precision: Double?
        package var recall: Double?
        /// From the start of the true contact to its bump, signed: negative when the bump fired before the phones
        /// touched (it may, up to 0.5 s before).
        package var latencyP50: Double?
        package var latencyP95: Double?
        /// Detected contacts whose bump fired before the phones touched.
        package var earlyDetections: Int
        /// Bumps on touches that began in the run's last second: too late to score, left out of the precision.
        package var unscoredBumps: Int
        /// Bumps matched to no true contact, and how far the phones' antennas truly were when they fired: up to 8 cm,
        /// 8-12 cm, 12-20 cm, beyond 20 cm.
        package var falseBumps: Int
        package var falseByTrueDistance: [DistanceCount]
        /// True near misses (closest approach 8 to 25 cm without touching), by closest approach (8-12, 12-20,
        /// 20-25 cm), and brief brushes (under 0.2 s).
        package var nearMisses: Int
        package var nearMissesByDistance: [DistanceCount]
        package var brushes: Int
        /// The true contacts whose closing speed the world followed, and those detected, by band of that speed
        /// (up to 3 cm/s, 3-10 cm/s, 10-30 cm/s, 30 cm/s-1 m/s, beyond): where a detector finds touches and where the
        /// physics leaves it nothing to find.
        package var bySpeed: [SpeedCount]
        /// Profiles delivered over the transport after bumps (one each way per bump).
        package var profilesDelivered: Int
        /// With a scenario file's scripted encounters: each class's score, by its name (`gentleTouch`, `hardTap`,
        /// ...); absent without encounters.
        package var byClass: [String: ClassScore]?
        /// With scripted encounters that name a pose (``PoseScore``): each pose family's figures, by its name;
        /// absent otherwise.
        package var byPose: [String: PoseScore]?
        /// With sampled accelerometers and the fused detector: the jolts the apps sent each other over the data
        /// channel (one message a peer), those that arrived, and those refused as malformed.
        package var jolts: JoltMessages?
    }

    package struct JoltMessages: Sendable, Codable, Equatable {
        package var sent: Int
        package var heard: Int
        package var refused: Int

        package init(sent: Int, heard: Int, refused: Int) {
            self.sent = sent
            self.heard = heard
            self.refused = refused
        }
    }

    /// How the detector did on the scripted encounters of one pose family: the true contacts of their pairs (held
    /// at least 0.2 s, begun within an encounter) and those found, in all and those closing at 3 cm/s or more;
    /// the encounters whose phones never touched, and those a bump fired on.
    package struct PoseScore: Sendable, Codable, Equatable {
        package var encounters = 0
        package var contacts = 0
        package var detected = 0
        package var contactsFrom3cmps = 0
        package var detectedFrom3cmps = 0
        package var apart = 0
        package var firedApart = 0

        package init() {}
    }

    /// How the detector did on one class of scripted encounter.
    package struct ClassScore: Sendable, Codable, Equatable {
        /// Encounters of the class, those on which a bump fired for the pair (from the encounter's start to a second
        /// after its end), and whether the class is a true contact.
        package var encounters: Int
        package var fired: Int
        package var touch: Bool

        package init(encounters: Int, fired: Int, touch: Bool) {
            self.encounters = encounters
            self.fired = fired
            self.touch = touch
        }
    }

    /// True contacts in a band of closing speed, m/s (`toMetresPerSecond` absent: no upper bound), and those
    /// detected.
    package struct SpeedCount: Sendable, Codable, Equatable {
        package var fromMetresPerSecond: Double
        package var toMetresPerSecond: Double?
        package var contacts: Int
        package var detected: Int

        package init(fromMetresPerSecond: Double, toMetresPerSecond: Double?, contacts: Int, detected: Int) {
            self.fromMetresPerSecond = fromMetresPerSecond
            self.toMetresPerSecond = toMetresPerSecond
            self.contacts = contacts
            self.detected = detected
        }
    }

    /// A count in a band of true distance, metres (`toMetres` absent: no upper bound).
    package struct DistanceCount: Sendable, Codable, Equatable {
        package var fromMetres: Double
        package var toMetres: Double?
        package var count: Int

        package init(fromMetres: Double, toMetres: Double?, count: Int) {
            self.fromMetres = fromMetres
            self.toMetres = toMetres
            self.count = count
        }
    }

    package struct Performance: Sendable, Codable, Equatable {
        package var wallSeconds: Double
        /// Session updates delivered per second of wall clock.
        package var updatesPerSecond: Double
        /// Simulated seconds per wall-clock second.
        package var realTimeFactor: Double
        package var peakMemoryMB: Double
    }

    package var run: Run
    package var discovery: Discovery
    package var ranging: Ranging
    package var distanceRaw: ErrorFigures
    package var distanceFiltered: ErrorFigures
    package var direction: Direction
    package var bumps: Bumps
    package var performance: Performance
    /// Lines in the trace, or `nil` without one.
    package var traceLines: Int?
}
