#!/usr/bin/env python3
"""nearcatch-sim's host checks of a live `nearcatch-sim uci` endpoint, one scenario per run.

    python3 Tests/uci-host/check.py SCENARIO --port UCI_PORT [--web-port WEB_PORT]

Scenarios: sequence (one-to-one, one-to-many and data, the whole UCI sequence), truth (measurements against the
positions the web API set, timeouts beyond range, pica's JSON shapes), scale (100 chips in 50 sessions: each
report's time against its interval), fuzz (100,000 malformed packets while 10 chips range), moving (chips following a world
started with --scenario), flood (a host that sends and never reads, against the endpoint's memory; --server-pid).
Each prints one JSON
line of figures and exits 0, or prints why and exits 1. The Swift suite UCIHostTests runs them.
"""
import argparse
import asyncio
import json
import random
import socket
import statistics
import sys
import time
import urllib.request

from ucihost import Host, uci

S = uci.Status
A = uci.AppConfigTlvType


class CheckFailed(Exception):
    pass


def check(ok: bool, what: str):
    if not ok:
        raise CheckFailed(what)


async def connect(port: int, n: int):
    hosts = []
    for i in range(n):
        h = await Host.connect("127.0.0.1", port, bytes([0, i + 1]))
        await h.expect_control(uci.CoreDeviceStatusNtf(device_state=uci.DeviceState.DEVICE_STATE_READY))
        hosts.append(h)
    return hosts


async def configure(host: Host, session: int, controller: bool, peers, interval_ms=200, session_type=0, extra=()):
    host.send_control(uci.SessionInitCmd(session_id=session, session_type=session_type))
    await host.expect_control(uci.SessionInitRsp(status=S.OK))
    await host.expect_control(uci.SessionStatusNtf(session_token=session, session_state=uci.SessionState.SESSION_STATE_INIT, reason_code=0))
    tlvs = [uci.AppConfigTlv(cfg_id=A.DEVICE_TYPE, v=bytes([1 if controller else 0])),
            uci.AppConfigTlv(cfg_id=A.DEVICE_ROLE, v=bytes([1 if controller else 0])),
            uci.AppConfigTlv(cfg_id=A.DEVICE_MAC_ADDRESS, v=host.mac_address),
            uci.AppConfigTlv(cfg_id=A.MULTI_NODE_MODE, v=bytes([1 if len(peers) > 1 else 0])),
            uci.AppConfigTlv(cfg_id=A.RANGING_DURATION, v=interval_ms.to_bytes(4, "little")),
            uci.AppConfigTlv(cfg_id=A.DST_MAC_ADDRESS, v=b"".join(peers))] + list(extra)
    if controller:
        tlvs.append(uci.AppConfigTlv(cfg_id=A.NUMBER_OF_CONTROLEES, v=bytes([len(peers)])))
    host.send_control(uci.SessionSetAppConfigCmd(session_token=session, tlvs=tlvs))
    await host.expect_control(uci.SessionSetAppConfigRsp(status=S.OK, cfg_status=[]))
    await host.expect_control(uci.SessionStatusNtf(session_token=session, session_state=uci.SessionState.SESSION_STATE_IDLE, reason_code=0))


async def start(host: Host, session: int, first: bool = True):
    host.send_control(uci.SessionStartCmd(session_id=session))
    await host.expect_control(uci.SessionStartRsp(status=S.OK))
    await host.expect_control(uci.SessionStatusNtf(session_token=session, session_state=uci.SessionState.SESSION_STATE_ACTIVE, reason_code=0))
    if first:
        await host.expect_control(uci.CoreDeviceStatusNtf(device_state=uci.DeviceState.DEVICE_STATE_ACTIVE))


async def stop_and_deinit(host: Host, session: int):
    host.send_control(uci.SessionStopCmd(session_id=session))
    # Reports already on their way may come before the response.
    while True:
        p = await host.expect_control(uci.ControlPacket)
        if not isinstance(p, uci.ShortMacTwoWaySessionInfoNtf):
            break
    check(p == uci.SessionStopRsp(status=S.OK), f"stop answered {p}")
    await host.expect_control(uci.SessionStatusNtf(session_token=session, session_state=uci.SessionState.SESSION_STATE_IDLE, reason_code=0))
    await host.expect_control(uci.CoreDeviceStatusNtf(device_state=uci.DeviceState.DEVICE_STATE_READY))
    host.send_control(uci.SessionDeinitCmd(session_token=session))
    await host.expect_control(uci.SessionDeinitRsp(status=S.OK))
    await host.expect_control(uci.SessionStatusNtf(session_token=session, session_state=uci.SessionState.SESSION_STATE_DEINIT, reason_code=0))


