import Discovery
import Sessions

/// Node identities for tests that name peers by rank: a peer id is its key's hash, so tests that need one peer to
/// initiate with another (the lower id does) take identities by their rank among 2,048 sorted by id.
package enum TestIdentities {
    private static let sorted: [NodeIdentity] = (0..<2048).map { NodeIdentity.derived(from: 0x7E57, index: UInt64($0)) }
        .sorted { $0.peer < $1.peer }
    private static let byPeer: [PeerID: NodeIdentity] = Dictionary(uniqueKeysWithValues: sorted.map { ($0.peer, $0) })

    /// The peer id of rank `rank` (0 to 2,047): a higher rank, a higher id.
    package static func peer(_ rank: some BinaryInteger) -> PeerID { sorted[Int(rank)].peer }

    /// The identity whose peer id is `peer`, one of ``peer(_:)``'s.
    package static func identity(_ peer: PeerID) -> NodeIdentity {
        guard let identity = byPeer[peer] else { fatalError("\(peer) is not one of the test identities") }
        return identity
    }
}

extension TestIdentities {
    /// `message` as its sender, one of the test identities, sends it: signed with its key, sealed under `key`.
    package static func encode(_ message: WireMessage, key: GroupKey = .development, sequence: UInt32 = 0) -> [UInt8] {
        WireFormat.encode(message, key: key, signer: message.sender.map { identity($0.peer) }, sequence: sequence)
    }
}
