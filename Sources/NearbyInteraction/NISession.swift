import Dispatch
import Foundation
@_exported import AppQueues
@_spi(Faces) import NearbySimulator

/// Told what happens to an ``NISession``, shaped like Apple's delegate: every method is optional.
public protocol NISessionDelegate: NSObjectProtocol {
    /// New estimates of the session's peer.
    func session(_ session: NISession, didUpdate nearbyObjects: [NINearbyObject])
    /// The peer is gone: it fell silent (`timeout`; run the session again to resume) or ended (`peerEnded`).
    func session(_ session: NISession, didRemove nearbyObjects: [NINearbyObject], reason: NINearbyObject.RemovalReason)
    /// The session stopped ranging for a while (its device runs more sessions than it keeps active).
    func sessionWasSuspended(_ session: NISession)
    /// It ranges again.
    func sessionSuspensionEnded(_ session: NISession)
    /// The session ended for good (an ``NIError``); make a new one.
    func session(_ session: NISession, didInvalidateWith error: Error)
    /// Declared for the API's sake; the simulated room has no accessories and never calls it.
    func session(_ session: NISession, didGenerateShareableConfigurationData shareableConfigurationData: Data,
                 for object: NINearbyObject)
    /// Declared for the API's sake; the simulated phones have no camera assistance and never call it.
    func session(_ session: NISession, didUpdateAlgorithmConvergence convergence: NIAlgorithmConvergence,
                 for object: NINearbyObject?)
    /// The session ran, or ran again after a pause.
    func sessionDidStartRunning(_ session: NISession)
}

extension NISessionDelegate {
    public func session(_ session: NISession, didUpdate nearbyObjects: [NINearbyObject]) {}
    public func session(_ session: NISession, didRemove nearbyObjects: [NINearbyObject],
                        reason: NINearbyObject.RemovalReason) {}
    public func sessionWasSuspended(_ session: NISession) {}
    public func sessionSuspensionEnded(_ session: NISession) {}
    public func session(_ session: NISession, didInvalidateWith error: Error) {}
    public func session(_ session: NISession, didGenerateShareableConfigurationData shareableConfigurationData: Data,
                        for object: NINearbyObject) {}
    public func session(_ session: NISession, didUpdateAlgorithmConvergence convergence: NIAlgorithmConvergence,
                        for object: NINearbyObject?) {}
    public func sessionDidStartRunning(_ session: NISession) {}
}

/// Camera assistance's convergence, declared for the API's sake.
public final class NIAlgorithmConvergence: NSObject, @unchecked Sendable {
    public let status: NIAlgorithmConvergenceStatus

    init(status: NIAlgorithmConvergenceStatus) {
        self.status = status
    }
}

/// Whether camera assistance has converged, declared for the API's sake.
public enum NIAlgorithmConvergenceStatus: Sendable {
    case unknown
    case notConverged([NIAlgorithmConvergenceStatus.Reason])
    case converged

    public enum Reason: Sendable {
        case insufficientHorizontalSweep, insufficientVerticalSweep, insufficientMovement, insufficientLighting
    }
}

/// What a device can measure, shaped like Apple's.
public protocol NIDeviceCapability {
    var supportsPreciseDistanceMeasurement: Bool { get }
    var supportsDirectionMeasurement: Bool { get }
    var supportsCameraAssistance: Bool { get }
    var supportsExtendedDistanceMeasurement: Bool { get }
}

/// A simulated phone's: distance and direction (three antennas), no camera assistance, no extended distance.
struct SimulatedCapability: NIDeviceCapability {
    let supportsPreciseDistanceMeasurement: Bool
    let supportsDirectionMeasurement: Bool
    let supportsCameraAssistance = false
    let supportsExtendedDistanceMeasurement = false
}

/// One ranging session with one peer, shaped like Apple's `NISession`, on the simulated device whose app makes it
/// (``SimulatedDevice/current``: made inside ``SimulatedDevice/perform(_:)`` or inside any call the room makes to
/// that device's app). Made anywhere else it stands for a phone without the hardware: ``isSupported`` is false, it
/// has no token, and running it invalidates it with `unsupportedPlatform`.
///
/// Its delegate is called on ``delegateQueue`` (the room's thread when `nil` or the main queue) at the time on the
/// room's clock the event happens; the room's thread advances it. A session invalidated by its app tells its
/// delegate nothing; one invalidated by the framework tells ``NISessionDelegate/session(_:didInvalidateWith:)``.
open class NISession: NSObject, @unchecked Sendable {
    /// Whether this code runs on a device with the hardware: inside a simulated device's app.
    public class var isSupported: Bool { SimulatedDevice.current.map { !$0.isStopped } ?? false }

    /// What the device can measure.
    public class var deviceCapabilities: any NIDeviceCapability {
        SimulatedCapability(supportsPreciseDistanceMeasurement: isSupported, supportsDirectionMeasurement: isSupported)
    }

    /// Told what happens to the session.
    public weak var delegate: (any NISessionDelegate)?
    /// The queue the delegate is called on.
    public var delegateQueue: DispatchQueue?
    /// This session's token, to send to the peer; `nil` on a device without the hardware.
    public let discoveryToken: NIDiscoveryToken?
    /// The configuration the session last ran with.
    public private(set) var configuration: NIConfiguration?

