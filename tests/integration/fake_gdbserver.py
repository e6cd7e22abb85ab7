#!/usr/bin/env python3
"""fake_gdbserver.py: a scripted GDB remote-protocol server for the fault tests of `ramplace record`.

It serves one connection on 127.0.0.1 (--port, by default 0: the kernel picks a free one; the
port is written to --port-file once listening), speaks enough RSP for the record handshake and
sampling loop (qSupported, QStartNoAckMode, ?, qXfer:features:read with an include, p, g, c,
0x03, D), and misbehaves on purpose as --fault says:

  ok        a well-behaved halted target whose pc walks over --pcs
  exit      after --after interrupts, the target exits with status 3 (W03), then closes
  die       after --after interrupts, the connection is closed without a word
  stall     after --after interrupts, interrupts are ignored (the gdbserver hangs)
  garbage   replies 'xyz' to qSupported
  badcsum   replies to qSupported with a wrong checksum
  huge      replies to qSupported with 70000 bytes and no end
  rubbish   greets the client with bytes outside any packet
  silent    accepts the connection and never says anything
  vanish    closes the connection as soon as it is accepted, and exits

Hostile modes (tests/integration/t_record_hostile.sh): after --after interrupts, instead of the
stop reply the server sends
  noise     bytes outside any packet
  oversize  a packet of 70000 bytes that never ends
  rlebomb   a run-length-encoded packet that decodes to over 64 KiB
  badcsum2  the stop reply with a wrong checksum
  flood     console output ($O packets) as fast as it can, forever
  trickle   a console packet every 20 ms, forever
  dribble   the start of a stop reply, then one more byte every 20 ms, forever
  acks      '+' as fast as it can, forever
  cut       half a stop reply, then closes the connection
and "rle" run-length encodes every reply it can (a well-behaved server otherwise). The
endless modes end when the client goes away, and the server itself after --lifetime seconds.

--dwt MODE adds memory reads (m/M) of a Cortex-M DWT: "pcsr" serves DWT_PCSR (0xE000101C)
while the target runs, walking over --pcs (0xFFFFFFFF while halted, as the hardware does),
"zero" reads it as 0 (no PC sampling). DEMCR (0xE000EDFC) can be read and written. In DWT mode
the exit/die/stall faults count PCSR reads as well as interrupts. Without --dwt every memory
read gets E01.

Every packet received is appended to --log, one per line ("<interrupt>" for 0x03), so that tests
can check what the client sent (e.g. that it detached).
"""
import argparse
import signal
import socket
import sys
import time

TARGET_XML = ('<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd">'
              '<target><architecture>arm</architecture>'
              '<xi:include href="arm-m-profile.xml"/></target>')
CORE_XML = ('<?xml version="1.0"?><feature name="org.gnu.gdb.arm.m-profile">'
            + ''.join('<reg name="r%d" bitsize="32"/>' % i for i in range(13))
            + '<reg name="sp" bitsize="32" type="data_ptr"/><reg name="lr" bitsize="32"/>'
            '<reg name="pc" bitsize="32" type="code_ptr"/>'
            '<reg name="xpsr" bitsize="32" regnum="25"/></feature>')


def frame(payload: bytes) -> bytes:
    return b"$" + payload + b"#%02x" % (sum(payload) % 256)


def rle(payload: bytes) -> bytes:
    """GDB's run-length encoding: a byte, '*', and the count of further copies + 29 (never
    '#' or '$', so counts 6 and 7 are not used)."""
    out, i = bytearray(), 0
    while i < len(payload):
        c, run = payload[i], 1
        while i + run < len(payload) and payload[i + run] == c and run < 98:
            run += 1
        more = run - 1
        if more in (6, 7):
            more = 5
        if more >= 3:
            out += bytes([c]) + b"*" + bytes([more + 29])
            i += more + 1
        else:
            out.append(c)
            i += 1
    return bytes(out)


HOSTILE = ("noise", "oversize", "rlebomb", "badcsum2", "flood", "trickle", "dribble", "acks", "cut")


def le32(v: int) -> bytes:
    return v.to_bytes(4, "little").hex().encode()


