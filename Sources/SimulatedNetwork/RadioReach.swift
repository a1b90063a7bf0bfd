/// How far the radio that carries discovery and the token exchange reaches (Bluetooth or peer-to-peer Wi-Fi): the
/// world's side of an ``InMemoryNetwork``. The world tells it where every host stands; the network then delivers a
/// datagram only to hosts within ``range`` of its sender at the time it is sent.
///
/// Hosts are numbered in the order they attached to the network (the cluster's node indices).
package final class RadioReach {
    /// Metres.
    package let range: Double
    private let rangeSquared: Double
    /// x, y and z of each host, metres.
    private var positions: [Double] = []

    package init(range: Double) {
        precondition(range > 0, "a reach is a positive distance")
        self.range = range
        rangeSquared = range * range
    }

    /// Where every host stands now, as x, y and z, host after host.
    package func place(_ coordinates: [Double]) {
        precondition(coordinates.count % 3 == 0, "three coordinates a host")
        positions = coordinates
    }

    /// Whether hosts `a` and `b` hear each other. A host the world has not placed is heard by everyone (a node
    /// that is not one of the world's devices, or a run before the first placement).
    @inline(__always)
    package func reaches(_ a: Int, _ b: Int) -> Bool {
        let i = 3 * a, j = 3 * b
        guard a != b, i + 2 < positions.count, j + 2 < positions.count else { return true }
        let dx = positions[i] - positions[j], dy = positions[i + 1] - positions[j + 1]
        let dz = positions[i + 2] - positions[j + 2]
        return dx * dx + dy * dy + dz * dz <= rangeSquared
    }
}
