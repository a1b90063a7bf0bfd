"""An independent UCI host for nearcatch-sim's tests, from the FiRa UCI specification's byte layouts.

`Host` is one TCP connection, so one simulated chip. It reads packets, joins segments (the packet boundary flag),
and queues control and data messages apart; `expect_control` waits for the next control message and checks it.
Its names follow pica's Python host, so that hosts written against pica run against it unchanged (docs/uci.md).
"""
import asyncio
import time
from typing import Optional

from . import uci


class Host:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, mac_address: bytes):
        self.reader = reader
        self.writer = writer
        self.mac_address = mac_address
        self.control_queue: asyncio.Queue = asyncio.Queue()
        self.data_queue: asyncio.Queue = asyncio.Queue()
        self.closed: Optional[BaseException] = None
        # When a list, each message is logged in it with its arrival time instead of queued (timing checks).
        self.log: Optional[list] = None
        self.reader_task = asyncio.get_event_loop().create_task(self._read_loop())

    @staticmethod
    async def connect(address: str, port: int, mac_address: bytes) -> "Host":
        reader, writer = await asyncio.open_connection(address, port)
        return Host(reader, writer, mac_address)

    def disconnect(self):
        self.writer.close()
        self.reader_task.cancel()

    def _messages(self, buffer: bytearray, pending: list):
        """Cuts the whole packets out of `buffer` and yields each whole message: its last segment's header and every
        segment's payload joined (`pending` holds the segments of one not yet complete)."""
        while len(buffer) >= 4:
            is_data = buffer[0] >> 5 == uci.MessageType.DATA
            length = buffer[2] | buffer[3] << 8 if is_data else buffer[3]
            if len(buffer) < 4 + length:
                return
            header, payload = bytes(buffer[:4]), bytes(buffer[4:4 + length])
            del buffer[:4 + length]
            pending.append(payload)
            if header[0] >> 4 & 1:
                continue
            joined = b"".join(pending)
            pending.clear()
            if is_data:
                yield header[:2] + len(joined).to_bytes(2, "little") + joined
            else:
                yield header[:3] + bytes([min(len(joined), 255)]) + joined

    async def _read_loop(self):
        # Whole chunks are read and stamped as they arrive, then cut into messages: one wake-up per chunk, not two
        # per message, so that a timing check measures the endpoint rather than this host.
        buffer, pending = bytearray(), []
        try:
            while True:
                chunk = await self.reader.read(65536)
                if not chunk:
                    raise ConnectionError("the endpoint closed the connection")
                arrived = time.monotonic()
                buffer += chunk
                for message in self._messages(buffer, pending):
                    if self.log is not None:
                        self.log.append((arrived, message))
                    elif message[0] >> 5 == uci.MessageType.DATA:
                        self.data_queue.put_nowait(message)
                    else:
                        self.control_queue.put_nowait(message)
        except (ConnectionError, asyncio.CancelledError) as e:
            self.closed = e

    def send_raw(self, data: bytes):
        self.writer.write(data)

    def send_control(self, packet: uci.ControlPacket):
        self.writer.write(packet.serialize())

    def send_data(self, packet: uci.DataPacket):
        self.writer.write(packet.serialize())

    @staticmethod
    def _match(received, expected):
        """`received` when it is of the class `expected` or equal to it; a ValueError otherwise."""
        if isinstance(expected, type):
            if not isinstance(received, expected):
                raise ValueError(f"received {received!r}, expected a {expected.__name__}")
        elif received != expected:
            raise ValueError(f"received {received!r}, expected {expected!r}")
        return received

    async def expect_control(self, expected, timeout: float = 1.0) -> uci.ControlPacket:
        """The next control message, which must be of the class `expected` or equal to it."""
        packet = await asyncio.wait_for(self.control_queue.get(), timeout=timeout)
        return self._match(uci.ControlPacket.parse_all(packet), expected)

    async def expect_data(self, expected, timeout: float = 1.0) -> uci.DataPacket:
        """The next data message, checked as `expect_control` checks control messages."""
        packet = await asyncio.wait_for(self.data_queue.get(), timeout=timeout)
        return self._match(uci.DataPacket.parse_all(packet), expected)
