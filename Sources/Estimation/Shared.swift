/// Settings held once and shared by reference by the many estimators made from them: in a room of 1,000 peers
/// there is an estimator on each side of 499,500 pairs, and a copy of the settings in each was a sixth of the room's
/// memory. Equal by value, so that estimators compare as before.
package final class Shared<Value: Sendable & Equatable>: Sendable, Equatable {
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package static func == (a: Shared, b: Shared) -> Bool { a === b || a.value == b.value }
}
