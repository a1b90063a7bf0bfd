import MainActorHook
import Synchronization

/// Which device's app is running now: set while the room calls an app (its delegates, sessions, timers, samples)
/// and while a test runs code as one (``SimulatedDevice/perform(_:)``), so that code written for one phone, which
/// makes its sessions and peers without naming a device (`NISession()`, `MCPeerID(displayName:)`), finds its own.
///
/// A task-local, so a `Task { }` made inside such a call inherits it. The room runs such a task on its clock as the
/// phone (``PhoneMainActor``); but a task resumed from another thread runs there, after the call has returned. The call's ``AppCall`` tells the two apart: open while the room's call lasts, closed for ever after.
struct DeviceContext: @unchecked Sendable {
    // Read and written only on the thread that advances the room; the task-local merely carries it there.
    weak var device: SimulatedDevice?
    let call: AppCall

    @TaskLocal static var value: DeviceContext?
}

/// One call of the room (or of a test) into a device's app, open while it lasts.
final class AppCall: Sendable {
    let isOpen = Atomic<Bool>(true)
}

extension SimulatedDevice {
    /// The device whose app is running now: inside ``perform(_:)``, inside every call the room makes to this
    /// device's app, and inside the tasks such a call started while the room runs them. `nil` elsewhere, including
    /// in a task resumed from another thread, which runs beside the room: see ``outlivedCall``.
    public static var current: SimulatedDevice? {
        if let phone = PhoneMainActor.runningPhone { return phone }
        guard let context = DeviceContext.value, context.call.isOpen.load(ordering: .acquiring) else { return nil }
        return context.device
    }

    /// The device whose app started the task running now, when that task outlived the app's call and was resumed
    /// from another thread: it runs outside the room's clock, so the faces refuse it and say why (``AppProblem``).
    @_spi(Faces)
    public static var outlivedCall: SimulatedDevice? {
        guard PhoneMainActor.runningPhone == nil, let context = DeviceContext.value, !context.call.isOpen.load(ordering: .acquiring) else { return nil }
        return context.device
    }

    /// Runs `body` as this device's app: an app object made here, and everything it makes later when the room calls
    /// it, belongs to this device (the Apple-shaped faces, docs/app-testing.md, find their device this way).
    public func perform<T>(_ body: () throws -> T) rethrows -> T {
        let call = AppCall()
        let clock = nearcatch_set_phone_time(room?.now ?? -1)
        defer {
            call.isOpen.store(false, ordering: .releasing)
            nearcatch_restore_phone_time(clock)
        }
        return try DeviceContext.$value.withValue(DeviceContext(device: self, call: call)) { try body() }
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
