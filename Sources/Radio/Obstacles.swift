import Foundation
import Geometry

/// What stands on the straight line between two phones: bodies and walls.
package struct PathObstruction: Sendable, Equatable {
    /// Bodies crossed, the holders' own included (counted up to ``Obstacles/countedBodies``).
    package var bodies: Int
    /// Walls crossed.
    package var walls: Int
    /// The walls' summed loss, dB.
    package var wallLoss: Double

    package init(bodies: Int = 0, walls: Int = 0, wallLoss: Double = 0) {
        self.bodies = bodies
        self.walls = walls
        self.wallLoss = wallLoss
    }

    /// Nothing in the way.
    package static let clear = PathObstruction()

    package var isClear: Bool { bodies == 0 && walls == 0 }
}

/// The person holding a phone, as a vertical cylinder standing behind it.
package struct Body: Sendable, Equatable {
    /// Centre on the floor, metres.
    package let centre: Vector3
    package let radius: Double
    package let height: Double

    /// How far in front of its holder's axis a phone is held, metres (a forearm's length from the chest's centre).
    package static let holdDistance = 0.30
    /// A torso's half-width, metres.
    package static let torsoRadius = 0.20
    /// A standing person's height, metres.
    package static let standingHeight = 1.80

    package init(centre: Vector3, radius: Double = Body.torsoRadius, height: Double = Body.standingHeight) {
        self.centre = centre
        self.radius = radius
        self.height = height
    }

    /// The holder of a phone at `pose`: the phone is held in front of them, its back (the boresight) facing away,
    /// so the body stands behind it; a phone lying flat in the hand points its top away from the holder.
    package static func holding(_ pose: Pose) -> Body {
        let b = pose.orientation.boresight
        var away = Vector3(b.x, b.y, 0)
        if away.length < 0.3 {
            let top = pose.orientation.top
            away = Vector3(top.x, top.y, 0)
        }
        let length = away.length
        let unit = length > 1e-9 ? away / length : Vector3(1, 0, 0)
        let p = pose.position
        return Body(centre: Vector3(p.x - unit.x * holdDistance, p.y - unit.y * holdDistance, 0))
    }
}

