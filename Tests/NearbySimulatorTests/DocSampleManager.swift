// docs/app-testing.md, "On the room's own shapes", step 2: compiled here, and the doc's text checked against this
// file (DocSampleTests).
import NearbySimulator

public final class Manager: SimulatedDeviceDelegate, NearbySessionDelegate {
    public private(set) var sessions: [PeerID: NearbySession] = [:]
    public private(set) var distances: [PeerID: Float] = [:]
    let device: SimulatedDevice

    public init(device: SimulatedDevice) {
        self.device = device
        device.delegate = self
    }

    public func device(_ device: SimulatedDevice, connected peer: PeerID) {
        sessions[peer]?.invalidate()                 // a peer back after a restart: replace, never duplicate
        let session = device.makeSession()
        session.delegate = self
        sessions[peer] = session
        try? device.send(session.discoveryToken.data, to: peer)
    }

    public func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID) {
        guard let session = sessions[peer] else { return }   // a token from an unexpected peer: not fatal
        session.run(with: NearbyToken(data: data))
    }

    public func session(_ session: NearbySession, didUpdate update: NearbyUpdate) {
        if let peer = session.peer { distances[peer] = update.distance }
    }
}
