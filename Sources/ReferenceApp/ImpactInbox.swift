import Bump
import DeviceInterface
import Synchronization

/// The jolts that arrive over the data channel, from the transport's threads, until the next round takes them; and
/// how many arrived and how many were refused (a payload that is no jolt: counted, never trusted).
package final class ImpactInbox: Sendable {
    private struct State {
        var arrived: [Int: [HeardImpact]] = [:]
        var heard = 0
        var refused = 0
    }

    private let state = Mutex(State())

    package init() {}

    package func receive(_ payload: [UInt8], from peer: Int, at device: Int, time: Double) {
        do {
            let impact = try ImpactMessage.decode(payload, arrival: time)
            state.withLock {
                $0.arrived[device, default: []].append(HeardImpact(from: Int32(peer), impact: impact))
                $0.heard += 1
            }
        } catch {
            state.withLock { $0.refused += 1 }
        }
    }

    /// What arrived since the last call, by device, each device's in the order it arrived.
    package func take() -> [Int: [HeardImpact]] {
        state.withLock { state in
            defer { state.arrived.removeAll(keepingCapacity: true) }
            return state.arrived
        }
    }

    package var heard: Int { state.withLock { $0.heard } }
    package var refused: Int { state.withLock { $0.refused } }
}
