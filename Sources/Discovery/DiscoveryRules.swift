/// The naming rules of discovery, as the phone frameworks enforce them.
package enum DiscoveryRules {
    /// Longest service type, characters.
    package static let maximumServiceTypeLength = 15
    /// Longest display name, bytes of UTF-8.
    package static let maximumDisplayNameBytes = 63
    /// Longest single key=value entry, bytes of UTF-8.
    package static let maximumInfoEntryBytes = 255
    /// Most bytes of all key=value entries together.
    package static let maximumInfoBytes = 400

    /// 1 to 15 characters of lowercase ASCII letters, digits and hyphens, at least one letter, no hyphen at either
    /// end and no two hyphens in a row.
    package static func checkServiceType(_ value: String) throws(DiscoveryRuleError) {
        func refuse(_ rule: String) -> DiscoveryRuleError {
            DiscoveryRuleError(field: "service type", value: value, rule: rule)
        }
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumServiceTypeLength else {
            throw refuse("must be 1 to \(maximumServiceTypeLength) characters long")
        }
        let hyphen = UInt8(ascii: "-")
        for byte in bytes {
            let allowed = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == hyphen
            guard allowed else { throw refuse("may hold only lowercase ASCII letters, digits and hyphens") }
        }
        guard bytes.contains(where: { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else {
            throw refuse("must hold at least one letter")
        }
        guard bytes.first != hyphen, bytes.last != hyphen else { throw refuse("may not begin or end with a hyphen") }
        guard !zip(bytes, bytes.dropFirst()).contains(where: { $0 == hyphen && $1 == hyphen }) else {
            throw refuse("may not hold two hyphens in a row")
        }
    }

    /// 1 to 63 bytes of UTF-8.
    package static func checkDisplayName(_ value: String) throws(DiscoveryRuleError) {
        let count = value.utf8.count
        guard count >= 1, count <= maximumDisplayNameBytes else {
            throw DiscoveryRuleError(field: "display name", value: value,
                                     rule: "must be 1 to \(maximumDisplayNameBytes) bytes of UTF-8, not \(count)")
        }
    }

    /// Keys not empty and without '='; each key=value at most 255 bytes; all of them at most 400 bytes.
    package static func checkDiscoveryInfo(_ info: [String: String]) throws(DiscoveryRuleError) {
        var total = 0
        for key in info.keys.sorted() {
            let value = info[key] ?? ""
            let entry = "\(key)=\(value)"
            guard !key.isEmpty, !key.contains("=") else {
                throw DiscoveryRuleError(field: "discovery info key", value: key,
                                         rule: "must not be empty and must not contain '='")
            }
            let bytes = entry.utf8.count
            guard bytes <= maximumInfoEntryBytes else {
                throw DiscoveryRuleError(field: "discovery info entry", value: key,
                                         rule: "key=value must be at most \(maximumInfoEntryBytes) bytes, not \(bytes)")
            }
            total += bytes
        }
        guard total <= maximumInfoBytes else {
            throw DiscoveryRuleError(field: "discovery info", value: "\(info.count) entries",
                                     rule: "must be at most \(maximumInfoBytes) bytes in all, not \(total)")
        }
    }
}

/// A discovery field that breaks its rule.
package struct DiscoveryRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field, in words ("service type", "display name", ...).
    package let field: String
    package let value: String
    /// The rule it breaks, in words.
    package let rule: String

    package var description: String {
        "\(field) \"\(value)\" \(rule)"
    }
}
