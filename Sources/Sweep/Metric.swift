import Foundation

/// A figure read from each run's JSON summary: a path (`bumps.recall`, `ranging.bands.0.received`: keys, and array
/// positions from 0) or arithmetic over paths and numbers (`ranging.collided / ranging.exchanges`), with a name for
/// the report: `name = expression`, or the expression itself. `max(a, b, ...)` and `min(a, b, ...)` take the
/// largest or smallest of the values they have.
package struct Metric: Sendable, Equatable {
    package let name: String
    package let expression: String
    let root: Node

    indirect enum Node: Sendable, Equatable {
        case number(Double)
        case path([String])
        case binary(Character, Node, Node)
        /// `max` or `min` of the arguments that have a value.
        case extreme(largest: Bool, [Node])
    }

    /// The longest metric read, characters, and the deepest nesting of parentheses and `max(`/`min(`: 50,000
    /// parentheses overflowed the parser's stack; a chain of as many terms, the evaluation's.
    package static let longest = 1_000
    package static let deepest = 32

    /// Parses `text`; the error says what is wrong and where.
    package init(_ text: String) throws(MetricError) {
        guard text.count <= Self.longest else {
            throw MetricError("\(text.count) characters: a metric is at most \(Self.longest)")
        }
        var name = text.trimmingCharacters(in: .whitespaces)
        var expression = name
        if let eq = text.firstIndex(of: "=") {
            name = text[..<eq].trimmingCharacters(in: .whitespaces)
            expression = text[text.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || " _-%/.(),".contains($0) }) else {
                throw MetricError("a name before `=` of letters, digits, spaces and _-%/.(), only")
            }
        }
        guard !expression.isEmpty else { throw MetricError("no expression") }
        var parser = Parser(Array(expression))
        root = try parser.expression()
        guard parser.atEnd else { throw MetricError("unexpected `\(parser.rest)`") }
        self.name = name
        self.expression = expression
    }

    /// The metric's value in `summary` (a JSON object as `JSONSerialization` reads it): `nil` where a path is
    /// absent or not a number (a precision with no bump scored), or a division by zero.
    package func value(in summary: Any) -> Double? {
        func evaluate(_ node: Node) -> Double? {
            switch node {
            case .number(let x): return x
            case .path(let keys):
                var here: Any = summary
                for key in keys {
                    if let object = here as? [String: Any], let next = object[key] {
                        here = next
                    } else if let array = here as? [Any], let i = Int(key), array.indices.contains(i) {
                        here = array[i]
                    } else {
                        return nil
                    }
                }
                if let flag = here as? Bool, type(of: here) == Bool.self { return flag ? 1 : 0 }
                if let number = here as? NSNumber { return number.doubleValue }
                return here as? Double
            case .extreme(let largest, let arguments):
                let values = arguments.compactMap(evaluate)
                return largest ? values.max() : values.min()
            case .binary(let op, let a, let b):
                guard let x = evaluate(a), let y = evaluate(b) else { return nil }
                switch op {
                case "+": return x + y
                case "-": return x - y
                case "*": return x * y
                default: return y == 0 ? nil : x / y
                }
            }
        }
        return evaluate(root).flatMap { $0.isFinite ? $0 : nil }
    }

    /// The summary paths the expression reads, dotted (`bumps.recall`).
    package var paths: [String] {
        func walk(_ node: Node) -> [String] {
            switch node {
            case .number: []
            case .path(let keys): [keys.joined(separator: ".")]
            case .binary(_, let a, let b): walk(a) + walk(b)
            case .extreme(_, let arguments): arguments.flatMap(walk)
            }
        }
        return walk(root)
    }

    /// Every path `summary` holds, objects and arrays included, dotted (array positions from 0).
    package static func paths(in summary: Any) -> Set<String> {
        var found = Set<String>()
        func walk(_ value: Any, _ prefix: String) {
            if !prefix.isEmpty { found.insert(prefix) }
            let joined = { (key: String) in prefix.isEmpty ? key : prefix + "." + key }
            if let object = value as? [String: Any] {
                for (key, child) in object { walk(child, joined(key)) }
            } else if let array = value as? [Any] {
                for (i, child) in array.enumerated() { walk(child, joined(String(i))) }
            }
        }
        walk(summary, "")
        return found
    }

    /// Whether `path` is one of `shape`'s, where a `*` in the shape stands for any one key or position.
    package static func path(_ path: String, isIn shape: Set<String>) -> Bool {
        if shape.contains(path) { return true }
        let keys = path.split(separator: ".", omittingEmptySubsequences: false)
        return shape.contains { pattern in
            let parts = pattern.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == keys.count && zip(parts, keys).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }

    /// The path of `candidates` nearest `path` by edit distance, the first in order among the nearest.
    package static func nearest(to path: String, in candidates: Set<String>) -> String? {
        candidates.min { (editDistance(path, $0), $0) < (editDistance(path, $1), $1) }
    }

    /// Characters inserted, removed or replaced to make `a` into `b`.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    package static func == (a: Metric, b: Metric) -> Bool { a.name == b.name && a.expression == b.expression }

    /// Recursive descent over `+ - * /`, parentheses, numbers and paths.
    private struct Parser {
        let text: [Character]
        var at = 0
        /// Parentheses and `max(`/`min(` open here.
        var depth = 0

        init(_ text: [Character]) { self.text = text }

        var atEnd: Bool { mutating get { skipSpaces(); return at == text.count } }
        var rest: String { String(text[at...]) }

        mutating func enter() throws(MetricError) {
            depth += 1
            guard depth <= Metric.deepest else {
                throw MetricError("nested deeper than \(Metric.deepest) parentheses and `max(`/`min(`")
            }
        }

        mutating func skipSpaces() {
            while at < text.count, text[at] == " " { at += 1 }
        }

        mutating func expression() throws(MetricError) -> Node {
            try chain("+-") { (p: inout Parser) throws(MetricError) in try p.term() }
        }

        mutating func term() throws(MetricError) -> Node {
            try chain("*/") { (p: inout Parser) throws(MetricError) in try p.factor() }
        }

        /// Operands joined left to right by any of `operators`: one precedence level.
        mutating func chain(_ operators: String, _ operand: (inout Parser) throws(MetricError) -> Node) throws(MetricError) -> Node {
            var node = try operand(&self)
            while true {
                skipSpaces()
                guard at < text.count, operators.contains(text[at]) else { return node }
                let op = text[at]
                at += 1
                node = .binary(op, node, try operand(&self))
            }
        }

        mutating func factor() throws(MetricError) -> Node {
            skipSpaces()
            guard at < text.count else { throw MetricError("an expression ends where a path or a number should be") }
            let c = text[at]
            if c == "(" {
                at += 1
                try enter()
                defer { depth -= 1 }
                let inner = try expression()
                skipSpaces()
                guard at < text.count, text[at] == ")" else { throw MetricError("a `(` without its `)`") }
                at += 1
                return inner
            }
            let start = at
            while at < text.count, text[at].isLetter || text[at].isNumber || text[at] == "_" || text[at] == "." {
                at += 1
            }
            let word = String(text[start..<at])
            guard !word.isEmpty else { throw MetricError("unexpected `\(c)`") }
            skipSpaces()
            if word == "max" || word == "min", at < text.count, text[at] == "(" {
                at += 1
                try enter()
                defer { depth -= 1 }
                var arguments = [try expression()]
                while true {
                    skipSpaces()
                    guard at < text.count else { throw MetricError("a `\(word)(` without its `)`") }
                    if text[at] == ")" { break }
                    guard text[at] == "," else { throw MetricError("unexpected `\(text[at])` in `\(word)(...)`") }
                    at += 1
                    arguments.append(try expression())
                }
                at += 1
                return .extreme(largest: word == "max", arguments)
            }
            if word.first!.isNumber {
                guard let x = Double(word) else { throw MetricError("`\(word)` is not a number") }
                return .number(x)
            }
            let keys = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !keys.contains(where: \.isEmpty) else { throw MetricError("`\(word)`: an empty key in the path") }
            return .path(keys)
        }
    }
}

/// Why a metric's text could not be read.
package struct MetricError: Error, Equatable {
    package let message: String
    init(_ message: String) { self.message = message }
}
