import Foundation

/// What a session runs with, shaped like Apple's abstract configuration.
open class NIConfiguration: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public override init() {}

    public class var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {}

    public required init?(coder: NSCoder) {}

    open func copy(with zone: NSZone? = nil) -> Any { self }
}

/// Ranging with a peer device, given its session's token.
public final class NINearbyPeerConfiguration: NIConfiguration, @unchecked Sendable {
    /// The peer session's token.
    public let peerDiscoveryToken: NIDiscoveryToken
    /// Accepted for the API's sake: the simulated phones have no camera, so nothing changes.
    public var isCameraAssistanceEnabled = false
    /// Accepted for the API's sake: the radio model's range applies either way.
    public var isExtendedDistanceMeasurementEnabled = false

    public init(peerToken: NIDiscoveryToken) {
        peerDiscoveryToken = peerToken
        super.init()
    }

    private static let key = "peerToken"

    public override func encode(with coder: NSCoder) {
        coder.encode(peerDiscoveryToken, forKey: Self.key)
    }

    public required init?(coder: NSCoder) {
        guard let token = coder.decodeObject(of: NIDiscoveryToken.self, forKey: Self.key) else { return nil }
        peerDiscoveryToken = token
        super.init(coder: coder)
    }

    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NINearbyPeerConfiguration(peerToken: peerDiscoveryToken)
        copy.isCameraAssistanceEnabled = isCameraAssistanceEnabled
        copy.isExtendedDistanceMeasurementEnabled = isExtendedDistanceMeasurementEnabled
        return copy
    }
}
