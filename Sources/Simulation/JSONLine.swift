import Foundation

/// Writes one JSON object, field by field, with fixed precision for numbers (so that the same run gives the same
/// bytes) and every string escaped. The trace's lines are made with it: JSONEncoder would give the same structure
/// at several times the cost per line, and sorts keys, which would put `t` and `type` anywhere but first.
struct JSONLine {
    private(set) var text: String

    /// Opens an object with the fields every trace line begins with: its time and its type.
    init(time: Double, type: String) {
        text = "{\"t\":" + String(format: "%.3f", time) + ",\"type\":"
        Self.appendString(type, to: &text)
    }

    private mutating func key(_ name: String) {
        text += ",\""
        text += name
        text += "\":"
    }

    mutating func int(_ name: String, _ value: Int) {
        key(name)
        text += String(value)
    }

    mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    /// A number to `digits` decimals, or `null`.
    mutating func number(_ name: String, _ value: Double?, digits: Int) {
        key(name)
        guard let value, value.isFinite else {
            text += "null"
            return
        }
        text += String(format: "%.\(digits)f", value)
    }

    mutating func number(_ name: String, _ value: Float?, digits: Int) {
        number(name, value.map(Double.init), digits: digits)
    }

    /// Three numbers to `digits` decimals.
    mutating func vector(_ name: String, _ x: Double, _ y: Double, _ z: Double, digits: Int) {
        key(name)
        text += String(format: "[%.\(digits)f,%.\(digits)f,%.\(digits)f]", x, y, z)
    }

    /// Three numbers to `digits` decimals, or `null`.
    mutating func vector(_ name: String, _ v: SIMD3<Float>?, digits: Int) {
        guard let v else {
            key(name)
            text += "null"
            return
        }
        vector(name, Double(v.x), Double(v.y), Double(v.z), digits: digits)
    }

    mutating func ints(_ name: String, _ values: [Int]) {
        key(name)
        text += "[" + values.map(String.init).joined(separator: ",") + "]"
    }

    mutating func string(_ name: String, _ value: String) {
        key(name)
        Self.appendString(value, to: &text)
    }

    /// The finished line, without its newline.
    var line: String { text + "}" }

    /// A JSON string: quotes, backslashes and control characters escaped (RFC 8259, section 7).
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                text += String(format: "\\u%04x", scalar.value)
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
