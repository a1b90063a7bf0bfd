import Bump
import DeviceInterface
import Sessions
import SimulatedNetwork
import World

/// A device's identity in the room: stable across restarts, as a phone's is.
public typealias PeerID = Sessions.PeerID
/// What a session's app receives for its peer after one measurement: distance, direction, horizontal angle,
/// vertical estimate, time.
public typealias NearbyUpdate = Sessions.NearbyUpdate
/// Where the peer is in height.
public typealias VerticalEstimate = Sessions.VerticalEstimate
/// Why a session's peer was removed: it said goodbye (`peerEnded`) or fell silent (`timeout`).
public typealias SessionRemovalReason = Sessions.SessionRemovalReason
/// Why a session was invalidated, with its stable code (docs/session-api.md).
public typealias SessionError = Sessions.SessionError
/// The stable codes of ``SessionError``.
public typealias SessionErrorCode = Sessions.SessionErrorCode
/// What the network does to each datagram of discovery and data (``RoomConfiguration/network``): loss, delay,
/// jitter, duplication, reordering.
public typealias NetworkConditions = SimulatedNetwork.NetworkConditions
/// One accelerometer reading: the specific force in m/s² in the phone's frame, stamped on the phone's own clock.
public typealias AccelerometerSample = DeviceInterface.AccelerometerSample
/// One gyroscope reading: the rate the phone turns at about its own axes, rad/s, stamped on the phone's own clock at
/// its accelerometer's instants.
public typealias GyroSample = DeviceInterface.GyroSample

/// The platforms whose motion sensors a room's phones can have (``RoomConfiguration/sensorProfile``; docs/sensors.md).
public enum SensorPlatform: String, Sendable, CaseIterable {
    /// Core Motion: 100 Hz, ±8 g.
    case ios
    /// Android 12 and later without the high-rate permission: 200 Hz, ±8 g, the CDD's stamp jitter and lag, gaps.
    case android
    /// Android with the high-rate permission: 400 Hz, otherwise as `android`.
    case androidHighRate = "android-high-rate"

    var profile: SensorProfile { SensorProfile(rawValue: rawValue)! }
}

/// A ranging session's discovery token: opaque bytes an app sends to its peer (over the room's data channel, as it
/// would over its peer-to-peer connection) and the peer hands to its own session's ``NearbySession/run(with:)``.
public struct NearbyToken: Sendable, Hashable, CustomStringConvertible {
    /// The token's bytes, to send to the peer.
    public let data: [UInt8]

    /// A token from bytes received from a peer; any bytes make a token, and ``NearbySession/run(with:)`` says
    /// whether it is one a session in the room holds.
    public init(data: [UInt8]) {
        self.data = data
    }

    /// The bytes in hexadecimal.
    public var description: String {
        let digits = Array("0123456789abcdef")
        return String(data.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}

/// A room setting out of range, or a request the room cannot honour; the message names what was wrong.
public struct SimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, for people.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
