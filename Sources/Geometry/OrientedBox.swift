import Foundation

/// A rectangular box turned in the world: a phone's body, a hand, a table's top. Its half extents lie along its
/// orientation's axes (``Orientation/right``, ``Orientation/top``, ``Orientation/screen``).
public struct OrientedBox: Sendable, Equatable {
    public var centre: Vector3
    public var orientation: Orientation
    /// Half the box's width, height and depth, metres.
    public var halfExtents: Vector3

    public init(centre: Vector3, orientation: Orientation, halfExtents: Vector3) {
        precondition(halfExtents.x > 0 && halfExtents.y > 0 && halfExtents.z > 0, "a box has volume")
        self.centre = centre
        self.orientation = orientation
        self.halfExtents = halfExtents
    }

    /// The box's axis `i` (0: its width's, 1: its height's, 2: its depth's), world frame.
    @inline(__always)
    public func axis(_ i: Int) -> Vector3 {
        i == 0 ? orientation.right : i == 1 ? orientation.top : orientation.screen
    }

    /// The eight corners, world frame: corner k has bit 2 for x, bit 1 for y, bit 0 for z (set: the positive side).
    /// Held inline: the truth asks for them at every step of every close pair.
    public var corners: InlineArray<8, Vector3> {
        let x = orientation.right * halfExtents.x, y = orientation.top * halfExtents.y
        let z = orientation.screen * halfExtents.z
        return InlineArray { k in
            centre + (k & 4 != 0 ? x : -x) + (k & 2 != 0 ? y : -y) + (k & 1 != 0 ? z : -z)
        }
    }

    /// The twelve edges, as pairs of ``corners``' indices one bit apart.
    public static let edges: [(Int, Int)] = (0..<8).flatMap { k in
        [1, 2, 4].compactMap { bit in k & bit == 0 ? (k, k | bit) : nil }
    }

    /// Half the box's extent along a world direction `axis` (unit): the radius of its shadow on that axis.
    public func radius(along axis: Vector3) -> Double {
        abs(orientation.right.dot(axis)) * halfExtents.x + abs(orientation.top.dot(axis)) * halfExtents.y
            + abs(orientation.screen.dot(axis)) * halfExtents.z
    }

    /// The point of the box (surface or inside) nearest `point`.
    public func closestPoint(to point: Vector3) -> Vector3 {
        let local = orientation.toDevice(point - centre)
        let clamped = Vector3(min(max(local.x, -halfExtents.x), halfExtents.x),
                              min(max(local.y, -halfExtents.y), halfExtents.y),
                              min(max(local.z, -halfExtents.z), halfExtents.z))
        return centre + orientation.toWorld(clamped)
    }

    /// Whether `point` is in the box or within `margin` of it.
    public func contains(_ point: Vector3, margin: Double = 0) -> Bool {
        let local = orientation.toDevice(point - centre)
        return abs(local.x) <= halfExtents.x + margin && abs(local.y) <= halfExtents.y + margin
            && abs(local.z) <= halfExtents.z + margin
    }
}

/// How two boxes stand to each other: how far apart along the axis that parts them best (negative: how deep they
/// overlap along the axis that parts them least), and that axis from the first toward the second. Where they touch,
/// ``middle(_:_:margin:)`` finds the middle of their common region.
public struct BoxContact: Sendable, Equatable {
    /// The separating axis theorem's figure (Gottschalk, Lin and Manocha, OBBTree, SIGGRAPH 1996): the largest gap
    /// between the two boxes' shadows over the fifteen candidate axes. Positive: apart, and never more than their
    /// true distance (equal to it where a face of one faces the other); zero: touching; negative: the depth of
    /// their overlap.
    public let separation: Double
    /// The axis, unit, from the first box toward the second: where they touch, the contact's normal.
    public let normal: Vector3

