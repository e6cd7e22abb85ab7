#!/usr/bin/env bash
# t_boot_path_shapes.sh: the reset path on the startup shapes users write (issue 37, item 1).
# A bundled firmware gets a generated C startup, as README's "Using it in your firmware" shows
# it: volatile copy and clear loops for .ramtext, .data and .bss in a given order (the .ramtext
# copy first, between or last), a barrier after the copy (dsb/isb; fence.i), then
# `exit(main())` or `if (main() != 0) abort(); exit(0);`; built at a given -O level with
# -ffunction-sections. On Cortex-M3, M0+ and M33 (examples/qemu-cortex-m3, built with that -mcpu,
# run on QEMU's M3 board) it is the Reset_Handler in plain .text; on RV32 (examples/sifive-e-riscv)
# a naked assembly _start sets gp, sp and tp and calls (call) or tail-jumps to (tail) the C
# start_c that holds the loops.
# At -Os GCC chains the loops' tests and lays the calls before the loop bodies, each of which
# branches back to its test, right after `bl exit`: a call that falls through into the first
# loop's body when exit is taken to return. Until exit was known not to return, `place` kept main
# and its whole closure in flash there (13-37 % of the optimum on a Lua firmware). For each
# shape: `place` on the flash-only build (an empty .ramtext, whose bounds coincide with .data's)
# with a profile of main and three hot functions must move all four (those the compiler kept)
# and keep nothing called after the copy in flash; the relink must pass `check` (which reads the
# relinked reset path the same way) and print what the flash-only build printed.
# The assembly startups users take from their vendors: ORDER cmsis is CMSIS 5's
# startup_ARMCMx.S (copy and zero tables from the linker script, SystemInit, then END crt0:
# newlib's _start, or main), cmsisS the same with SystemInit before the copy (it stays in flash:
# one function kept); on RV32 (ARCH rv) ORDER ctor is picolibc's crt0 (_cstart: memcpy .data,
# memset .bss, constructors, main) with .ramtext copied by a constructor, which the walk does
# not follow: main must be free all the same, and what runs before it kept, with that reason.
# SHAPES="ARCH:ORDER:OPT:END ..." picks the cells (ARCH m3, m0p, m33, rv-call, rv-tail, rv;
# default: nine, the -Os regression among them); t_boot_path_shapes_full.sh runs every order x
# level x ending on each. Each shape (every SHAPE_PLAN_EVERY-th: the full run's fourth) also gets SHAPE_PLANS (1)
# random plans with and without the map, held to the random-plan property
# (plan_property_lib.sh): they link, pass check, land as planned.
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc (newlib), qemu-system-arm,
# riscv64-unknown-elf-gcc (picolibc), qemu-system-riscv32.
. "$(dirname "$0")/lib.sh"
shapes=${SHAPES:-"m3:rdb:-Os:exit m3:rdb:-O2:exit m3:drb:-Os:check m0p:dbr:-Os:exit m33:rdb:-O3:exit rv-call:rdb:-Os:exit rv-tail:drb:-O2:check m0p:cmsisS:-Os:crt0 rv:ctor:-Os:crt0"}
tree=$work/tree
mkdir -p "$tree/examples"
cp -r "$RAMPLACE_SRC/examples/qemu-cortex-m3" "$RAMPLACE_SRC/examples/sifive-e-riscv" "$tree/examples/"
cp -r "$RAMPLACE_SRC/make" "$tree/"
cp "$tree/examples/qemu-cortex-m3/startup.c" "$work/startup-m3.c"
# CMSIS's copy and zero tables (gcc_arm.ld's .copy.table/.zero.table: {load, start, words}
# and {start, words}) for the assembly startups; the C ones do not read them
python3 - "$tree/examples/qemu-cortex-m3/mps2-an385.ld" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
tables = """\t.copy.table : ALIGN(4)
\t{
\t\t__copy_table_start__ = .;
\t\tLONG(__data_load) LONG(__data_start) LONG((__data_end - __data_start) / 4)
\t\tLONG(__ramtext_load) LONG(__ramtext_start) LONG((__ramtext_end - __ramtext_start) / 4)
\t\t__copy_table_end__ = .;
\t} > FLASH

\t.zero.table : ALIGN(4)
\t{
\t\t__zero_table_start__ = .;
\t\tLONG(__bss_start__) LONG((__bss_end__ - __bss_start__) / 4)
\t\t__zero_table_end__ = .;
\t} > FLASH

\t.ARM.extab :"""
assert "\t.ARM.extab :" in s
open(p, "w").write(s.replace("\t.ARM.extab :", tables, 1))
PY
cp "$tree/examples/sifive-e-riscv/startup.c" "$work/startup-rv.c"
# what picolibc's crt0 needs from the linker script (picolibc.ld's names), its _start first in
# flash where the mask ROM jumps; unused by the startups that bring their own _start
python3 - "$tree/examples/sifive-e-riscv/sifive-e.ld" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
keep = "\t\tKEEP(*(.boot.text .boot.text.*))"
assert keep in s and "ENTRY(_start)" in s
s = s.replace(keep, "\t\tKEEP(*(.text.init.enter))\n" + keep, 1)
s = s.replace("ENTRY(_start)", "ENTRY(_start)\n\n__data_source = LOADADDR(.data);\n__data_size = __data_end - __data_start;\n"
              "__bss_size = __bss_end - __bss_start;\n__stack = _estack;\n", 1)
