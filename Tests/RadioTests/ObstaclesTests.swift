import Foundation
import GSL
import Geometry
import Radio
import Testing

/// Obstruction from geometry: the holders' bodies (their own included) and a scenario's walls.
@Suite struct ObstaclesTests {
    static func phone(_ x: Double, _ y: Double, facing degrees: Double) -> Pose {
        Pose(position: Vector3(x, y, 1.2), orientation: Orientation(heading: Angle.radians(fromDegrees: degrees)))
    }

    /// A holds her phone facing B 4 m east, B faces back; C stands between them facing north (her body on the line)
    /// or 1.5 m to the side (clear).
    @Test func aBodyBetweenTwoPhonesObstructsAndAClearLineDoesNot() {
        let a = Self.phone(0, 0, facing: 0)
        let b = Self.phone(4, 0, facing: 180)
        let between = Obstacles(holdersOf: [a, b, Self.phone(2, 0.3, facing: 90)], walls: [])
        #expect(between.between(a.position, b.position) == PathObstruction(bodies: 1))
        let aside = Obstacles(holdersOf: [a, b, Self.phone(2, 1.5, facing: 90)], walls: [])
        #expect(aside.between(a.position, b.position).isClear)
    }

    /// Turned away from B, A's own body stands between her phone and B's; turned sideways it does not.
    @Test func theHoldersOwnBodyCountsByHowThePhoneIsFaced() {
        let b = Self.phone(4, 0, facing: 180)
        let away = Self.phone(0, 0, facing: 180)
        #expect(Obstacles(holdersOf: [away, b], walls: []).between(away.position, b.position).bodies == 1)
        let sideways = Self.phone(0, 0, facing: 90)
        #expect(Obstacles(holdersOf: [sideways, b], walls: []).between(sideways.position, b.position).isClear)
        let back = Self.phone(4, 0, facing: 0)
        #expect(Obstacles(holdersOf: [away, back], walls: []).between(away.position, back.position).bodies == 2)
    }

    /// Two phones touching face to face stand between their holders: nothing is in the way, at any heading.
    @Test func noObstructionBetweenTwoTouchingPhonesHeldFaceToFace() {
        for degrees in stride(from: 0.0, to: 360, by: 15) {
            let h = Angle.radians(fromDegrees: degrees)
            let a = Pose(position: Vector3(1, 1, 1.2), orientation: Orientation(heading: h))
            let bPosition = Vector3(1 + 0.06 * cos(h), 1 + 0.06 * sin(h), 1.2)
            let b = Pose(position: bPosition, orientation: .facing(a.position, from: bPosition))
            #expect(Obstacles(holdersOf: [a, b], walls: []).between(a.position, b.position).isClear)
        }
    }

    /// A wall crossed adds its loss; one beside the line does not. (The line on to 6 m also crosses B's holder.)
    @Test func wallsOnTheLineCountWithTheirLoss() {
        let a = Self.phone(0, 0, facing: 0)
        let b = Self.phone(4, 0, facing: 180)
        let walls = [Wall(from: Vector3(2, -5, 0), to: Vector3(2, 5, 0), loss: 6),
                     Wall(from: Vector3(5, -5, 0), to: Vector3(5, 5, 0), loss: 9)]
        let o = Obstacles(holdersOf: [a, b], walls: walls)
        #expect(o.between(a.position, b.position) == PathObstruction(bodies: 0, walls: 1, wallLoss: 6))
        #expect(o.between(a.position, Vector3(6, 0, 1.2)) == PathObstruction(bodies: 1, walls: 2, wallLoss: 15))
        #expect(o.between(a.position, Vector3(1.5, 3, 1.2)).isClear)
    }

    /// The grid's walk finds exactly the bodies a scan of them all finds: 300 people in a 20 m hall, 2,000 lines.
    @Test func theGridFindsWhatAFullScanFinds() throws {
        let random = try RandomSource(seed: 21)
        let poses = (0..<300).map { _ in
            Self.phone(random.uniform() * 20, random.uniform() * 20, facing: random.uniform() * 360)
        }
        let o = Obstacles(holdersOf: poses, walls: [])
        var blocked = 0
        for _ in 0..<2000 {
            let i = Int(random.uniform() * 300), j = (i + 1 + Int(random.uniform() * 299)) % 300
            let p = poses[i].position, q = poses[j].position
            let scan = o.bodies.filter { body in
                // The line's closest point to the body's axis, in the floor's plane.
                let dx = q.x - p.x, dy = q.y - p.y
                let f = min(max(((body.centre.x - p.x) * dx + (body.centre.y - p.y) * dy) / (dx * dx + dy * dy), 0), 1)
                let x = p.x + f * dx - body.centre.x, y = p.y + f * dy - body.centre.y
                return (x * x + y * y).squareRoot() < body.radius
            }.count
            let found = o.between(p, q).bodies
            #expect(found == min(scan, Obstacles.countedBodies), "\(i)-\(j): \(found) vs \(scan)")
            if found > 0 { blocked += 1 }
        }
        #expect(blocked > 500)
    }
}
