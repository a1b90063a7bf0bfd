import DeviceInterface
import Foundation
@_exported import AppQueues
@_spi(Faces) import NearbySimulator

/// The motion sensors of the simulated phone whose app makes it (``SimulatedDevice/current``), shaped like Apple's
/// `CMMotionManager`: the accelerometer in g with Apple's sign (a phone lying screen-up reads z = −1), the gyroscope
/// in rad/s, and device motion (attitude, gravity, user acceleration, rotation rate) fused on the phone from the two.
/// Samples come as the room's clock reaches them, stamped on the phone's own clock.
///
/// An update interval shorter than the hardware's is raised to it, as Core Motion does: the hardware's is the room's
/// sensor rate (100 Hz on the `ios` profile). A handler runs on the queue given: on `OperationQueue.main` as the
/// phone's app on the room's thread; on another queue synchronously, so that it still runs at its time on the room's
/// clock. Made anywhere but on a phone, it stands for a device without the sensors: nothing is available and
/// starting updates delivers nothing, as on such a device.
open class CMMotionManager: NSObject, @unchecked Sendable {
    private let device: SimulatedDevice?
    private var accelerometer = Stream()
    private var gyro = Stream()
    private var motion = Stream()
    private var filter = AttitudeFilter()
    private var reference: AttitudeFilter?

    public override init() {
        device = SimulatedDevice.current.flatMap { $0.isStopped ? nil : $0 }
        super.init()
    }

    deinit {
        device?.stopObservingMotion(self)
    }

    // MARK: - Availability

    public var isAccelerometerAvailable: Bool { device != nil }
    public var isGyroAvailable: Bool { device != nil }
    public var isDeviceMotionAvailable: Bool { device != nil }
    /// The simulated phones have no magnetometer.
    public var isMagnetometerAvailable: Bool { false }

    public var isAccelerometerActive: Bool { accelerometer.isActive }
    public var isGyroActive: Bool { gyro.isActive }
    public var isDeviceMotionActive: Bool { motion.isActive }
    public var isMagnetometerActive: Bool { false }

    /// The frames device motion can use here: those that need no magnetometer.
    open class func availableAttitudeReferenceFrames() -> CMAttitudeReferenceFrame {
        [.xArbitraryZVertical, .xArbitraryCorrectedZVertical]
    }

    /// The frame device motion's attitude is measured against (set when its updates start).
    public private(set) var attitudeReferenceFrame = CMAttitudeReferenceFrame.xArbitraryZVertical
    /// Declared for the API's sake: no calibration display in the room.
    public var showsDeviceMovementDisplay = false

    // MARK: - Intervals

    /// Seconds between accelerometer updates, as set; updates come no faster than the hardware samples.
    public var accelerometerUpdateInterval: TimeInterval = 0.01
    public var gyroUpdateInterval: TimeInterval = 0.01
    public var deviceMotionUpdateInterval: TimeInterval = 0.01
    /// Declared for the API's sake: no magnetometer.
    public var magnetometerUpdateInterval: TimeInterval = 0.01

    /// The latest samples, updated while the updates run (with or without a handler).
    public private(set) var accelerometerData: CMAccelerometerData?
    public private(set) var gyroData: CMGyroData?
    public private(set) var deviceMotion: CMDeviceMotion?

    // MARK: - Accelerometer

    open func startAccelerometerUpdates() {
        start(\.accelerometer, "CMMotionManager.startAccelerometerUpdates()", nil, nil)
    }

