#!/usr/bin/env bash
# t_swo.sh: SWO PC sampling end to end (issue 16 item 3). Runs the Cortex-M3 example on
# mps2-an385 under libramplace-qemu.so, which writes exact counts and, with swo=, the SWO stream
# a Cortex-M's DWT PC sampler would send (a PC sample packet every 64 instructions, the shortest
# interval DWT_CTRL has). Then:
#  - file mode, raw ITM and TPIU-framed: `import --format swo` gives exactly
#    floor(instructions / 64) samples, the same per-function counts from both framings, and
#    per-function shares within the noise of random sampling of the exact counts: total
#    variation distance below E[TVD] of a multinomial sample of that size (computed here from
#    the exact shares; about 0.018 at 15,700 samples; measured 0.0097, since periodic sampling
#    stratifies) and below 0.05; `place` from that profile;
#  - tcp mode: `record --swo` with --remote configures the registers through QEMU's gdbstub,
#    lets the target run and reads the stream live: the same samples as the file;
#  - a server that goes silent, SIGTERM while reading (samples stored, status 130), no server;
#  - hostile captures: garbage, empty, only sleeping samples, a cut last packet, an overflow
#    storm, frames cut short (one line with the file and byte offset, status 2, nothing stored;
#    or imported with the losses in the run's notes).
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; qemu-system-arm, arm-none-eabi-gcc, python3,
# sqlite3.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
cd "$work"
fw_timeout=120
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
make -s -C "$RAMPLACE_SRC/examples/qemu-cortex-m3" BUILD="$work/ex" ITERATIONS=1 >/dev/null
fw=$work/ex/fw.elf

cat >shares.py <<'EOF'
# shares.py RAMPLACE EXACT.db OTHER.db: prints "TVD NOISE": the total variation distance of
# OTHER's per-function shares from EXACT's, and the distance random sampling of EXACT with
# OTHER's number of samples would show on average (sum over functions of sqrt(2p(1-p)/(pi n)) / 2).
import json, math, subprocess, sys
def funcs(db):
    j = json.loads(subprocess.run([sys.argv[1], "report", "--json", "-", db], capture_output=True,
                                  check=True, text=True).stdout)
    return {f["name"]: f["self"] for f in j["functions"]}
