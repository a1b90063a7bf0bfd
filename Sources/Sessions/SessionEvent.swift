/// What happens to one session, in the order it happens, as an app's delegate would hear it.
public enum SessionEvent: Sendable, Equatable {
    /// Both tokens are known: the session runs and ranging may start.
    case began(remoteToken: DiscoveryToken)
    /// A new estimate for the peer, as this side's app receives it: distance, direction, horizontal angle, vertical
    /// estimate and the measurement's time. Boxed, so that the other events (which discovery makes by the million)
    /// stay as small as they were.
    indirect case didUpdate(NearbyUpdate)
    /// The peer was removed.
    case didRemove(SessionRemovalReason)
    /// The session stopped delivering updates for a while (for example the app went to the background).
    case suspended
    /// Updates resume.
    case suspensionEnded
    /// The session ended with an error and will not run again; a new one must be made.
    case invalidated(SessionError)
}