    open func startAccelerometerUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAccelerometerHandler) {
        start(\.accelerometer, "CMMotionManager.startAccelerometerUpdates(to:withHandler:)", queue) { item, error in
            handler(item as? CMAccelerometerData, error)
        }
    }

    open func stopAccelerometerUpdates() {
        stop(\.accelerometer)
    }

    // MARK: - Gyroscope

    open func startGyroUpdates() {
        start(\.gyro, "CMMotionManager.startGyroUpdates()", nil, nil)
    }

    open func startGyroUpdates(to queue: OperationQueue, withHandler handler: @escaping CMGyroHandler) {
        start(\.gyro, "CMMotionManager.startGyroUpdates(to:withHandler:)", queue) { item, error in
            handler(item as? CMGyroData, error)
        }
    }

    open func stopGyroUpdates() {
        stop(\.gyro)
    }

    // MARK: - Device motion

    open func startDeviceMotionUpdates() {
        startDeviceMotionUpdates(using: .xArbitraryZVertical)
    }

    open func startDeviceMotionUpdates(using referenceFrame: CMAttitudeReferenceFrame) {
        guard Self.availableAttitudeReferenceFrames().contains(referenceFrame) else { return }
        attitudeReferenceFrame = referenceFrame
        start(\.motion, "CMMotionManager.startDeviceMotionUpdates(using:)", nil, nil)
    }

    open func startDeviceMotionUpdates(to queue: OperationQueue, withHandler handler: @escaping CMDeviceMotionHandler) {
        startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue, withHandler: handler)
    }

    /// With a frame that needs a magnetometer, the handler is told `CMErrorNotAvailable` once, and no update comes.
    open func startDeviceMotionUpdates(using referenceFrame: CMAttitudeReferenceFrame, to queue: OperationQueue,
                                       withHandler handler: @escaping CMDeviceMotionHandler) {
        guard Self.availableAttitudeReferenceFrames().contains(referenceFrame) else {
            guard let device, SimulatedDevice.admits("CMMotionManager.startDeviceMotionUpdates") else { return }
            let error = NSError(domain: CMErrorDomain, code: CMErrorNotAvailable, userInfo: [
                NSLocalizedDescriptionKey: "the simulated phones have no magnetometer: use xArbitraryZVertical",
            ])
            device.schedule(after: 0) { [weak self] in
                guard let self else { return }
                self.deliver(on: queue) { handler(nil, error) }
            }
            return
        }
        attitudeReferenceFrame = referenceFrame
        start(\.motion, "CMMotionManager.startDeviceMotionUpdates(using:to:withHandler:)", queue) { item, error in
            handler(item as? CMDeviceMotion, error)
        }
    }

    open func stopDeviceMotionUpdates() {
        stop(\.motion)
    }

    // MARK: - Magnetometer (none)

    /// No magnetometer: starting delivers nothing, as on a device without one.
    open func startMagnetometerUpdates() {}
    open func startMagnetometerUpdates(to queue: OperationQueue, withHandler handler: @escaping (Any?, Error?) -> Void) {}
    open func stopMagnetometerUpdates() {}

    // MARK: - Delivery

    /// One kind of update: whether it runs, its handler and queue, and when the next one is due.
    private struct Stream {
        var isActive = false
        var queue: OperationQueue?
        var handler: ((CMLogItem, Error?) -> Void)?
        var nextDue: Double?

        /// Whether a sample at `time` is delivered, updates coming every `interval` on average (a sample counts as
        /// on time within `tolerance`); after a gap, the count starts again.
        mutating func isDue(at time: Double, interval: Double, tolerance: Double) -> Bool {
            guard let next = nextDue else {
                nextDue = time + interval
                return true
            }
            guard time >= next - tolerance else { return false }
            nextDue = time - next > interval ? time + interval : next + interval
            return true
        }
    }

    private func start(_ stream: ReferenceWritableKeyPath<CMMotionManager, Stream>, _ what: String,
                       _ queue: OperationQueue?, _ handler: ((CMLogItem, Error?) -> Void)?) {
        guard let device, SimulatedDevice.admits(what) else { return }
        self[keyPath: stream] = Stream(isActive: true, queue: queue, handler: handler)
        if stream == \.motion {
            filter = AttitudeFilter()
            deviceMotion = nil
        }
        device.observeMotion(self) { [weak self] samples, turns in self?.take(samples, turns) }
    }

    private func stop(_ stream: ReferenceWritableKeyPath<CMMotionManager, Stream>) {
        self[keyPath: stream] = Stream()
        if !accelerometer.isActive, !gyro.isActive, !motion.isActive { device?.stopObservingMotion(self) }
    }

    private func take(_ samples: ArraySlice<AccelerometerSample>, _ turns: ArraySlice<GyroSample>) {
        guard let rate = device?.sensorRate, rate > 0 else { return }
        let period = 1 / rate
        let g = AttitudeFilter.gravity
        for (sample, turn) in zip(samples, turns) {
            let t = sample.timestamp
            let force = (x: Double(sample.x), y: Double(sample.y), z: Double(sample.z))
            let rates = CMRotationRate(x: Double(turn.x), y: Double(turn.y), z: Double(turn.z))
            let measured = CMAcceleration(x: -force.x / g, y: -force.y / g, z: -force.z / g)
            if accelerometer.isActive,
               accelerometer.isDue(at: t, interval: max(accelerometerUpdateInterval, period), tolerance: period / 2) {
                let data = CMAccelerometerData(timestamp: t, acceleration: measured)
                accelerometerData = data
                tell(\.accelerometer, data)
            }
            if gyro.isActive, gyro.isDue(at: t, interval: max(gyroUpdateInterval, period), tolerance: period / 2) {
                let data = CMGyroData(timestamp: t, rotationRate: rates)
                gyroData = data
                tell(\.gyro, data)
            }
            guard motion.isActive else { continue }
            filter.update(a: force, w: (rates.x, rates.y, rates.z), time: t)
            guard motion.isDue(at: t, interval: max(deviceMotionUpdateInterval, period), tolerance: period / 2) else {
                continue
            }
            let up = filter.up
            let gravity = CMAcceleration(x: -up.x, y: -up.y, z: -up.z)
            let user = CMAcceleration(x: measured.x - gravity.x, y: measured.y - gravity.y, z: measured.z - gravity.z)
            let q = filter.q
            let data = CMDeviceMotion(timestamp: t, attitude: CMAttitude(quaternion: CMQuaternion(x: q.x, y: q.y,
                                                                                               z: q.z, w: q.w)),
                                      rotationRate: rates, gravity: gravity, userAcceleration: user)
            deviceMotion = data
            tell(\.motion, data)
        }
    }

    private func tell(_ stream: KeyPath<CMMotionManager, Stream>, _ item: CMLogItem) {
        guard let handler = self[keyPath: stream].handler, let queue = self[keyPath: stream].queue else { return }
        deliver(on: queue) { handler(item, nil) }
    }

    /// Runs `body` as the phone's app on `queue`: on the room's thread for the main queue, else synchronously there.
    private func deliver(on queue: OperationQueue, _ body: @escaping () -> Void) {
        guard let device else { return }
        guard queue !== OperationQueue.main else {
            device.perform(body)
            return
        }
        // The room's thread waits for it, so nothing else touches what it captures meanwhile.
        nonisolated(unsafe) let run = { device.perform(body) }
        let operation = BlockOperation { run() }
        queue.addOperations([operation], waitUntilFinished: true)
    }
}