open(p, "w").write(s)
PY

# writes the example's startup.c: its own, its entry replaced by the shape's
gen_startup() { # ARCH ORDER END DEST
	local family=m3
	[[ $1 == rv* ]] && family=rv
	python3 - "$work/startup-$family.c" "$4" "$1" "$2" "$3" "$family" <<'PY'
import sys
src, dst, arch, order, end, fam = sys.argv[1:7]
s = open(src).read()
barrier = {"m3": 'dsb\\n\\tisb', "rv": '.option push\\n\\t.option arch, +zifencei\\n\\tfence.i\\n\\t.option pop'}[fam]
bss = {"m3": "__bss_start__", "rv": "__bss_start"}[fam]
bss_end = {"m3": "__bss_end__", "rv": "__bss_end"}[fam]
loops = {
    "r": "\tfor (volatile uint32_t *d = __ramtext_start, *s = __ramtext_load; d < __ramtext_end;)\n"
         "\t\t*d++ = *s++;\n\t__asm__ volatile(\"" + barrier + "\" ::: \"memory\");\n",
    "d": "\tfor (volatile uint32_t *d = __data_start, *s = __data_load; d < __data_end;)\n\t\t*d++ = *s++;\n",
    "b": "\tfor (volatile uint32_t *d = " + bss + "; d < " + bss_end + ";)\n\t\t*d++ = 0;\n",
}
tail = {"exit": "\t__libc_init_array();\n\texit(main());\n",
        "check": "\t__libc_init_array();\n\tif (main() != 0)\n\t\tabort();\n\texit(0);\n"}.get(end, "")
# CMSIS 5's startup_ARMCMx.S (GCC), in Thumb-1 so that it builds for v6-M too: the copy table
# and the zero table from the linker script, SystemInit after them (cmsis) or before (cmsisS:
# it runs before the copy and must stay in flash), then newlib's crt0 (_start: bss by memset,
# constructors, main, exit) or main itself
cmsis = (
    "\t.syntax unified\n\t.thumb\n\t.section .text.Reset_Handler, \"ax\", %progbits\n"
    "\t.global Reset_Handler\n\t.type Reset_Handler, %function\n\t.thumb_func\nReset_Handler:\n"
    + ("\tbl SystemInit\n" if order == "cmsisS" else "") +
    "\tldr r4, =__copy_table_start__\n\tldr r5, =__copy_table_end__\n"
    ".L_loop0:\n\tcmp r4, r5\n\tbge .L_loop0_done\n"
    "\tldr r1, [r4]\n\tldr r2, [r4, #4]\n\tldr r3, [r4, #8]\n\tlsls r3, r3, #2\n"
    ".L_loop0_0:\n\tsubs r3, #4\n\tblt .L_loop0_0_done\n\tldr r0, [r1, r3]\n\tstr r0, [r2, r3]\n\tb .L_loop0_0\n"
    ".L_loop0_0_done:\n\tadds r4, #12\n\tb .L_loop0\n.L_loop0_done:\n"
    "\tldr r3, =__zero_table_start__\n\tldr r4, =__zero_table_end__\n"
    ".L_loop2:\n\tcmp r3, r4\n\tbge .L_loop2_done\n"
    "\tldr r1, [r3]\n\tldr r2, [r3, #4]\n\tlsls r2, r2, #2\n\tmovs r0, #0\n"
    ".L_loop2_0:\n\tsubs r2, #4\n\tblt .L_loop2_0_done\n\tstr r0, [r1, r2]\n\tb .L_loop2_0\n"
    ".L_loop2_0_done:\n\tadds r3, #8\n\tb .L_loop2\n.L_loop2_done:\n\tdsb\n\tisb\n"
    + ("" if order == "cmsisS" else "\tbl SystemInit\n")
    + {"crt0": "\tbl _start\n", "main": "\tbl __libc_init_array\n\tbl main\n\tbl exit\n"}.get(end, "") +
    "\t.pool\n\t.size Reset_Handler, . - Reset_Handler\n\t.text\n")
if order.startswith("cmsis"):
    body = None
    entry = ("void Reset_Handler(void);\nuint32_t SystemCoreClock = 25000000u;\nvoid SystemInit(void);\n"
             "void SystemInit(void)\n{\n\tSystemCoreClock = 25000000u;\n}\n\n__asm__(\n"
             + "".join('\t"' + line.replace('"', '\\"') + '\\n"\n' for line in cmsis.split("\n") if line)
             + ");\n\n")
elif order != "ctor":
    body = "".join(loops[c] for c in order) + tail
    entry = "void Reset_Handler(void)\n{\n" + body + "}\n\n"
if fam == "m3":
    old = s[s.index("BOOT_TEXT void Reset_Handler(void)"):s.index("/* Cortex-M3 vector table")]
    s = s.replace(old, entry)
    s = s.replace("BOOT_TEXT static void copy_words", "__attribute__((unused)) BOOT_TEXT static void copy_words")
    s = s.replace("BOOT_TEXT static void zero_words", "__attribute__((unused)) BOOT_TEXT static void zero_words")
elif order == "ctor":
    # picolibc's crt0 is _start: _cstart copies .data (memcpy), clears .bss (memset), runs the
    # constructors, of which one copies .ramtext, then main
    old = s[s.index("BOOT_TEXT __attribute__((naked, noreturn)) void _start(void)"):s.index("/* picolibc's semihosting exit")]
    s = s.replace(old, "extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];\n"
                  "__attribute__((constructor)) static void copy_ramtext(void)\n{\n" + loops["r"] + "}\n\n")
else:
    old = s[s.index("BOOT_TEXT __attribute__((naked, noreturn)) void _start(void)"):s.index("/* picolibc's semihosting exit")]
    jump = "call start_c\\n\\tj .\\n\\t" if arch == "rv-call" else "tail start_c\\n\\t"
    new = ("extern uint32_t __data_load[], __data_start[], __data_end[], __ramtext_load[], __ramtext_start[],\n"
           "\t__ramtext_end[], __bss_start[], __bss_end[];\nint main(void);\nvoid __libc_init_array(void);\n"
           "void exit(int) __attribute__((noreturn));\nvoid abort(void) __attribute__((noreturn));\n"
           "void start_c(void);\n"
           "BOOT_TEXT __attribute__((naked, noreturn)) void _start(void)\n{\n\t__asm__ volatile(\n"
           "\t\t\".option push\\n\\t.option arch, +zicsr\\n\\t.option norelax\\n\\t\"\n"
           "\t\t\"la gp, __global_pointer$\\n\\tla sp, _estack\\n\\tla tp, __tls_base\\n\\t\"\n"
           "\t\t\"la t0, trap_entry\\n\\tcsrw mtvec, t0\\n\\t\"\n"
           "\t\t\"" + jump + ".option pop\\n\\t\");\n}\n\n"
           "void start_c(void)\n{\n" + body + "}\n\n")
    s = s.replace(old, new)
open(dst, "w").write(s)
PY
}

