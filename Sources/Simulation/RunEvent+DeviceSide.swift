/// The part of an event a device observed or did, as one line: what `devicesAreBlindToTheTruth` compares between a
/// run and the same run with the scorer's truth relabelled. The truth's own events (contacts, near misses, poses)
/// and every true figure (distances, directions, the air by true distance band) are left out.
extension RunEvent {
    var deviceSide: String? {
        switch kind {
        case .found(let d, let p): "\(time) found \(d) \(p)"
        case .lost(let d, let p, let reason): "\(time) lost \(d) \(p) \(reason)"
        case .session(let d, let p, let event, let reading):
            "\(time) session \(d) \(p) \(event)"
                + (reading.map { " raw \(String(describing: $0.rawDistance)) \(String(describing: $0.rawHorizontalAngle))" } ?? "")
        case .bump(let d, let p, let estimate, _): "\(time) bump \(d) \(p) \(estimate)"
        case .profile(let d, let p, let bytes): "\(time) profile \(d) \(p) \(bytes)"
        case .haptic(let d, let p, let intensity): "\(time) haptic \(d) \(p) \(intensity)"
        case .air(let exchanges, let collided, _): "\(time) air \(exchanges) \(collided)"
        case .contactStarted, .contactEnded, .nearMiss, .pose: nil
        }
    }
}
