import Planning
import Ranging
import Synchronization

/// What the summary takes from the run's events: the bumps fired and the profiles delivered.
final class SummaryTally: Sendable {
    private struct State {
        var bumps: [RangingBump] = []
        var profiles = 0
    }

    private let state = Mutex(State())

    func record(_ event: RunEvent) {
        switch event.kind {
        case .bump(let device, let peer, let estimate, let trueDistance):
            state.withLock {
                $0.bumps.append(RangingBump(initiator: device, responder: peer, time: event.time, estimate: estimate,
                                            trueDistance: trueDistance))
            }
        case .profile: state.withLock { $0.profiles += 1 }
        default: break
        }
    }

    var bumps: [RangingBump] { state.withLock { $0.bumps } }
    var bumpCount: Int { state.withLock { $0.bumps.count } }
    var profiles: Int { state.withLock { $0.profiles } }
}
