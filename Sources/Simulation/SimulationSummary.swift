/// The outcome of a simulation run, scored against the truth. Field names are the JSON output's, and stable
/// (docs/simulation.md). Distances in metres, angles in degrees, times in seconds.
public struct SimulationSummary: Sendable, Codable, Equatable {
    public struct Run: Sendable, Codable, Equatable {
        public var peers: Int
        public var scenario: String
        public var transport: String
        public var clock: String
        public var workers: Int
        public var seed: UInt64
        public var duration: Double
        public var rate: Double
        /// The simulated time reached when a signal (SIGINT, SIGTERM) ended the run early; absent when it ran to the
        /// end. The figures then cover the time run, and no trace is written.
        public var interruptedAt: Double?
        /// The key the discovery group's datagrams were sealed under: `development` (built in, loopback only) or
        /// the given key's fingerprint.
        public var groupKey: String
        /// The program's version, and the settings of the radio, the network and the detector the run used.
        public var version: String
        public var loss: Double
        public var bumpDistance: Double
        public var lineOfSightSigma: Double
        public var antennaDelaySigma: Double
        /// The share of the leading edge's bias with the received level the pairs show (docs/radio-model.md).
        public var levelBias: Double
        public var link: String
        /// Who ranges when: `ideal`, `uncoordinated`, `round-robin` or `proximity` (docs/airtime.md).
        public var planner: String
        /// How bumps are decided: `range` (the estimate alone) or `fused` (a joint accelerometer impact confirmed
        /// by range).
        public var detector: String
        /// What the accelerometers are made of: `peaks` or `samples` (docs/sensors.md), and, with samples, their
        /// rate (Hz).
        public var sensors: String
        public var imuRate: Double?
        /// With samples: how far apart two phones' clocks may be when their apps compare jolts (seconds).
        public var clockOffset: Double?
        public var traceUpdateInterval: Double
        public var tracePoseInterval: Double
        /// With a trace that follows some of the devices (``SimulationSettings/traceDevices``): it follows devices
        /// 0, k, 2k, ...; this is k. Absent: the trace follows every device (or there is no trace).
        public var traceEvery: Int?
        /// In memory: how far discovery reached, metres (absent: every device heard every other); and the most
        /// sessions a device held at once.
        public var discoveryRange: Double?
        public var maximumSessions: Int?
    }

    public struct Discovery: Sendable, Codable, Equatable {
        /// When every peer first held a running session with every other; `nil` if never. When discovery was
        /// bounded (``withinReach``): the first whole second at which every device held a session with each peer
        /// within reach, or as many as it may hold.
        public var convergenceSeconds: Double?
        public var pairs: Int
        /// Running sessions at the end, and how many a full mesh has.
        public var sessions: Int
        public var expectedSessions: Int
        /// Present when discovery's reach left some pair out, or some device had more peers within reach than it
        /// may hold, at a whole second before discovery converged.
        public var withinReach: WithinReach?

        public struct WithinReach: Sendable, Codable, Equatable {
            /// Metres (``SimulationSettings/discoveryRange``); `nil`: every device hears every other.
            public var range: Double?
            /// Pairs within reach at the end, and the running sessions they held (two a pair at most) ...
            public var pairs: Int
            public var sessions: Int
            /// ... of the most the devices could have held there: each device its peers within reach, up to
            /// ``maximumSessions``.
            public var fillable: Int
            public var maximumSessions: Int
        }
    }

    public struct Ranging: Sendable, Codable, Equatable {
        /// Exchanges attempted (those the policy planned, collided ones included) and received (not lost).
        public var exchanges: Int
        public var received: Int
        /// Exchanges lost because another overlapped them in hearing (`uncoordinated`).
        public var collided: Int
        /// Times a device's session limit suspended one of its sessions (``Medium/sessionsPerDevice``).
        public var suspensions: Int
        /// Updates delivered to apps (two per received exchange, one per side).
        public var updatesDelivered: Int
        /// Times a pair's sessions were replaced (a restart, a repair) and its estimators and detector started
        /// afresh.
        public var sessionsRenewed: Int
        /// The air the plan asked for against the air there is (docs/airtime.md).
        public var airtime: Airtime
        /// How often a pair of running sessions ranged, by its true distance (0-0.5, 0.5-1, 1-2, 2-5, 5-9 m).
        public var bands: [Band]
    }

    public struct Band: Sendable, Codable, Equatable {
        public var fromMetres: Double
        public var toMetres: Double
        /// Seconds pairs of running sessions spent in the band (counted once a simulated second), and the exchanges
        /// received from pairs in it.
        public var pairSeconds: Double
        public var received: Int
        /// Received exchanges per pair per second; absent without pair-seconds.
        public var perPairPerSecond: Double?
        /// The age of the estimate an app holds for a peer in the band (seconds since it was measured), sampled with
        /// the pair-seconds; absent when no pair in the band held one. And the share of the sampled pairs whose app
        /// held no estimate at all.
        public var ageP50: Double?
        public var ageP95: Double?
        public var withoutEstimateShare: Double?
    }

