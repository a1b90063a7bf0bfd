import Foundation

/// Reads JSON text a chunk at a time, for a caller that knows the shape it expects (a scenario file): no tree of
/// the whole document is built, so memory holds the chunk and what the caller keeps, and a limit is refused where
/// it is crossed, before the rest is read. Strict JSON (RFC 8259) in UTF-8: no byte order mark, no other encoding,
/// no key twice in an object, nothing after the value. Every refusal is a ``ScenarioError`` naming the field.
struct JSONReader {
    /// Fills the buffer with the next bytes; empty at the end.
    typealias Source = (inout [UInt8]) throws(ScenarioError) -> Void

    let file: String
    private let source: Source
    private var chunk: [UInt8] = []
    private var position = 0
    private var atEnd = false
    /// Bytes consumed before the current chunk, and lines seen: where a syntax error is.
    private var consumed = 0
    private var line = 1

    init(file: String, source: @escaping Source) {
        self.file = file
        self.source = source
    }

    /// A reader over bytes already in memory.
    init(file: String, bytes: [UInt8]) {
        var given: [UInt8]? = bytes
        self.init(file: file) { (chunk: inout [UInt8]) throws(ScenarioError) in
            chunk = given ?? []
            given = nil
        }
    }

    // MARK: - Bytes

    private mutating func fill() throws(ScenarioError) -> Bool {
        guard !atEnd else { return false }
        consumed += chunk.count
        try source(&chunk)
        position = 0
        if chunk.isEmpty { atEnd = true }
        return !atEnd
    }

    /// The next byte, not taken; `nil` at the end.
    private mutating func peekRaw() throws(ScenarioError) -> UInt8? {
        if position < chunk.count { return chunk[position] }
        return try fill() ? chunk[position] : nil
    }

    private mutating func take() throws(ScenarioError) -> UInt8? {
        guard let byte = try peekRaw() else { return nil }
        position += 1
        if byte == 0x0A { line += 1 }
        return byte
    }

    /// The next byte that is not white space, not taken.
    mutating func peek() throws(ScenarioError) -> UInt8? {
        while let byte = try peekRaw() {
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
            _ = try take()
        }
        return nil
    }

    /// Where the reader is, for a syntax error.
    private var place: String { "byte \(consumed + position + 1), line \(line)" }

    func failure(_ field: String?, _ problem: String) -> ScenarioError {
        ScenarioError(file: file, field: field, problem: problem)
    }

    private func syntax(_ what: String) -> ScenarioError {
        failure(nil, "is not valid JSON: \(what) at \(place)")
    }

