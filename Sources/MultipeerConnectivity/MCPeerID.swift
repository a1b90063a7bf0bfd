import Foundation
@_spi(Faces) import NearbySimulator

/// A peer's identity in a session, shaped like Apple's: a display name and an identity of its own, so that two
/// peer IDs made with the same name are different peers, and the one a peer's device reports is equal on every
/// device that hears of it.
public final class MCPeerID: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The name shown to people.
    public let displayName: String
    let uid: UInt64

    /// A new identity, on the device whose app makes it (``SimulatedDevice/current``).
    public init(displayName myDisplayName: String) {
        displayName = myDisplayName
        uid = Self.newUID(on: SimulatedDevice.current)
        super.init()
    }

    init(uid: UInt64, displayName: String) {
        self.uid = uid
        self.displayName = displayName
        super.init()
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var madeOffDevices: UInt64 = 0

    /// Counts the peer IDs one device life made.
    private final class Count {
        var value: UInt64 = 0
    }

    /// The device's index, its life and a count of the peer IDs it made: unique in the room, and the same from run
    /// to run. Off a device, a count with the top bit set.
    private static func newUID(on device: SimulatedDevice?) -> UInt64 {
        guard let device else {
            lock.lock()
            defer { lock.unlock() }
            madeOffDevices += 1
            return 1 << 63 | madeOffDevices
        }
        let count = device.faceState["MCPeerID"] as? Count ?? Count()
        device.faceState["MCPeerID"] = count
        count.value += 1
        return UInt64(device.index) << 40 | UInt64(device.restarts & 0xFFFF) << 24 | count.value
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(Int64(bitPattern: uid), forKey: "uid")
        coder.encode(displayName as NSString, forKey: "displayName")
    }

    public init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "displayName") else { return nil }
        uid = UInt64(bitPattern: coder.decodeInt64(forKey: "uid"))
        displayName = name as String
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? MCPeerID)?.uid == uid
    }

    public override var hash: Int { uid.hashValue }

    public override var description: String { "MCPeerID(\(displayName))" }
}
