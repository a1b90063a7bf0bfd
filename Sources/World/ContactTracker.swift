import Geometry

/// A true contact: two phones' bodies touching (their surfaces within ``PhoneBody/touching``), from `start` to
/// `end`.
package struct TrueContact: Sendable, Equatable {
    package let a: Int
    package let b: Int
    package let start: Double
    /// When the phones parted again; `nil` while they still touch.
    package internal(set) var end: Double?
    /// The least distance between the two phones' centres during the contact, metres: 1 cm back to back, 15 cm
    /// top to top.
    package internal(set) var minimumDistance: Double
    /// How fast the two surfaces closed as they met, m/s, as the world followed the meeting; `nil` where it did not
    /// (bodies given to ``ContactTracker/observe(_:at:)`` without their motion). The scorer reads it to say which
    /// touches were found at which speed: a sensor's floor is a speed change, not a class.
    package internal(set) var closingSpeed: Double?

    /// How long the phones touched; `nil` while they still do.
    package var duration: Double? { end.map { $0 - start } }
}

/// A true near miss: two phones' bodies came within ``ContactTracker/nearMissDistance`` of each other without
/// touching.
package struct TrueNearMiss: Sendable, Equatable {
    package let a: Int
    package let b: Int
    /// When the bodies were closest.
    package let time: Double
    /// The least distance between the two phones' centres over the approach, metres.
    package let minimumDistance: Double
    /// The bodies' closest approach: the least distance between their surfaces, metres.
    package let gap: Double
}

/// Two phones near each other at one instant, as the truth sees them.
package struct CloseBodies: Sendable, Equatable {
    /// The pair as the scorer names it (a relabelled pair under a ``TruthScramble``), lower first ...
    package let a: Int
    package let b: Int
    /// ... and as the world indexes its phones, for ``ContactTracker/observe(close:at:gap:)``'s `gap`.
    package let first: Int
    package let second: Int
    /// The distance between their centres, and the bodies' separating figure (``BoxContact/separation``): a lower
    /// bound of the gap between their surfaces, negative where they overlap.
    package let centreDistance: Double
    package let separation: Double

    package init(a: Int, b: Int, first: Int, second: Int, centreDistance: Double, separation: Double) {
        self.a = a
        self.b = b
        self.first = first
        self.second = second
        self.centreDistance = centreDistance
        self.separation = separation
    }
}

