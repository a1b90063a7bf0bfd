/// Settings of the bump detector.
public struct BumpConfiguration: Sendable, Equatable {
    /// A bump needs the estimated distance at or under this, metres (8 cm).
    public var distance: Float = 0.08
    /// ... in at least `confirmations` of the last `window` updates, so that one low reading does not fire.
    public var confirmations = 2
    public var window = 3
    /// After firing, the detector re-arms only once the estimate has risen above this, metres: one approach, one
    /// bump, however long the phones stay together.
    public var rearmDistance: Float = 0.30

    public init() {}

    /// Checks the fields; the error names the first one out of range.
    public func validate() throws(BumpConfigurationError) {
        guard distance.isFinite, distance > 0, distance <= 1 else {
            throw BumpConfigurationError(field: "distance", rule: "above 0 and at most 1 m")
        }
        guard window >= 1, window <= 16 else { throw BumpConfigurationError(field: "window", rule: "between 1 and 16") }
        guard confirmations >= 1, confirmations <= window else {
            throw BumpConfigurationError(field: "confirmations", rule: "between 1 and the window (\(window))")
        }
        guard rearmDistance.isFinite, rearmDistance > distance, rearmDistance <= 10 else {
            throw BumpConfigurationError(field: "rearmDistance", rule: "above the bump distance and at most 10 m")
        }
    }
}

/// A bump setting out of range.
public struct BumpConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let rule: String

    public var description: String { "bump \(field) must be \(rule)" }
}

/// Fires once per approach when the estimated distance is at or under the bump distance in k of the last n updates,
/// and re-arms only after the estimate has risen above the re-arm distance (hysteresis).
///
/// Sixteen bytes of state and no allocation: one lives in each pair's slot.
public struct BumpDetector: Sendable, Equatable {
    public let configuration: BumpConfiguration
    /// The last `window` verdicts, newest in bit 0.
    private var recent: UInt16 = 0
    private var count: UInt8 = 0
    /// Whether the detector may fire.
    public private(set) var isArmed = true
    /// Bumps fired so far.
    public private(set) var fired = 0

    public init(configuration: BumpConfiguration = BumpConfiguration()) {
        self.configuration = configuration
    }

    /// Feeds one estimate (`nil` when out of range) and says whether a bump fires now.
    @inline(__always)
    public mutating func update(distance: Float?) -> Bool {
        let c = configuration
        let under = distance.map { $0 <= c.distance } ?? false
        let mask: UInt16 = c.window >= 16 ? .max : (1 << UInt16(c.window)) - 1
        recent = (recent << 1 | (under ? 1 : 0)) & mask
        if !isArmed {
            if let distance, distance > c.rearmDistance {
                isArmed = true
                recent = 0
            }
            return false
        }
        guard recent.nonzeroBitCount >= c.confirmations else { return false }
        isArmed = false
        fired += 1
        return true
    }
}