    let device: SimulatedDevice?
    let core: NearbySession?
    private let bridge = Bridge()
    private var invalidatedByApp = false
    private var lastUpdate: NearbyUpdate?

    public override init() {
        SimulatedDevice.madeOffPhone("NISession()")
        device = SimulatedDevice.current
        core = device?.makeSession()
        discoveryToken = core.map { NIDiscoveryToken($0.discoveryToken) }
        super.init()
        bridge.owner = self
        core?.delegate = bridge
    }

    /// A session let go of ends, as Apple's does, without a word to its delegate.
    deinit {
        invalidatedByApp = true
        core?.invalidate()
    }

    /// Runs the session with `configuration` (an ``NINearbyPeerConfiguration``), or again after a pause or a
    /// removal. Anything else, or a token no live session of another device holds, invalidates the session
    /// (`invalidConfiguration`), told to the delegate shortly after, as the framework does.
    open func run(_ configuration: NIConfiguration) {
        guard SimulatedDevice.admits("NISession.run(_:)") else { return }
        guard let core, let device else {
            tellLater { $0.session($1, didInvalidateWith: NIError(.unsupportedPlatform, detail: "not on a simulated device")) }
            return
        }
        guard let peer = configuration as? NINearbyPeerConfiguration else {
            invalidatedByApp = true
            core.invalidate()
            tellLater { $0.session($1, didInvalidateWith: NIError(.invalidConfiguration,
                                                                  detail: "only NINearbyPeerConfiguration is simulated")) }
            return
        }
        self.configuration = configuration
        guard core.state != .invalidated else { return }
        // The framework's calls come after `run` returns, never inside it.
        bridge.holding = true
        core.run(with: peer.peerDiscoveryToken.token)
        let held = bridge.release()
        if core.state == .running {
            tellLater { delegate, session in delegate.sessionDidStartRunning(session) }
        }
        for event in held { device.schedule(after: 0) { [weak self] in self?.tell(event) } }
    }

    /// Stops ranging until ``run(_:)`` is called again.
    open func pause() {
        guard SimulatedDevice.admits("NISession.pause()") else { return }
        core?.pause()
    }

    /// Ends the session for good; its delegate hears nothing more.
    open func invalidate() {
        guard SimulatedDevice.admits("NISession.invalidate()") else { return }
        invalidatedByApp = true
        core?.invalidate()
    }

    /// Tells the delegate on its queue, as the device's app.
    private func deliver(_ body: (any NISessionDelegate, NISession) -> Void) {
        guard let delegate else { return }
        guard let device else {
            body(delegate, self)
            return
        }
        device.call(on: delegateQueue) { body(delegate, self) }
    }

    /// Tells the delegate once the room's clock next runs (at once off a device, where no clock runs).
    private func tellLater(_ body: @escaping (any NISessionDelegate, NISession) -> Void) {
        guard let device else {
            deliver(body)
            return
        }
        device.schedule(after: 0) { [weak self] in self?.deliver(body) }
    }

    fileprivate func tell(_ event: NearbySessionEvent) {
        let peerToken = (configuration as? NINearbyPeerConfiguration)?.peerDiscoveryToken
        switch event {
        case .update(let update):
            lastUpdate = update
            guard let peerToken else { return }
            let object = NINearbyObject(token: peerToken, update: update)
            deliver { $0.session($1, didUpdate: [object]) }
        case .removed(let reason):
            guard let peerToken else { return }
            let object = NINearbyObject(token: peerToken, update: lastUpdate)
            deliver { $0.session($1, didRemove: [object], reason: reason == .peerEnded ? .peerEnded : .timeout) }
        case .suspended: deliver { $0.sessionWasSuspended($1) }
        case .suspensionEnded: deliver { $0.sessionSuspensionEnded($1) }
        case .invalidated(let error):
            guard !invalidatedByApp else { return }
            deliver { $0.session($1, didInvalidateWith: NIError(error)) }
        }
    }

    /// Carries the core session's events to its ``NISession`` (held while `run` is on the stack).
    private final class Bridge: NearbySessionDelegate {
        weak var owner: NISession?
        var holding = false
        private var held: [NearbySessionEvent] = []

        func release() -> [NearbySessionEvent] {
            holding = false
            defer { held = [] }
            return held
        }

        private func forward(_ event: NearbySessionEvent) {
            if holding { held.append(event) } else { owner?.tell(event) }
        }

        func session(_ session: NearbySession, didUpdate update: NearbyUpdate) { forward(.update(update)) }
        func session(_ session: NearbySession, didRemove peer: PeerID, reason: SessionRemovalReason) {
            forward(.removed(reason))
        }
        func sessionWasSuspended(_ session: NearbySession) { forward(.suspended) }
        func sessionSuspensionEnded(_ session: NearbySession) { forward(.suspensionEnded) }
        func session(_ session: NearbySession, didInvalidateWith error: SessionError) { forward(.invalidated(error)) }
    }
}
