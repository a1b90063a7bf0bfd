import Sessions
import TransportCore

/// Runs one ``DiscoveryNode`` on a transport and a clock: feeds it datagrams and timer wake-ups, performs its
/// directives, and reports its events.
///
/// Confined to the clock's execution context (the virtual clock's loop, or one event loop): the node, the
/// transport and the timers are touched from there alone, so nothing needs a lock.
package final class NodeDriver: SteppedReceiver {
    @exclusivity(unchecked) package private(set) var node: DiscoveryNode
    package let transport: any DatagramTransport
    package let clock: any NodeClock
    /// Called for every event, with the time it happened.
    @exclusivity(unchecked) package var onEvent: ((NodeEvent, Double) -> Void)?
    @exclusivity(unchecked) private var wakeAt: Double?
    @exclusivity(unchecked) package private(set) var isRunning = false
    /// Seconds spent busy on every datagram before the node sees it, as a slower host would: an overload test
    /// slows the receive path with it. 0 (the default) adds nothing.
    @exclusivity(unchecked) package var receiveCost: Double = 0

    /// The node's sessions whose two tokens are known, read in place (``node`` would copy the whole node).
    package var establishedSessions: Int { withUnsafeMutablePointer(to: &node) { $0.pointee.table.establishedCount } }

    /// - Parameter inProcessRoom: every node the node sends to alone is a node of this process that reads the
    ///   datagram's memo (an in-memory room's own): on a transport that hands memos on, the node's unicast datagrams
    ///   go unsealed, their tag and signature in the memo alone (``DiscoveryNode/unicastGoesUnsealed``); on any
    ///   other, everything is sealed.
    package init(node: DiscoveryNode, transport: any DatagramTransport, clock: any NodeClock,
                 inProcessRoom: Bool = false) {
        self.node = node
        self.transport = transport
        self.clock = clock
        handsOnMemos = transport.handsOnMemos
        self.node.unicastGoesUnsealed = inProcessRoom && handsOnMemos
        timers.driver = self
    }

    /// Whether the transport is in memory (``DatagramTransport/handsOnMemos``), asked once: the driver's timers and
    /// its closure hold it as such a transport's clock allows (``Timers``).
    private let handsOnMemos: Bool

    /// What the driver's timers hold of it in memory, where the clock's thread alone runs them and lets drivers go:
    /// a weak reference to the driver would give it a side table, and then every retain of it (one for each frame
    /// each receiver takes) went through that table.
    private final class Timers {
        /// `nil` once the driver is gone (its `deinit`).
        unowned(unsafe) var driver: NodeDriver?
    }

    private let timers = Timers()

    /// The node's events as an asynchronous sequence, for apps that prefer `for await` to a callback.
    ///
    /// The stream buffers without bound and ends when the node stops; a callback set on ``onEvent`` before this
    /// call keeps being called.
    package func events() -> AsyncStream<TimedNodeEvent> {
        let (stream, continuation) = AsyncStream<TimedNodeEvent>.makeStream()
        let previous = onEvent
        onEvent = { event, time in
            previous?(event, time)
            continuation.yield(TimedNodeEvent(event: event, time: time))
        }
        finishStreams.append { continuation.finish() }
        return stream
    }

    @exclusivity(unchecked) private var finishStreams: [() -> Void] = []
    /// What the node's taking of a group frame asked for, kept until ``settle()``.
    @exclusivity(unchecked) private var taken: [NodeDirective]?

    /// Starts the node: it announces, browses and answers from now on.
    package func start() {
        isRunning = true
        if handsOnMemos {
            // In memory the clock's thread alone delivers, and the driver takes its closure off its own transport
            // when it goes (deinit). A weak load per datagram read a side table, a cache miss for each receiver of
            // every frame (4.5% of a 1,000-peer run's time); not counted either: a retain and release for each
            // receiver of every frame, for a driver the room holds.
            let driver = Unmanaged.passUnretained(self)
            transport.onReceive = { datagram in
                driver._withUnsafeGuaranteedRef { Self.receive(datagram, by: $0) }
            }
        } else {
            // A weak constant, not a `[weak self]` capture: that is a variable of the closure's, and reading it was
            // checked for exclusive access at run time on every datagram.
            weak let driver = self
            transport.onReceive = { datagram in
                guard let self = driver else { return }
                Self.receive(datagram, by: self)
            }
        }
        transport.offer(stepped: self)
        perform(node.start(now: clock.now))
    }

    @inline(__always)
    private static func receive(_ datagram: IncomingDatagram, by driver: NodeDriver) {
        guard driver.isRunning else { return }
        if driver.receiveCost > 0 { spin(for: driver.receiveCost) }
        driver.perform(driver.node.receive(datagram, now: driver.clock.now))
    }

    /// Takes a frame whole, as the transport's `onReceive` does (``SteppedReceiver``).
    package func receive(_ datagram: IncomingDatagram) { Self.receive(datagram, by: self) }

    deinit {
        // The in-memory closure and the transport's stepped receiver hold this driver unowned: neither may outlive
        // it.
        if handsOnMemos { transport.onReceive = nil }
        transport.offer(stepped: nil)
        timers.driver = nil
    }

    /// Hands the node a group frame without doing what it asks: on one of the network's threads, beside other
    /// drivers taking the same frame (``SteppedReceiver``). Only this driver's node and the frame's frozen memo are
    /// touched.
    package func take(_ datagram: IncomingDatagram) -> Bool {
        guard isRunning else { return false }
        if receiveCost > 0 { Self.spin(for: receiveCost) }
        let directives = node.receive(datagram, now: clock.now)
        // Nothing to send or tell, and a timer armed that covers the node's deadline: settling would do nothing.
        if directives.isEmpty, timerCovers(node.nextDeadline) { return false }
        taken = directives
        return true
    }

    /// Does what the node's taking of the frame asked for, on the network's thread at this driver's turn.
    package func settle() {
        guard let directives = taken else { return }
        taken = nil
        perform(directives)
    }

    /// Keeps the thread busy, as work would: a sleep would let the event loop serve other nodes meanwhile.
    private static func spin(for seconds: Double) {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .nanoseconds(Int64(seconds * 1e9)))
        while clock.now < end {}
    }

    /// Stops the node: with `goodbye`, its peers hear it at once; without, they find out by its silence.
    package func stop(goodbye: Bool) {
        guard isRunning else { return }
        let directives = node.stop(now: clock.now)
        if goodbye { perform(directives) }
        isRunning = false
        transport.close()
        for finish in finishStreams { finish() }
        finishStreams = []
    }

    /// Sends application data within the session with `peer`; returns whether there was a session to send on. In
    /// an in-memory room's own driver (``init(node:transport:clock:inProcessRoom:)``) it goes unsealed, as all the
    /// node's unicast does.
    @discardableResult
    package func sendData(to peer: PeerID, kind: UInt8, payload: [UInt8]) -> Bool {
        let directives = node.sendData(to: peer, kind: kind, payload: payload)
        perform(directives)
        return !directives.isEmpty
    }

    /// Applies `change` to the node (suspension, for example) and performs what it returns.
    package func apply(_ change: (inout DiscoveryNode) -> [NodeDirective]) {
        perform(change(&node))
    }

    private func perform(_ directives: [NodeDirective]) {
        let now = clock.now
        let made = node.takeMade()
        for directive in directives {
            switch directive {
            case .send(let bytes, let destination):
                guard isRunning else { continue }
                // The message the node made these bytes from: the same array, not only the same bytes.
                let own = made.firstIndex { Self.sameStorage($0.bytes, bytes) }
                // The node's configuration alone, through a pointer: a method called on the stored node copied the
                // whole node (every table of it) for each datagram sent.
                let memo = withUnsafeMutablePointer(to: &node) {
                    DiscoveryNode.memo(ofOwn: bytes, message: own.map { made[$0].message },
                                       sealed: own.map { made[$0].sealed } ?? true, $0.pointee.configuration)
                }
                transport.send(bytes, to: destination, memo: memo)
            case .event(let event):
                onEvent?(event, now)
            }
        }
        armTimer()
    }

    private static func sameStorage(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count
            && a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    /// Whether the timer armed already wakes the node by `deadline` (or there is none to keep), so that arming it
    /// would do nothing.
    private func timerCovers(_ deadline: Double?) -> Bool {
        guard isRunning, let deadline else { return true }
        if let pending = wakeAt, pending <= deadline, pending > clock.now { return true }
        return false
    }

    private func armTimer() {
        guard !timerCovers(node.nextDeadline), let deadline = node.nextDeadline else { return }
        wakeAt = deadline
        guard handsOnMemos else {
            // An event loop's driver may go on another thread while its timer fires: a weak reference is the safe
            // one there, and a socket's frames reach one driver each, not a thousand.
            clock.schedule(at: deadline) { [weak self] in self?.wake(at: deadline) }
            return
        }
        let timers = self.timers
        clock.schedule(at: deadline) {
            guard let self = timers.driver else { return }
            self.wake(at: deadline)
        }
    }

    private func wake(at deadline: Double) {
        guard isRunning else { return }
        if wakeAt == deadline { wakeAt = nil }
        perform(node.tick(now: clock.now))
    }
}

/// A node event and the time it happened, as ``NodeDriver/events()`` delivers it.
package struct TimedNodeEvent: Sendable, Equatable {
    package let event: NodeEvent
    /// Seconds on the run's clock.
    package let time: Double
}
