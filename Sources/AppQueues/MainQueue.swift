import Dispatch
import MainActorHook
@_spi(Faces) import NearbySimulator

// An iOS app's file hops to its main queue (`DispatchQueue.main.async { }`, `asyncAfter(deadline:)`) and expects the
// block to run soon, on the phone, in order with the framework's callbacks. On Linux the real main queue runs on
// another thread at real time, or never, beside the room. These overloads, which Swift prefers to Dispatch's own
// for the closure forms (they take fewer defaulted arguments), put the block on the room's clock as the phone that
// sent it, without leaving Swift; the other forms the room takes where they reach libdispatch (PhoneMainActor).
// Anywhere else they are Dispatch's. docs/app-testing.md, "The main queue, timers and tasks", says what is covered
// and what is not.
extension DispatchQueue {
    /// Dispatch's `async`; on a simulated phone's main queue, the block runs as that phone on the room's clock, at
    /// the time of the call, after what the room already has to do then.
    public func async(execute work: @escaping @Sendable @convention(block) () -> Void) {
        if let device = phoneOfMainQueue("DispatchQueue.main.async") {
            device.schedule(after: 0, work)
            return
        }
        async(group: nil, qos: .unspecified, flags: [], execute: work)
    }

    /// Dispatch's `asyncAfter(deadline:)`; on a simulated phone's main queue, the block runs as that phone when the
    /// room's clock has gone on by the deadline's delay (a phone's `DispatchTime.now()` reads the room's clock, so
    /// `.now() + 0.5` is 0.5 s of it exactly).
    public func asyncAfter(deadline: DispatchTime, execute work: @escaping @Sendable @convention(block) () -> Void) {
        if let device = phoneOfMainQueue("DispatchQueue.main.asyncAfter") {
            var delay = 0.0
            if nearcatch_delay_until(deadline.rawValue, &delay) != 0 {
                device.schedule(after: delay, work)
                return
            }
        }
        asyncAfter(deadline: deadline, qos: .unspecified, flags: [], execute: work)
    }

    /// The phone whose app sends work to the main queue now, if this is the main queue and the sender a phone's
    /// app; from work that outlived the app's call, the refusal is said and the real queue takes the block.
    private func phoneOfMainQueue(_ what: String) -> SimulatedDevice? {
        guard label == DispatchQueue.main.label else { return nil }
        guard SimulatedDevice.admits(what) else { return nil }
        return SimulatedDevice.current
    }
}
