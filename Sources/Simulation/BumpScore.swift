import Ranging
import World

/// Bumps matched against the true contacts of the same pair.
///
/// A bump matches a true contact (held at least ``ContactTracker/minimumTouchDuration``) of its pair when it fires
/// between 0.5 s before the contact starts and 1 s after it ends; each contact takes at most one bump, the first.
/// Contacts that start in the run's last second are not counted: no detector could confirm them in time.
struct BumpScore {
    var contacts = 0
    var detected = 0
    var matchedBumps = 0
    var falseOnNearMisses = 0
    var brushes = 0
    var latency = Histogram(binWidth: 0.01, bins: 1_000)

    init(bumps: [RangingBump], tracker: ContactTracker, end: Double) {
        var used = Set<Int>()
        for contact in tracker.contacts {
            let duration = (contact.end ?? end) - contact.start
            guard duration >= ContactTracker.minimumTouchDuration else {
                brushes += 1
                continue
            }
            guard contact.start <= end - 1 else { continue }
            contacts += 1
            let until = (contact.end ?? end) + 1
            if let k = bumps.indices.first(where: { k in
                !used.contains(k) && Self.samePair(bumps[k], contact)
                    && bumps[k].time >= contact.start - 0.5 && bumps[k].time <= until
            }) {
                used.insert(k)
                detected += 1
                latency.add(max(bumps[k].time - contact.start, 0))
            }
        }
        matchedBumps = used.count
        falseOnNearMisses = bumps.indices.filter { !used.contains($0) && bumps[$0].trueDistance <= 0.30 }.count
    }

    /// A contact names its pair lower index first; a bump, initiator first.
    static func samePair(_ bump: RangingBump, _ contact: TrueContact) -> Bool {
        min(bump.initiator, bump.responder) == contact.a && max(bump.initiator, bump.responder) == contact.b
    }
}
