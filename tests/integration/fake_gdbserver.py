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
"mute" answers well until --mute-after seconds after the first continue, then never again
(not even an acknowledgement): a gdbserver that hangs just as record's --duration ends;
"nodetach" never answers the detach (D).

--dialect NAME reproduces what record depends on in the gdbservers users run (read from their
public sources and documentation; docs/sampling.md lists them): the qSupported reply and no-ack
mode, the target description (one document or with includes, in chunks or whole, register names
and numbers), what `g` returns, whether memory is read while the core runs (served, served only
after the next halt, or the VM halted instead), console ('O') packets while running, and the
form of the stop reply to an interrupt (S or T, signal, expedited registers, thread ids):
  fake      this script's own (the default): description with an include, no-ack, T02thread:01
  openocd   OpenOCD 0.12: one document with regnum on every register and "xPSR", g = r0..pc
            and xPSR, memory read while running, log lines as O packets while running,
            interrupt answered T02 (no thread without an RTOS), ? answered S05
  jlink     SEGGER J-Link GDB server: one document sent in 'm' chunks, g = r0..pc, xpsr, msp,
            psp, primask, basepri, faultmask, control, memory read while running,
            semihosting output as O packets, interrupt answered S02, no threads
  pyocd     pyOCD: description in chunks, T02 with expedited r7, sp, lr and pc, memory
            requests sent while running are answered only after the next halt
  probe-rs  probe-rs (the gdbstub crate): chunks sized by the request, T02thread:p01.01;,
            packets served while the target runs (memory reads included)
  qemu      QEMU 7.2's gdbstub: no no-ack mode, answers qqemu.sstepbits, description with an
            include and xpsr at regnum 25, g in the legacy layout (f0-f7 of 12 bytes and fps
            before xpsr), any packet sent while running halts the VM (stop reply, packet
            dropped), DWT_PCSR reads 0
--vectors serves a Cortex-M vector table (VTOR 0, SysTick at --exc-pc) and --exc-every N makes
every Nth stop land on that handler's first instruction with lr 0xFFFFFFF9, as a halt that took
a pending interrupt does.

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


M_REGS = ["r%d" % i for i in range(13)] + ["sp", "lr", "pc"]
SYS_REGS = ["msp", "psp", "primask", "basepri", "faultmask", "control"]


def flat_xml(names, feature="org.gnu.gdb.arm.m-profile"):
    """One target document, every register with its regnum (OpenOCD, J-Link, pyOCD, probe-rs)."""
    regs = "".join('<reg name="%s" bitsize="32" regnum="%d" type="uint32" group="general"/>' % (n, i)
                   for i, n in enumerate(names))
    return ('<?xml version="1.0"?>\n<!DOCTYPE target SYSTEM "gdb-target.dtd">\n<target version="1.0">'
            '<architecture>arm</architecture><feature name="%s">%s</feature></target>' % (feature, regs))


# what each dialect does (see the docstring)
DIALECTS = {
    "fake": dict(supported=b"PacketSize=1000;qXfer:features:read+;QStartNoAckMode+", docs=None, chunk=None,
                 g="fake", running_mem="serve", console=None, stop=b"T02thread:01;", qmark=b"T05thread:01;"),
    "openocd": dict(supported=b"PacketSize=4000;qXfer:memory-map:read-;qXfer:features:read+;"
                              b"qXfer:threads:read+;QStartNoAckMode+;vContSupported+",
                    docs={"target.xml": flat_xml(M_REGS + ["xPSR"] + SYS_REGS)}, chunk=None,
                    g=M_REGS + ["xPSR"], running_mem="serve",
                    console=b"Info : halted: PC: 0x00000100\n", stop=b"T02", qmark=b"S05"),
    "jlink": dict(supported=b"PacketSize=4000;qXfer:memory-map:read-;QStartNoAckMode+;hwbreak+;"
                            b"qXfer:features:read+",
                  docs={"target.xml": flat_xml(M_REGS + ["xpsr"] + SYS_REGS)}, chunk=0x100,
                  g=M_REGS + ["xpsr"] + SYS_REGS, running_mem="serve",
                  console=b"SEGGER semihosting: hello\n", stop=b"S02", qmark=b"S05"),
    "pyocd": dict(supported=b"qXfer:features:read+;QStartNoAckMode+;qXfer:threads:read+;QNonStop+;"
                            b"PacketSize=4000;qXfer:memory-map:read+",
                  docs={"target.xml": flat_xml(M_REGS + ["xpsr"] + SYS_REGS)}, chunk=0x200,
                  g=M_REGS + ["xpsr"] + SYS_REGS, running_mem="after-halt", console=None,
                  stop="pyocd", qmark="pyocd"),
    "probe-rs": dict(supported=b"PacketSize=1000;vContSupported+;multiprocess+;QStartNoAckMode+;swbreak+;"
                               b"hwbreak+;qXfer:features:read+",
                     docs={"target.xml": flat_xml(M_REGS + ["xpsr"] + SYS_REGS)}, chunk="request",
                     g=M_REGS + ["xpsr"] + SYS_REGS, running_mem="serve", console=None,
                     stop=b"T02thread:p01.01;", qmark=b"T05thread:p01.01;"),
    "qemu": dict(supported=b"PacketSize=1000;qXfer:features:read+;vContSupported+", docs=None, chunk=None,
                 g="qemu", running_mem="halt", console=None, stop=b"T02thread:01;", qmark=b"T05thread:01;"),
}


