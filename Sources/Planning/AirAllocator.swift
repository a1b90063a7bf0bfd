import DeviceInterface
import Geometry

/// Places a round's exchanges in the medium: the positions of the blocks that fall in the round (one exchange's
/// slots each), on every channel. An exchange takes a position and a channel when
/// - neither of its devices is in another exchange at that position (on any channel: one radio each),
/// - no exchange already there on that channel has a device within the interference range of either of its devices
///   (farther apart, two exchanges share the slot: spatial reuse),
/// - neither device has used up its exchanges of that block (``Medium/exchangesPerDevicePerSecond``).
///
/// Who hears whom is what the devices believe (``PlanningContext/believedDistance(_:_:)``): their estimates and
/// Bluetooth signal strength, the true positions only under `oracle`. The world's medium then decides what
/// collides (the `Air` module): a wrong belief costs exchanges.
package struct AirAllocator {
    package let medium: Medium
    /// Seconds one exchange occupies its channel.
    package let exchangeDuration: Double
    private let scheme: RangingScheme
    private let range: Float
    private let perBlock: Int?
    private let channels: Int
    private let peers: Int
    /// The round's positions: their instants from the run's start and their blocks.
    package private(set) var times: [Double] = []
    private var blocks: [Int] = []
    private var roundStart = 0.0
    private var plannedThrough = -Double.infinity
    /// The pairs placed at each position and channel (position × channels + channel).
    private var occupants: [[Int32]] = []
    /// For each device, a bit per position of the round where it is busy.
    private var busy: [UInt64] = []
    private var words = 1
    /// Exchanges each device took part in during the two latest blocks (a round may straddle two), by block parity.
    private var blockCounts: [[UInt16]]
    private var countedBlock = [Int.min, Int.min]
    /// Candidates refused in a row: past a bound the round's air is taken and further candidates would be refused too.
    private var refusedInARow = 0

    /// - Parameter hearingMargin: how far beyond the interference range a pair is still taken to be in hearing,
    ///   metres: what the devices believe is their estimates, which read long with a phone turned away and by their
    ///   noise, so a pair believed just out of hearing may be in it. The device's own belief, passed in: the world's
    ///   radio is not the device's to read (the run passes what the radio it was given is specified to read long by).
    package init(medium: Medium, scheme: RangingScheme, peers: Int, hearingMargin: Float) {
        self.medium = medium
        exchangeDuration = medium.exchangeDuration(scheme)
        range = Float(medium.interferenceRange) + hearingMargin
        perBlock = medium.exchangesPerDevicePerBlock
        channels = medium.channels
        self.peers = peers
        blockCounts = [[UInt16](repeating: 0, count: peers), [UInt16](repeating: 0, count: peers)]
        self.scheme = scheme
    }

    /// Whether the round's air is taken, as far as a planner need try: many candidates refused in a row.
    package var isSaturated: Bool { refusedInARow >= max(64, 4 * times.count * channels) }

    /// Starts the round of `context`, and empties `plan` of the previous round's exchanges.
    package mutating func begin(_ context: PlanningContext, into plan: inout RangingPlan) {
        plan.emptyExchanges(channels: channels)
        roundStart = context.time
        times.removeAll(keepingCapacity: true)
        blocks.removeAll(keepingCapacity: true)
        // From where the previous round's air ended: over UDP rounds come on the wall clock, sometimes closer than
        // the interval, and two rounds must not plan the same slots.
        let from = max(context.time, plannedThrough)
        plannedThrough = max(plannedThrough, context.time + context.interval)
        medium.forEachPosition(scheme, from: from, to: context.time + context.interval) { t, block in
            times.append(t)
            blocks.append(block)
        }
        // A round's positions fall in at most two blocks, its first and its last.
        for b in [blocks.first, blocks.last] {
            guard let b, countedBlock[b & 1] != b else { continue }
            countedBlock[b & 1] = b
            for d in 0..<peers { blockCounts[b & 1][d] = 0 }
        }
        let needed = times.count * channels
        if occupants.count < needed { occupants += Array(repeating: [], count: needed - occupants.count) }
        for k in 0..<needed { occupants[k].removeAll(keepingCapacity: true) }
        words = max(1, (times.count + 63) / 64)
        if busy.count != peers * words { busy = [UInt64](repeating: 0, count: peers * words) }
        else { for k in busy.indices { busy[k] = 0 } }
        refusedInARow = 0
    }

    @inline(__always)
    private func isBusy(_ device: Int, _ position: Int) -> Bool {
        busy[device * words + position >> 6] & (1 << UInt64(position & 63)) != 0
    }

    /// Places pair `p` at the first position and channel the rules allow, adding it to `plan`.
    ///
    /// - Returns: whether it was placed.
    @discardableResult
    package mutating func place(_ p: Int32, _ context: PlanningContext, into plan: inout RangingPlan) -> Bool {
        let pair = context.pairs[Int(p)]
        let a = Int(pair.low), b = Int(pair.high)
        for position in times.indices {
            guard !isBusy(a, position), !isBusy(b, position) else { continue }
            let parity = blocks[position] & 1
            if let perBlock, Int(blockCounts[parity][a]) >= perBlock || Int(blockCounts[parity][b]) >= perBlock {
                continue
            }
            channel: for channel in 0..<channels {
                for q in occupants[position * channels + channel]
                where context.inHearing(pair, context.pairs[Int(q)], range: range) {
                    continue channel
                }
                occupants[position * channels + channel].append(p)
                busy[a * words + position >> 6] |= 1 << UInt64(position & 63)
                busy[b * words + position >> 6] |= 1 << UInt64(position & 63)
                blockCounts[parity][a] += 1
                blockCounts[parity][b] += 1
                plan.exchanges.append(PlannedExchange(pair: Int(p), offset: Float(times[position] - roundStart)))
                plan.channels.append(UInt8(channel))
                refusedInARow = 0
                return true
            }
        }
        refusedInARow += 1
        return false
    }
}
