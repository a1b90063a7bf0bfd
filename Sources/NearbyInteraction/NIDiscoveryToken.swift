import Foundation
import NearbySimulator

/// A ranging session's token, shaped like Apple's: opaque, sent to the peer archived with `NSKeyedArchiver`
/// (secure coding), equal to any token with the same bytes.
public final class NIDiscoveryToken: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    let token: NearbyToken

    init(_ token: NearbyToken) {
        self.token = token
    }

    public static var supportsSecureCoding: Bool { true }

    private static let key = "NIDiscoveryTokenBytes"

    public func encode(with coder: NSCoder) {
        coder.encode(Data(token.data) as NSData, forKey: Self.key)
    }

    /// A token from an archive; `nil` (an unarchiving error) when the archive holds no token's bytes.
    public init?(coder: NSCoder) {
        guard let bytes = coder.decodeObject(of: NSData.self, forKey: Self.key), bytes.length > 0, bytes.length <= 64
        else { return nil }
        token = NearbyToken(data: [UInt8](bytes as Data))
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? NIDiscoveryToken)?.token == token
    }

    public override var hash: Int { token.hashValue }

    public override var description: String { "NIDiscoveryToken(\(token))" }
}
