import Foundation
import Geometry
import Testing

/// Boxes meeting: the separating axis figure, the contact's normal and point, and the true distance, against
/// configurations whose answer is known and against an independent search for the nearest points.
@Suite struct OrientedBoxTests {
    /// A phone-sized box (iPhone 15 with a slim case).
    private static let phone = Vector3(0.0376, 0.0753, 0.0054)

    private static func box(_ centre: Vector3, _ o: Orientation = Orientation(heading: 0),
                            _ half: Vector3 = phone) -> OrientedBox {
        OrientedBox(centre: centre, orientation: o, halfExtents: half)
    }

    @Test(arguments: [0.02, 0.001, 0.0, -0.001, -0.004])
    func twoPhonesBackToBackAreApartByTheirGap(_ gap: Double) {
        // Upright, backs facing: phone a looks east, phone b west, their backs `gap` apart along x.
        let a = Self.box(.zero, Orientation(heading: 0))
        let b = Self.box(Vector3(2 * Self.phone.z + gap, 0, 0), Orientation(heading: .pi))
        let contact = BoxContact(a, b)
        #expect(abs(contact.separation - gap) < 1e-12)
        #expect((contact.normal - Vector3(1, 0, 0)).length < 1e-9)
        #expect(abs(BoxContact.distance(a, b) - max(gap, 0)) < 1e-12)
        if gap <= 0 {
            // Back to back over the whole face: the middle of the contact is between the two centres.
            #expect((BoxContact.middle(a, b) - Vector3(Self.phone.z + gap / 2, 0, 0)).length < 1e-9)
        }
    }

    @Test func theFigureIsTheSameSeenFromEitherBox() {
        let a = Self.box(.zero, Orientation(heading: 0.3, pitch: 0.2, roll: 0.1))
        let b = Self.box(Vector3(0.05, 0.07, -0.02), Orientation(heading: 2.0, pitch: -0.6, roll: 1.1))
        let ab = BoxContact(a, b), ba = BoxContact(b, a)
        #expect(abs(ab.separation - ba.separation) < 1e-12)
        #expect((ab.normal + ba.normal).length < 1e-9)
        #expect(abs(BoxContact.distance(a, b) - BoxContact.distance(b, a)) < 1e-12)
    }

    /// Two edges crossing: no face faces the other box, so the separating figure is only a lower bound; the
    /// distance is the edges' own.
    @Test func crossingEdgesAreAsFarApartAsTheEdges() {
        let cube = Vector3(0.05, 0.05, 0.05)
        // Each cube turned 45 degrees so that an edge leads: a's about z, b's about x, the edges crossing.
        let a = OrientedBox(centre: .zero, orientation: Orientation(right: Vector3(1, 1, 0) / 2.0.squareRoot(),
                                                                  top: Vector3(-1, 1, 0) / 2.0.squareRoot(),
                                                                  screen: Vector3(0, 0, 1)), halfExtents: cube)
        let gap = 0.01
        let reach = 0.05 * 2.0.squareRoot()
        let b = OrientedBox(centre: Vector3(2 * reach + gap, 0, 0),
                            orientation: Orientation(right: Vector3(1, 0, 0), top: Vector3(0, 1, 1) / 2.0.squareRoot(),
                                                     screen: Vector3(0, -1, 1) / 2.0.squareRoot()),
                            halfExtents: cube)
        let exact = BoxContact.distance(a, b)
        let projected = Self.projectedDistance(a, b)
        #expect(abs(projected - exact) < 1e-6, "exact \(exact), projected \(projected)")
        #expect(exact > 0.005)
        #expect(BoxContact(a, b).separation <= exact + 1e-12)
    }

    /// Over turns of every kind and gaps from touching to 10 cm: the distance is never more than any pair of surface
    /// points' and within the sampling's reach of the best of them; the separating figure never exceeds it and
    /// says apart exactly when it is.
    @Test(arguments: 0..<12)
    func theDistanceIsTheSurfacesNearestPoints(_ k: Int) {
        let t = Double(k)
        let a = Self.box(Vector3(0, 0, 0), Orientation(heading: 0.7 * t, pitch: 0.4 * sin(t), roll: 1.3 * t))
        let direction = Vector3(cos(1.1 * t), sin(1.1 * t), 0.3 * cos(0.5 * t)).normalized
        let b = Self.box(direction * (0.06 + 0.015 * t),
                         Orientation(heading: 2.1 * t + 0.4, pitch: 0.9 * cos(t), roll: 0.6 * t), Self.phone)
        let exact = BoxContact.distance(a, b)
        let separation = BoxContact(a, b).separation
        let projected = Self.projectedDistance(a, b)
        #expect(abs(projected - exact) < 1e-6, "exact \(exact), projected \(projected)")
        #expect(separation <= exact + 1e-12)
        #expect((separation > 0) == (exact > 0))
    }