a, b = funcs(sys.argv[2]), funcs(sys.argv[3])
ta, tb = sum(a.values()), sum(b.values())
tvd = 0.5 * sum(abs(a.get(k, 0) / ta - b.get(k, 0) / tb) for k in set(a) | set(b))
noise = 0.5 * sum(math.sqrt(2 * (v / ta) * (1 - v / ta) / (math.pi * tb)) for v in a.values())
print("%.4f %.4f" % (tvd, noise))
EOF
counts() { "$RAMPLACE" report --json - "$1" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["functions"]: print(f["name"], round(f["self"]))' | sort; }
within() { python3 -c 'import sys; t, n = map(float, sys.argv[1:3]); sys.exit(0 if t < n and t < 0.05 else 1)' $1; }

# ---- file mode, raw and framed
run_fw "$fw" -plugin "$plugin,out=exact.txt,swo=raw.swo,swo-interval=64" >raw.out
run_fw "$fw" -plugin "$plugin,out=exact2.txt,swo=tpiu.swo,swo-interval=64,swo-tpiu=on" >tpiu.out
"$RAMPLACE" import -q exact.db "$fw" exact.txt
insns=$(sed -n 's/^# insns-executed //p' exact.txt)
want=$((insns / 64))
"$RAMPLACE" import --format swo raw.db "$fw" raw.swo >out 2>err
got=$(sqlite3 raw.db "select sum(count) from samples")
if [ "$got" = "$want" ] && grep -q "imported $want samples" out; then pass "raw capture: $got samples = $insns instructions / 64"
else fail "raw capture: $got samples, want $want"; cat out err; fi
if [ "$(sqlite3 raw.db "select tool || ' ' || method from runs")" = "import:swo swo" ] &&
	grep -q "0 sleeping samples, 0 overflows" out; then pass "run is import:swo, method swo, losses in its notes"
else fail "run or notes wrong: $(sqlite3 raw.db 'select tool, method, stop_reason from runs')"; fi
"$RAMPLACE" import --format swo tpiu.db "$fw" tpiu.swo >out 2>err
if [ "$(head -c 4 tpiu.swo | od -An -tx1 | tr -d ' ')" = "ffffff7f" ] && [ "$(counts tpiu.db)" = "$(counts raw.db)" ] &&
	cmp -s raw.out tpiu.out; then pass "TPIU-framed capture: the same per-function counts"
else fail "TPIU capture differs"; diff <(counts raw.db) <(counts tpiu.db) | head; fi
read -r tvd noise <<<"$(python3 shares.py "$RAMPLACE" exact.db raw.db)"
if within "$tvd $noise"; then pass "SWO shares: TVD $tvd from exact counts (random sampling noise $noise)"
else fail "SWO shares: TVD $tvd, noise $noise"; fi
hot=$(counts exact.db | sort -k2 -n -r | head -1 | cut -d' ' -f1)
if "$RAMPLACE" place -q --budget 4K -o ramtext.ld raw.db "$fw" >out 2>err && grep -q "$hot" ramtext.ld; then
	pass "place from the SWO profile moves the hottest function ($hot)"
else fail "place from the SWO profile"; cat out err ramtext.ld; fi

# ---- tcp mode: record --swo against the plugin's server, registers through the gdbstub
gport=$(free_port)
sport=$(free_port)
qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none -semihosting-config enable=on,target=native \
	-kernel "$fw" -gdb tcp:127.0.0.1:$gport -S -plugin "$plugin,out=exact3.txt,swo=tcp:$sport,swo-interval=64" \
	>qemu.out 2>qemu.err &
qpid=$!
on_exit "stop_pid $qpid"
if timeout 60 "$RAMPLACE" record --swo "127.0.0.1:$sport" --remote "127.0.0.1:$gport" --swo-clock 2000000 \
	--cpu-clock 25000000 --swo-interval 64 live.db "$fw" >out 2>err && wait_pid $qpid 30; then
	# report gives a recorded run's counts in seconds (samples / rate): compared as shares
	if [ "$(python3 shares.py "$RAMPLACE" raw.db live.db | cut -d" " -f1)" = "0.0000" ] &&
		[ "$(sqlite3 live.db "select sum(count) from samples")" = "$want" ] && grep -q "recorded $want PC samples over SWO" out &&
		[ "$(sqlite3 live.db "select tool || ' ' || method from runs")" = "record swo" ]; then
		pass "record --swo: $want samples live, the file's counts"
	else fail "record --swo: counts differ from the file's"; cat out err; fi
else fail "record --swo failed"; cat out err qemu.err; fi

# ---- a server that goes silent; SIGTERM keeps the samples; no server at all
head -c 5000 raw.swo >part.swo
"$RAMPLACE" import -q --format swo part.db "$fw" part.swo
part=$(sqlite3 part.db "select sum(count) from samples")
cat >serve.py <<'EOF'
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); s.settimeout(30)
c, _ = s.accept(); c.sendall(open(sys.argv[2], "rb").read())
open(sys.argv[1] + ".sent", "w").close(); time.sleep(float(sys.argv[3]))
EOF
port=$(free_port)
python3 serve.py $port part.swo 20 & spid=$!
on_exit "stop_pid $spid"
start=$SECONDS
timeout 30 "$RAMPLACE" record --swo "127.0.0.1:$port" --timeout 500 silent.db "$fw" >out 2>err && st=0 || st=$?
n=$(sqlite3 silent.db "select sum(count) from samples" 2>/dev/null || echo none)
if [ $st = 0 ] && [ "$n" = "$part" ] && grep -q "stream silent for 500 ms" out && [ $((SECONDS - start)) -lt 10 ]; then
	pass "a silent stream ends the run after --timeout with its $n samples stored"
else fail "silent stream: status $st, $n samples"; cat out err; fi
stop_pid $spid
port=$(free_port)
python3 serve.py $port part.swo 20 & spid=$!
on_exit "stop_pid $spid"
timeout 30 "$RAMPLACE" record --swo "127.0.0.1:$port" --connect-timeout 5000 term.db "$fw" >out 2>err & rpid=$!
for _ in $(seq 200); do [ -e $port.sent ] && break; sleep 0.1; done
sleep 0.5   # connected and sent: what was sent is stored even if not read before the signal
kill -TERM $rpid
wait_pid $rpid 10 && st=0 || st=$?
n=$(sqlite3 term.db "select sum(count) from samples" 2>/dev/null || echo none)
if [ $st = 130 ] && [ "$n" = "$part" ] && [ "$(wc -l <err)" = 1 ] && grep -q "stopped by SIGTERM" err; then
	pass "SIGTERM while reading: status 130, $n samples stored, one line"
