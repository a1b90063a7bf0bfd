import NIOCore
import Synchronization
import TransportCore

/// The instant a run's clocks count from, shared by the clocks of all its event loops. Set when the run's nodes
/// start (opening a large group's sockets takes a while, and that time is not the run's).
package final class RunOrigin: Sendable {
    private let uptime: Atomic<UInt64>

    package init(_ deadline: NIODeadline = .now()) {
        uptime = Atomic(deadline.uptimeNanoseconds)
    }

    package var deadline: NIODeadline { .uptimeNanoseconds(uptime.load(ordering: .acquiring)) }

    /// Moves the origin; done before the nodes start, whose timers all count from it.
    package func reset(to deadline: NIODeadline = .now()) {
        uptime.store(deadline.uptimeNanoseconds, ordering: .releasing)
    }
}

/// Real time for the nodes of one event loop: seconds since a shared origin, and timers on the loop.
package final class EventLoopClock: NodeClock {
    private let loop: EventLoop
    private let origin: RunOrigin

    /// A clock on `loop` measuring from `origin` (the run's start, shared by all loops).
    package init(loop: EventLoop, origin: RunOrigin) {
        self.loop = loop
        self.origin = origin
    }

    package var now: Double {
        Double((NIODeadline.now() - origin.deadline).nanoseconds) / 1e9
    }

    package func schedule(at time: Double, _ action: @escaping () -> Void) {
        let bound = NIOLoopBound(action, eventLoop: loop)
        let deadline = origin.deadline + .nanoseconds(Int64((time * 1e9).rounded(.up)))
        loop.scheduleTask(deadline: deadline) { bound.value() }
    }
}
