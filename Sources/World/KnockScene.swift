import Geometry

/// A table knock's scene, as its script sets it: a table top under the two phones lying on it, and a knuckle that
/// comes down on it halfway between them at the script's speed, reaching it at the script's time. The knock is felt
/// where the knuckle meets the table, by the phones resting on it.
struct KnockScene {
    /// The table's top: 3 cm thick, 30 cm beyond the two phones on every side.
    let top: OrientedBox
    private let script: EncounterScript
    /// Where the knuckle comes down: halfway between the phones, on the table.
    private let landing: Vector3

    /// A knuckle's size, metres: a cube of 2 cm.
    static let knuckle = 0.02

    /// The scene of `script` (a table knock) with the phones' bodies where they are now; `nil` for a phone out of
    /// the room.
    init?(_ script: EncounterScript, bodies: [Pose], phone: PhoneBody) {
        guard script.a < bodies.count, script.b < bodies.count else { return nil }
        let boxes = [script.a, script.b].map {
            phone.box(centre: bodies[$0].position, orientation: bodies[$0].orientation)
        }
        top = Self.top(under: boxes)
        let (pa, pb) = (boxes[0].centre, boxes[1].centre)
        landing = Vector3((pa.x + pb.x) / 2, (pa.y + pb.y) / 2, top.centre.z + top.halfExtents.z)
        self.script = script
    }

    /// A table top under two phones' bodies lying on it: level, 3 cm thick, 30 cm beyond them on every side, its
    /// surface at the lower of their bottoms.
    static func top(under boxes: [OrientedBox]) -> OrientedBox {
        let up = Vector3(0, 0, 1)
        let surface = boxes.map { $0.centre.z - $0.radius(along: up) }.min() ?? 0
        let (pa, pb) = (boxes[0].centre, boxes[boxes.count - 1].centre)
        let level = Orientation(right: Vector3(1, 0, 0), top: Vector3(0, 1, 0), screen: up)
        let half = Vector3(abs(pa.x - pb.x) / 2 + 0.3, abs(pa.y - pb.y) / 2 + 0.3, 0.015)
        return OrientedBox(centre: Vector3((pa.x + pb.x) / 2, (pa.y + pb.y) / 2, surface - half.z), orientation: level,
                           halfExtents: half)
    }

    /// The knuckle's separating figure from the table top at `t`: its height above it, down to 0 at the script's
    /// time, held there after.
    func knuckleGap(at t: Double) -> Double {
        let height = max(script.t - t, 0) * script.closingSpeed
        let size = Self.knuckle
        let knuckle = OrientedBox(centre: landing + Vector3(0, 0, height + size / 2), orientation: top.orientation,
                                  halfExtents: Vector3(size / 2, size / 2, size / 2))
        return BoxContact(knuckle, top).separation
    }
}
