import Sessions

/// The datagrams of discovery and the token exchange. docs/wire-format.md gives their layout byte by byte.
package enum WireMessage: Sendable, Equatable {
    /// Multicast: "I offer this service; here is how to reach me; I announce every `interval`".
    case announce(Advertisement, sequence: UInt32, interval: AnnounceInterval)
    /// Multicast: "I am stopping"; browsers remove the peer at once.
    case goodbye(peer: PeerID, incarnation: Incarnation)
    /// Unicast, initiator to responder: "here is my token for our session, and who I am" (the initiator's
    /// advertisement, so that a responder that has not heard its announcement yet can discover it from this).
    case invite(SessionAddress, token: DiscoveryToken, advertisement: Advertisement, interval: AnnounceInterval)
    /// Unicast, responder to initiator: "here is mine; I received yours".
    case accept(SessionAddress, token: DiscoveryToken, echo: DiscoveryToken)
    /// Unicast, responder to initiator: "I cannot hold a session with you" (the code says why).
    case decline(SessionAddress, echo: DiscoveryToken, code: SessionErrorCode)
    /// Unicast, responder to initiator: "I know you and hold no session with you; invite me; here is who I am".
    /// Repairs a pair whose two sides disagree after one of them timed the other out, and introduces a responder to
    /// an initiator that started after it last announced.
    case solicit(SessionAddress, advertisement: Advertisement, interval: AnnounceInterval)
    /// Unicast within a running session: application data (a profile on a bump), carrying the sender's token.
    case sessionData(from: PeerID, to: PeerID, token: DiscoveryToken, kind: UInt8, payload: [UInt8])

    /// The wire type byte of each message.
    /// Who sent it, and which life of it when the message says (a session datagram does not): what replays are
    /// judged by.
    package var sender: (peer: PeerID, incarnation: Incarnation?)? {
        switch self {
        case .announce(let ad, _, _): (ad.peer, ad.incarnation)
        case .goodbye(let peer, let incarnation): (peer, incarnation)
        case .invite(let a, _, _, _), .accept(let a, _, _), .decline(let a, _, _), .solicit(let a, _, _):
            (a.from, a.fromIncarnation)
        case .sessionData(let from, _, _, _, _): (from, nil)
        }
    }

    /// The advertisement it carries: an announcement's, an invitation's or a solicit's.
    package var advertisement: Advertisement? {
        switch self {
        case .announce(let ad, _, _), .invite(_, _, let ad, _), .solicit(_, let ad, _): ad
        case .goodbye, .accept, .decline, .sessionData: nil
        }
    }

    package var type: WireType {
        switch self {
        case .announce: .announce
        case .goodbye: .goodbye
        case .invite: .invite
        case .accept: .accept
        case .decline: .decline
        case .sessionData: .sessionData
        case .solicit: .solicit
        }
    }
}

/// The two ends of a token exchange and the lives they belong to.
package struct SessionAddress: Sendable, Equatable {
    package let from: PeerID
    package let fromIncarnation: Incarnation
    package let to: PeerID
    package let toIncarnation: Incarnation

    package init(from: PeerID, fromIncarnation: Incarnation, to: PeerID, toIncarnation: Incarnation) {
        self.from = from
        self.fromIncarnation = fromIncarnation
        self.to = to
        self.toIncarnation = toIncarnation
    }

    /// The same exchange seen from the other end.
    package var reversed: SessionAddress {
        SessionAddress(from: to, fromIncarnation: toIncarnation, to: from, toIncarnation: fromIncarnation)
    }
}

/// How often a node announces, in whole milliseconds as the wire carries it: receivers time the node out after
/// missing a number of these periods.
package struct AnnounceInterval: Sendable, Hashable {
    package let milliseconds: UInt32

    package init(milliseconds: UInt32) {
        self.milliseconds = milliseconds
    }

    /// The interval nearest to `seconds`, within what the wire holds.
    package init(seconds: Double) {
        milliseconds = UInt32(clamping: Int((seconds * 1000).rounded()))
    }

    package var seconds: Double { Double(milliseconds) / 1000 }
}

/// The message types of the wire format (versions 2 to 4).
package enum WireType: UInt8, Sendable, CaseIterable {
    case announce = 1
    case goodbye = 2
    case invite = 3
    case accept = 4
    case decline = 5
    case sessionData = 6
    case solicit = 7
}