    /// The two boxes' figure.
    public init(_ a: OrientedBox, _ b: OrientedBox) {
        let between = b.centre - a.centre
        var best = (separation: -Double.infinity, normal: Vector3(1, 0, 0))
        var least = (overlap: Double.infinity, normal: Vector3(1, 0, 0))
        func consider(_ raw: Vector3) {
            let lengthSquared = raw.lengthSquared
            // Two nearly parallel edges: their cross product is no axis, and a face's axis already covers them.
            guard lengthSquared > 1e-12 else { return }
            var axis = raw / lengthSquared.squareRoot()
            if axis.dot(between) < 0 { axis = -axis }
            let gap = axis.dot(between) - a.radius(along: axis) - b.radius(along: axis)
            if gap > best.separation { best = (gap, axis) }
            if -gap < least.overlap { least = (-gap, axis) }
        }
        for i in 0..<3 { consider(a.axis(i)) }
        for i in 0..<3 { consider(b.axis(i)) }
        for i in 0..<3 {
            let u = a.axis(i)
            for j in 0..<3 { consider(u.cross(b.axis(j))) }
        }
        separation = best.separation
        normal = best.separation > 0 ? best.normal : least.normal
    }

    /// Where two touching or overlapping boxes meet: the middle of the corners of each inside the other (within
    /// `margin`), or the nearest points of their nearest edges where no corner is inside (two edges crossing).
    public static func middle(_ a: OrientedBox, _ b: OrientedBox, margin: Double = 1e-4) -> Vector3 {
        let ca = a.corners, cb = b.corners
        var sum = Vector3.zero, count = 0
        for k in 0..<8 {
            if b.contains(ca[k], margin: margin) { sum += ca[k]; count += 1 }
            if a.contains(cb[k], margin: margin) { sum += cb[k]; count += 1 }
        }
        if count > 0 { return sum / Double(count) }
        var nearest = (distance: Double.infinity, point: (a.centre + b.centre) / 2)
        for (i, j) in OrientedBox.edges {
            for (k, l) in OrientedBox.edges {
                let (p, q) = Segments.closestPoints((ca[i], ca[j]), (cb[k], cb[l]))
                let d = (p - q).length
                if d < nearest.distance { nearest = (d, (p + q) / 2) }
            }
        }
        return nearest.point
    }

    /// The true distance between two boxes' surfaces, metres; 0 where they touch or overlap. The nearest points of
    /// two apart boxes are a corner and a face, or two edges: each corner against the other box, and each edge
    /// against each of the other's, finds them.
    public static func distance(_ a: OrientedBox, _ b: OrientedBox) -> Double {
        guard BoxContact(a, b).separation > 0 else { return 0 }
        return nearestPoints(a, b).distance
    }

    /// The nearest points of two boxes that do not overlap, one on each (a corner and a face, or two edges), and
    /// their distance. Two faces or edges that lie parallel have many such pairs; any one of them is given, and the
    /// line through it is square to both features.
    public static func nearestPoints(_ a: OrientedBox, _ b: OrientedBox) -> (Vector3, Vector3, distance: Double) {
        // The corners in one buffer on the stack, read in place: read from the two inline arrays in the loops
        // below, each reading copied the array (740 copies a call, a third of the call's work).
        withUnsafeTemporaryAllocation(of: Vector3.self, capacity: 16) { corners in
            let (ia, ib) = (a.corners, b.corners)
            for k in 0..<8 {
                corners.initializeElement(at: k, to: ia[k])
                corners.initializeElement(at: 8 + k, to: ib[k])
            }
            return nearestPoints(a, b, corners: UnsafeBufferPointer(corners))
        }
    }

