import Geometry

/// A true contact: two phones at or under the contact distance, from `start` to `end`.
package struct TrueContact: Sendable, Equatable {
    package let a: Int
    package let b: Int
    package let start: Double
    /// When the phones parted again; `nil` while they still touch.
    package internal(set) var end: Double?
    /// The least true distance during the contact, metres.
    package internal(set) var minimumDistance: Double

    /// How long the phones touched; `nil` while they still do.
    package var duration: Double? { end.map { $0 - start } }
}

/// A true near miss: two phones came within `nearMissDistance` without touching.
package struct TrueNearMiss: Sendable, Equatable {
    package let a: Int
    package let b: Int
    /// When the phones were closest.
    package let time: Double
    package let minimumDistance: Double
}

/// Finds true contacts and near misses among all pairs, through a grid of cells as wide as the approach distance, so
/// that a step costs about O(N) rather than O(N^2).
package struct ContactTracker: Sendable {
    /// At or under this true distance two phones touch (8 cm).
    package let contactDistance: Double
    /// An approach that comes this close without touching is a near miss (25 cm).
    package let nearMissDistance: Double
    /// Pairs closer than this are watched as an approach (50 cm).
    package let approachDistance: Double
    /// A contact shorter than this (seconds) is a brush: strangers' phones passing, not a touch anyone made or any
    /// detector ranging at 10 Hz could see. Scoring counts only longer contacts; brushes are reported apart.
    package static let minimumTouchDuration = 0.2

    private struct Episode {
        var minimum: Double
        var minimumAt: Double
        var contactIndex: Int?
    }

    private var episodes: [Int64: Episode] = [:]
    package private(set) var contacts: [TrueContact] = []
    package private(set) var nearMisses: [TrueNearMiss] = []

    package init(contactDistance: Double = 0.08, nearMissDistance: Double = 0.25, approachDistance: Double = 0.5) {
        self.contactDistance = contactDistance
        self.nearMissDistance = nearMissDistance
        self.approachDistance = approachDistance
    }

    private static func key(_ a: Int, _ b: Int) -> Int64 { Int64(a) << 32 | Int64(b) }

    /// Looks at the positions at `time` and returns what began or ended: contacts started, contacts ended, near
    /// misses completed (when the pair moved apart again).
    package mutating func observe(_ positions: [Vector3], at time: Double) -> [ContactChange] {
        observe(close: Self.closePairs(positions, within: approachDistance), at: time)
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

    /// The same from the pairs closer than the approach distance, found by the caller (in pair order).
    mutating func observe(close: [(Int, Int, Double)], at time: Double) -> [ContactChange] {
        var changes: [ContactChange] = []
        var seen = Set<Int64>()
        for (a, b, d) in close {
            let key = Self.key(a, b)
            guard seen.insert(key).inserted else { continue }
            var episode = episodes[key] ?? Episode(minimum: d, minimumAt: time, contactIndex: nil)
            if d < episode.minimum {
                episode.minimum = d
                episode.minimumAt = time
            }
            if d <= contactDistance {
                if let index = episode.contactIndex {
                    if contacts[index].end == nil {
                        contacts[index].minimumDistance = min(contacts[index].minimumDistance, d)
                    } else {
                        episode.contactIndex = startContact(a, b, d, time, &changes)
                    }
                } else {
                    episode.contactIndex = startContact(a, b, d, time, &changes)
                }
            } else if let index = episode.contactIndex, contacts[index].end == nil {
                contacts[index].end = time
                changes.append(.contactEnded(contacts[index]))
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
            if episode.contactIndex == nil, episode.minimum <= nearMissDistance {
                let miss = TrueNearMiss(a: a, b: b, time: episode.minimumAt, minimumDistance: episode.minimum)
                nearMisses.append(miss)
                changes.append(.nearMiss(miss))
            }
        }
        return changes
    }

    private mutating func startContact(_ a: Int, _ b: Int, _ d: Double, _ time: Double,
                                       _ changes: inout [ContactChange]) -> Int {
        let contact = TrueContact(a: a, b: b, start: time, end: nil, minimumDistance: d)
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