    public struct Airtime: Sendable, Codable, Equatable {
        /// Channels, and the slots one exchange takes (by the radio's ranging scheme).
        public var channels: Int
        public var slotsPerExchange: Int
        /// Exchanges a second all channels carry where every device hears every other.
        public var capacityPerSecond: Double
        /// Exchanges a second the plan asked for, over the time run.
        public var demandPerSecond: Double
        /// Demand over capacity: above 1, a plan no real channel could carry.
        public var overCapacity: Double
        /// Metres within which two exchanges may not share a slot.
        public var interferenceRange: Double
        /// Each channel's use, from the policies that model the air (empty under `ideal`).
        public var perChannel: [ChannelUse]
    }

    public struct ChannelUse: Sendable, Codable, Equatable {
        /// The channel, from 1.
        public var channel: Int
        /// Exchanges attempted on it, and those lost to collisions.
        public var exchanges: Int
        public var collided: Int
        /// Air used: the seconds its exchanges occupied over the time run. Above 1 only where exchanges far apart
        /// shared slots.
        public var airShare: Double
    }

    public struct ErrorFigures: Sendable, Codable, Equatable {
        public var rmse: Double?
        public var p50: Double?
        public var p95: Double?
        public var count: Int
    }

    public struct Direction: Sendable, Codable, Equatable {
        public var p50Degrees: Double?
        public var p95Degrees: Double?
        /// Share of updates without a direction (outside the field of view, obstructed, out of range).
        public var nilShare: Double
    }

    public struct Bumps: Sendable, Codable, Equatable {
        /// Bumps fired.
        public var fired: Int
        /// True contacts (held at least 0.2 s), and those a bump was matched to.
        public var trueContacts: Int
        public var detected: Int
        public var precision: Double?
        public var recall: Double?
        /// From the start of the true contact to its bump, signed: negative when the bump fired before the phones
        /// touched (it may, up to 0.5 s before).
        public var latencyP50: Double?
        public var latencyP95: Double?
        /// Detected contacts whose bump fired before the phones touched.
        public var earlyDetections: Int
        /// Bumps on touches that began in the run's last second: too late to score, left out of the precision.
        public var unscoredBumps: Int
        /// Bumps matched to no true contact, and how far the phones truly were when they fired: up to 8 cm, 8-12 cm,
        /// 12-20 cm, beyond 20 cm.
        public var falseBumps: Int
        public var falseByTrueDistance: [DistanceCount]
        /// True near misses (closest approach 8 to 25 cm without touching), by closest approach (8-12, 12-20,
        /// 20-25 cm), and brief brushes (under 0.2 s).
        public var nearMisses: Int
        public var nearMissesByDistance: [DistanceCount]
        public var brushes: Int
        /// Profiles delivered over the transport after bumps (one each way per bump).
        public var profilesDelivered: Int
        /// With a scenario file's scripted encounters: each class's score, by its name (`gentleTouch`, `hardTap`,
        /// ...); absent without encounters.
        public var byClass: [String: ClassScore]?
        /// With sampled accelerometers and the fused detector: the jolts the apps sent each other over the data
        /// channel (one message a peer), those that arrived, and those refused as malformed.
        public var jolts: JoltMessages?
    }

    public struct JoltMessages: Sendable, Codable, Equatable {
        public var sent: Int
        public var heard: Int
        public var refused: Int

        public init(sent: Int, heard: Int, refused: Int) {
            self.sent = sent
            self.heard = heard
            self.refused = refused
        }
    }

    /// How the detector did on one class of scripted encounter.
    public struct ClassScore: Sendable, Codable, Equatable {
        /// Encounters of the class, those on which a bump fired for the pair (from the encounter's start to a second
        /// after its end), and whether the class is a true contact.
        public var encounters: Int
        public var fired: Int
        public var touch: Bool

        public init(encounters: Int, fired: Int, touch: Bool) {
            self.encounters = encounters
            self.fired = fired
            self.touch = touch
        }
    }

    /// A count in a band of true distance, metres (`toMetres` absent: no upper bound).
    public struct DistanceCount: Sendable, Codable, Equatable {
        public var fromMetres: Double
        public var toMetres: Double?
        public var count: Int

        public init(fromMetres: Double, toMetres: Double?, count: Int) {
            self.fromMetres = fromMetres
            self.toMetres = toMetres
            self.count = count
        }
    }

    public struct Performance: Sendable, Codable, Equatable {
        public var wallSeconds: Double
        /// Session updates delivered per second of wall clock.
        public var updatesPerSecond: Double
        /// Simulated seconds per wall-clock second.
        public var realTimeFactor: Double
        public var peakMemoryMB: Double
    }

    public var run: Run
    public var discovery: Discovery
    public var ranging: Ranging
    public var distanceRaw: ErrorFigures
    public var distanceFiltered: ErrorFigures
    public var direction: Direction
    public var bumps: Bumps
    public var performance: Performance
    /// Lines in the trace, or `nil` without one.
    public var traceLines: Int?
}
