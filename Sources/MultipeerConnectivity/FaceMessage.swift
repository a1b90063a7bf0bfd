/// What the peer-to-peer framework's devices tell each other over the room's `.reliable` data (unreliable session
/// data aside): what they advertise, invitations and their answers, session data, leaving.
enum FaceMessage: Equatable {
    case advert(uid: UInt64, name: String, serviceType: String, info: [String: String]?)
    case unadvert(uid: UInt64, serviceType: String)
    case invite(id: UInt64, from: UInt64, name: String, session: UInt64, to: UInt64, context: [UInt8]?)
    case answer(id: UInt64, accepted: Bool, session: UInt64, uid: UInt64, name: String)
    case confirm(id: UInt64, session: UInt64)
    case data(toSession: UInt64, from: UInt64, payload: [UInt8])
    case leave(toSession: UInt64, from: UInt64)

    private var tag: UInt8 {
        switch self {
        case .advert: 1
        case .unadvert: 2
        case .invite: 3
        case .answer: 4
        case .confirm: 5
        case .data: 6
        case .leave: 7
        }
    }

    var bytes: [UInt8] {
        var w = Writer()
        w.bytes.append(tag)
        switch self {
        case .advert(let uid, let name, let serviceType, let info):
            w.u64(uid); w.string(name); w.string(serviceType)
            if let info {
                w.bytes.append(1)
                w.u64(UInt64(info.count))
                for (key, value) in info.sorted(by: { $0.key < $1.key }) { w.string(key); w.string(value) }
            } else {
                w.bytes.append(0)
            }
        case .unadvert(let uid, let serviceType): w.u64(uid); w.string(serviceType)
        case .invite(let id, let from, let name, let session, let to, let context):
            w.u64(id); w.u64(from); w.string(name); w.u64(session); w.u64(to)
            if let context { w.bytes.append(1); w.data(context) } else { w.bytes.append(0) }
        case .answer(let id, let accepted, let session, let uid, let name):
            w.u64(id); w.bytes.append(accepted ? 1 : 0); w.u64(session); w.u64(uid); w.string(name)
        case .confirm(let id, let session): w.u64(id); w.u64(session)
        case .data(let toSession, let from, let payload): w.u64(toSession); w.u64(from); w.data(payload)
        case .leave(let toSession, let from): w.u64(toSession); w.u64(from)
        }
        return w.bytes
    }

    /// A message from its bytes; `nil` for anything malformed (cut short, a flag out of range, bytes left over).
    init?(_ bytes: [UInt8]) {
        var r = Reader(bytes: bytes[...])
        guard let tag = r.u8() else { return nil }
        let message: FaceMessage?
        switch tag {
        case 1:
            guard let uid = r.u64(), let name = r.string(), let type = r.string(), let flag = r.u8(), flag <= 1 else {
                return nil
            }
            var info: [String: String]?
            if flag == 1 {
                guard let count = r.u64(), count <= 64 else { return nil }
                var entries: [String: String] = [:]
                for _ in 0..<count {
                    guard let key = r.string(), let value = r.string() else { return nil }
                    entries[key] = value
                }
                info = entries
            }
            message = .advert(uid: uid, name: name, serviceType: type, info: info)
        case 2:
            guard let uid = r.u64(), let type = r.string() else { return nil }
            message = .unadvert(uid: uid, serviceType: type)
        case 3:
            guard let id = r.u64(), let from = r.u64(), let name = r.string(), let session = r.u64(), let to = r.u64(),
                  let flag = r.u8(), flag <= 1 else { return nil }
            var context: [UInt8]?
            if flag == 1 {
                guard let data = r.data() else { return nil }
                context = data
            }
            message = .invite(id: id, from: from, name: name, session: session, to: to, context: context)
        case 4:
            guard let id = r.u64(), let accepted = r.u8(), accepted <= 1, let session = r.u64(), let uid = r.u64(),
                  let name = r.string() else { return nil }
            message = .answer(id: id, accepted: accepted == 1, session: session, uid: uid, name: name)
        case 5:
            guard let id = r.u64(), let session = r.u64() else { return nil }
            message = .confirm(id: id, session: session)
        case 6:
            guard let to = r.u64(), let from = r.u64(), let payload = r.data() else { return nil }
            message = .data(toSession: to, from: from, payload: payload)
        case 7:
            guard let to = r.u64(), let from = r.u64() else { return nil }
            message = .leave(toSession: to, from: from)
        default:
            message = nil
        }
        guard let message, r.bytes.isEmpty else { return nil }
        self = message
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func u64(_ value: UInt64) {
            for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
        }

        mutating func data(_ data: [UInt8]) {
            u64(UInt64(data.count))
            bytes += data
        }

        mutating func string(_ string: String) { data(Array(string.utf8)) }
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>

        mutating func u8() -> UInt8? { bytes.popFirst() }

        mutating func u64() -> UInt64? {
            guard bytes.count >= 8 else { return nil }
            defer { bytes = bytes.dropFirst(8) }
            return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[bytes.startIndex + $1]) << (8 * UInt64($1)) }
        }

        mutating func data() -> [UInt8]? {
            guard let count = u64(), count <= UInt64(bytes.count) else { return nil }
            defer { bytes = bytes.dropFirst(Int(count)) }
            return Array(bytes.prefix(Int(count)))
        }

        mutating func string() -> String? {
            guard let data = data() else { return nil }
            return String(validating: data, as: UTF8.self)
        }
    }
}
