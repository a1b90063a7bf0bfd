import Foundation
import Geometry

/// A phone as the world holds it: a box the size of a real model in its case, and where its UWB antenna sits in
/// it. The world's poses are where the antennas are (what the radio ranges between); the bodies are what touches.
package struct PhoneBody: Sendable, Equatable {
    /// The model, for the docs and the trace's reader.
    package let model: String
    /// Width (along the device's x, its right edge), height (y, its top) and depth (z, out of the screen) of the
    /// phone in its case, metres.
    package let size: Vector3
    /// The UWB antenna's place in the device frame from the body's centre, metres.
    package let antenna: Vector3

    /// Two bodies whose surfaces are this close touch, metres: the geometry's numerical tolerance (a micrometre),
    /// not a distance anyone chose. The hands that bring phones together stop where the bodies meet, and the
    /// figures of the boxes found there are within it.
    package static let touching = 1e-6

    /// A slim case adds this much to each side, metres: an assumption (a TPU case of 1 to 2 mm wall).
    package static let caseWall = 0.0015
    /// A case's edges and corners are rounded by this much, metres: an assumption, one radius everywhere (a slim
    /// case's rim is rounded over about half its 10.8-mm depth; seen from the screen its corners are rounder still,
    /// about 1 cm on an iPhone). Two phones meeting edge to edge or corner first meet on these curves, so a push
    /// between edges runs through the line between them, not along a face's axis.
    package static let edgeRadius = 0.003

    /// iPhone 15: 71.6 x 147.6 x 7.80 mm (Apple, iPhone 15 technical specifications, 2023), in a slim case. Its
    /// UWB antenna is put in the middle of the phone's width, 15 mm below its top and 1 mm inside its back: an
    /// assumption, as Apple publishes no drawing of it. Where it sits decides what a touch reads: put beside the
    /// rear cameras (15 mm in from the right edge seen from the screen), two phones back to back hold their
    /// antennas 4.2 cm apart side by side, each 83 degrees off the other's boresight, and their estimate reads
    /// about 10 cm long (``RadioConfiguration/orientationBias``); in the middle, 0.6 cm apart, straight behind
    /// (docs/simulation.md).
    package static let iPhone15 = PhoneBody(model: "iPhone 15", bare: Vector3(0.0716, 0.1476, 0.0078),
                                            antennaBelowTop: 0.015, insideBack: 0.001)

    package init(model: String, size: Vector3, antenna: Vector3) {
        precondition(size.x > 0 && size.y > 0 && size.z > 0, "a phone has volume")
        self.model = model
        self.size = size
        self.antenna = antenna
    }

    /// A bare phone of `bare` size in a slim case, its antenna in the middle of its width, `below` its top and
    /// `inside` its back.
    init(model: String, bare: Vector3, antennaBelowTop below: Double, insideBack inside: Double) {
        let wall = Self.caseWall
        let size = bare + Vector3(2 * wall, 2 * wall, 2 * wall)
        self.init(model: model, size: size,
                  antenna: Vector3(0, size.y / 2 - wall - below, -(size.z / 2 - wall - inside)))
    }

    /// The body of a phone whose centre is at `centre`, turned `orientation`.
    package func box(centre: Vector3, orientation: Orientation) -> OrientedBox {
        OrientedBox(centre: centre, orientation: orientation, halfExtents: size / 2)
    }

    /// How two phones' bodies stand to each other: how far apart their rounded surfaces are (negative: how deep
    /// they overlap) and the normal of where they meet, from the first toward the second
    /// (``BoxContact/rounded(_:_:radius:exactWithin:)``).
    @inline(__always)
    package static func contact(_ a: OrientedBox, _ b: OrientedBox) -> (separation: Double, normal: Vector3) {
        BoxContact.rounded(a, b, radius: edgeRadius)
    }

    /// Where the antenna of a phone whose centre is at `centre`, turned `orientation`, is.
    package func antennaPosition(centre: Vector3, orientation: Orientation) -> Vector3 {
        centre + orientation.toWorld(antenna)
    }

    /// How far apart along `direction` (unit) two phones' centres are when their bodies just touch, the second
    /// offset from the first by `offset` besides (a difference of height across a horizontal approach), each turned
    /// as given: the gap along which hands bring them together closes to this. 0 where they pass without touching.
    ///
    /// The rounded cases lie inside the boxes, so they meet no farther out than the boxes do (found on the boxes'
    /// cheap separating figure); from there Newton's steps on the cases' gap, a convex function of the distance
    /// along a line, close in on the meeting from outside in a few steps.
    package func touchingDistance(_ a: Orientation, _ b: Orientation, along direction: Vector3,
                                  offset: Vector3 = .zero) -> Double {
        let first = { box(centre: $0, orientation: a) }, second = { box(centre: $0, orientation: b) }
        let boxes = Self.touchingDistance(first, second, along: direction, offset: offset)
        guard boxes > 0 else { return 0 }
        let at = first(.zero)
        var distance = boxes
        for _ in 0..<12 {
            let contact = Self.contact(at, second(direction * distance + offset))
            if contact.separation <= Self.touching / 10 { return distance }
            let rate = contact.normal.dot(direction)
            guard rate > 1e-3 else { break }
            distance -= contact.separation / rate
            guard distance > 0 else { break }
        }
        // Cases that only graze, or pass: halve the way down as for any bodies.
        return Self.touchingDistance(first, second, along: direction, offset: offset,
                                     gap: { Self.contact($0, $1).separation })
    }

    /// The same for any two bodies carried with the phones, each made from its phone's centre: the hands of a
    /// gesture (``Grip``).
    /// `gap` measures two bodies' separation (the separating figure of sharp boxes unless said).
    package static func touchingDistance(
        _ first: (Vector3) -> OrientedBox, _ second: (Vector3) -> OrientedBox, along direction: Vector3,
        offset: Vector3 = .zero, gap separation: (OrientedBox, OrientedBox) -> Double = { BoxContact($0, $1).separation }
    ) -> Double {
        let a = first(.zero)
        func gap(_ distance: Double) -> Double { separation(a, second(direction * distance + offset)) }
        // Apart beyond the two boxes' reaches from the phones' centres. Coming closer, the first distance where
        // they overlap is found in steps shorter than any box's side (bodies carried in front of the phones pass
        // through each other nearer in, so the gap does not only shrink), then halved down to where it is 0.
        let b = second(.zero)
        var far = 1e-6
        for box in [a, b] { far += box.radius(along: direction) + abs(box.centre.dot(direction)) }
        let step = min(a.halfExtents.min(), b.halfExtents.min())
        var high = far
        while high > 0, gap(max(high - step, 0)) > 0 { high -= step }
        guard high > 0 else { return 0 }
        var low = max(high - step, 0)
        for _ in 0..<40 {
            let middle = (low + high) / 2
            if gap(middle) > 0 { high = middle } else { low = middle }
        }
        return high
    }
}

