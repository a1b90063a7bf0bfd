import Geometry

/// A table knock's scene, as its script sets it: a table top under the two phones lying on it, and a knuckle that
/// comes down on it halfway between them at the script's speed, reaching it at the script's time. The knock is felt
/// where the knuckle meets the table, by the phones resting on it.
struct KnockScene {
    /// The table's top: the file's table both phones lie on, or one made under them, 3 cm thick and 30 cm beyond
    /// them on every side.
    let top: OrientedBox
    /// The file's table's mass, kg, when it gives one.
    let mass: Double?
    /// The file's table the phones lie on, if any.
    private let table: ScenarioFile.Table?
    private let script: EncounterScript
    /// Where the knuckle comes down: halfway between the phones, on the table.
    private let landing: Vector3

    /// A knuckle's size, metres: a cube of 2 cm.
    static let knuckle = 0.02

    /// The scene of `script` (a table knock) with the phones' bodies where they are now, on the first of `tables`
    /// both lie on; `nil` for a phone out of the room.
    init?(_ script: EncounterScript, bodies: [Pose], phone: PhoneBody, tables: [ScenarioFile.Table]) {
        guard script.a < bodies.count, script.b < bodies.count else { return nil }
        let boxes = [script.a, script.b].map {
            phone.box(centre: bodies[$0].position, orientation: bodies[$0].orientation)
        }
        table = Self.table(under: boxes, among: tables)
        top = table?.top ?? Self.top(under: boxes)
        mass = table?.mass
        let (pa, pb) = (boxes[0].centre, boxes[1].centre)
        landing = Vector3((pa.x + pb.x) / 2, (pa.y + pb.y) / 2, top.centre.z + top.halfExtents.z)
        self.script = script
    }

    /// Whether a phone's body rests on the top, and so feels the knock: on a file's table, as its waypoints lay it
    /// there; on one made under two phones, where the bodies meet.
    func rests(_ body: OrientedBox) -> Bool {
        Self.rests(body, on: table, top: top)
    }

    static func rests(_ body: OrientedBox, on table: ScenarioFile.Table?, top: OrientedBox) -> Bool {
        table?.holds(body) ?? (BoxContact(body, top).separation <= PhoneBody.touching)
    }

    /// The first of `tables` every one of `boxes` lies on.
    static func table(under boxes: [OrientedBox], among tables: [ScenarioFile.Table]) -> ScenarioFile.Table? {
        tables.first { table in boxes.allSatisfy(table.holds) }
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
