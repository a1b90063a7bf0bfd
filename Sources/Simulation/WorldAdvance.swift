import Dispatch
import World

/// The world running on to a time beside other work that touches nothing of the world's.
enum WorldAdvance {
    /// The fewest devices for which running the world beside pays: at 100 devices its round (about 0.15 ms) and what
    /// runs beside it are short enough that handing one to another thread made the whole run about 3% slower
    /// (0.71 against 0.69 s, eight runs each); at 300 it was 3% faster, at 1,000 about 9%.
    static let besideFrom = 200

    /// Runs the world to `time` and `work`, on two threads when `beside` (one after the other when no second thread
    /// is free, as `concurrentPerform` does), and returns what the truth saw on the way.
    static func run(_ world: World, to time: Double, beside: Bool, _ work: () -> Void) -> [ContactChange] {
        guard beside else {
            let changes = world.advance(to: time)
            work()
            return changes
        }
        var changes: [ContactChange] = []
        withoutActuallyEscaping(work) { work in
            withUnsafeMutablePointer(to: &changes) { changes in
                let shared = AdvanceShared(world: world, changes: changes, work: work)
                DispatchQueue.concurrentPerform(iterations: 2) { k in
                    if k == 0 { shared.changes.pointee = shared.world.advance(to: time) } else { shared.work() }
                }
            }
        }
        return changes
    }
}

/// The world and the other work, handed to `concurrentPerform`: one iteration touches the world and its changes
/// alone, the other everything but, which is what makes sharing them safe.
private struct AdvanceShared: @unchecked Sendable {
    let world: World
    let changes: UnsafeMutablePointer<[ContactChange]>
    let work: () -> Void
}

/// The world's next round, run on another thread from the end of a round while the devices' datagrams between the
/// two rounds are delivered: nothing those touch is the world's (the sessions it reads to pair people up are the
/// next round's, so it stops before a step that pairs, ``World/advanceBeforePairing(to:)``), and the next round
/// waits for it before it reads the world.
final class WorldAhead: @unchecked Sendable {
    private let group = DispatchGroup()
    private var changes: [ContactChange] = []
    /// What the oracle is told at the next round's start, read before the world ran on (``Simulation/oracleTargets()``).
    let targets: [Int32]

    /// Starts the world toward `target` on another thread.
    init(_ world: World, to target: Double, targets: [Int32]) {
        self.targets = targets
        let shared = AheadShared(world: world, ahead: self)
        DispatchQueue.global().async(group: group) {
            shared.ahead.changes = shared.world.advanceBeforePairing(to: target)
        }
    }

    /// Waits for the world and returns what the truth saw on the way.
    func finish() -> [ContactChange] {
        group.wait()
        return changes
    }
}

/// The world and its run ahead, handed to the thread that runs it: nothing else touches either until
/// ``WorldAhead/finish()``.
private struct AheadShared: @unchecked Sendable {
    let world: World
    let ahead: WorldAhead
}