/// Finds true contacts and near misses among all pairs from the phones' bodies: a contact is two bodies touching,
/// a near miss an approach whose bodies came close without touching. The world finds the pairs close enough to
/// watch through a grid, so that a step costs about O(N) rather than O(N^2).
package struct ContactTracker: Sendable {
    /// An approach whose bodies come this close without touching is a near miss (25 cm between the surfaces).
    package let nearMissDistance: Double
    /// Pairs whose centres are closer than this are watched as an approach (50 cm: two phones' surfaces 25 cm
    /// apart have their centres at most 25 cm and a phone's length further).
    package let approachDistance: Double
    /// A contact shorter than this (seconds) is a brush: strangers' phones passing, not a touch anyone made or any
    /// detector ranging at 10 Hz could see. Scoring counts only longer contacts; brushes are reported apart.
    package static let minimumTouchDuration = 0.2

    private struct Episode {
        var minimum: Double
        /// The bodies' least gap so far and when; infinite until they came within the near-miss distance.
        var gap: Double = .infinity
        var gapAt: Double
        var contactIndex: Int?
    }

    private var episodes: [Int64: Episode] = [:]
    package private(set) var contacts: [TrueContact] = []
    package private(set) var nearMisses: [TrueNearMiss] = []

    package init(nearMissDistance: Double = 0.25, approachDistance: Double = 0.5) {
        self.nearMissDistance = nearMissDistance
        self.approachDistance = approachDistance
    }

    private static func key(_ a: Int, _ b: Int) -> Int64 { Int64(a) << 32 | Int64(b) }

    /// Looks at the phones' bodies at `time` and returns what began or ended: contacts started, contacts ended,
    /// near misses completed (when the pair moved apart again).
    package mutating func observe(_ bodies: [OrientedBox], at time: Double) -> [ContactChange] {
        let close = Self.closePairs(bodies.map(\.centre), within: approachDistance).map { i, j, d in
            CloseBodies(a: i, b: j, first: i, second: j, centreDistance: d,
                        separation: BoxContact(bodies[i], bodies[j]).separation)
        }
        return observe(close: close, at: time) { BoxContact.distance(bodies[$0], bodies[$1]) }
    }

    /// Every pair closer than `reach`, as (lower index, higher index, distance), in pair order.
    static func closePairs(_ positions: [Vector3], within reach: Double) -> [(Int, Int, Double)] {
        var close: [(Int, Int, Double)] = []
        for (i, j) in NeighbourGrid(positions, cell: reach).candidatePairs() {
            let d = (positions[i] - positions[j]).length
            if d < reach { close.append((i, j, d)) }
        }
        return close
    }

    /// The same from the pairs whose centres are closer than the approach distance, found by the caller (in pair
    /// order); `gap` measures the true distance between two phones' surfaces (by world index), asked only while it
    /// may set a near miss's closest approach; `closing` says when since the last look a pair's surfaces met and
    /// how fast they closed then, asked once a contact; `parting` when since the last look they came apart. Without
    /// them a contact starts and ends at the look that saw it (the world's step).
    mutating func observe(close: [CloseBodies], at time: Double, gap: (Int, Int) -> Double,
                          closing: (CloseBodies) -> (at: Double, speed: Double)? = { _ in nil },
                          parting: (Int, Int) -> Double? = { _, _ in nil }) -> [ContactChange] {
        var changes: [ContactChange] = []
        var seen = Set<Int64>()
        for pair in close {
            let (a, b, d) = (pair.a, pair.b, pair.centreDistance)
            let key = Self.key(a, b)
            guard seen.insert(key).inserted else { continue }
            var episode = episodes[key] ?? Episode(minimum: d, gapAt: time, contactIndex: nil)
            episode.minimum = min(episode.minimum, d)
            if pair.separation <= PhoneBody.touching {
                if let index = episode.contactIndex {
                    if contacts[index].end == nil {
                        contacts[index].minimumDistance = min(contacts[index].minimumDistance, d)
                    } else {
                        episode.contactIndex = startContact(a, b, d, time, closing(pair), &changes)
                    }
                } else {
                    episode.contactIndex = startContact(a, b, d, time, closing(pair), &changes)
                }
            } else {
                if let index = episode.contactIndex, contacts[index].end == nil {
                    contacts[index].end = max(parting(pair.first, pair.second) ?? time, contacts[index].start)
                    changes.append(.contactEnded(contacts[index]))
                }
                // The separating figure never exceeds the gap: only a figure under the least gap yet can lower it.
                if pair.separation <= nearMissDistance, pair.separation < episode.gap {
                    let measured = gap(pair.first, pair.second)
                    if measured < episode.gap {
                        episode.gap = measured
                        episode.gapAt = time
                    }
                }
            }
            episodes[key] = episode
        }
        // Approaches that are over: the pair is no longer close.
        for key in episodes.keys.sorted() where !seen.contains(key) {
            let episode = episodes.removeValue(forKey: key)!
            let a = Int(key >> 32)
            let b = Int(key & 0xFFFF_FFFF)
            if let index = episode.contactIndex, contacts[index].end == nil {
                contacts[index].end = time
                changes.append(.contactEnded(contacts[index]))
            }
            if episode.contactIndex == nil, episode.gap <= nearMissDistance {
                let miss = TrueNearMiss(a: a, b: b, time: episode.gapAt, minimumDistance: episode.minimum,
                                        gap: episode.gap)
                nearMisses.append(miss)
                changes.append(.nearMiss(miss))
            }
        }
        return changes
    }

    private mutating func startContact(_ a: Int, _ b: Int, _ d: Double, _ time: Double,
                                       _ met: (at: Double, speed: Double)?,
                                       _ changes: inout [ContactChange]) -> Int {
        let contact = TrueContact(a: a, b: b, start: min(met?.at ?? time, time), end: nil, minimumDistance: d,
                                  closingSpeed: met?.speed)
        contacts.append(contact)
        changes.append(.contactStarted(contact))
        return contacts.count - 1
    }
}

/// Something the truth saw happen.
package enum ContactChange: Sendable, Equatable {
    case contactStarted(TrueContact)
    case contactEnded(TrueContact)
    case nearMiss(TrueNearMiss)
}
