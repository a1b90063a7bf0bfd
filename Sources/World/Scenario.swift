/// Which world to simulate.
package enum Scenario: Sendable, Equatable {
    /// A hall sized to the crowd where peers wander, pick the best-matching peer they discovered, walk to it and
    /// touch phones (or, for a share of approaches, stop just short), then move on.
    case mingle
    /// Peers walk between random points of the hall and pause; contacts happen only by chance.
    case randomWaypoint
    /// Trajectories from a scenario file.
    case scripted(ScenarioFile)

    /// The name as the command line and the summary give it.
    package var name: String {
        switch self {
        case .mingle: "mingle"
        case .randomWaypoint: "random-waypoint"
        case .scripted(let file): file.name
        }
    }
}

/// The mingle scenario's parameters.
package struct MingleSettings: Sendable, Equatable {
    /// Floor area per peer, m^2: the hall is a square of this area times the crowd.
    package var areaPerPeer: Double = 4
    /// Interests are drawn from this pool, `interestsPerPeer` each.
    package var interestPool = ["chess", "jazz", "hiking", "ai", "cooking", "cycling", "film", "poetry",
                               "startups", "climbing", "gardening", "robots"]
    package var interestsPerPeer = 3
    /// Share of approaches that stop short of touching (near misses).
    package var nearMissShare = 0.25
    /// The gap between the phones' bodies a near miss stops at, metres (uniform): from half a centimetre short of
    /// touching to a hand's width. An assumption (docs/simulation.md). A touch closes until the bodies meet.
    package var nearMissGap: ClosedRange<Double> = 0.005...0.15
    /// How long the phones stay at their closest, seconds (uniform).
    package var hold: ClosedRange<Double> = 0.4...0.6
    /// Walking speed, m/s (uniform per leg).
    package var walkingSpeed: ClosedRange<Double> = 0.8...1.4
    /// Time spent wandering between two encounters, seconds (uniform).
    package var wanderTime: ClosedRange<Double> = 2...8
    /// The phones are brought together from this gap at `gestureSpeed`.
    package var gestureStartGap = 0.5
    /// Speed at which each phone moves during the gesture, m/s (the gap closes at twice this).
    package var gestureSpeed = 0.15
    /// Peers that are not each other's partner keep at least this far apart, metres.
    package var personalSpace = 0.6
    /// And their reaches (a phone held up and the forearm behind it, back to the elbow) at least this far apart,
    /// metres: 22 cm between two forearms 8 cm thick. An assumption.
    package var reachSpace = 0.3
    /// How fast a holder's body turns, radians per second: 2 (115°/s), a half turn in 1.6 s. An assumption, of the
    /// order of the self-paced 180° standing turns Khobkhun, Hollands & Richards measured (Sensors 21(8) 2827,
    /// 2021); docs/simulation.md ("What has a body") gives what 1 and 4 rad/s change.
    package var turnRate = 2.0

    package init() {}
}