else fail "SIGTERM: status $st, $n samples"; cat out err; fi
stop_pid $spid
port=$(free_port)
start=$SECONDS
timeout 30 "$RAMPLACE" record --swo "127.0.0.1:$port" --connect-timeout 300 none.db "$fw" >out 2>err && st=0 || st=$?
if [ $st = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "SWO 127.0.0.1:$port: Connection refused" err && [ ! -e none.db ] &&
	[ $((SECONDS - start)) -lt 5 ]; then pass "no SWO server: one line, status 2, no database"
else fail "no server: status $st"; cat out err; fi

# ---- hostile captures
bad() { # NAME FILE EXPECTED-MESSAGE: refused with one line, status 2, nothing stored
	"$RAMPLACE" import --format swo bad.db "$fw" "$2" >out 2>err && st=0 || st=$?
	if [ $st = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "$3" err && [ ! -e bad.db ]; then pass "$1: refused"
	else fail "$1: status $st"; cat out err; fi
}
head -c 20000 /dev/urandom >garbage.swo
python3 -c 'import sys; sys.stdout.buffer.write(bytes([0x17, 0, 0x10, 0, 0, 0xc0] + [0x80] * 6000))' >noise.swo
: >empty.swo
python3 -c 'import sys; sys.stdout.buffer.write(b"\0\0\0\0\0\x80" + b"\x15\0" * 500 + b"\x70" * 10)' >sleep.swo
# random bytes decode into random packets: their PCs do not fit the ELF
# random bytes decode into random packets whose PCs do not fit the ELF, or into an overlong
# timestamp after which no sync ever comes
bad "random bytes" garbage.swo "garbage.swo: \(only .* verify against\|byte [0-9]*: not an SWO capture\)"
bad "an overlong timestamp, then no sync" noise.swo "noise.swo: byte 9: not an SWO capture: 5996 of 6006 bytes skipped"
bad "an empty file" empty.swo "empty.swo: byte 0: no DWT PC sample packets"
bad "only sleeping samples" sleep.swo "sleep.swo: byte 1016: no DWT PC sample packets in 1016 bytes (raw ITM; 500 sleeping, 10 overflows"
head -c $(( $(stat -c %s raw.swo) - 2 )) raw.swo >cut.swo
"$RAMPLACE" import --format swo cut.db "$fw" cut.swo >out 2>err
if grep -q "imported $((want - 1)) samples" out && grep -q "last packet cut off" out; then pass "a capture cut inside its last packet: imported, noted"
else fail "cut capture"; cat out err; fi
# an overflow after every other sample: the samples are kept, every overflow counted
python3 - raw.swo storm.swo <<'EOF'
import sys
d = open(sys.argv[1], "rb").read(); out = bytearray(d[:6]); i = 6; k = 0
while i + 5 <= len(d):
    if d[i] == 0x17:
        out += d[i:i + 5]; i += 5; k += 1
        if k % 2 == 0: out.append(0x70)
    else:
        out += d[i:i + 6]; i += 6
open(sys.argv[2], "wb").write(out)
EOF
"$RAMPLACE" import --format swo storm.db "$fw" storm.swo >out 2>err
if grep -q "imported $want samples" out && grep -q "$((want / 2)) overflows (packets lost)" out &&
	sqlite3 storm.db "select stop_reason from runs" | grep -q "$((want / 2)) overflows"; then
	pass "an overflow storm: $((want / 2)) overflows counted in the notes, samples kept"
else fail "overflow storm"; cat out err; fi
# TPIU frames cut short: 7 bytes removed after every 20000, the losses counted
python3 - tpiu.swo cutframes.swo <<'EOF'
import sys
d = open(sys.argv[1], "rb").read(); out = bytearray(); i = 0; k = 0
while i < len(d):
    out += d[i:i + 20000]; i += 20000 + 7
open(sys.argv[2], "wb").write(out)
EOF
"$RAMPLACE" import --format swo cf.db "$fw" cutframes.swo >out 2>err
n=$(sqlite3 cf.db "select sum(count) from samples" 2>/dev/null || echo 0)
errs=$(grep -o '[0-9]* framing errors' out | cut -d' ' -f1)
if [ "$n" -gt $((want * 8 / 10)) ] && [ "$n" -lt "$want" ] && [ "${errs:-0}" -gt 0 ]; then
	pass "TPIU frames cut short: $n of $want samples kept, $errs framing errors counted"
else fail "cut frames: $n samples, ${errs:-no} errors"; cat out err; fi

finish
