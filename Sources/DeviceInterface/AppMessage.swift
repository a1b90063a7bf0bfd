/// What one device's app sends another over the data channel of the session between them: application data of a
/// kind (the reference app's profiles and jolts, an app under test's own), from and to devices by their numbers.
public struct AppMessage: Sendable, Equatable {
    public let from: Int
    public let to: Int
    public let kind: UInt8
    public let payload: [UInt8]

    public init(from: Int, to: Int, kind: UInt8, payload: [UInt8]) {
        self.from = from
        self.to = to
        self.kind = kind
        self.payload = payload
    }
}
