import Sessions

/// What a node advertises: the service it offers, who it is, and how to reach it for the token exchange.
///
/// A value, held in one immutable object: every node keeps the advertisement of every peer it knows, and a group
/// frame decoded once gives its receivers one object to share (a 72-byte copy in each known peer was 45% of a
/// node's table of peers: 330 MB in a room of 1,000).
package struct Advertisement: Sendable, Equatable {
    private final class Storage: Sendable {
        let serviceType: String
        let signingKey: SigningKey
        let incarnation: Incarnation
        let displayName: String
        let discoveryInfo: [String: String]
        let unicastPort: UInt16

        init(serviceType: String, signingKey: SigningKey, incarnation: Incarnation, displayName: String,
             discoveryInfo: [String: String], unicastPort: UInt16) {
            self.serviceType = serviceType
            self.signingKey = signingKey
            self.incarnation = incarnation
            self.displayName = displayName
            self.discoveryInfo = discoveryInfo
            self.unicastPort = unicastPort
        }
    }

    private let storage: Storage

    /// The service type, for example `nearcatch`; browsers only see advertisers of their own type.
    package var serviceType: String { storage.serviceType }
    /// The node's public key: every datagram of the node is signed with its private key.
    package var signingKey: SigningKey { storage.signingKey }
    /// The id its key gives (``SigningKey/peer``).
    package var peer: PeerID { storage.signingKey.peer }
    /// The life of the node; a restart gives a higher one.
    package var incarnation: Incarnation { storage.incarnation }
    /// A name for people, at most 63 bytes of UTF-8.
    package var displayName: String { storage.displayName }
    /// Small key=value facts for the browsers (interests, app version), at most 400 bytes in all.
    package var discoveryInfo: [String: String] { storage.discoveryInfo }
    /// The node's unicast port; the address is the datagram's source address.
    package var unicastPort: UInt16 { storage.unicastPort }

    package static func == (a: Advertisement, b: Advertisement) -> Bool {
        a.storage === b.storage
            || (a.serviceType == b.serviceType && a.signingKey == b.signingKey && a.incarnation == b.incarnation
                && a.displayName == b.displayName && a.discoveryInfo == b.discoveryInfo
                && a.unicastPort == b.unicastPort)
    }

    /// An advertisement whose fields are checked against the rules of ``DiscoveryRules``.
    ///
    /// - Throws: ``DiscoveryRuleError`` naming the first field that breaks a rule.
    package init(
        serviceType: String, signingKey: SigningKey, incarnation: Incarnation, displayName: String,
        discoveryInfo: [String: String] = [:], unicastPort: UInt16
    ) throws(DiscoveryRuleError) {
        try DiscoveryRules.checkServiceType(serviceType)
        try DiscoveryRules.checkDisplayName(displayName)
        try DiscoveryRules.checkDiscoveryInfo(discoveryInfo)
        storage = Storage(serviceType: serviceType, signingKey: signingKey, incarnation: incarnation,
                          displayName: displayName, discoveryInfo: discoveryInfo, unicastPort: unicastPort)
    }
}
