/// The live page the web API serves at `/`: the room from above, each chip and anchor where it stands, draggable
/// (a drag posts `/set-position`), and each round's exchanges drawn as they happen from the `ranging` events, green
/// with the distance measured, red where the exchange was lost. `#selftest` drags the first chip, waits for the
/// server's word that it moved and for ranging, and writes what it saw in `<pre id="selftest">` (tools/uci-page-check).
enum UCIPage {
    /// The page, for the web API's axes: the ground is the room's (x, y), or pica's (x, z).
    static func html(axes: WebAxes) -> String {
        template.replacingOccurrences(of: "__AXES__", with: axes.rawValue)
    }

    private static let template = #"""
    <!DOCTYPE html>
    <html lang="en"><head><meta charset="utf-8"><title>nearcatch-sim uci: the room</title>
    <style>
    body { margin: 0; font: 13px sans-serif; background: #fbfbf8; color: #222; }
    #room { width: 100vw; height: calc(100vh - 24px); touch-action: none; display: block; }
    #status { margin: 0; padding: 4px 8px; height: 16px; font: 12px monospace; color: #555; }
    .chip { cursor: grab; } .chip circle { fill: #2a6fdb; } .chip.anchor circle { fill: #c0389b; }
    .chip text, .line text { font-size: 0.12px; pointer-events: none; }
    .line line { stroke-width: 0.02; } .ok line { stroke: #1f9d55; } .lost line { stroke: #d33; stroke-dasharray: 0.05; }
    .grid line { stroke: #e4e4dc; stroke-width: 0.01; }
    </style></head><body>
    <svg id="room" viewBox="-1 -3 6 6"><g class="grid" id="grid"></g><g id="lines"></g><g id="chips"></g></svg>
    <pre id="status">connecting...</pre>
    <script>
    "use strict";
    const AXES = "__AXES__";
    const svg = document.getElementById("room"), chipsLayer = document.getElementById("chips");
    const linesLayer = document.getElementById("lines"), statusLine = document.getElementById("status");
    const NS = "http://www.w3.org/2000/svg";
    const chips = new Map();   // mac -> {device, element}
    const seen = { errors: [], rangingEvents: 0, linesDrawn: 0, updates: [] };
    window.addEventListener("error", e => seen.errors.push(String(e.message)));
    const consoleError = console.error.bind(console);
    console.error = (...a) => { seen.errors.push(a.join(" ")); consoleError(...a); };

    // The ground, in metres, with y up the screen: the room's (x, y), or pica's (x, z).
    function ground(d) { return AXES === "pica" ? [d.x / 100, d.z / 100] : [d.x / 100, d.y / 100]; }
    function setGround(d, gx, gy) {
        d.x = Math.round(gx * 100);
        if (AXES === "pica") { d.z = Math.round(gy * 100); } else { d.y = Math.round(gy * 100); }
    }
    function place(entry) {
        const [gx, gy] = ground(entry.device);
        entry.element.setAttribute("transform", `translate(${gx} ${-gy})`);
    }
    function fit() {
        if (chips.size === 0) { return; }
        const xs = [], ys = [];
        for (const { device } of chips.values()) { const [x, y] = ground(device); xs.push(x); ys.push(-y); }
        const minX = Math.min(...xs) - 1, maxX = Math.max(...xs) + 1, minY = Math.min(...ys) - 1, maxY = Math.max(...ys) + 1;
        const side = Math.max(maxX - minX, maxY - minY);
        svg.setAttribute("viewBox", `${minX} ${minY} ${side} ${side}`);
        const grid = document.getElementById("grid");
        grid.replaceChildren();
        for (let v = Math.floor(minX); v <= minX + side; v++) { grid.append(line(v, minY, v, minY + side)); }
        for (let v = Math.floor(minY); v <= minY + side; v++) { grid.append(line(minX, v, minX + side, v)); }
    }
    function line(x1, y1, x2, y2) {
        const l = document.createElementNS(NS, "line");
        l.setAttribute("x1", x1); l.setAttribute("y1", y1); l.setAttribute("x2", x2); l.setAttribute("y2", y2);
        return l;
    }
    function show(device) {
        let entry = chips.get(device.mac_address);
        if (!entry) {
            const g = document.createElementNS(NS, "g");
            g.classList.add("chip");
            if (device.category === "anchor") { g.classList.add("anchor"); }
            const c = document.createElementNS(NS, "circle");
            c.setAttribute("r", "0.1");
            const t = document.createElementNS(NS, "text");
            t.setAttribute("x", "0.13"); t.setAttribute("y", "0.04");
            t.textContent = device.mac_address;
            g.append(c, t);
            g.dataset.mac = device.mac_address;
            chipsLayer.append(g);
            entry = { device, element: g };
            chips.set(device.mac_address, entry);
            drag(entry);
        }
        entry.device = device;
        place(entry);
    }
    // A chip dragged: where the pointer is on the ground, posted as it moves (at most every 100 ms) and when let go.
    function drag(entry) {
        let dragging = false, last = 0;
        const at = e => {
            const p = svg.createSVGPoint(); p.x = e.clientX; p.y = e.clientY;
            const q = p.matrixTransform(svg.getScreenCTM().inverse());
            return [q.x, -q.y];
        };
        const post = () => {
            const d = entry.device;
            return fetch(`/set-position/${d.mac_address}`, { method: "POST", body: JSON.stringify(
                { x: d.x, y: d.y, z: d.z, yaw: d.yaw, pitch: d.pitch, roll: d.roll }) });
        };
        entry.element.addEventListener("pointerdown", e => {
            dragging = true;
            if (entry.element.setPointerCapture && e.pointerId !== undefined) {
                try { entry.element.setPointerCapture(e.pointerId); } catch (_) { /* a synthetic pointer */ }
            }
        });
        entry.element.addEventListener("pointermove", e => {
            if (!dragging) { return; }
            const [gx, gy] = at(e);
            setGround(entry.device, gx, gy);
            place(entry);
            if (performance.now() - last > 100) { last = performance.now(); post(); }
        });
        entry.element.addEventListener("pointerup", e => {
            if (!dragging) { return; }
            dragging = false;
            const [gx, gy] = at(e);
            setGround(entry.device, gx, gy);
            place(entry);
            post();
        });
    }
    // One round: a line from the controller to each controlee, green with the distance, red when lost; gone in 1 s.
    function ranged(r) {
        seen.rangingEvents += 1;
        const from = chips.get(r.controller);
        for (const x of r.exchanges) {
            const to = chips.get(x.controlee);
            if (!from || !to) { continue; }
            const [ax, ay] = ground(from.device), [bx, by] = ground(to.device);
            const g = document.createElementNS(NS, "g");
            g.classList.add("line", x.status === 0 ? "ok" : "lost");
            g.append(line(ax, -ay, bx, -by));
            if (x.status === 0) {
                const t = document.createElementNS(NS, "text");
                t.setAttribute("x", (ax + bx) / 2); t.setAttribute("y", -(ay + by) / 2 - 0.05);
                t.textContent = `${(x.distance / 100).toFixed(2)} m`;
                g.append(t);
            }
            linesLayer.append(g);
            seen.linesDrawn += 1;
            setTimeout(() => g.remove(), 1000);
        }
        statusLine.textContent = `${chips.size} chips; round of ${r.controller} at ${r.time.toFixed(2)} s`;
    }

    async function start() {
        const state = await (await fetch("/get-state")).json();
        state.devices.forEach(show);
        fit();
        statusLine.textContent = `${chips.size} chips`;
        const events = new EventSource("/events");
        events.addEventListener("device-added", e => { show(JSON.parse(e.data)); fit(); });
        events.addEventListener("device-updated", e => {
            const d = JSON.parse(e.data);
            seen.updates.push(d);
            const entry = chips.get(d.mac_address);
            if (entry) { entry.device = d; place(entry); } else { show(d); }
        });
        events.addEventListener("device-removed", e => {
            const d = JSON.parse(e.data), entry = chips.get(d.mac_address);
            if (entry) { entry.element.remove(); chips.delete(d.mac_address); }
        });
        events.addEventListener("ranging", e => ranged(JSON.parse(e.data)));
        if (location.hash === "#selftest") { await selftest(); }
    }

    const sleep = ms => new Promise(r => setTimeout(r, ms));
    async function until(test, ms) {
        const end = performance.now() + ms;
        while (!test() && performance.now() < end) { await sleep(50); }
        return test();
    }
    // Drags the first chip 1 m along the ground's x by the pointer, as a hand would, and waits for the server's
    // device-updated event and for ranging.
    async function selftest() {
        const result = { devices: chips.size };
        const first = chips.values().next().value;
        if (first) {
            const before = ground(first.device);
            const ctm = svg.getScreenCTM();
            const screen = (gx, gy) => {
                const p = svg.createSVGPoint(); p.x = gx; p.y = -gy;
                return p.matrixTransform(ctm);
            };
            const fire = (type, gx, gy) => {
                const s = screen(gx, gy);
                first.element.dispatchEvent(new PointerEvent(type, { clientX: s.x, clientY: s.y, bubbles: true, pointerId: 1 }));
            };
            fire("pointerdown", before[0], before[1]);
            fire("pointermove", before[0] + 0.5, before[1]);
            await sleep(150);
            fire("pointerup", before[0] + 1, before[1]);
            const mac = first.device.mac_address;
            const wanted = Math.round((before[0] + 1) * 100);
            result.dragged = await until(() => seen.updates.some(d => d.mac_address === mac && d.x === wanted), 3000);
            const after = await (await fetch("/get-state")).json();
            const moved = after.devices.find(d => d.mac_address === mac);
            result.serverX = moved ? moved.x : null;
            result.wantedX = wanted;
        }
        result.ranged = await until(() => seen.linesDrawn > 0, 5000);
        result.rangingEvents = seen.rangingEvents;
        result.linesDrawn = seen.linesDrawn;
        result.axes = AXES;
        result.errors = seen.errors;
        const pre = document.createElement("pre");
        pre.id = "selftest";
        pre.textContent = JSON.stringify(result);
        document.body.append(pre);
    }
    start().catch(e => seen.errors.push(String(e)));
    </script></body></html>
    """#
}
