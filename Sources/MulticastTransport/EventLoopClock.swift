import NIOCore
import Transport

/// Real time for the nodes of one event loop: seconds since a shared origin, and timers on the loop.
public final class EventLoopClock: NodeClock {
    private let loop: EventLoop
    private let origin: NIODeadline

    /// A clock on `loop` measuring from `origin` (the run's start, shared by all loops).
    public init(loop: EventLoop, origin: NIODeadline) {
        self.loop = loop
        self.origin = origin
    }

    public var now: Double {
        Double((NIODeadline.now() - origin).nanoseconds) / 1e9
    }

    public func schedule(at time: Double, _ action: @escaping () -> Void) {
        let bound = NIOLoopBound(action, eventLoop: loop)
        let deadline = origin + .nanoseconds(Int64((time * 1e9).rounded(.up)))
        loop.scheduleTask(deadline: deadline) { bound.value() }
    }
}