async def reports(host: Host, n: int, timeout=2.0):
    out = []
    while len(out) < n:
        p = await host.expect_control(uci.ControlPacket, timeout=timeout)
        if isinstance(p, (uci.ShortMacTwoWaySessionInfoNtf, uci.ExtendedMacTwoWaySessionInfoNtf)):
            out.append(p)
    return out


def mac(host: Host) -> int:
    return int.from_bytes(host.mac_address, "little")


async def sequence(args):
    figures = {}
    hosts = await connect(args.port, 8)
    a, b = hosts[0], hosts[1]
    a.send_control(uci.CoreGetDeviceInfoCmd())
    info = await a.expect_control(uci.CoreGetDeviceInfoRsp)
    check(info.status == S.OK and info.uci_version == 0x1001, f"device info (UCI 1.1, as this host speaks) {info}")
    a.send_control(uci.CoreGetCapsInfoCmd())
    caps = await a.expect_control(uci.CoreGetCapsInfoRsp)
    check({t.cfg_id for t in caps.tlvs} >= {0x05, 0x11, 0x13}, f"capabilities {caps}")
    # One-to-one, then its data: the controller sends 3,000 bytes to the controlee in its next round.
    data_session = uci.SessionType.FIRA_RANGING_AND_IN_BAND_DATA_SESSION
    await configure(a, 1, True, [b.mac_address], 100, data_session,
                    [uci.AppConfigTlv(cfg_id=A.SESSION_DATA_TRANSFER_STATUS_NTF_CONFIG, v=b"\x01")])
    await configure(b, 1, False, [a.mac_address], 100, data_session)
    a.send_control(uci.SessionGetAppConfigCmd(session_token=1, app_cfg=bytes([A.RANGING_DURATION])))
    got = await a.expect_control(uci.SessionGetAppConfigRsp)
    check(got.tlvs == [uci.AppConfigTlv(cfg_id=A.RANGING_DURATION, v=(100).to_bytes(4, "little"))], f"app config {got}")
    await start(a, 1)
    await start(b, 1)
    payload = bytes(random.Random(5).randrange(256) for _ in range(3000))
    message = uci.DataMessageSnd(session_handle=1, destination_address=mac(b), data_sequence_number=9,
                                 application_data=payload).serialize()
    body = message[4:]
    for k in range(0, len(body), 1024):
        chunk = body[k:k + 1024]
        more = 0x10 if k + 1024 < len(body) else 0
        a.send_raw(bytes([0x01 | more, 0]) + len(chunk).to_bytes(2, "little") + chunk)
    ranged = await reports(a, 3)
    check(all(r.two_way_ranging_measurements[0].status == S.OK for r in ranged[1:]), "one-to-one reports")
    received = await b.expect_data(uci.DataMessageRcv, timeout=2.0)
    check(received.application_data == payload and received.source_address == mac(a) and received.data_sequence_number == 9,
          "data crossed whole")
    a.send_control(uci.SessionGetRangingCountCmd(session_id=1))
    count = await a.expect_control(uci.SessionGetRangingCountRsp)
    check(count.count >= 3, f"ranging count {count}")
    await stop_and_deinit(a, 1)
    await stop_and_deinit(b, 1)
    figures["one_to_one_reports"] = len(ranged)
    # One-to-many: one controller, three controlees, then a fourth added by the multicast list. The default row puts
    # the controller (chip 0, facing +x) and the odd chips (facing -x) face to face.
    c, many = hosts[0], [hosts[1], hosts[3], hosts[5], hosts[7]]
    await configure(c, 2, True, [h.mac_address for h in many[:3]], 200)
    c.send_control(uci.SessionUpdateControllerMulticastListCmd(session_token=2, action=0,
                   controlees=[uci.Controlee(short_address=many[3].mac_address, subsession_id=0)]))
    await c.expect_control(uci.SessionUpdateControllerMulticastListRsp(status=S.OK))
    ntf = await c.expect_control(uci.SessionUpdateControllerMulticastListNtf)
    check(ntf.remaining_multicast_list_size == 4 and ntf.controlee_status[0].status == 0, f"multicast {ntf}")
    for h in many:
        await configure(h, 2, False, [c.mac_address], 200)
    await start(c, 2)
    for h in many:
        await start(h, 2)
    rounds = await reports(c, 4)
    last = rounds[-1].two_way_ranging_measurements
    check([m.mac_address for m in last] == [mac(h) for h in many], f"one-to-many addresses {last}")
    check([m.slot_index for m in last] == [1, 2, 3, 4], "one slot each")
    check(sum(m.status == S.OK for r in rounds[1:] for m in r.two_way_ranging_measurements) >= 9, "one-to-many ranged")
    for h in many:
        r = (await reports(h, 2))[-1].two_way_ranging_measurements
        check(len(r) == 1 and r[0].mac_address == mac(c), "each controlee hears its controller")
    figures["one_to_many_controlees"] = len(last)
    for h in hosts:
        h.disconnect()
    return figures