class Server:
    def __init__(self, conn, args, log):
        self.conn, self.args, self.log = conn, args, log
        self.noack = False
        self.running = False
        self.interrupts = 0
        self.pcs = [int(p, 0) for p in args.pcs.split(",")]
        self.demcr = 0

    def send(self, data: bytes):
        self.conn.sendall(data)

    def pc(self) -> int:
        return self.pcs[self.interrupts % len(self.pcs)]

    def reply(self, payload: bytes):
        self.send(frame(rle(payload) if self.args.fault == "rle" else payload))

    def hostile(self) -> bool:
        """Sends what --fault says instead of a stop reply; False ends the session."""
        fault = self.args.fault
        self.log.write("<%s>\n" % fault)
        if fault == "noise":
            self.send(b"\x00\xffnot a packet\r\n")
        elif fault == "oversize":
            self.send(b"$" + b"a" * 70000)
        elif fault == "rlebomb":
            self.send(frame(b"T" + b"0*~" * 1000))
        elif fault == "badcsum2":
            self.send(b"$T02thread:01;#00")
        elif fault == "cut":
            self.send(b"$T02thr")
            return False
        elif fault in ("flood", "acks"):
            chunk = frame(b"O" + b"hello, world\n".hex().encode()) * 64 if fault == "flood" else b"+" * 4096
            while True:
                self.send(chunk)
        elif fault in ("trickle", "dribble"):
            if fault == "dribble":
                self.send(b"$T02")
            while True:
                time.sleep(0.02)
                self.send(frame(b"O" + b"tick\n".hex().encode()) if fault == "trickle" else b"a")
        return True

    def on_qsupported(self):
        fault = self.args.fault
        if fault == "garbage":
            self.reply(b"xyz")
        elif fault == "badcsum":
            self.send(b"$PacketSize=1000#00")
        elif fault == "huge":
            self.send(b"$" + b"a" * 70000)
        else:
            self.reply(b"PacketSize=1000;qXfer:features:read+;QStartNoAckMode+")

    def on_packet(self, p: bytes):
        if not self.noack:
            self.send(b"+")
        if p.startswith(b"qSupported"):
            self.on_qsupported()
        elif p == b"QStartNoAckMode":
            self.reply(b"OK")
            self.noack = True
        elif p == b"?":
            self.reply(b"T05thread:01;")
        elif p.startswith(b"qXfer:features:read:"):
            annex = p.split(b":")[3].decode()
            doc = {"target.xml": TARGET_XML, "arm-m-profile.xml": CORE_XML}.get(annex)
            self.reply(b"E00" if doc is None else b"l" + doc.encode())
        elif p in (b"pf", b"pe"):
            self.reply(le32(self.pc() | 0) if p == b"pf" else le32(self.pc() | 1))
        elif p == b"g":
            regs = b"00000000" * 13 + le32(0x20001000) + le32(self.pc() | 1) + le32(self.pc())
            self.reply(regs + le32(0x01000000))
        elif p == b"c":
            self.running = True
        elif p.startswith(b"m"):
            self.on_read(p)
        elif p.startswith(b"M"):
            addr, rest = p[1:].split(b",", 1)
            if self.args.dwt and int(addr, 16) == 0xE000EDFC:
                self.demcr = int.from_bytes(bytes.fromhex(rest.split(b":")[1].decode()), "little")
                self.reply(b"OK")
            else:
                self.reply(b"E01")
        elif p == b"D":
            self.reply(b"OK")
        else:
            self.reply(b"")

    def on_read(self, p: bytes):
        addr = int(p[1:].split(b",")[0], 16)
        if not self.args.dwt or addr not in (0xE000101C, 0xE000EDFC):
            self.reply(b"E01")
        elif addr == 0xE000EDFC:
            self.reply(le32(self.demcr))
        elif self.args.dwt == "zero" or not self.demcr & (1 << 24):
            self.reply(le32(0))
        elif not self.running:
            self.reply(le32(0xFFFFFFFF))
        else:
            self.interrupts += 1
            if self.interrupts > self.args.after and self.args.fault in ("exit", "die", "stall"):
                if self.args.fault == "exit":
                    self.reply(b"W03")
                    raise ConnectionResetError
                if self.args.fault == "die":
                    raise ConnectionResetError
                return
            self.reply(le32(self.pc()))

    def on_interrupt(self) -> bool:
        """Answers 0x03; False ends the session."""
        if not self.running:
            return True
        self.running = False
        self.interrupts += 1
        if self.interrupts > self.args.after and self.args.fault in HOSTILE:
            return self.hostile()
        if self.interrupts > self.args.after:
            if self.args.fault == "exit":
                self.reply(b"W03")
                return False
            if self.args.fault == "die":
                return False
            if self.args.fault == "stall":
                return True
        self.reply(b"T02thread:01;")
        return True

    def serve(self):
        if self.args.fault == "rubbish":
            self.send(b"hello, this is not RSP\r\n")
        buf = b""
        while True:
            data = self.conn.recv(65536)
            if not data:
                return
            buf += data
            while buf:
                if buf[0:1] in (b"+", b"-"):
                    buf = buf[1:]
                elif buf[0] == 3:
                    buf = buf[1:]
                    self.log.write("<interrupt>\n")
                    if not self.on_interrupt():
                        return
                elif buf[0:1] == b"$":
                    end = buf.find(b"#")
                    if end < 0 or len(buf) < end + 3:
                        break
                    packet, buf = buf[1:end], buf[end + 3:]
                    self.log.write(packet.decode("latin-1") + "\n")
                    if self.args.fault != "silent":
                        self.on_packet(packet)
                else:
                    buf = buf[1:]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fault", default="ok")
    ap.add_argument("--after", type=int, default=0)
    ap.add_argument("--pcs", default="0x100", help="comma-separated pc values to report in turn")
    ap.add_argument("--dwt", choices=["pcsr", "zero"], help="serve DWT memory reads")
    ap.add_argument("--port", type=int, default=0, help="port to listen on (0: any free one)")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--lifetime", type=int, default=60, help="exit after this many seconds whatever happens")
    args = ap.parse_args()
    signal.alarm(args.lifetime)  # SIGALRM's default action ends the process: nothing outlives a test
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", args.port))
    srv.listen(1)
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    conn, _ = srv.accept()
    if args.fault == "vanish":
        open(args.log, "w").close()
        conn.close()
        srv.close()
        return 0
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    with open(args.log, "w", buffering=1) as log:
        try:
            Server(conn, args, log).serve()
        except (BrokenPipeError, ConnectionResetError):
            pass
    conn.close()
    srv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
