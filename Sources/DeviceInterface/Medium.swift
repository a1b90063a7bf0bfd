/// The air the devices share: UWB channels divided into blocks of fixed slots, the slots one ranging exchange
/// takes, how far an exchange disturbs others, and what one device's chip can hold (docs/airtime.md has the
/// published figures these defaults come from, and the assumptions where none is published).
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
    /// Two exchanges may share a slot on one channel only when every device of one is farther than this from every
    /// device of the other, metres. Twice the distance at which half the exchanges still arrive (9 m), rounded: a
    /// preamble too weak to range on still corrupts another receiver's timing.
    public var interferenceRange = 20.0
    /// Seconds of air one frame takes at the start of its slot: a 64-symbol preamble, its SFD and an STS of 64
    /// symbols (about 140 µs, IEEE 802.15.4z HRP at 64 MHz PRF), or the control and report frames' payload at
    /// 6.8 Mb/s (about 170 µs); 160 µs, so that the five frames of a double-sided exchange take 0.8 ms of its 10 ms.
    public var frameDuration = 0.000_16
    /// How much stronger a frame must arrive than the sum of the frames overlapping it at its receiver to be received
    /// (capture), dB; `nil`: no capture, every overlapped frame is lost. An assumption: studies of concurrent UWB
    /// frames (Corbalán & Picco 2018; Vecchia et al. 2019, DW1000) find the stronger of two overlapping frames often
    /// received, depending on their power difference and offset; narrowband 802.15.4 radios need 3 to 4 dB (Son et
    /// al. 2006). No phone figure is published (docs/airtime.md, "Frames and capture", has a sensitivity table).
    public var captureThreshold: Double? = 6
    /// Ranging sessions one device keeps active at once; those over it are suspended (the app is told, and told
    /// again when one resumes). `nil`: no limit, as on phones, which publish none (NearCatch ran 99 per phone).
    public var sessionsPerDevice: Int?
    /// Exchanges one device takes part in per second, counted by block; `nil`: only the rule that a device is in
    /// one exchange at a time.
    public var exchangesPerDevicePerSecond: Double?

    public init() {}

    /// Slots in one block.
    public var slotsPerBlock: Int { Int((blockDuration / slotDuration + 1e-9).rounded(.down)) }

    /// Seconds one exchange of `scheme` occupies its channel.
    public func exchangeDuration(_ scheme: RangingScheme) -> Double {
        Double(slotsPerExchange(scheme)) * slotDuration
    }

    /// Exchanges one device may take part in within a block under ``exchangesPerDevicePerSecond``.
    public var exchangesPerDevicePerBlock: Int? {
        exchangesPerDevicePerSecond.map { Int(($0 * blockDuration + 1e-9).rounded(.down)) }
    }

    /// Where an exchange may start: the positions of each block (one after another, whole exchanges only), as
    /// instants from the run's start, that fall in `start ..< end`. Calls `body` with each instant and its block.
    public func forEachPosition(
        _ scheme: RangingScheme, from start: Double, to end: Double,
        _ body: (_ time: Double, _ block: Int) -> Void
    ) {
        let perBlock = slotsPerBlock / slotsPerExchange(scheme)
        let step = exchangeDuration(scheme)
        var block = Int((start / blockDuration + 1e-9).rounded(.down))
        while Double(block) * blockDuration < end - 1e-9 {
            let blockStart = Double(block) * blockDuration
            for k in 0..<perBlock {
                let t = blockStart + Double(k) * step
                if t >= start - 1e-9, t < end - 1e-9 { body(t, block) }
            }
            block += 1
        }
    }

    /// Who sends each frame of an exchange of `scheme`, one frame at the start of each slot: `true` for the
    /// initiator (control, poll, final), `false` for the responder (response, report). The last frame of a
    /// double-sided exchange is the responder's report, which only the initiator's reading needs.
    public func initiatorSends(_ scheme: RangingScheme) -> [Bool] {
        let pattern = scheme == .doubleSided ? [true, true, false, true, false] : [true, true, false]
        let slots = slotsPerExchange(scheme)
        return Array(pattern.prefix(slots)) + repeatElement(false, count: max(0, slots - pattern.count))
    }

    /// The slots an exchange of `scheme` takes.
    public func slotsPerExchange(_ scheme: RangingScheme) -> Int {
        scheme == .doubleSided ? doubleSidedSlots : singleSidedSlots
    }

    /// Exchanges one channel carries in a second: whole exchanges per block, blocks per second.
    public func exchangesPerSecondPerChannel(_ scheme: RangingScheme) -> Double {
        Double(slotsPerBlock / slotsPerExchange(scheme)) / blockDuration
    }

    /// Exchanges all the channels carry in a second where every device hears every other (one room).
    public func capacityPerSecond(_ scheme: RangingScheme) -> Double {
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
        for (name, slots) in [("doubleSidedSlots", doubleSidedSlots), ("singleSidedSlots", singleSidedSlots)] {
            guard slots >= 1, slots <= slotsPerBlock else {
                throw MediumError(field: name, rule: "between 1 and the slots of a block (\(slotsPerBlock))")
            }
        }
        guard interferenceRange.isFinite, interferenceRange >= 0, interferenceRange <= 1_000 else {
            throw MediumError(field: "interferenceRange", rule: "between 0 and 1000 metres")
        }
        guard frameDuration.isFinite, frameDuration > 0, frameDuration <= slotDuration else {
            throw MediumError(field: "frameDuration", rule: "above 0 and at most one slot (\(slotDuration) s)")
        }
        if let c = captureThreshold, !c.isFinite || c < -10 || c > 60 {
            throw MediumError(field: "captureThreshold", rule: "between -10 and 60 dB, or none")
        }
        if let n = sessionsPerDevice, n < 1 || n > 10_000 {
            throw MediumError(field: "sessionsPerDevice", rule: "between 1 and 10000")
        }
        if let r = exchangesPerDevicePerSecond {
            guard r.isFinite, r * blockDuration >= 1, r <= 10_000 else {
                throw MediumError(field: "exchangesPerDevicePerSecond",
                                  rule: "at least one a block (\(1 / blockDuration) a second) and at most 10000")
            }
        }
    }
}

/// A medium setting out of range.
public struct MediumError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let rule: String

    /// The command line's flag for the field, where it has one.
    public var flag: String? {
        ["channels": "--channels", "interferenceRange": "--interference-range",
         "sessionsPerDevice": "--sessions-per-device",
         "captureThreshold": "--capture-threshold",
         "exchangesPerDevicePerSecond": "--exchanges-per-device"][field]
    }

    public var description: String { "\(flag ?? "medium \(field)") must be \(rule)" }
}