    @Test func theClosestPointOfABoxIsOnItsSurfaceOrTheGivenPoint() {
        let b = Self.box(.zero, Orientation(heading: 0.5, pitch: 0.3, roll: 0.2))
        let outside = Vector3(0.2, 0.1, -0.3)
        let nearest = b.closestPoint(to: outside)
        #expect(b.contains(nearest, margin: 1e-12) && !b.contains(outside))
        let corners = b.corners
        for k in 0..<8 { #expect((corners[k] - outside).length >= (nearest - outside).length - 1e-12) }
        #expect((b.closestPoint(to: Vector3(0.001, 0.002, 0)) - Vector3(0.001, 0.002, 0)).length < 1e-15)
    }

    @Test func segmentsMeetWhereTheyCross() {
        let (p, q) = Segments.closestPoints((Vector3(-1, 0, 0), Vector3(1, 0, 0)),
                                            (Vector3(0.5, -1, 0.2), Vector3(0.5, 1, 0.2)))
        #expect((p - Vector3(0.5, 0, 0)).length < 1e-12 && (q - Vector3(0.5, 0, 0.2)).length < 1e-12)
        // Parallel and overlapping: any pair at the common distance; beyond an end: the ends.
        let (r, s) = Segments.closestPoints((Vector3(0, 0, 0), Vector3(1, 0, 0)),
                                            (Vector3(2, 1, 0), Vector3(3, 1, 0)))
        #expect(r == Vector3(1, 0, 0) && s == Vector3(2, 1, 0))
        let (u, v) = Segments.closestPoints((Vector3(0, 0, 0), Vector3(1, 0, 0)),
                                            (Vector3(0.2, 1, 0), Vector3(0.8, 1, 0)))
        #expect(abs((u - v).length - 1) < 1e-12)
    }

    /// The distance by alternating projections: the point of one box nearest the other's last point, and back.
    /// For two convex sets these converge on a pair of nearest points (Cheney and Goldstein, 1959), by a road
    /// wholly unlike the corners and edges the code under test looks at.
    private static func projectedDistance(_ a: OrientedBox, _ b: OrientedBox) -> Double {
        var p = a.centre, q = b.centre
        for _ in 0..<20_000 {
            q = b.closestPoint(to: p)
            p = a.closestPoint(to: q)
        }
        return (p - q).length
    }
    /// Rounded cases meeting face to face are as far apart as the sharp boxes; edge to edge (two phones tipped 45°
    /// about their long axes, their edges parallel: no face of either faces the other, and the separating figure's
    /// axes tie) the normal is the line between the edges, and the rounding keeps them apart by what it shaves off
    /// the two corners' diagonals, 2 r (sqrt 2 - 1).
    @Test func roundedCasesMeetAlongTheLineBetweenTheirNearestFeatures() {
        let r = 0.003
        let a = Self.box(.zero, Orientation(heading: 0))
        let b = Self.box(Vector3(2 * Self.phone.z + 0.004, 0, 0), Orientation(heading: .pi))
        let faces = BoxContact.rounded(a, b, radius: r)
        #expect(abs(faces.separation - 0.004) < 1e-12 && (faces.normal - Vector3(1, 0, 0)).length < 1e-9)
        // Turned 45° either way about their upright long axes, side by side along x: a long edge of each faces the
        // other's, level with it.
        let reach = (Self.phone.x + Self.phone.z) / 2.0.squareRoot()
        let c = Self.box(.zero, Orientation(heading: .pi / 4))
        let d = Self.box(Vector3(2 * reach + 0.001, 0, 0), Orientation(heading: -.pi / 4))
        #expect(abs(BoxContact.distance(c, d) - 0.001) < 1e-9)
        let edges = BoxContact.rounded(c, d, radius: r)
        #expect((edges.normal - Vector3(1, 0, 0)).length < 1e-9, "\(edges.normal)")
        #expect(abs(edges.separation - (0.001 + 2 * r * (2.0.squareRoot() - 1))) < 1e-9, "\(edges.separation)")
        // Far apart, the figure is a lower bound of the exact gap, as the sharp boxes' is.
        let far = Self.box(Vector3(0.3, 0.1, 0), Orientation(heading: 1, pitch: 0.4, roll: 0.2))
        let rough = BoxContact.rounded(a, far, radius: r), exact = BoxContact.rounded(a, far, radius: r, exactWithin: .infinity)
        #expect(rough.separation <= exact.separation + 1e-12 && exact.separation > 0.1)
    }
}