    private static func nearestPoints(_ a: OrientedBox, _ b: OrientedBox,
                                      corners c: UnsafeBufferPointer<Vector3>) -> (Vector3, Vector3, distance: Double) {
        var least = (distance: Double.infinity, p: a.centre, q: b.centre)
        @inline(__always) func offer(_ p: Vector3, _ q: Vector3) {
            let d = (p - q).lengthSquared
            if d < least.distance { least = (d, p, q) }
        }
        for k in 0..<8 {
            offer(c[k], b.closestPoint(to: c[k]))
            offer(a.closestPoint(to: c[8 + k]), c[8 + k])
        }
        // Two edges whose bounding spheres are farther apart than the nearest pair yet cannot hold a nearer one:
        // most of the 144 pairs are passed over by that test alone.
        @inline(__always) func reach(_ box: OrientedBox, _ i: Int, _ j: Int) -> Double {
            let bit = i ^ j
            return bit == 4 ? box.halfExtents.x : bit == 2 ? box.halfExtents.y : box.halfExtents.z
        }
        let edges = OrientedBox.edges
        for (i, j) in edges {
            let middleA = (c[i] + c[j]) / 2, reachA = reach(a, i, j)
            for (k, l) in edges {
                let bound = (middleA - (c[8 + k] + c[8 + l]) / 2).length - reachA - reach(b, k, l)
                if bound > 0, bound * bound >= least.distance { continue }
                let (p, q) = Segments.closestPoints((c[i], c[j]), (c[8 + k], c[8 + l]))
                offer(p, q)
            }
        }
        return (least.p, least.q, least.distance.squareRoot())
    }

    /// Two boxes whose edges and corners are rounded by `radius` (each the points within `radius` of a box
    /// `radius` smaller on every side: a cased phone's edges): how far apart their surfaces are (negative: how deep
    /// they overlap), and the contact's normal from the first toward the second, taken from the nearest points of
    /// the features that meet (face on face, edge on edge, corner on face), never from a tie between axes. Exact
    /// within `exactWithin` of touching; farther, the separating figure of the inner boxes less twice the radius,
    /// a lower bound as ``separation`` is.
    ///
    /// - Complexity: the figure's fifteen axes; within `exactWithin`, the inner boxes' nearest features too.
    public static func rounded(_ a: OrientedBox, _ b: OrientedBox, radius: Double,
                               exactWithin: Double = 0.01) -> (separation: Double, normal: Vector3) {
        let shrink = Vector3(radius, radius, radius)
        let ia = OrientedBox(centre: a.centre, orientation: a.orientation, halfExtents: a.halfExtents - shrink)
        let ib = OrientedBox(centre: b.centre, orientation: b.orientation, halfExtents: b.halfExtents - shrink)
        let inner = BoxContact(ia, ib)
        guard inner.separation > 0, inner.separation - 2 * radius <= exactWithin else {
            return (inner.separation - 2 * radius, inner.normal)
        }
        let (p, q, d) = nearestPoints(ia, ib)
        return (d - 2 * radius, d > 1e-12 ? (q - p) / d : inner.normal)
    }
}

/// Closest points of two line segments.
public enum Segments {
    /// The point of each segment nearest the other (Ericson, Real-Time Collision Detection, 2005, §5.1.9).
    public static func closestPoints(_ first: (Vector3, Vector3), _ second: (Vector3, Vector3)) -> (Vector3, Vector3) {
        let (p1, q1) = first, (p2, q2) = second
        let d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2
        let a = d1.dot(d1), e = d2.dot(d2), f = d2.dot(r)
        var s = 0.0, t = 0.0
        if a <= 1e-15 && e <= 1e-15 { return (p1, p2) }
        if a <= 1e-15 {
            t = min(max(f / e, 0), 1)
        } else {
            let c = d1.dot(r)
            if e <= 1e-15 {
                s = min(max(-c / a, 0), 1)
            } else {
                let b = d1.dot(d2)
                let denominator = a * e - b * b
                s = denominator > 1e-15 ? min(max((b * f - c * e) / denominator, 0), 1) : 0
                t = (b * s + f) / e
                if t < 0 {
                    t = 0
                    s = min(max(-c / a, 0), 1)
                } else if t > 1 {
                    t = 1
                    s = min(max((b - c) / a, 0), 1)
                }
            }
        }
        return (p1 + d1 * s, p2 + d2 * t)
    }
}
