import DeviceInterface
/// A jolt as one phone's app sends it to a peer over the data channel: its time on the sender's clock and its shape
/// (peak, width, push, uprightness, the sampling interval). 33 bytes, little-endian: a version (2: the uprightness
/// signed, -1 straight down to 1 straight up; version 1's was unsigned, and is refused), the time as a Float64, then
/// Float32s, with the direction NaN when the sender has none.
package enum ImpactMessage {
    /// The application data kind of a jolt (a profile is 1; the app-testing library's apps send theirs as 2).
    package static let kind: UInt8 = 3
    package static let size = 1 + 8 + 4 * 7

    /// Why a received payload is not a jolt.
    package enum DecodeError: Error, Equatable, CustomStringConvertible {
        case length(Int)
        case version(UInt8)
        case field(String)

        package var description: String {
            switch self {
            case .length(let n): "a jolt message is \(ImpactMessage.size) bytes, got \(n)"
            case .version(let v): "unknown jolt message version \(v)"
            case .field(let name): "jolt message field \(name) out of range"
            }
        }
    }

    package static func encode(_ impact: Impact) -> [UInt8] {
        var bytes: [UInt8] = [2]
        bytes.reserveCapacity(size)
        withUnsafeBytes(of: impact.time.bitPattern.littleEndian) { bytes += $0 }
        let direction = impact.direction ?? SIMD3(repeating: .nan)
        for value in [impact.magnitude, Float(impact.width), direction.x, direction.y, direction.z, impact.vertical,
                      Float(impact.interval)] {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// The jolt in `bytes`, known at `arrival` (the receiver's instant).
    package static func decode(_ bytes: [UInt8], arrival: Double) throws(DecodeError) -> Impact {
        guard bytes.count == size else { throw .length(bytes.count) }
        guard bytes[0] == 2 else { throw .version(bytes[0]) }
        var time: UInt64 = 0
        for k in 0..<8 { time |= UInt64(bytes[1 + k]) << (8 * k) }
        func float(_ index: Int) -> Float {
            var bits: UInt32 = 0
            for k in 0..<4 { bits |= UInt32(bytes[9 + 4 * index + k]) << (8 * k) }
            return Float(bitPattern: bits)
        }
        let t = Double(bitPattern: time)
        let (peak, width, vertical, interval) = (float(0), float(1), float(5), float(6))
        let direction = SIMD3(float(2), float(3), float(4))
        guard t.isFinite else { throw .field("time") }
        guard peak.isFinite, peak >= 0 else { throw .field("peak") }
        guard width.isFinite, width >= 0, width <= 10 else { throw .field("width") }
        guard vertical.isFinite, vertical >= -1, vertical <= 1 else { throw .field("vertical") }
        guard interval.isFinite, interval >= 0, interval <= 10 else { throw .field("interval") }
        let hasDirection = direction.x.isFinite && direction.y.isFinite && direction.z.isFinite
        guard hasDirection || (direction.x.isNaN && direction.y.isNaN && direction.z.isNaN),
              !hasDirection || abs((direction * direction).sum() - 1) < 0.01 else { throw .field("direction") }
        return Impact(time: t, magnitude: peak, width: Double(width), direction: hasDirection ? direction : nil,
                      vertical: vertical, interval: Double(interval), known: arrival)
    }
}