# the random-plan property (plan_property_lib.sh; issue 37 item 2) over each generated startup:
# SHAPE_PLANS random profiles and budgets per shape (default 1), each with and without the map
. "$(dirname "$0")/plan_property_lib.sh"
shape_plans=${SHAPE_PLANS:-1} plan_every=${SHAPE_PLAN_EVERY:-1}   # on every Nth shape
pp_relink() { # P: the shape's objects relinked with the plan
	make -s -C "$ex" BUILD="$d/prop" ITERATIONS=3 EXTRA_CFLAGS="$flags" RAMPLACE="$RAMPLACE" "${mkvars[@]}" \
		RAMTEXT_LD="$1/ramtext.ld" >"$1/make.log" 2>&1 || { cat "$1/make.log"; return 1; }
	pp_elf=$d/prop/fw.elf
}
pp_run() { run "$arch" "$1" "$2"; }

run() { # ARCH ELF OUT: the firmware's output, status 0 required
	local qemu=(qemu-system-arm -M mps2-an385)
	[[ $1 == rv* ]] && qemu=(qemu-system-riscv32 -M sifive_e -bios none)
	timeout 60 "${qemu[@]}" -nographic -monitor none -serial none -chardev stdio,id=semi \
		-semihosting-config enable=on,target=native,chardev=semi -kernel "$2" </dev/null >"$3" 2>/dev/null
}