class Server:
    def __init__(self, conn, args, log):
        self.conn, self.args, self.log = conn, args, log
        self.d = DIALECTS[args.dialect]
        self.noack = False
        self.running = False
        self.interrupts = 0
        self.pcs = [int(p, 0) for p in args.pcs.split(",")]
        self.demcr = 0
        self.first_c = None      # when the first continue came (mute)
        self.queued = []         # pyOCD: memory requests made while running, answered after the halt
        self.at_entry = False    # the last stop landed on the exception handler's entry
        self.last_console = 0.0

    def muted(self) -> bool:
        return (self.args.fault == "mute" and self.first_c is not None and
                time.monotonic() - self.first_c >= self.args.mute_after)

    def send(self, data: bytes):
        self.conn.sendall(data)

    def pc(self) -> int:
        if self.at_entry:
            return int(self.args.exc_pc, 0)
        return self.pcs[self.interrupts % len(self.pcs)]

    def lr(self) -> int:
        return 0xFFFFFFF9 if self.at_entry else self.pc() | 1

    def reg(self, name: str) -> int:
        return {"pc": self.pc(), "lr": self.lr(), "sp": 0x20001000, "xpsr": 0x0100000F if self.at_entry else 0x01000000,
                "msp": 0x20001000}.get(name.lower(), 0)

    def stop_reply(self) -> bytes:
        """The dialect's answer to an interrupt (or to ?)."""
        if self.d["stop"] == "pyocd":  # T with signal 2 and the frame registers expedited
            return b"T02" + b"".join(b"%02x:%s;" % (n, le32(self.reg(r)))
                                     for n, r in ((7, "r7"), (13, "sp"), (14, "lr"), (15, "pc")))
        return self.d["stop"]

    def g_reply(self) -> bytes:
        if self.d["g"] == "fake":
            regs = b"00000000" * 13 + le32(0x20001000) + le32(self.lr()) + le32(self.pc())
            return regs + le32(self.reg("xpsr"))
        if self.d["g"] == "qemu":  # r0..pc, f0..f7 (12 bytes each), fps, xpsr
            regs = b"".join(le32(self.reg(n)) for n in M_REGS)
            return regs + b"00" * (8 * 12 + 4) + le32(self.reg("xpsr"))
        return b"".join(le32(self.reg(n)) for n in self.d["g"])

    def xfer(self, annex: str, off: int, length: int) -> bytes:
        docs = self.d["docs"] or {"target.xml": TARGET_XML, "arm-m-profile.xml": CORE_XML}
        doc = docs.get(annex)
        if doc is None:
            return b"E00"
        data = doc.encode()
        chunk = self.d["chunk"]
        n = length if chunk == "request" else chunk or len(data)
        part = data[off:off + min(n, length)]
        return (b"l" if off + len(part) >= len(data) else b"m") + part

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
            self.reply(self.d["supported"])

    def on_packet(self, p: bytes):
        if self.muted():
            return
        if self.running and self.d["running_mem"] == "halt":
            self.running = False  # QEMU: the VM stops, the packet is dropped unanswered
            self.interrupts += 1
            self.reply(self.stop_reply())
            return
        if self.running and self.d["running_mem"] == "after-halt" and p.startswith(b"m"):
            if not self.noack:
                self.send(b"+")
            self.queued.append(p)  # pyOCD serves packets only between its polls of a halted core
            return
        if not self.noack:
            self.send(b"+")
        if p.startswith(b"qSupported"):
            self.on_qsupported()
        elif p == b"QStartNoAckMode" and self.args.dialect != "qemu":
            self.reply(b"OK")
            self.noack = True
        elif p == b"qqemu.sstepbits" and self.args.dialect == "qemu":
            self.reply(b"ENABLE=1,NOIRQ=2,NOTIMER=4")
        elif p == b"?":
            qmark = self.d["qmark"]
            self.reply(self.stop_reply() if qmark == "pyocd" else qmark)
        elif p.startswith(b"qXfer:features:read:"):
            parts = p.split(b":")
            off, length = (int(x, 16) for x in parts[4].split(b","))
            self.reply(self.xfer(parts[3].decode(), off, length))
        elif p.startswith(b"p") and len(p) > 1:
            n = int(p[1:], 16)
            names = M_REGS + (["xpsr"] if self.args.dialect != "qemu" else [])
            if self.args.dialect == "fake":
                self.reply(le32(self.pc()) if p == b"pf" else le32(self.lr()) if p == b"pe" else b"E01")
            elif self.args.dialect == "qemu" and n == 25:
                self.reply(le32(self.reg("xpsr")))
            else:
                self.reply(le32(self.reg(names[n])) if n < len(names) else b"E01")
        elif p == b"g":
            self.reply(self.g_reply())
        elif p == b"c":
            self.running = True
            if self.first_c is None:
                self.first_c = time.monotonic()
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
            if self.args.fault != "nodetach":
                self.reply(b"OK")
        else:
            self.reply(b"")

    def on_read(self, p: bytes):
        addr, length = (int(x, 16) for x in p[1:].split(b","))
        if self.args.vectors and not self.running and addr == 0xE000ED08:
            self.reply(le32(0))  # VTOR: the table is at 0
        elif self.args.vectors and not self.running and addr < 0x100:
            table = [0x20001000, 0x1] + [int(self.args.exc_pc, 0) | 1] * 14 + [0] * 48
            data = b"".join(v.to_bytes(4, "little") for v in table)
            self.reply(data[addr:addr + length].hex().encode())
        elif self.args.dialect == "qemu" and addr == 0xE000101C:
            self.reply(le32(0))
        elif not self.args.dwt or addr not in (0xE000101C, 0xE000EDFC):
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
        if not self.running or self.muted():
            return True
        self.running = False
        self.interrupts += 1
        self.at_entry = bool(self.args.exc_every) and self.interrupts % self.args.exc_every == 0
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
        self.reply(self.stop_reply())
        for q in self.queued:  # pyOCD: what was asked while running is answered now
            self.on_read(q)
        self.queued = []
        return True

    def console(self):
        """OpenOCD and J-Link: output while the target runs, as O packets, every 20 ms."""
        if self.running and self.d["console"] and time.monotonic() - self.last_console > 0.02 and not self.muted():
            self.last_console = time.monotonic()
            self.log.write("<console>\n")
            self.reply(b"O" + self.d["console"].hex().encode())

    def serve(self):
        if self.args.fault == "rubbish":
            self.send(b"hello, this is not RSP\r\n")
        buf = b""
        self.conn.settimeout(0.02 if self.d["console"] else None)
        while True:
            try:
                data = self.conn.recv(65536)
            except socket.timeout:
                self.console()
                continue
            if not data:
                return
            self.console()
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
    ap.add_argument("--dialect", choices=sorted(DIALECTS), default="fake", help="which gdbserver to behave like")
    ap.add_argument("--mute-after", type=float, default=1.0, help="--fault mute: seconds after the first continue")
    ap.add_argument("--vectors", action="store_true", help="serve a vector table (VTOR 0)")
    ap.add_argument("--exc-pc", default="0x200", help="the exception handler's entry (--vectors)")
    ap.add_argument("--exc-every", type=int, default=0, help="every Nth stop lands on the handler's entry")
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
