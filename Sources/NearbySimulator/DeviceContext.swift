/// Which device's app is running now: set while the room calls an app (its delegates, sessions, timers, samples)
/// and while a test runs code as one (``SimulatedDevice/perform(_:)``), so that code written for one phone, which
/// makes its sessions and peers without naming a device (`NISession()`, `MCPeerID(displayName:)`), finds its own.
struct DeviceContext: @unchecked Sendable {
    // Read and written only on the thread that advances the room; the task-local merely carries it there.
    weak var device: SimulatedDevice?

    @TaskLocal static var value: DeviceContext?
}

extension SimulatedDevice {
    /// The device whose app is running now: inside ``perform(_:)``, and inside every call the room makes to this
    /// device's app. `nil` elsewhere.
    public static var current: SimulatedDevice? { DeviceContext.value?.device }

    /// Runs `body` as this device's app: an app object made here, and everything it makes later when the room calls
    /// it, belongs to this device (the Apple-shaped faces, docs/app-testing.md, find their device this way).
    public func perform<T>(_ body: () throws -> T) rethrows -> T {
        try DeviceContext.$value.withValue(DeviceContext(device: self)) { try body() }
    }
}

import Dispatch

extension SimulatedDevice {
    /// Runs `body` as this device's app on `queue`, as a framework calls its delegate on the queue an app gave it:
    /// on the room's thread when `queue` is `nil` or the main queue (the room's thread stands for the app's main
    /// thread; waiting on the real main queue could block forever), else synchronously on `queue`, so that the
    /// call still happens at its time on the room's clock.
    @_spi(Faces)
    public func call(on queue: DispatchQueue?, _ body: () -> Void) {
        guard let queue, queue.label != DispatchQueue.main.label else {
            perform(body)
            return
        }
        queue.sync { perform(body) }
    }
}