cells=0
for shape in $shapes; do
	IFS=: read -r arch order opt end <<<"$shape"
	cell="$arch $order $opt $end"
	d=$work/$arch$order$opt$end
	mkdir -p "$d"
	ex=$tree/examples/qemu-cortex-m3 nm=arm-none-eabi-nm mkvars=()
	[[ $arch == rv* ]] && ex=$tree/examples/sifive-e-riscv nm=riscv64-unknown-elf-nm
	# ARMv6-M (M0+) is a subset of the M3's ARMv7-M, and this C compiles for the M33 to
	# ARMv7-M instructions: both run on QEMU's Cortex-M3 board; their veneers are their own
	archflags="-mcpu=cortex-m3 -mthumb"
	[ "$arch" = m0p ] && archflags="-mcpu=cortex-m0plus -mthumb"
	[ "$arch" = m33 ] && archflags="-mcpu=cortex-m33 -mthumb"
	[[ $arch == rv* ]] || mkvars=("ARCH_FLAGS=$archflags")
	# newlib's crt0 (rdimon's, for semihosting) of the core's multilib, behind a CMSIS startup
	[ "$end" = crt0 ] && mkvars+=("EXTRA_LDFLAGS=$(arm-none-eabi-gcc $archflags -print-file-name=rdimon-crt0.o)")
	# picolibc's crt0 (semihosting flavour: its trap handler reports), linked from the
	# multilib directory picolibc.specs puts on the -L path
	[ "$order" = ctor ] && mkvars+=("EXTRA_LDFLAGS=-l:crt0-semihost.o")
	# what the reset path must show: the call that leads to main judged after the copy, and
	# how many functions called before the copy stay in flash (SystemInit before it). A copy in
	# a constructor is beyond the walk: main is free all the same, what runs before it is kept.
	call_re="[A-Za-z_]+ calls main: after the copy: every path to this call passes the copy"
	kept_re="copies the code at 0x[0-9a-f]*[^;]*; 0 function(s) called before that stay in flash"
	[ "$order" = cmsisS ] && kept_re="copies the code at 0x[0-9a-f]*[^;]*; 1 function(s) called before that stay in flash"
	[ "$end" = crt0 ] && [ "$order" != ctor ] && call_re="Reset_Handler calls _start: after the copy: every path to this call passes the copy"
	[ "$order" = ctor ] && call_re="_cstart calls main: main, and no copy was found before it" \
		kept_re="where it copies .ramtext was not found, so everything it may run before calling main stays in flash"
	# and the constructor that copies stays in flash: moved (a random plan did), it ran from the
	# RAM it had not filled yet and the firmware faulted
	copier_re='^reset path: '
	[ "$order" = ctor ] && copier_re='^reset path: copy_ramtext copies .ramtext but is called through a pointer'
	gen_startup "$arch" "$order" "$end" "$ex/startup.c"
	flags="$opt -ffunction-sections"
	if ! make -s -C "$ex" BUILD="$d/flash" ITERATIONS=3 EXTRA_CFLAGS="$flags" RAMPLACE="$RAMPLACE" "${mkvars[@]}" >"$d/build.log" 2>&1; then
		fail "$cell: the flash-only build"; cat "$d/build.log"; continue
	fi
	run "$arch" "$d/flash/fw.elf" "$d/flash.out" || { fail "$cell: the flash-only firmware"; continue; }
	want=""   # the hot functions the compiler kept (inlining may take one)
	for fn in main vm_run crc32_update compare_records; do
		a=$("$nm" "$d/flash/fw.elf" | awk -v n="$fn" '$3 == n && !f { print $1; f = 1 }')
		[ -n "$a" ] && printf '0x%s 100\n' "$a" && want="$want$fn "
	done >"$d/pcs.txt"
	want=$(tr ' ' '\n' <<<"$want" | sed '/^$/d' | sort | tr '\n' ' ')
	"$RAMPLACE" import --quiet "$d/p.db" "$d/flash/fw.elf" "$d/pcs.txt"
	if ! "$RAMPLACE" place --budget 4K --min-share 0 --reset-path --map "$d/flash/fw.map" -o "$d/ramtext.ld" "$d/p.db" \
		"$d/flash/fw.elf" >"$d/place.out" 2>&1; then
		fail "$cell: place"; cat "$d/place.out"; continue
	fi
	# --reset-path says where main is called and why that is after the copy
	check "$cell: --reset-path names the call on the way to main and judges it" \
		grep -Eq "^reset path: 0x[0-9a-f]+: $call_re" "$d/place.out"
	check "$cell: the copier stays in flash, however it is called" grep -Eq "$copier_re" "$d/place.out"
	moved=$(awk '$1 == "func" { print $2 }' "$d/ramtext.ld.plan" | sort | tr '\n' ' ')
	if [ "$moved" = "$want" ] && [[ $want == *"main "* ]] &&
	   grep -q "^reset path: .*$kept_re" "$d/place.out"; then
		pass "$cell: place frees main and the hot functions (the reset path: $(grep -m1 '^reset path: ' "$d/place.out" | cut -c13-90))"
	else
		fail "$cell: place moved '$moved' of '$want'"; grep -E 'reset path|kept in flash' "$d/place.out" | head -8
		continue
	fi
	if ! make -s -C "$ex" BUILD="$d/ram" ITERATIONS=3 EXTRA_CFLAGS="$flags" RAMPLACE="$RAMPLACE" "${mkvars[@]}" \
		RAMTEXT_LD="$d/ramtext.ld" >"$d/relink.log" 2>&1; then
		fail "$cell: the relink"; cat "$d/relink.log"; continue
	fi
	if "$RAMPLACE" check --plan "$d/ramtext.ld.plan" "$d/ram/fw.elf" >"$d/check.out" 2>&1 &&
	   run "$arch" "$d/ram/fw.elf" "$d/ram.out" && cmp -s "$d/flash.out" "$d/ram.out"; then
		pass "$cell: check passes and the relinked firmware prints the same"
	else
		fail "$cell: check or the relinked run"; cat "$d/check.out"; diff "$d/flash.out" "$d/ram.out" | head -5
	fi
	pp_funcs "$nm" "$d/flash/fw.elf" >"$d/funcs.txt"
	kind=m3
	[[ $arch == rv* ]] && kind=rv
	for round in $(seq 1 "$(( cells % plan_every == 0 ? shape_plans : 0 ))"); do
		seed=$((round * 7919 + cells))
		pp_profile "$d/funcs.txt" "$seed" "$d/pp.db" "$d/flash/fw.elf"
		budgets=(512 1024 2048 4096)
		[ "$kind" = m3 ] && budgets+=(8192)
		pp_round "$cell random plan $round" "$d/pp$round" "$d/pp.db" "$d/flash/fw.elf" "$d/flash/fw.map" \
			"$(pp_budget "$seed" "${budgets[@]}")" "$kind" "$d/flash.out" "$seed"
	done
	cells=$((cells + 1))
done
echo "startup shapes: $cells of $(wc -w <<<"$shapes") went through place, relink, check and run"
pp_summary "random plans over the generated startups"
finish
