#!/usr/bin/env python3
"""gdb_pc_loop.py: the baseline of bench_record.sh: PC sampling the way people do it with gdb,
as fast as gdb allows: gdb-multiarch on its machine interface, in a loop of interrupt, `p $pc`,
continue, against a gdbserver that is halted at start. Prints "N samples in S s".

  gdb_pc_loop.py ELF HOST:PORT SECONDS

gdb is driven through MI (one command, then wait for its result record) instead of sending it
SIGINT from outside (the seed practice, `killall -INT gdb`): a signal that lands while gdb waits
for a register read makes it give up on the connection, so that loop cannot run fast at all.
The loop ends after SECONDS or when the program exits."""
import os
import select
import subprocess
import sys
import time


class Gdb:
    def __init__(self, elf):
        self.p = subprocess.Popen(["gdb-multiarch", "-q", "-nx", "--interpreter=mi2", elf],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.buf = b""

    def line(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise TimeoutError("gdb said nothing for %.0f s" % timeout)
            data = self.p.stdout.read1(65536) if hasattr(self.p.stdout, "read1") else os.read(self.p.stdout.fileno(), 65536)
            if not data:
                raise EOFError("gdb exited")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("latin-1").rstrip("\r")

    def cmd(self, text):
        """Sends a command, returns its result record (^done, ^running, ^error...)."""
        self.p.stdin.write(text.encode() + b"\n")
        while True:
            line = self.line()
            if line.startswith("^"):
                return line

    def wait_stopped(self):
        while True:
            line = self.line()
            if line.startswith("*stopped"):
                return line


def main():
    elf, remote, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    g = Gdb(elf)
    for c in ("-gdb-set mi-async on", "-gdb-set pagination off", "-gdb-set confirm off", "-target-select remote " + remote):
        r = g.cmd(c)
        if r.startswith("^error"):
            sys.exit("gdb_pc_loop: %s: %s" % (c, r))
    n = 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        if not g.cmd("-exec-continue").startswith("^running"):
            break
        g.cmd("-exec-interrupt")
        stopped = g.wait_stopped()
        if "exited" in stopped:
            break
        if g.cmd("-data-evaluate-expression $pc").startswith("^done"):
            n += 1
    dt = time.monotonic() - t0
    try:
        g.cmd("-target-detach")
        g.p.stdin.write(b"-gdb-exit\n")
        g.p.wait(timeout=5)
    except Exception:
        g.p.kill()
    print("%d samples in %.3f s" % (n, dt))


if __name__ == "__main__":
    main()