def web(args, method, path, body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{args.web_port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


async def truth(args):
    a, b = await connect(args.port, 2)
    status, state = web(args, "GET", "/get-state")
    devices = json.loads(state)["devices"]
    check(status == 200 and [d["mac_address"] for d in devices] == ["00:01", "00:02"], f"get-state {state}")
    check(devices[1] == {"category": "uci", "mac_address": "00:02", "x": 100, "y": 0, "z": 100, "yaw": 180, "pitch": 0,
                         "roll": 0}, f"default place {devices[1]}")
    check(web(args, "POST", "/set-position/00:09", {"x": 0, "y": 0, "z": 0, "yaw": 0, "pitch": 0, "roll": 0})[0] == 404, "unknown chip")
    check(web(args, "POST", "/set-position/00:02", {"x": "far"})[0] == 406, "bad body")
    events = await asyncio.open_connection("127.0.0.1", args.web_port)
    events[1].write(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
    await events[1].drain()
    await asyncio.sleep(0.2)
    check(web(args, "POST", "/set-position/00:02", {"x": 300, "y": 0, "z": 100, "yaw": 180, "pitch": 0, "roll": 0})[0] == 200,
          "set-position")
    seen = b""
    while b"neighbor-updated" not in seen:
        seen += await asyncio.wait_for(events[0].read(4096), timeout=3)
    check(b'"distance":300' in seen, f"neighbour event {seen[-300:]}")
    events[1].close()
    await configure(a, 1, True, [b.mac_address], 50)
    await configure(b, 1, False, [a.mac_address], 50)
    await start(a, 1)
    await start(b, 1)
    near = [r.two_way_ranging_measurements[0] for r in await reports(a, 60)]
    ok = [m for m in near if m.status == S.OK]
    errors = [m.distance / 100 - 3.0 for m in ok]
    check(len(ok) >= 48, f"{len(ok)} of 60 exchanges at 3 m")
    # The radio's tail: a gross outlier in 2,000 exchanges reads anything from 0 to 3 m past the truth.
    core = [e for e in errors if abs(e) < 0.6]
    check(len(errors) - len(core) <= 1 and abs(statistics.mean(core)) < 0.2, f"errors at 3 m {errors}")
    check(web(args, "POST", "/set-position/00:02", {"x": 2000, "y": 0, "z": 100, "yaw": 180, "pitch": 0, "roll": 0})[0] == 200,
          "moved far")
    await reports(a, 2)
    far = [r.two_way_ranging_measurements[0] for r in await reports(a, 20)]
    check(all(m.status == S.RANGING_RX_TIMEOUT for m in far), f"beyond range {[m.status for m in far]}")
    a.disconnect()
    b.disconnect()
    return {"at_3m_ok": len(ok), "at_3m_mean_error_m": round(statistics.mean(errors), 3),
            "at_20m_timeouts": sum(m.status == S.RANGING_RX_TIMEOUT for m in far)}


async def scale(args):
    """100 chips in 50 sessions (chips 2k and 2k+1, facing each other in the default row, 1 m apart)."""
    hosts = await connect(args.port, 100)
    interval = args.interval_ms
    for k in range(50):
        a, b = hosts[2 * k], hosts[2 * k + 1]
        await configure(a, k, True, [b.mac_address], interval)
        await configure(b, k, False, [a.mac_address], interval)
    for k in range(50):
        await start(hosts[2 * k], k)
        await start(hosts[2 * k + 1], k)
    # Arrival times are taken as each message is read, and the messages parsed afterwards, so that the host's own
    # parsing does not delay the times it measures.
    for h in hosts:
        h.log = []
    await asyncio.sleep(args.seconds)
    arrivals = {}
    for h in hosts:
        log, h.log = h.log, None
        arrivals[id(h)] = [t for t, m in log if isinstance(uci.ControlPacket.parse_all(m), uci.ShortMacTwoWaySessionInfoNtf)]
    deviations = []
    for h in hosts:
        times = arrivals[id(h)][1:]
        deviations += [abs((b - a) * 1000 - interval) for a, b in zip(times, times[1:])]
    deviations.sort()
    p95 = deviations[int(0.95 * (len(deviations) - 1))]
    # Each chip's reports in the window, less the first (its interval began before the window) and the one fewer
    # intervals than reports, less one more for the window's edges: 96 of 100 in 10 s at 100 ms (97 are seen).
    expected = 100 * (args.seconds * 1000 / interval - 4)
    check(len(deviations) >= expected, f"{len(deviations)} intervals, expected {expected}")
    for h in hosts:
        h.disconnect()
    return {"chips": 100, "sessions": 50, "interval_ms": interval, "intervals": len(deviations),
            "p50_ms": round(deviations[len(deviations) // 2], 3), "p95_ms": round(p95, 3), "max_ms": round(deviations[-1], 3)}


async def moving(args):
    """Chips that follow a moving world (`--scenario`): their places change as they range."""
    a, b = await connect(args.port, 2)
    await configure(a, 1, True, [b.mac_address], 100)
    await configure(b, 1, False, [a.mac_address], 100)
    await start(a, 1)
    await start(b, 1)
    await reports(a, 5)
    first = json.loads(web(args, "GET", "/get-state")[1])["devices"]
    got = await reports(a, 20)
    second = json.loads(web(args, "GET", "/get-state")[1])["devices"]
    check(first != second, f"the chips did not move: {first}")
    check(first[1]["x"] != 100 or first[1]["y"] != 0, f"chip 1 still on the row: {first[1]}")
    statuses = {m.status for r in got for m in r.two_way_ranging_measurements}
    a.disconnect()
    b.disconnect()
    return {"moved": sum(p != q for p, q in zip(first, second)), "statuses": sorted(int(x) for x in statuses)}


def malformed(rng: random.Random) -> bytes:
    """One packet that the chip must refuse with exactly one answer (a response or a generic error)."""
    kind = rng.randrange(8)
    junk = bytes(rng.randrange(256) for _ in range(rng.randrange(12)))
    if kind == 0:  # an unknown group
        return bytes([0x20 | rng.choice([4, 5, 6, 7, 8, 13]), rng.randrange(64), 0, len(junk)]) + junk
    if kind == 1:  # an unknown opcode of a known group
        return bytes([0x20 | rng.randrange(3), rng.randrange(9, 64), 0, len(junk)]) + junk
    if kind == 2:  # a known command cut short or overlong
        gid, oid, size = rng.choice([(1, 0, 5), (1, 1, 4), (1, 6, 4), (2, 0, 4), (2, 1, 4), (0, 0, 1)])
        body = bytes(rng.randrange(256) for _ in range(rng.choice([0, size - 1, size + 3])))
        return bytes([0x20 | gid, oid, 0, len(body)]) + body
    if kind == 3:  # a reserved message type
        return bytes([rng.randrange(4, 8) << 5, 0, 0, len(junk)]) + junk
    if kind == 4:  # a response or a notification from the host
        return bytes([rng.choice([2, 3]) << 5 | rng.randrange(3), rng.randrange(8), 0, len(junk)]) + junk
    if kind == 5:  # a session command for a session that does not exist
        return bytes([0x22, rng.randrange(2), 0, 4]) + rng.randrange(1000, 2**32).to_bytes(4, "little")
    if kind == 6:  # a data packet too short for its header
        short = junk[:rng.randrange(16)]
        return bytes([0x01, 0]) + len(short).to_bytes(2, "little") + short
    # a TLV list whose lengths run past the payload
    body = (0).to_bytes(4, "little") + bytes([3, 4, 200, 1])
    return bytes([0x21, 3, 0, len(body)]) + body


async def fuzz(args):
    hosts = await connect(args.port, 10)
    # Each pair on its own channel, so that the pairs' rounds do not collide and every report is a measurement.
    for k, channel in enumerate([5, 6, 8, 9, 10]):
        a, b = hosts[2 * k], hosts[2 * k + 1]
        on = [uci.AppConfigTlv(cfg_id=A.CHANNEL_NUMBER, v=bytes([channel]))]
        await configure(a, k, True, [b.mac_address], 100, extra=on)
        await configure(b, k, False, [a.mac_address], 100, extra=on)
        await start(a, k)
        await start(b, k)
    fuzzers = [await Host.connect("127.0.0.1", args.port, b"\xff\xff") for _ in range(2)]
    for f in fuzzers:
        await f.expect_control(uci.CoreDeviceStatusNtf)
    counts = {id(h): 0 for h in hosts}
    measured = {id(h): 0 for h in hosts}

    async def listen(h):
        while True:
            p = await h.expect_control(uci.ControlPacket, timeout=10)
            if isinstance(p, uci.ShortMacTwoWaySessionInfoNtf):
                counts[id(h)] += 1
                measured[id(h)] += p.two_way_ranging_measurements[0].status == S.OK

    listeners = [asyncio.create_task(listen(h)) for h in hosts]
    rng = random.Random(args.seed)
    began = time.monotonic()
    answered = 0
    total = args.packets
    batch = 500
    for k in range(0, total, batch):
        f = fuzzers[(k // batch) % 2]
        f.send_raw(b"".join(malformed(rng) for _ in range(batch)))
        await f.writer.drain()
        for _ in range(batch):
            await f.control_queue.get()
            answered += 1
    seconds = time.monotonic() - began
    await asyncio.sleep(0.5)
    for t in listeners:
        t.cancel()
    expected = 10 * (seconds / 0.1 - 3)
    got = sum(counts.values())
    check(answered == total, f"{answered} of {total} answered")
    check(got >= expected, f"{got} reports while fuzzing for {seconds:.1f} s, expected at least {expected:.0f}")
    ok = sum(measured.values())
    # One metre apart, facing: the radio's floor loses 2% of exchanges.
    check(ok >= 0.9 * got, f"{ok} of {got} reports measured")
    for h in hosts + fuzzers:
        h.disconnect()
    return {"malformed_sent": total, "answered": answered, "seconds": round(seconds, 2), "reports_during": got,
            "measured_during": ok}


async def flood(args):
    """A host that sends CORE_GET_DEVICE_INFO as fast as its socket takes it and never reads an answer: the endpoint
    must stop reading it (its answers wait in its own socket), its memory bounded, and still serve a new host."""
    def rss_kb():
        with open(f"/proc/{args.server_pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise CheckFailed("no VmRSS for the endpoint")
    before = rss_kb()
    s = socket.create_connection(("127.0.0.1", args.port))
    s.setblocking(False)
    chunk = bytes([0x20, 0x02, 0x00, 0x00]) * 16_384
    sent, peak, stalled = 0, before, 0.0
    began = time.monotonic()
    while time.monotonic() - began < args.seconds and sent < 24 * 2 ** 20:
        try:
            sent += s.send(chunk)
        except BlockingIOError:
            stalled += 0.01
            await asyncio.sleep(0.01)
        peak = max(peak, rss_kb())
    s.close()
    await asyncio.sleep(1)
    after = rss_kb()
    (h,) = await connect(args.port, 1)
    h.send_control(uci.CoreGetDeviceInfoCmd())
    info = await h.expect_control(uci.CoreGetDeviceInfoRsp)
    check(info.status == S.OK, f"a new host after the flood: {info}")
    h.disconnect()
    return {"sent_bytes": sent, "seconds": round(time.monotonic() - began, 2), "stalled_s": round(stalled, 2),
            "rss_before_kb": before, "rss_peak_kb": peak, "rss_after_kb": after}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", choices=["sequence", "truth", "scale", "fuzz", "moving", "flood"])
    parser.add_argument("--server-pid", type=int)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--web-port", type=int)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--interval-ms", type=int, default=100)
    parser.add_argument("--packets", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        scenarios = {"sequence": sequence, "truth": truth, "scale": scale, "fuzz": fuzz, "moving": moving, "flood": flood}
        figures = asyncio.run(scenarios[args.scenario](args))
    except (CheckFailed, ValueError, uci.ParseError, asyncio.TimeoutError, AssertionError) as e:
        print(f"{args.scenario}: FAILED: {type(e).__name__}: {e}")
        sys.exit(1)
    print(json.dumps({"scenario": args.scenario, **figures}))


if __name__ == "__main__":
    main()
