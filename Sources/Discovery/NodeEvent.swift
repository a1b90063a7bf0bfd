import Sessions
import TransportCore

/// What a node reports to its app.
package enum NodeEvent: Sendable, Equatable {
    /// A peer (this incarnation of it) was discovered; reported once per incarnation.
    case found(Advertisement)
    /// A peer was lost: it said goodbye (`peerEnded`) or fell silent (`timeout`).
    case lost(PeerID, SessionRemovalReason)
    /// Something happened to the session with a peer.
    case session(PeerID, SessionEvent)
    /// Application data arrived within a running session.
    case data(PeerID, kind: UInt8, payload: [UInt8])
    /// A peer invited this node, or asked to be invited, and waits for the app's consent (only with
    /// ``DiscoveryNode/Configuration/connectsByConsent``).
    case invited(PeerID)
}

/// What a node asks its driver to do.
package enum NodeDirective: Sendable, Equatable {
    case send([UInt8], to: Destination)
    case event(NodeEvent)
}
