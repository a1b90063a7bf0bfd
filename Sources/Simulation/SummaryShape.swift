/// The paths a run's JSON summary can hold, read from the summary's own type: what a sweep's metric may name, known
/// before any run (`sweep plan` refuses a metric that names none of them). A dictionary's keys and an array's
/// positions are `*`.
package enum SummaryShape {
    package static let paths: Set<String> = CodableShape.paths(of: SimulationSummary.self)
}

/// Every path a `Decodable` type's decoding asks for, found by decoding it from a decoder that holds every key once:
/// each optional present, each dictionary with one key `*`, each array with one element (at `*`).
package enum CodableShape {
    package static func paths<T: Decodable>(of type: T.Type) -> Set<String> {
        let recorder = Recorder()
        _ = try? T(from: ShapeDecoder(recorder: recorder, codingPath: []))
        return recorder.paths
    }

    fileprivate final class Recorder {
        var paths: Set<String> = []

        func note(_ path: [any CodingKey]) {
            guard !path.isEmpty else { return }
            paths.insert(path.map { $0.intValue == nil ? $0.stringValue : "*" }.joined(separator: "."))
        }
    }

    fileprivate struct AnyKey: CodingKey {
        let stringValue: String
        let intValue: Int?
        init(stringValue: String) {
            self.stringValue = stringValue
            intValue = nil
        }
        init(intValue: Int) {
            stringValue = String(intValue)
            self.intValue = intValue
        }
    }

    fileprivate struct ShapeDecoder: Decoder {
        let recorder: Recorder
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            recorder.note(codingPath)
            return KeyedDecodingContainer(Keyed<Key>(recorder: recorder, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            recorder.note(codingPath)
            return Unkeyed(recorder: recorder, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            recorder.note(codingPath)
            return Single(recorder: recorder, codingPath: codingPath)
        }
    }

    /// A plain value of the types JSON holds, or `T` decoded from the shape decoder at `path`.
    fileprivate static func value<T: Decodable>(_ type: T.Type, _ recorder: Recorder, _ path: [any CodingKey]) throws
        -> T {
        recorder.note(path)
        switch type {
        case is Bool.Type: return false as! T
        case is String.Type: return "" as! T
        case is Double.Type: return 0.0 as! T
        case is Float.Type: return Float(0) as! T
        case is Int.Type: return 0 as! T
        case is Int64.Type: return Int64(0) as! T
        case is UInt64.Type: return UInt64(0) as! T
        case is UInt.Type: return UInt(0) as! T
        case is Int32.Type: return Int32(0) as! T
        case is UInt32.Type: return UInt32(0) as! T
        default: return try T(from: ShapeDecoder(recorder: recorder, codingPath: path))
        }
    }

    fileprivate struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: Recorder
        let codingPath: [any CodingKey]
        var allKeys: [Key] { Key(stringValue: "*").map { [$0] } ?? [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try CodableShape.value(type, recorder, codingPath + [key])
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey> {
            try ShapeDecoder(recorder: recorder, codingPath: codingPath + [key]).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try ShapeDecoder(recorder: recorder, codingPath: codingPath + [key]).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder { ShapeDecoder(recorder: recorder, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            ShapeDecoder(recorder: recorder, codingPath: codingPath + [key])
        }
    }

    fileprivate struct Unkeyed: UnkeyedDecodingContainer {
        let recorder: Recorder
        let codingPath: [any CodingKey]
        var count: Int? { 1 }
        var isAtEnd: Bool { currentIndex > 0 }
        var currentIndex = 0

        init(recorder: Recorder, codingPath: [any CodingKey]) {
            self.recorder = recorder
            self.codingPath = codingPath
        }

        private var element: [any CodingKey] { codingPath + [AnyKey(intValue: 0)] }

        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            defer { currentIndex += 1 }
            return try CodableShape.value(type, recorder, element)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey> {
            defer { currentIndex += 1 }
            return try ShapeDecoder(recorder: recorder, codingPath: element).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            defer { currentIndex += 1 }
            return try ShapeDecoder(recorder: recorder, codingPath: element).unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Decoder { ShapeDecoder(recorder: recorder, codingPath: element) }
    }

    fileprivate struct Single: SingleValueDecodingContainer {
        let recorder: Recorder
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try CodableShape.value(type, recorder, codingPath) }
    }
}
