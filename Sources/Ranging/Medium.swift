import Radio

/// The air the devices share: UWB channels divided into blocks of fixed slots, and the slots one ranging exchange
/// takes (docs/airtime.md has the published figures these defaults come from). The first use is to say how much
/// air a plan asks for; the airtime-aware planners of a later step allocate slots within it.
public struct Medium: Sendable, Equatable {
    /// Channels the devices range on, each carrying its own blocks.
    public var channels = 1
    /// A ranging block and one slot in it, seconds (FiRa's defaults in the Qorvo stack: 200 ms and 2 ms).
    public var blockDuration = 0.2
    public var slotDuration = 0.002
    /// Slots one exchange takes, with its control and report messages: double-sided (control, poll, response,
    /// final, report) and single-sided (control, poll, response).
    public var doubleSidedSlots = 5
    public var singleSidedSlots = 3

    public init() {}

    /// The slots an exchange of `scheme` takes.
    public func slotsPerExchange(_ scheme: RadioConfiguration.RangingScheme) -> Int {
        scheme == .doubleSided ? doubleSidedSlots : singleSidedSlots
    }

    /// Exchanges one channel carries in a second: whole exchanges per block, blocks per second.
    public func exchangesPerSecondPerChannel(_ scheme: RadioConfiguration.RangingScheme) -> Double {
        let slotsPerBlock = Int((blockDuration / slotDuration).rounded(.down))
        return Double(slotsPerBlock / slotsPerExchange(scheme)) / blockDuration
    }

    /// Exchanges all the channels carry in a second where every device hears every other (one room).
    public func capacityPerSecond(_ scheme: RadioConfiguration.RangingScheme) -> Double {
        Double(channels) * exchangesPerSecondPerChannel(scheme)
    }

    /// Checks the fields; the error names the first one out of range.
    public func validate() throws(MediumError) {
        guard channels >= 1, channels <= 16 else { throw MediumError(field: "channels", rule: "between 1 and 16") }
        guard slotDuration.isFinite, slotDuration >= 1e-4, slotDuration <= 0.1 else {
            throw MediumError(field: "slotDuration", rule: "between 0.0001 and 0.1 s")
        }
        guard blockDuration.isFinite, blockDuration >= slotDuration, blockDuration <= 10 else {
            throw MediumError(field: "blockDuration", rule: "at least one slot and at most 10 s")
        }
        let slotsPerBlock = Int((blockDuration / slotDuration).rounded(.down))
        for (name, slots) in [("doubleSidedSlots", doubleSidedSlots), ("singleSidedSlots", singleSidedSlots)] {
            guard slots >= 1, slots <= slotsPerBlock else {
                throw MediumError(field: name, rule: "between 1 and the slots of a block (\(slotsPerBlock))")
            }
        }
    }
}

/// A medium setting out of range.
public struct MediumError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let rule: String

    public var description: String { "medium \(field) must be \(rule)" }
}