    /// Checks how the text begins: UTF-8 without a byte order mark (RFC 8259 section 8.1).
    mutating func checkEncoding() throws(ScenarioError) {
        guard let first = try peekRaw() else { throw failure(nil, "is empty") }
        var head: [UInt8] = []
        while head.count < 4, position + head.count < chunk.count { head.append(chunk[position + head.count]) }
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw failure(nil, "starts with a byte order mark; save it as UTF-8 without one (JSON text has none)")
        }
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) || first == 0
            || (head.count >= 2 && head[1] == 0) {
            throw failure(nil, "is UTF-16 or UTF-32; save it as UTF-8, the encoding of JSON text")
        }
    }

    /// Checks that nothing but white space follows the value.
    mutating func expectEnd() throws(ScenarioError) {
        if try peek() != nil { throw syntax("text after the scenario's closing brace") }
    }

    // MARK: - Values

    /// What kind of value starts with `byte`, in words.
    private static func kind(_ byte: UInt8?) -> String {
        switch byte {
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "["): "a list"
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "true or false"
        case UInt8(ascii: "n"): "null"
        case nil: "nothing (the file ends)"
        case let byte?: byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            ? "a number" : "not JSON"
        }
    }

    private mutating func expectKind(_ byte: UInt8, _ field: String, _ wanted: String) throws(ScenarioError) {
        let next = try peek()
        guard next == byte else {
            guard let next else { throw syntax("the file ends where \(wanted) should be") }
            guard Self.kind(next) != "not JSON" else {
                let shown = next >= 0x21 && next < 0x7F ? "'\(Character(Unicode.Scalar(next)))'" : String(format: "the byte 0x%02x", next)
                throw syntax("\(shown), which begins no JSON value, where \(wanted) should be")
            }
            throw failure(field.isEmpty ? nil : field, "must be \(wanted), not \(Self.kind(next))")
        }
    }

    /// Reads an object, calling `member` with each key after checking it: a key not in `fields` is refused (with
    /// the nearest names), a key twice is refused.
    ///
    /// - Parameters:
    ///   - field: the object's path (`peers[1]`), empty at the top.
    ///   - what: the object in the doc's words (`a peer`).
    ///   - member: reads the key's value; given the key and its path.
    mutating func object(
        _ field: String, what: String, fields: [String],
        _ member: (inout JSONReader, String, String) throws(ScenarioError) -> Void
    ) throws(ScenarioError) {
        try expectKind(UInt8(ascii: "{"), field, "an object (\(what), with the fields \(Self.listed(fields)))")
        _ = try take()
        var seen = Set<String>()
        if try peek() == UInt8(ascii: "}") {
            _ = try take()
            return
        }
        while true {
            guard let next = try peek() else { throw syntax("the file ends inside \(what)") }
            guard next == UInt8(ascii: "\"") else { throw syntax("a key (a string in quotes) expected") }
            let key = try string(field)
            let path = field.isEmpty ? key : "\(field).\(key)"
            guard try peek() == UInt8(ascii: ":") else { throw syntax("':' expected after the key \"\(key)\"") }
            _ = try take()
            guard fields.contains(key) else {
                let near = fields.filter { Self.editDistance($0, key) <= 2 }
                let hint = near.isEmpty ? "" : "; did you mean \(near.map { "\"\($0)\"" }.joined(separator: " or "))?"
                throw failure(path, "is not a field of \(what) (its fields: \(Self.listed(fields)))\(hint)")
            }
            guard seen.insert(key).inserted else { throw failure(path, "appears twice; a field is given once") }
            try member(&self, key, path)
            guard try another(closing: UInt8(ascii: "}"), after: "the value of \(path)") else { return }
        }
    }

    /// After a member or an element: `true` at a comma (another follows), `false` at `closer`; anything else is
    /// refused.
    private mutating func another(closing closer: UInt8, after what: String) throws(ScenarioError) -> Bool {
        _ = try peek()
        switch try take() {
        case UInt8(ascii: ",")?:
            return true
        case closer?:
            return false
        default:
            throw syntax("',' or '\(Character(Unicode.Scalar(closer)))' expected after \(what)")
        }
    }

    /// Reads a list, calling `element` with each index and path; refuses the element past `limit` before reading
    /// it, with `tooMany` as the problem.
    mutating func list(
        _ field: String, limit: Int, tooMany: String,
        _ element: (inout JSONReader, Int, String) throws(ScenarioError) -> Void
    ) throws(ScenarioError) {
        try expectKind(UInt8(ascii: "["), field, "a list")
        _ = try take()
        if try peek() == UInt8(ascii: "]") {
            _ = try take()
            return
        }
        var index = 0
        while true {
            guard index < limit else { throw failure(field, tooMany) }
            try element(&self, index, "\(field)[\(index)]")
            guard try another(closing: UInt8(ascii: "]"), after: "\(field)[\(index)]") else { return }
            index += 1
        }
    }

    /// A list of strings, refused past `limit` as ``list(_:limit:tooMany:_:)`` does.
    mutating func strings(_ field: String, limit: Int, tooMany: String) throws(ScenarioError) -> [String] {
        var strings: [String] = []
        try list(field, limit: limit, tooMany: tooMany) { (r, _, at) throws(ScenarioError) in strings.append(try r.string(at)) }
        return strings
    }

    /// A string, its escapes decoded.
    mutating func string(_ field: String) throws(ScenarioError) -> String {
        try expectKind(UInt8(ascii: "\""), field, "a string")
        _ = try take()
        var bytes: [UInt8] = []
        while true {
            guard let byte = try take() else { throw syntax("the file ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw failure(field, "must be valid UTF-8 (the file's encoding)")
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &bytes)
            case 0..<0x20:
                throw syntax("a control character inside a string (write it as an escape)")
            default:
                bytes.append(byte)
            }
        }
    }

    private mutating func escape(into bytes: inout [UInt8]) throws(ScenarioError) {
        guard let kind = try take() else { throw syntax("the file ends inside a string") }
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
            UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
        ]
        if let plain = simple[kind] {
            bytes.append(plain)
            return
        }
        guard kind == UInt8(ascii: "u") else { throw syntax("an unknown escape \\\(Character(Unicode.Scalar(kind)))") }
        var code = try hex4()
        if (0xD800..<0xDC00).contains(code) {
            guard try take() == UInt8(ascii: "\\"), try take() == UInt8(ascii: "u") else {
                throw syntax("a lone surrogate escape")
            }
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw syntax("a lone surrogate escape") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(code) {
            throw syntax("a lone surrogate escape")
        }
        guard let scalar = Unicode.Scalar(code) else { throw syntax("an escape that is not a character") }
        bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    private mutating func hex4() throws(ScenarioError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let c = try take() else { throw syntax("the file ends inside an escape") }
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw syntax("\\u must be followed by four hexadecimal digits")
            }
            value = value << 4 | digit
        }
        return value
    }

    /// A number, as JSON writes one (no leading zeros, no `+`, no `NaN`).
    mutating func number(_ field: String) throws(ScenarioError) -> Double {
        try expectKind(UInt8(ascii: "-"), field, "a number", orDigit: true)
        var text: [UInt8] = []
        func digits(_ reader: inout JSONReader, _ text: inout [UInt8]) throws(ScenarioError) -> Int {
            var n = 0
            while let c = try reader.peekRaw(), c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
                text.append(c)
                _ = try reader.take()
                n += 1
            }
            return n
        }
        let start = place
        if try peekRaw() == UInt8(ascii: "-") {
            text.append(UInt8(ascii: "-"))
            _ = try take()
        }
        let leadingZero = try peekRaw() == UInt8(ascii: "0")
        let whole = try digits(&self, &text)
        guard whole > 0 else { throw syntax("a number without digits") }
        guard !leadingZero || whole == 1 else { throw failure(nil, "is not valid JSON: a number with a leading zero at \(start)") }
        if try peekRaw() == UInt8(ascii: ".") {
            text.append(UInt8(ascii: "."))
            _ = try take()
            guard try digits(&self, &text) > 0 else { throw syntax("a number with no digits after its point") }
        }
        if let e = try peekRaw(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            text.append(e)
            _ = try take()
            if let sign = try peekRaw(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                text.append(sign)
                _ = try take()
            }
            guard try digits(&self, &text) > 0 else { throw syntax("a number with no digits in its exponent") }
        }
        text.append(0)
        let value = text.withUnsafeBufferPointer { strtod(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), nil) }
        guard value.isFinite else { throw failure(field, "must be a finite number, not one of over 308 digits") }
        return value
    }

    private mutating func expectKind(
        _ byte: UInt8, _ field: String, _ wanted: String, orDigit: Bool
    ) throws(ScenarioError) {
        let next = try peek()
        if let next, next >= UInt8(ascii: "0"), next <= UInt8(ascii: "9") { return }
        try expectKind(byte, field, wanted)
    }

    /// A whole number.
    mutating func integer(_ field: String) throws(ScenarioError) -> Int {
        let value = try number(field)
        guard value == value.rounded(), abs(value) < 1e15 else { throw failure(field, "must be a whole number, not \(value)") }
        return Int(value)
    }

    /// Field names as a list in the messages (`$schema`, allowed for editors, is left out).
    private static func listed(_ fields: [String]) -> String {
        fields.filter { $0 != "$schema" }.joined(separator: ", ")
    }

    /// Levenshtein distance, for short field names.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}