/// A hand closed around a phone for a gesture a script makes (a fist bump, a handshake's clasp): a box in front of
/// the phone's back, toward whom it meets, over the phone's lower half. What meets in those gestures is the hands;
/// the phones stay apart by the hands' reach.
package struct Grip: Sendable, Equatable {
    /// Across the knuckles (the device's x), up the hand (its y), and how far the hand reaches in front of the
    /// phone's back (out of the back, its -z), metres.
    package let size: Vector3

    /// A fist around a phone: 9 cm across the knuckles (an adult's hand breadth is 8 to 9 cm: Greiner, Hand
    /// Anthropometry of U.S. Army Personnel, 1991), 10 cm tall, the knuckles 4 cm in front of the phone's back: an
    /// assumption. Two fists meet with the phones' centres 9.1 cm apart.
    package static let fist = Grip(size: Vector3(0.09, 0.10, 0.04))
    /// An open hand reaching to clasp another's: as wide and tall as the fist, the palm 6 cm in front of the
    /// phone's back (an assumption): two clasp with the phones' centres 13.1 cm apart.
    package static let openHand = Grip(size: Vector3(0.09, 0.10, 0.06))

    package init(size: Vector3) {
        precondition(size.x > 0 && size.y > 0 && size.z > 0, "a hand has volume")
        self.size = size
    }

    /// The hand around `phone`, whose centre is at `centre`, turned `orientation`.
    package func box(around phone: PhoneBody, centre: Vector3, orientation: Orientation) -> OrientedBox {
        let local = Vector3(0, -phone.size.y / 4, -(phone.size.z + size.z) / 2)
        return OrientedBox(centre: centre + orientation.toWorld(local), orientation: orientation, halfExtents: size / 2)
    }
}

/// A holder's forearm behind a phone held up in the hand: a box from just below the phone's bottom edge back toward
/// the holder, sloping down to the elbow. It meets other phones and other forearms where bodies crowd
/// (docs/simulation.md, "What has a body"); a phone lying flat, or in a pocket or a bag, has none.
package struct Forearm: Sendable, Equatable {
    /// Across, deep, and long (wrist to elbow), metres: 8 cm across (a forearm's girth, 25 to 30 cm, over π) and 27
    /// cm long, an adult's (ANSUR II: Gordon et al., 2012 Anthropometric Survey of U.S. Army Personnel, 2014).
    package let size: Vector3
    /// How far below the horizontal it slopes from the wrist to the elbow, radians: 30°, a phone held out at chest
    /// height with the elbow bent. An assumption.
    package let droop: Double
    /// The gap between the phone's bottom edge and the forearm's near end, metres: the heel of the hand.
    package let wrist: Double

    package static let adult = Forearm(size: Vector3(0.08, 0.08, 0.27), droop: .pi / 6, wrist: 0.03)

    package init(size: Vector3, droop: Double, wrist: Double) {
        precondition(size.x > 0 && size.y > 0 && size.z > 0, "a forearm has volume")
        self.size = size
        self.droop = droop
        self.wrist = wrist
    }

    /// How far behind a phone held upright its forearm's far end (the elbow) reaches on the floor plan, metres.
    package var reach: Double { (wrist + size.z) * cos(droop) + size.y / 2 * sin(droop) }

    /// The forearm behind `phone` at `pose`: toward the holder, whom the screen faces; `nil` when the screen faces
    /// within 30° of straight up or down (a phone held flat or lying: where its forearm lies is not the phone's to
    /// say).
    package func box(behind phone: PhoneBody, at pose: Pose) -> OrientedBox? {
        let screen = pose.orientation.screen
        let level = Vector3(screen.x, screen.y, 0)
        guard level.length >= 0.5 else { return nil }
        let up = Vector3(0, 0, 1)
        let back = level.normalized * cos(droop) - up * sin(droop)
        let across = up.cross(back).normalized
        let bottom = pose.position - pose.orientation.top * (phone.size.y / 2)
        return OrientedBox(centre: bottom + back * (wrist + size.z / 2),
                           orientation: Orientation(right: across, top: back.cross(across), screen: back),
                           halfExtents: size / 2)
    }
}
