import MainActorHook

/// A phone's main actor and its tasks, in the room. The room's thread stands for a phone's main thread while the
/// room calls that phone's app, so:
/// - Swift's run-time checks of main-actor isolation (`MainActor.assumeIsolated`, a `@preconcurrency` conformance
///   to a framework's delegate) pass inside such a call, as on a phone, and fail elsewhere as they would;
/// - a job an app's call starts on the main actor (`Task { @MainActor in }`, a hop back to it) or on the global
///   executor (`Task { }`) runs on the room's clock as that phone, at the time it was started, instead of on
///   another thread at real time; so does every job such a job starts, and a task's sleep (`Task.sleep`) is on
///   the room's clock; a task resumed from another thread (a real queue's callback) runs beside the room, and the
///   faces refuse what it asks (``AppProblem``);
/// - a block a phone's app sends to the main queue through Dispatch's overlay or Foundation (a `DispatchWorkItem`,
///   `asyncAfter`, `OperationQueue.main`) runs on the room's clock as that phone, and `DispatchQueue.main.sync`
///   runs it at once.
///
/// Installed once, by the first room: Swift's runtime offers its jobs to the room first (docs/app-testing.md,
/// "The main queue, timers and tasks").
enum PhoneMainActor {
    static let installed: (isolation: Bool, mainJobs: Bool, globalJobs: Bool, sleeps: Bool, mainBlocks: Bool) = {
        mainIdentity = unsafeBitCast(MainActor.sharedUnownedExecutor, to: (UnsafeRawPointer?, UnsafeRawPointer?).self).0
        let isolation = nearcatch_install_isolation_decider { executor in
            executor != nil && executor == mainIdentity && SimulatedDevice.current != nil ? 1 : 0
        } == 1
        let takers = nearcatch_install_job_takers({ context, work in
            guard let work, let device = SimulatedDevice.current, !device.isStopped else { return 0 }
            device.schedule(after: 0) { runAsPhone(device) { work(context) } }
            return 1
        }, { job in
            guard let job, let device = SimulatedDevice.current, !device.isStopped else { return 0 }
            device.schedule(after: 0) { runAsPhone(device) { nearcatch_run_global_job(job) } }
            return 1
        })
        let blocks = nearcatch_install_block_takers({ block, delay in
            guard let block, let device = SimulatedDevice.current, !device.isStopped else { return 0 }
            device.schedule(after: delay) { runAsPhone(device) { nearcatch_run_block(block) } }
            return 1
        }, { SimulatedDevice.current != nil ? 1 : 0 })
        let sleeps = nearcatch_install_sleep_taker { context, work, delay in
            guard let work, let device = SimulatedDevice.current, !device.isStopped else { return 0 }
            device.schedule(after: delay) { runAsPhone(device) { work(context) } }
            return 1
        } == 1
        return (isolation, takers & 1 != 0, takers & 2 != 0, sleeps, blocks > 0)
    }()

    // Written once, before the decider is installed; read only by it.
    nonisolated(unsafe) private static var mainIdentity: UnsafeRawPointer?

    /// Runs a phone's job: while it runs, the thread is that phone's (a task's own context, inherited from a call
    /// that has ended, does not say so).
    private static func runAsPhone(_ device: SimulatedDevice, _ body: () -> Void) {
        let previous = nearcatch_running_phone()
        nearcatch_set_running_phone(Unmanaged.passUnretained(device).toOpaque())
        let clock = nearcatch_set_phone_time(device.room?.now ?? -1)
        defer {
            nearcatch_set_running_phone(previous)
            nearcatch_restore_phone_time(clock)
        }
        body()
    }

    /// The phone whose job this thread runs now, if any.
    static var runningPhone: SimulatedDevice? {
        nearcatch_running_phone().map { Unmanaged<SimulatedDevice>.fromOpaque($0).takeUnretainedValue() }
    }
}
