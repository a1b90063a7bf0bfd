import DeviceInterface

/// What one step of the run saw happen and what its devices send, in order: the step's value, handed out after it.
struct StepOutput {
    var events: [RunEvent] = []
    var messages: [AppMessage] = []

    @inline(__always)
    mutating func happened(at time: Double, _ kind: RunEvent.Kind) {
        events.append(RunEvent(time: time, kind: kind))
    }
}
