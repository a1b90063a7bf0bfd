/// What a discovery node needs of a network: a group to announce on, a unicast endpoint for the token exchange, and
/// delivery of what arrives. Implemented over UDP multicast (real sockets) and in memory (deterministic, lossy on
/// demand).
///
/// A transport belongs to one node and is used from that node's single execution context (an event loop, or the
/// virtual clock); `onReceive` is called in that context.
public protocol DatagramTransport: AnyObject {
    /// Where this node's unicast datagrams arrive; announced to the group.
    var unicastEndpoint: Endpoint { get }
    /// Called for each datagram received, on the group or the unicast endpoint.
    var onReceive: ((IncomingDatagram) -> Void)? { get set }
    /// Sends one datagram; like UDP, it may be lost and reports nothing.
    func send(_ bytes: [UInt8], to destination: Destination)
    /// Sends one datagram with what its sender knows of its bytes (``FrameMemo``), for its receivers to read
    /// instead of finding it again: a transport in this process hands it on; one that sends over a wire drops it.
    func send(_ bytes: [UInt8], to destination: Destination, memo: FrameMemo?)
    /// Whether ``send(_:to:memo:)`` hands the memo to the receivers: only then may a sender leave in the memo alone
    /// what it would otherwise write into the bytes.
    var handsOnMemos: Bool { get }
    /// Stops sending and receiving.
    func close()
    /// Offers the transport a receiver that can take a group frame in two steps (``SteppedReceiver``), or takes it
    /// back with `nil`: a transport that delivers a frame to many receivers keeps it, unowned (the receiver takes
    /// itself back before it goes); others ignore it.
    func offer(stepped receiver: (any SteppedReceiver)?)
}

extension DatagramTransport {
    public func offer(stepped receiver: (any SteppedReceiver)?) {}

    public var handsOnMemos: Bool { false }

    public func send(_ bytes: [UInt8], to destination: Destination, memo: FrameMemo?) {
        send(bytes, to: destination)
    }
}

/// A receiver that takes a group frame in two steps, so that the frame's many receivers in memory can take it on
/// several threads at once and still act in one order: ``take(_:)`` touches nothing but the receiver's own state
/// (it may run beside other receivers' ``take(_:)`` of the same frame, never beside anything else), and keeps what
/// its handling asks of the world; ``settle()`` does that (sends, events) on the network's thread, receiver after
/// receiver, as one delivery after another would have.
public protocol SteppedReceiver: AnyObject {
    /// Returns whether there is anything to settle: a receiver whose taking asked for nothing is not settled.
    func take(_ datagram: IncomingDatagram) -> Bool
    func settle()
    /// Takes a frame whole, in one step: what the transport's `onReceive` does, without a closure's context to
    /// count a reference to for each receiver of each frame.
    func receive(_ datagram: IncomingDatagram)
}

/// A clock and a timer for one node's execution context: virtual (as fast as possible) or real (paced).
public protocol NodeClock: AnyObject {
    /// Seconds since the run's origin.
    var now: Double { get }
    /// Runs `action` in this context at `time` (at once if it has passed).
    func schedule(at time: Double, _ action: @escaping () -> Void)
}
