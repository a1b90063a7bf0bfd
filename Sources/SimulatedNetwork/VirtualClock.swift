import HeapModule
import TransportCore

/// A discrete-event clock: actions run in time order, ties in the order they were scheduled, as fast as the machine
/// goes. The whole in-memory world (every node and the network) shares one, which makes a run a pure function of
/// its seed.
package final class VirtualClock: NodeClock {
    private struct Item: Comparable {
        let time: Double
        let sequence: UInt64
        let action: () -> Void

        static func < (a: Item, b: Item) -> Bool { (a.time, a.sequence) < (b.time, b.sequence) }
        static func == (a: Item, b: Item) -> Bool { a.time == b.time && a.sequence == b.sequence }
    }

    @exclusivity(unchecked) private var queue = Heap<Item>()
    @exclusivity(unchecked) private var sequence: UInt64 = 0
    @exclusivity(unchecked) package private(set) var now: Double = 0
    /// Actions run so far.
    @exclusivity(unchecked) package private(set) var executed: Int = 0

    package init() {}

    package func schedule(at time: Double, _ action: @escaping () -> Void) {
        sequence += 1
        queue.insert(Item(time: max(time, now), sequence: sequence, action: action))
    }

    /// Runs actions in order until the next one lies after `deadline`, or `stop` says so after an action.
    ///
    /// - Returns: the time reached: the last action's, or `deadline` when the queue ran past it or dried up.
    @discardableResult
    package func run(until deadline: Double, stop: () -> Bool = { false }) -> Double {
        while let next = queue.min, next.time <= deadline {
            _ = queue.removeMin()
            now = next.time
            executed += 1
            next.action()
            if stop() { return now }
        }
        now = max(now, deadline)
        return now
    }

    /// Whether anything is scheduled.
    package var isIdle: Bool { queue.isEmpty }
}