/// The bodies and walls of one instant, indexed by a grid of square cells so that a query walks only the cells the
/// line crosses: O(length) rather than O(people).
package struct Obstacles: Sendable {
    /// Bodies counted on one line at most: past it the link is dead anyway.
    package static let countedBodies = 4

    package let bodies: [Body]
    package let walls: [Wall]
    private let cell: Double
    private let origin: (x: Double, y: Double)
    private let columns: Int
    private let rows: Int
    /// Bodies by cell: the indices of cell k are `members[starts[k]..<starts[k + 1]]`.
    private let starts: [Int32]
    private let members: [Int32]

    /// No bodies, no walls.
    package static let none = Obstacles(bodies: [], walls: [])

    /// Indexes `bodies` and `walls`.
    package init(bodies: [Body], walls: [Wall], cell: Double = 2) {
        self.bodies = bodies
        self.walls = walls
        self.cell = cell
        // Closures, not key paths: a key path of two components is projected at run time, element by element
        // (3% of a whole 100-peer run).
        let pad = bodies.map { $0.radius }.max() ?? 0
        let xs = bodies.map { $0.centre.x }, ys = bodies.map { $0.centre.y }
        let origin = ((xs.min() ?? 0) - pad, (ys.min() ?? 0) - pad)
        let columns = max(1, Int((((xs.max() ?? 0) + pad) - origin.0) / cell) + 1)
        let rows = max(1, Int((((ys.max() ?? 0) + pad) - origin.1) / cell) + 1)
        self.origin = origin
        self.columns = columns
        self.rows = rows
        var counts = [Int32](repeating: 0, count: columns * rows + 1)
        func cells(of b: Body, _ visit: (Int) -> Void) {
            let x0 = Int((b.centre.x - b.radius - origin.0) / cell), x1 = Int((b.centre.x + b.radius - origin.0) / cell)
            let y0 = Int((b.centre.y - b.radius - origin.1) / cell), y1 = Int((b.centre.y + b.radius - origin.1) / cell)
            for y in max(y0, 0)...min(y1, rows - 1) { for x in max(x0, 0)...min(x1, columns - 1) { visit(y * columns + x) } }
        }
        for b in bodies { cells(of: b) { counts[$0 + 1] += 1 } }
        for k in 1..<counts.count { counts[k] += counts[k - 1] }
        var fill = counts
        var members = [Int32](repeating: 0, count: Int(counts.last ?? 0))
        for (i, b) in bodies.enumerated() {
            cells(of: b) { k in
                members[Int(fill[k])] = Int32(i)
                fill[k] += 1
            }
        }
        starts = counts
        self.members = members
    }

    /// The holders of phones at `poses`, and `walls`.
    package init(holdersOf poses: [Pose], walls: [Wall]) {
        self.init(bodies: poses.map(Body.holding), walls: walls)
    }

    /// What stands between phones at `a` and `b`.
    package func between(_ a: Vector3, _ b: Vector3) -> PathObstruction {
        var result = PathObstruction()
        for w in walls where Self.crosses(a, b, w.from, w.to) {
            result.walls += 1
            result.wallLoss += w.loss
        }
        guard !bodies.isEmpty else { return result }
        var found = SIMD4<Int32>(repeating: -1)
        var count = 0
        // Read through raw buffers: a query visits a dozen cells or more, and the bounds checks of three arrays at
        // every member were a third of its cost.
        starts.withUnsafeBufferPointer { starts in
            members.withUnsafeBufferPointer { members in
                bodies.withUnsafeBufferPointer { bodies in
                    walkCells(a, b) { k in
                        for m in Int(starts[k])..<Int(starts[k + 1]) {
                            let i = members[m]
                            guard !any(found .== SIMD4(repeating: i)), Self.blocks(bodies[Int(i)], a, b) else { continue }
                            found[count] = i
                            count += 1
                            if count == Self.countedBodies { return false }
                        }
                        return true
                    }
                }
            }
        }
        result.bodies = count
        return result
    }

    /// Whether the segment a-b passes through body `body` (in the horizontal plane, under the top of the head).
    @inline(__always)
    static func blocks(_ body: Body, _ a: Vector3, _ b: Vector3) -> Bool {
        let dx = b.x - a.x, dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        var f = 0.0
        if length2 > 0 {
            f = min(max(((body.centre.x - a.x) * dx + (body.centre.y - a.y) * dy) / length2, 0), 1)
        }
        let px = a.x + dx * f - body.centre.x, py = a.y + dy * f - body.centre.y
        guard px * px + py * py < body.radius * body.radius else { return false }
        let z = a.z + (b.z - a.z) * f
        return z >= body.centre.z && z <= body.centre.z + body.height
    }

    /// Whether segments p-q and r-s cross in the horizontal plane.
    static func crosses(_ p: Vector3, _ q: Vector3, _ r: Vector3, _ s: Vector3) -> Bool {
        func side(_ o: Vector3, _ a: Vector3, _ b: Vector3) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        let d1 = side(r, s, p), d2 = side(r, s, q), d3 = side(p, q, r), d4 = side(p, q, s)
        return (d1 > 0) != (d2 > 0) && (d3 > 0) != (d4 > 0) && d1 != 0 && d2 != 0
    }

    /// Visits the cells the segment a-b crosses, in order (a grid traversal), while `visit` returns true.
    @inline(__always)
    private func walkCells(_ a: Vector3, _ b: Vector3, _ visit: (Int) -> Bool) {
        let ax = (a.x - origin.x) / cell, ay = (a.y - origin.y) / cell
        let bx = (b.x - origin.x) / cell, by = (b.y - origin.y) / cell
        var x = Int(ax.rounded(.down)), y = Int(ay.rounded(.down))
        let endX = Int(bx.rounded(.down)), endY = Int(by.rounded(.down))
        let dx = bx - ax, dy = by - ay
        let stepX = dx > 0 ? 1 : -1, stepY = dy > 0 ? 1 : -1
        let deltaX = dx != 0 ? abs(1 / dx) : .infinity
        let deltaY = dy != 0 ? abs(1 / dy) : .infinity
        var nextX = dx != 0 ? (dx > 0 ? (Double(x + 1) - ax) : (ax - Double(x))) * deltaX : .infinity
        var nextY = dy != 0 ? (dy > 0 ? (Double(y + 1) - ay) : (ay - Double(y))) * deltaY : .infinity
        var guardSteps = abs(endX - x) + abs(endY - y) + 2
        while guardSteps > 0 {
            guardSteps -= 1
            if x >= 0, x < columns, y >= 0, y < rows, !visit(y * columns + x) { return }
            if x == endX && y == endY { return }
            if nextX < nextY {
                x += stepX
                nextX += deltaX
            } else {
                y += stepY
                nextY += deltaY
            }
        }
    }
}
