import Foundation

/// A validator for the part of JSON Schema (draft 2020-12) the project's schemas use: `type` (a name or a list),
/// `const`, `enum`, `required`, `properties`, `additionalProperties` (false or a schema), `items`, `minItems`,
/// `maxItems`, `minimum`, `exclusiveMinimum`, `maximum`, `pattern`, `oneOf`, and `$ref` to `#/$defs/...`. Any other
/// keyword is refused when the schema is loaded, so that a schema never claims more than the tests check.
package struct JSONSchema {
    private let root: [String: Any]

    private static let known: Set<String> = [
        "$schema", "$id", "$defs", "$comment", "title", "description", "type", "const", "enum", "required",
        "properties", "additionalProperties", "items", "minItems", "maxItems", "minimum", "exclusiveMinimum",
        "maximum", "pattern",
        "oneOf", "$ref", "examples",
    ]

    /// Loads a schema file.
    ///
    /// - Throws: a description of the first keyword this validator does not know, or of malformed JSON.
    package init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SchemaError("\(path): a schema is a JSON object")
        }
        root = object
        try Self.checkKeywords(object, at: "#")
    }

    private static func checkKeywords(_ schema: [String: Any], at path: String) throws {
        for (key, value) in schema {
            guard known.contains(key) else { throw SchemaError("\(path): keyword \(key) is not supported") }
            switch key {
            case "properties", "$defs":
                for (name, sub) in value as? [String: Any] ?? [:] {
                    guard let sub = sub as? [String: Any] else { throw SchemaError("\(path)/\(key)/\(name): not a schema") }
                    try checkKeywords(sub, at: "\(path)/\(key)/\(name)")
                }
            case "items", "additionalProperties":
                if let sub = value as? [String: Any] { try checkKeywords(sub, at: "\(path)/\(key)") }
            case "oneOf":
                for (i, sub) in (value as? [[String: Any]] ?? []).enumerated() {
                    try checkKeywords(sub, at: "\(path)/oneOf/\(i)")
                }
            default: break
            }
        }
    }

    /// The problems of `value` against the schema, each with the path of the value at fault; empty when valid.
    package func problems(_ value: Any) -> [String] {
        var out: [String] = []
        check(value, against: root, at: "$", into: &out)
        return out
    }

    /// The problems of one line of JSON text.
    package func problems(line: String) -> [String] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) else {
            return ["$: not JSON"]
        }
        return problems(value)
    }

    private func resolve(_ ref: String) -> [String: Any]? {
        guard ref.hasPrefix("#/$defs/") else { return nil }
        return (root["$defs"] as? [String: Any])?[String(ref.dropFirst("#/$defs/".count))] as? [String: Any]
    }

    private static func typeName(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let n as NSNumber:
            // JSONSerialization keeps a JSON boolean as a number of C type char.
            let kind = String(cString: n.objCType)
            if kind == "c" || kind == "B" { return "boolean" }
            return n.doubleValue == n.doubleValue.rounded() ? "integer" : "number"
        case is String: return "string"
        case is [Any]: return "array"
        case is [String: Any]: return "object"
        default: return "unknown"
        }
    }

    private static func matches(_ value: Any, type: String) -> Bool {
        let actual = typeName(value)
        return actual == type || (type == "number" && actual == "integer")
    }

    private static func equal(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case (let x as String, let y as String): return x == y
        case (let x as NSNumber, let y as NSNumber): return typeName(x) != "boolean" && typeName(y) != "boolean" ? x.doubleValue == y.doubleValue : x == y
        case (is NSNull, is NSNull): return true
        default: return false
        }
    }

    private func check(_ value: Any, against schema: [String: Any], at path: String, into out: inout [String]) {
        if let ref = schema["$ref"] as? String {
            guard let target = resolve(ref) else {
                out.append("\(path): unresolvable $ref \(ref)")
                return
            }
            check(value, against: target, at: path, into: &out)
        }
        if let type = schema["type"] {
            let types = (type as? [String]) ?? [(type as? String) ?? ""]
            if !types.contains(where: { Self.matches(value, type: $0) }) {
                out.append("\(path): \(Self.typeName(value)) where \(types.joined(separator: " or ")) was expected")
                return
            }
        }
        if let constant = schema["const"], !Self.equal(value, constant) {
            out.append("\(path): \(value) is not \(constant)")
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { Self.equal(value, $0) }) {
            out.append("\(path): \(value) is not one of \(options)")
        }
        if let n = value as? NSNumber, Self.typeName(n) != "boolean" {
            if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, n.doubleValue < minimum {
                out.append("\(path): \(n) is under the minimum \(minimum)")
            }
            if let bound = (schema["exclusiveMinimum"] as? NSNumber)?.doubleValue, n.doubleValue <= bound {
                out.append("\(path): \(n) is not above \(bound)")
            }
            if let maximum = (schema["maximum"] as? NSNumber)?.doubleValue, n.doubleValue > maximum {
                out.append("\(path): \(n) is over the maximum \(maximum)")
            }
        }
        if let s = value as? String, let pattern = schema["pattern"] as? String,
           s.range(of: pattern, options: .regularExpression) == nil {
            out.append("\(path): \"\(s)\" does not match \(pattern)")
        }
        if let array = value as? [Any] {
            if let minItems = schema["minItems"] as? Int, array.count < minItems {
                out.append("\(path): \(array.count) items, fewer than \(minItems)")
            }
            if let maxItems = schema["maxItems"] as? Int, array.count > maxItems {
                out.append("\(path): \(array.count) items, more than \(maxItems)")
            }
            if let items = schema["items"] as? [String: Any] {
                for (i, item) in array.enumerated() { check(item, against: items, at: "\(path)[\(i)]", into: &out) }
            }
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                out.append("\(path): the field \(key) is missing")
            }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, field) in object.sorted(by: { $0.key < $1.key }) {
                if let sub = properties[key] as? [String: Any] {
                    check(field, against: sub, at: "\(path).\(key)", into: &out)
                } else if let extra = schema["additionalProperties"] {
                    if let allowed = extra as? Bool, !allowed {
                        out.append("\(path): the field \(key) is not in the schema")
                    } else if let sub = extra as? [String: Any] {
                        check(field, against: sub, at: "\(path).\(key)", into: &out)
                    }
                }
            }
        }
        if let options = schema["oneOf"] as? [[String: Any]] {
            var results: [[String]] = []
            for option in options {
                var found: [String] = []
                check(value, against: option, at: path, into: &found)
                results.append(found)
            }
            let passing = results.filter(\.isEmpty).count
            if passing != 1 {
                // The closest option's problems say most about what is wrong.
                let closest = results.min { $0.count < $1.count } ?? []
                out.append("\(path): matches \(passing) of the \(options.count) kinds of value (exactly one is needed)"
                    + (passing == 0 ? "; closest: " + closest.joined(separator: "; ") : ""))
            }
        }
    }
}

/// A schema the validator cannot use.
package struct SchemaError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
