import Foundation
import NearbySimulator
@_exported import FrameworkEnums
@_exported import simd

/// What a session knows of its peer after one measurement, shaped like Apple's nearby object.
public final class NINearbyObject: NSObject, @unchecked Sendable {
    /// Why a peer was removed: `.timeout` (the peer fell silent) or `.peerEnded` (its session ended). Non-frozen,
    /// as Apple's: a `switch` takes `default:` or `@unknown default:`.
    public typealias RemovalReason = NINearbyObjectRemovalReason

    /// Where the peer is in height: `.unknown`, `.same`, `.above`, `.below`, `.aboveOrBelow`. Non-frozen, as Apple's.
    public typealias VerticalDirectionEstimate = NINearbyObjectVerticalDirectionEstimate

    /// The peer session's token (equal to the one the session was run with).
    public let discoveryToken: NIDiscoveryToken
    /// Metres; `nil` when not measured.
    public let distance: Float?
    /// Unit vector toward the peer in this phone's frame (x right, y up, z out of the screen); `nil` when not
    /// measured (outside the antennas' field, out of line of sight).
    public let direction: simd_float3?
    /// Radians right of the phone's back; `nil` when not measured.
    public let horizontalAngle: Float?
    /// Where the peer is in height.
    public let verticalDirectionEstimate: VerticalDirectionEstimate

    /// Apple's markers for a missing value, for code that compares with them.
    public static let directionNotAvailable = simd_float3(0, 0, 0)
    public static let distanceNotAvailable: Float = -1

    init(token: NIDiscoveryToken, update: NearbyUpdate?) {
        discoveryToken = token
        distance = update?.distance
        direction = update?.direction
        horizontalAngle = update?.horizontalAngle
        switch update?.verticalEstimate {
        case .same: verticalDirectionEstimate = .same
        case .above: verticalDirectionEstimate = .above
        case .below: verticalDirectionEstimate = .below
        case .aboveOrBelow: verticalDirectionEstimate = .aboveOrBelow
        case .unknown, nil: verticalDirectionEstimate = .unknown
        }
    }

    public override var description: String {
        "NINearbyObject(\(discoveryToken), distance: \(distance.map { "\($0)" } ?? "nil"))"
    }
}

// The case's name where an app prints one (a C enum prints as its raw value).
extension NINearbyObject.RemovalReason: @retroactive CustomStringConvertible {
    public var description: String {
        switch self {
        case .timeout: "timeout"
        case .peerEnded: "peerEnded"
        @unknown default: "RemovalReason(rawValue: \(rawValue))"
        }
    }
}

extension NINearbyObject.VerticalDirectionEstimate: @retroactive CustomStringConvertible {
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .same: "same"
        case .above: "above"
        case .below: "below"
        case .aboveOrBelow: "aboveOrBelow"
        @unknown default: "VerticalDirectionEstimate(rawValue: \(rawValue))"
        }
    }
}
