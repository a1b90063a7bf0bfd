import GSL
import DequeModule
import HeapModule
import Sessions

/// Consent and suspension: a node that asks its app before connecting, and sessions that pause with the app.
extension DiscoveryNode {
    /// With ``Configuration/connectsByConsent``: the app invites `peer`, or accepts its invitation. The initiator of
    /// the pair (the lower peer id) invites at once; the responder asks to be invited. Nothing more to do for a
    /// peer not found yet: it is invited when found.
    package mutating func consent(to peer: PeerID, now: Double) -> [NodeDirective] {
        guard consented.insert(peer).inserted, let known = peers[peer], !table.hasSession(with: peer) else { return [] }
        heldOff[peer] = nil
        if me.initiates(with: peer) {
            guard invitations[peer] == nil else { return [] }
            return beginInvitation(to: peer, incarnation: known.advertisement.incarnation, now: now)
        }
        return [solicit(peer, incarnation: known.advertisement.incarnation, at: known.endpoint)]
    }

    /// Mutating only to be read in place: called from the receiving path as a plain method, it copied the whole node
    /// (every table's reference retained and released) on each announcement of a new peer.
    @inline(__always)
    mutating func consents(to peer: PeerID) -> Bool {
        !configuration.connectsByConsent || consented.contains(peer)
    }

    /// Tells the app, once a life, that `peer` wants to connect.
    mutating func askApp(_ peer: PeerID) -> [NodeDirective] {
        guard toldInvited.insert(peer).inserted else { return [] }
        return [.event(.invited(peer))]
    }


    /// Suspends every running session (the app went to the background).
    package mutating func suspend() -> [NodeDirective] {
        table.peers.filter { table.suspend(peer: $0) }.map { .event(.session($0, .suspended)) }
    }

    /// Resumes every suspended session.
    package mutating func resume() -> [NodeDirective] {
        table.peers.filter { table.resume(peer: $0) }.map { .event(.session($0, .suspensionEnded)) }
    }
}
