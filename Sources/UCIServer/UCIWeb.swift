import Foundation
import Geometry
import NIOCore
import NIOHTTP1
import NIOPosix
import UCI
import UCIRoom

/// The web API's coordinates.
package enum WebAxes: String, CaseIterable, Sendable {
    /// The room's: z up, yaw counter-clockwise from +x, a chip at rest facing +x; azimuths positive to the right.
    case room
    /// pica's: y up, a chip at rest facing +z, yaw about y (positive turns it toward −x), roll positive turning its
    /// top toward its left; azimuths positive toward +x, the left. The room's (x, y, z) is pica's (z, x, y).
    case pica
}

/// pica's HTTP API beside the UCI endpoint, in pica's shapes: `GET /get-state` lists the chips and anchors
/// (`{"devices":[{"category":"uci","mac_address":"00:01","x":0,...}]}`, positions in cm and angles in degrees),
/// `POST /set-position/{mac}` (or `/init-uci-device/{mac}`, as pica has it) moves one (a JSON body
/// `{"x":..,"y":..,"z":..,"yaw":..,"pitch":..,"roll":..}`; 200, 404 for no such chip, 406 for a bad address or body),
/// `POST /create-anchor/{mac}` and `/destroy-anchor/{mac}` place and take away anchors (200; 406, 409 for a name
/// taken, 404 for no such anchor), and `GET /events` streams server-sent events: device-added, device-removed,
/// device-updated and neighbor-updated (the true distance and bearing to each other chip), and ranging (each round's
/// exchanges as measured: ours, for the live page at `/`, UCIPage.swift).
extension UCIEndpoint {
    /// Listens for the web API on `host`:`port` (0 picks a free port); returns the port bound.
    package func serveWeb(host: String = "127.0.0.1", port: Int) throws -> Int {
        room.onRound = { [unowned self] round in
            guard let controller = room.address(of: round.controller) else { return }
            let exchanges = round.exchanges.compactMap { x in
                room.address(of: x.device).map {
                    "{\"controlee\":\"\($0)\",\"status\":\(x.status),\"distance\":\(x.distance)}"
                }
            }
            broadcast("ranging", "{\"controller\":\"\(controller)\",\"session\":\(round.token),"
                + "\"time\":\(String(format: "%.4f", round.time)),\"exchanges\":[\(exchanges.joined(separator: ","))]}")
        }
        onChipsChanged = { [unowned self] event, device in
            if event == "device-removed" {
                guard let a = room.address(of: device) else { return }
                broadcast(event, "{\"category\":\"\(category(device))\",\"mac_address\":\"\(a)\"}")
            } else if let json = deviceJSON(device) {
                broadcast(event, json)
            }
        }
        let bootstrap = ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: Self.watermark)
            .childChannelInitializer { [self] channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(WebHandler(endpoint: self))
                }
            }
        let server = try bootstrap.bind(host: host, port: port).wait()
        return server.localAddress?.port ?? port
    }

    func category(_ device: Int) -> String { room.isAnchor(device) ? "anchor" : "uci" }

    /// A chip as pica's JSON shows it, position flattened into it, in the web API's axes.
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
        // pica's axes: its (x, y, z) is the room's (y, z, x); its yaw and roll turn the other way.
        let (x, y, z) = axes == .pica ? (cm(p.y), cm(p.z), cm(p.x)) : (cm(p.x), cm(p.y), cm(p.z))
        let sign = axes == .pica ? -1 : 1
        return "{\"category\":\"\(category(device))\",\"mac_address\":\"\(address)\",\"x\":\(x),\"y\":\(y),\"z\":\(z),"
            + "\"yaw\":\(sign * deg(yaw)),\"pitch\":\(deg(pitch)),\"roll\":\(sign * deg(roll))}"
    }

    /// An event to every open event stream; a client that does not read is closed once its unread events pass the
    /// endpoint's limit.
    func broadcast(_ event: String, _ json: String) {
        let text = "event: \(event)\ndata: \(json)\n\n"
        for client in webClients.values {
            var buffer = client.allocator.buffer(capacity: text.utf8.count)
            buffer.writeString(text)
            let written = counted(buffer.readableBytes, on: client)
            client.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: written)
            if unreadBytes(client) > Self.unreadLimit {
                webClients[ObjectIdentifier(client)] = nil
                forget(client)
                client.close(promise: nil)
            }
        }
    }

    /// The answer to one request: a status and a body, or `nil` for the event stream.
    func answer(_ method: HTTPMethod, _ path: String, _ body: [UInt8]) -> (HTTPResponseStatus, String)? {
        let parts = path.split(separator: "/").map(String.init)
        switch (method, parts.first, parts.count) {
        case (.GET, nil, 0), (.GET, "index.html", 1):
            return (.ok, UCIPage.html(axes: axes))
        case (.GET, "get-state", 1):
            let devices = room.devices.compactMap(deviceJSON)
            return (.ok, "{\"devices\":[" + devices.joined(separator: ",") + "]}")
        case (.GET, "events", 1):
            return nil
        case (.POST, "set-position", 2), (.POST, "init-uci-device", 2):
            guard let address = UCIAddress(text: parts[1]) else { return badAddress(parts[1]) }
            guard let device = room.device(named: address) else { return (.notFound, "device \(address) not found") }
            let pose: Pose
            // pica's init-uci-device takes no body as the origin.
            switch parsePosition(body, absentIsOrigin: parts[0] == "init-uci-device") {
            case .success(let p): pose = p
            case .failure(let reason): return (.notAcceptable, "Error while deserializing position: \(reason)")
            }
            _ = room.setPose(pose, of: device)
            if let json = deviceJSON(device) { broadcast("device-updated", json) }
            neighboursMoved(device)
            return (.ok, "success")
        case (.POST, "create-anchor", 2):
            guard let address = UCIAddress(text: parts[1]) else { return badAddress(parts[1]) }
            let pose: Pose
            switch parsePosition(body, absentIsOrigin: true) {
            case .success(let p): pose = p
            case .failure(let reason): return (.notAcceptable, "Error while deserializing position: \(reason)")
            }
            let made: Int?
            do {
                made = try room.createAnchor(address, at: pose, time: now)
            } catch {
                return (.internalServerError, "cannot make the anchor's radio: \(error)")
            }
            guard let anchor = made else { return (.conflict, "a device named \(address) already exists") }
            if let json = deviceJSON(anchor) { broadcast("device-added", json) }
            neighboursMoved(anchor)
            reschedule()
            return (.ok, "success")
        case (.POST, "destroy-anchor", 2):
            guard let address = UCIAddress(text: parts[1]) else { return badAddress(parts[1]) }
            guard let anchor = room.device(named: address), room.isAnchor(anchor) else {
                return (.notFound, "anchor \(address) not found")
            }
            broadcast("device-removed", "{\"category\":\"anchor\",\"mac_address\":\"\(address)\"}")
            _ = room.destroyAnchor(address)
            reschedule()
            return (.ok, "success")
        default:
            return (.notFound, "")
        }
    }

    private func badAddress(_ text: String) -> (HTTPResponseStatus, String) {
        (.notAcceptable, "Error mac_address: \(text) is not XX:XX or XX:XX:XX:XX:XX:XX:XX:XX")
    }

    /// The true distance and bearing from a chip just moved (or placed) to every other, as neighbor-updated events.
    private func neighboursMoved(_ device: Int) {
        guard let a = room.pose(of: device), let address = room.address(of: device) else { return }
        for other in room.devices where other != device {
            guard let b = room.pose(of: other), let bAddress = room.address(of: other) else { continue }
            let g = PairGeometry(a, b)
            guard g.distance * 100 <= 65_535 else { continue }
            // pica's azimuths are positive toward its +x, the left; the room's to the right.
            let azimuth = (axes == .pica ? -1 : 1) * g.bearingFromA.azimuth
            let json = "{\"source_category\":\"\(category(device))\",\"source_mac_address\":\"\(address)\","
                + "\"destination_category\":\"\(category(other))\","
                + "\"destination_mac_address\":\"\(bAddress)\",\"distance\":\(Int((g.distance * 100).rounded())),"
                + "\"azimuth\":\(Int((azimuth * 180 / Double.pi).rounded())),"
                + "\"elevation\":\(Int((g.bearingFromA.elevation * 180 / Double.pi).rounded()))}"
            broadcast("neighbor-updated", json)
        }
    }

    /// A position body in the web API's axes.
    func parsePosition(_ body: [UInt8], absentIsOrigin: Bool = false) -> Result<Pose, PositionError> {
        if absentIsOrigin && body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return .success(Pose(position: Vector3(0, 0, 0), orientation: Orientation(heading: 0)))
        }
        return Self.parsePosition(body, axes: axes)
    }

    /// A position body: integers x, y, z (cm, within ±32,767), yaw (−180 to 180), pitch (−90 to 90), roll (−180 to 180).
    static func parsePosition(_ body: [UInt8], axes: WebAxes = .room) -> Result<Pose, PositionError> {
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
        // pica's (x, y, z) is the room's (y, z, x); its yaw and roll turn the other way.
        let (x, y, z) = axes == .pica ? (p.z, p.x, p.y) : (p.x, p.y, p.z)
        let sign = axes == .pica ? -1.0 : 1
        let position = Vector3(Double(x) / 100, Double(y) / 100, Double(z) / 100)
        let orientation = Orientation(heading: sign * Double(p.yaw) * rad, pitch: Double(p.pitch) * rad,
                                      roll: sign * Double(p.roll) * rad)
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
                let type = text.hasPrefix("{") ? "application/json"
                    : text.hasPrefix("<!DOCTYPE html>") ? "text/html; charset=utf-8" : "text/plain"
                h.add(name: "content-type", value: type)
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
            endpoint.forget(context.channel)
            context.fireChannelInactive()
        }

        // A client that sends requests and never reads the answers is read no more until they drain.
        func channelReadComplete(context: ChannelHandlerContext) {
            if !context.channel.isWritable { UCIEndpoint.read(false, context) }
            context.fireChannelReadComplete()
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            UCIEndpoint.read(context.channel.isWritable, context)
            context.fireChannelWritabilityChanged()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }
}
