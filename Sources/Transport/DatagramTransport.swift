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
    /// Stops sending and receiving.
    func close()
}

/// A clock and a timer for one node's execution context: virtual (as fast as possible) or real (paced).
public protocol NodeClock: AnyObject {
    /// Seconds since the run's origin.
    var now: Double { get }
    /// Runs `action` in this context at `time` (at once if it has passed).
    func schedule(at time: Double, _ action: @escaping () -> Void)
}
