import MainActorHook

/// The room's thread stands for a phone's main thread while the room calls that phone's app: so code isolated to
/// the main actor (an iOS view controller's, `@MainActor`) runs there, and Swift's run-time checks of that isolation
/// (`MainActor.assumeIsolated`, a `@preconcurrency` conformance to a framework's delegate) pass inside such a call,
/// as they do on a phone, and fail elsewhere as they would. Installed once, by the first room.
enum PhoneMainActor {
    static let installed: Bool = {
        mainIdentity = unsafeBitCast(MainActor.sharedUnownedExecutor, to: (UnsafeRawPointer?, UnsafeRawPointer?).self).0
        return nearcatch_install_isolation_decider { executor in
            executor != nil && executor == mainIdentity && SimulatedDevice.current != nil ? 1 : 0
        } == 1
    }()

    // Written once, before the decider is installed; read only by it.
    nonisolated(unsafe) private static var mainIdentity: UnsafeRawPointer?
}
