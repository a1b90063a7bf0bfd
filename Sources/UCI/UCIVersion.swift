/// The UCI a chip speaks: every layout that differs between versions is chosen here, once per endpoint.
///
/// `v1_1` and `v2_0` follow the FiRa UCI specification of that version as AOSP's packet definitions lay it out
/// (`uci_packets.pdl`); `pica` answers as pica does at its current HEAD, a mixture its hosts are written against
/// (a 2.0 device, 1.1 session layouts, 1.1 capability numbering, 2.0 multicast-list layouts, every received data
/// message numbered 1, two-way rounds for every ranging usage).
package enum UCIVersion: String, CaseIterable, Sendable {
    case v1_1 = "1.1"
    case v2_0 = "2.0"
    case pica

    /// CORE_GET_DEVICE_INFO's UCI version, little-endian: major in the low byte, minor in the high byte's top nibble.
    package var deviceInfoVersion: [UInt8] {
        switch self {
        case .v1_1: [0x01, 0x10]
        case .v2_0, .pica: [0x02, 0x00]
        }
    }

    /// CORE_GET_DEVICE_INFO's MAC and PHY versions, in the same layout: FiRa 1.3 for a 1.1 chip, 2.0 for a 2.0 one.
    package var deviceInfoFiRaVersion: [UInt8] {
        switch self {
        case .v1_1, .pica: [0x01, 0x30]
        case .v2_0: [0x02, 0x00]
        }
    }

    /// The FiRa PHY and MAC versions the chip supports, lowest and highest, as the caps' version ranges give them
    /// (major, minor, major, minor).
    package var fiRaVersionRange: [UInt8] {
        switch self {
        case .v1_1, .pica: [1, 1, 1, 3]
        case .v2_0: [1, 1, 2, 0]
        }
    }

    /// A session is named by a handle the chip gives in SESSION_INIT's response (2.0), or by the host's session id.
    package var hasSessionHandles: Bool { self == .v2_0 }

    /// Capability TLVs are numbered as 2.0 numbers them (the two size limits first, then the version ranges).
    package var numbersCapsAs2_0: Bool { self == .v2_0 }

    /// The multicast list's response carries a status per controlee, and its notification has no list size and no
    /// sub-session ids.
    package var hasMulticastStatusLists: Bool { self != .v1_1 }

    /// OWR-AoA and DL-TDoA sessions run their own rounds and reports; pica answers every usage with two-way reports,
    /// and its own tests range with usage 6 expecting them.
    package var servesOneWayRounds: Bool { self != .pica }

    /// DATA_MESSAGE_RCV carries the sender's sequence number; pica numbers every received message 1.
    package var carriesSenderSequence: Bool { self != .pica }

    /// Actions of SESSION_UPDATE_CONTROLLER_MULTICAST_LIST: 1.1 adds and removes; 2.0 also adds with a 16- or 32-byte
    /// sub-session key.
    package var multicastActions: ClosedRange<UInt8> { self == .v1_1 ? 0...1 : 0...3 }
}
