import Foundation
import Geometry
import NIOCore
import NIOHTTP1
import NIOPosix
import UCI
import UCIRoom

/// pica's HTTP API beside the UCI endpoint, in pica's shapes: `GET /get-state` lists the chips
/// (`{"devices":[{"category":"uci","mac_address":"00:01","x":0,...}]}`, positions in cm and angles in degrees),
/// `POST /set-position/{mac}` moves one (a JSON body `{"x":..,"y":..,"z":..,"yaw":..,"pitch":..,"roll":..}`;
/// 200, 404 for no such chip, 406 for a bad address or body), and `GET /events` streams server-sent events:
/// device-added, device-removed, device-updated and neighbor-updated (the true distance and bearing to each other chip).
extension UCIEndpoint {
    /// Listens for the web API on `host`:`port` (0 picks a free port); returns the port bound.
    package func serveWeb(host: String = "127.0.0.1", port: Int) throws -> Int {
        onChipsChanged = { [unowned self] event, device in
            if event == "device-removed" {
                guard let a = room.address(of: device) else { return }
                broadcast(event, "{\"category\":\"uci\",\"mac_address\":\"\(a)\"}")
            } else if let json = deviceJSON(device) {
                broadcast(event, json)
            }
        }
        let bootstrap = ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(WebHandler(endpoint: self))
                }
            }
        let server = try bootstrap.bind(host: host, port: port).wait()
        return server.localAddress?.port ?? port
    }

    /// A chip as pica's JSON shows it, position flattened into it.
    func deviceJSON(_ device: Int) -> String? {
        guard let pose = room.pose(of: device), let address = room.address(of: device) else { return nil }
        let p = pose.position, o = pose.orientation
        let b = o.boresight
        let yaw = atan2(b.y, b.x), pitch = asin(min(max(b.z, -1), 1))
        let top0 = Vector3(-sin(pitch) * cos(yaw), -sin(pitch) * sin(yaw), cos(pitch))
        let right0 = top0.cross(o.screen)
        let roll = atan2(o.top.dot(right0), o.top.dot(top0))
        func cm(_ v: Double) -> Int { Int((v * 100).rounded()) }
        func deg(_ v: Double) -> Int { Int((v * 180 / Double.pi).rounded()) }
        return "{\"category\":\"uci\",\"mac_address\":\"\(address)\",\"x\":\(cm(p.x)),\"y\":\(cm(p.y)),\"z\":\(cm(p.z)),"
            + "\"yaw\":\(deg(yaw)),\"pitch\":\(deg(pitch)),\"roll\":\(deg(roll))}"
    }

    func broadcast(_ event: String, _ json: String) {
        let text = "event: \(event)\ndata: \(json)\n\n"
        for client in webClients.values {
            var buffer = client.allocator.buffer(capacity: text.utf8.count)
            buffer.writeString(text)
            client.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
        }
    }

    /// The answer to one request: a status and a body, or `nil` for the event stream.
    func answer(_ method: HTTPMethod, _ path: String, _ body: [UInt8]) -> (HTTPResponseStatus, String)? {
        let parts = path.split(separator: "/").map(String.init)
        switch (method, parts.first, parts.count) {
        case (.GET, "get-state", 1):
            let devices = room.devices.compactMap(deviceJSON)
            return (.ok, "{\"devices\":[" + devices.joined(separator: ",") + "]}")
        case (.GET, "events", 1):
            return nil
        case (.POST, "set-position", 2):
            guard let address = UCIAddress(text: parts[1]) else {
                return (.notAcceptable, "Error mac_address: \(parts[1]) is not XX:XX or XX:XX:XX:XX:XX:XX:XX:XX")
            }
            guard let device = room.device(named: address) else { return (.notFound, "device \(address) not found") }
            let pose: Pose
            switch Self.parsePosition(body) {
            case .success(let p): pose = p
            case .failure(let reason): return (.notAcceptable, "Error while deserializing position: \(reason)")
            }
            _ = room.setPose(pose, of: device)
            if let json = deviceJSON(device) { broadcast("device-updated", json) }
            for other in room.devices where other != device {
                guard let a = room.pose(of: device), let b = room.pose(of: other), let bAddress = room.address(of: other) else { continue }
                let g = PairGeometry(a, b)
                guard g.distance * 100 <= 65_535 else { continue }
                let json = "{\"source_category\":\"uci\",\"source_mac_address\":\"\(address)\",\"destination_category\":\"uci\","
                    + "\"destination_mac_address\":\"\(bAddress)\",\"distance\":\(Int((g.distance * 100).rounded())),"
                    + "\"azimuth\":\(Int((g.bearingFromA.azimuth * 180 / Double.pi).rounded())),"
                    + "\"elevation\":\(Int((g.bearingFromA.elevation * 180 / Double.pi).rounded()))}"
                broadcast("neighbor-updated", json)
            }
            return (.ok, "success")
        default:
            return (.notFound, "")
        }
    }

    /// A position body: integers x, y, z (cm, within ±32,767), yaw (−180 to 180), pitch (−90 to 90), roll (−180 to 180).
    static func parsePosition(_ body: [UInt8]) -> Result<Pose, PositionError> {
        let p: PositionBody
        do {
            p = try JSONDecoder().decode(PositionBody.self, from: Data(body))
        } catch DecodingError.keyNotFound(let key, _) {
            return .failure(PositionError("\(key.stringValue) is missing"))
        } catch DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context) {
            let key = context.codingPath.last?.stringValue ?? "the body"
            return .failure(PositionError("\(key) is not an integer"))
        } catch {
            return .failure(PositionError("the body is not a JSON object"))
        }
        for (key, value, limit) in [("x", p.x, 32_767), ("y", p.y, 32_767), ("z", p.z, 32_767), ("yaw", p.yaw, 180),
                                    ("pitch", p.pitch, 90), ("roll", p.roll, 180)] where abs(value) > limit {
            return .failure(PositionError("\(key) = \(value) is outside ±\(limit)"))
        }
        let rad = Double.pi / 180
        let position = Vector3(Double(p.x) / 100, Double(p.y) / 100, Double(p.z) / 100)
        let orientation = Orientation(heading: Double(p.yaw) * rad, pitch: Double(p.pitch) * rad, roll: Double(p.roll) * rad)
        return .success(Pose(position: position, orientation: orientation))
    }

    struct PositionBody: Decodable {
        let x, y, z, yaw, pitch, roll: Int
    }

    struct PositionError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    final class WebHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let endpoint: UCIEndpoint
        private var head: HTTPRequestHead?
        private var body: [UInt8] = []

        init(endpoint: UCIEndpoint) { self.endpoint = endpoint }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h):
                head = h
                body = []
            case .body(var b):
                // A position is a few dozen bytes; a body past 64 KiB is cut off and fails to parse.
                if body.count < 65_536, let bytes = b.readBytes(length: min(b.readableBytes, 65_536 - body.count)) { body += bytes }
            case .end:
                guard let head else { return }
                self.head = nil
                let path = String(head.uri.split(separator: "?").first ?? "")
                guard let (status, text) = endpoint.answer(head.method, path, body) else {
                    var h = HTTPHeaders()
                    h.add(name: "content-type", value: "text/event-stream")
                    h.add(name: "cache-control", value: "no-cache")
                    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: h))), promise: nil)
                    endpoint.webClients[ObjectIdentifier(context.channel)] = context.channel
                    return
                }
                var h = HTTPHeaders()
                h.add(name: "content-type", value: text.hasPrefix("{") ? "application/json" : "text/plain")
                h.add(name: "content-length", value: "\(text.utf8.count)")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: h))), promise: nil)
                var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
                buffer.writeString(text)
                context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            endpoint.webClients[ObjectIdentifier(context.channel)] = nil
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }
}
