import Sessions

/// What a node advertises: the service it offers, who it is, and how to reach it for the token exchange.
public struct Advertisement: Sendable, Equatable {
    /// The service type, for example `nearcatch`; browsers only see advertisers of their own type.
    public let serviceType: String
    /// The node's public key: every datagram of the node is signed with its private key.
    public let signingKey: SigningKey
    /// The id its key gives (``SigningKey/peer``).
    public var peer: PeerID { signingKey.peer }
    /// The life of the node; a restart gives a higher one.
    public let incarnation: Incarnation
    /// A name for people, at most 63 bytes of UTF-8.
    public let displayName: String
    /// Small key=value facts for the browsers (interests, app version), at most 400 bytes in all.
    public let discoveryInfo: [String: String]
    /// The node's unicast port; the address is the datagram's source address.
    public let unicastPort: UInt16

    /// An advertisement whose fields are checked against the rules of ``DiscoveryRules``.
    ///
    /// - Throws: ``DiscoveryRuleError`` naming the first field that breaks a rule.
    public init(
        serviceType: String, signingKey: SigningKey, incarnation: Incarnation, displayName: String,
        discoveryInfo: [String: String] = [:], unicastPort: UInt16
    ) throws(DiscoveryRuleError) {
        try DiscoveryRules.checkServiceType(serviceType)
        try DiscoveryRules.checkDisplayName(displayName)
        try DiscoveryRules.checkDiscoveryInfo(discoveryInfo)
        self.serviceType = serviceType
        self.signingKey = signingKey
        self.incarnation = incarnation
        self.displayName = displayName
        self.discoveryInfo = discoveryInfo
        self.unicastPort = unicastPort
    }
}
