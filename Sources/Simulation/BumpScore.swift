import Planning
import Ranging
import World

/// Bumps matched against the true contacts of the same pair.
///
/// A bump matches a true contact of its pair when it fires between 0.5 s before the contact starts and 1 s after it
/// ends; each contact takes at most one bump, the first. A contact held at least
/// ``ContactTracker/minimumTouchDuration`` is one a detector must find (recall counts it); a briefer one, a brush
/// (a tap that bounced off, strangers' phones grazing), need not be found, but a bump on it is no false bump: the
/// phones did touch.
/// Contacts that start in the run's last second are not counted: no detector could confirm them in time; a bump on
/// one is neither right nor false, and is set aside (``unscored``) rather than counted against the precision.
///
/// Nothing is hidden: a latency is signed (a bump that fired before the phones touched is early, not zero), false
/// bumps are told apart by how far the phones' antennas truly were when they fired, near misses by how close their
/// bodies came.
struct BumpScore {
    /// The bands of the antennas' true distance at which a false bump fired, metres: up to 8 cm (what the apps'
    /// rule calls a bump: a near miss's closest, a brush, a second bump of one touch), to 12 cm, to 20 cm, beyond.
    static let falseBandLimits: [Double] = [0.08, 0.12, 0.20]
    /// The bands of a near miss's closest approach, the gap between the bodies, metres: 0-2, 2-5, 5-12, 12-25 cm.
    static let nearMissBandLimits: [Double] = [0.02, 0.05, 0.12]
    /// The bands of a contact's closing speed, m/s: under 3 cm/s (a speed change a 100-Hz chip reads at or under a
    /// held phone's own motion, docs/simulation.md), 3-10 cm/s, 10-30 cm/s, 30 cm/s-1 m/s, beyond.
    static let closingSpeedLimits: [Double] = [0.03, 0.1, 0.3, 1.0]

    var contacts = 0
    var detected = 0
    var matchedBumps = 0
    /// Bumps on contacts that began in the run's last second.
    var unscored = 0
    var brushes = 0
    /// Brushes a bump fired on: right, though not required.
    var brushesBumped = 0
    /// Bump time minus contact start for every detected contact, seconds, in contact order.
    var latencies: [Double] = []
    var falseByTrueDistance = [Int](repeating: 0, count: falseBandLimits.count + 1)
    var nearMissesByDistance = [Int](repeating: 0, count: nearMissBandLimits.count + 1)
    /// The contacts to detect whose closing speed the world followed, and those detected, by band of that speed.
    var contactsBySpeed = [Int](repeating: 0, count: closingSpeedLimits.count + 1)
    var detectedBySpeed = [Int](repeating: 0, count: closingSpeedLimits.count + 1)
    /// Every contact to detect (held long enough, begun before the run's last second), and whether a bump found it.
    var scored: [(contact: TrueContact, detected: Bool)] = []

    init(bumps: [RangingBump], tracker: ContactTracker, end: Double) {
        var used = Set<Int>()
        var late = Set<Int>()
        for contact in tracker.contacts {
            let duration = (contact.end ?? end) - contact.start
            let until = (contact.end ?? end) + 1
            let match = bumps.indices.first { k in
                !used.contains(k) && !late.contains(k) && Self.samePair(bumps[k], contact)
                    && bumps[k].time >= contact.start - 0.5 && bumps[k].time <= until
            }
            guard duration >= ContactTracker.minimumTouchDuration else {
                brushes += 1
                if let match {
                    used.insert(match)
                    brushesBumped += 1
                }
                continue
            }
            guard contact.start <= end - 1 else {
                if let match { late.insert(match) }
                continue
            }
            contacts += 1
            let band = contact.closingSpeed.map { Self.band($0, Self.closingSpeedLimits) }
            if let band { contactsBySpeed[band] += 1 }
            scored.append((contact, match != nil))
            if let k = match {
                used.insert(k)
                detected += 1
                if let band { detectedBySpeed[band] += 1 }
                latencies.append(bumps[k].time - contact.start)
            }
        }
        matchedBumps = used.count
        unscored = late.count
        for k in bumps.indices where !used.contains(k) && !late.contains(k) {
            falseByTrueDistance[Self.band(bumps[k].trueDistance, Self.falseBandLimits)] += 1
        }
        for miss in tracker.nearMisses {
            nearMissesByDistance[Self.band(miss.gap, Self.nearMissBandLimits)] += 1
        }
    }

    /// The latency under which `fraction` of the detected contacts' latencies lie (the smallest value reaching that
    /// share, as a quantile of the values themselves); `nil` without one.
    func latency(_ fraction: Double) -> Double? {
        guard !latencies.isEmpty else { return nil }
        let sorted = latencies.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Detected contacts whose bump fired before the phones touched.
    var early: Int { latencies.filter { $0 < 0 }.count }

    private static func band(_ value: Double, _ limits: [Double]) -> Int {
        limits.firstIndex { value <= $0 } ?? limits.count
    }

    /// A contact names its pair lower index first; a bump, initiator first.
    static func samePair(_ bump: RangingBump, _ contact: TrueContact) -> Bool {
        min(bump.initiator, bump.responder) == contact.a && max(bump.initiator, bump.responder) == contact.b
    }
}
