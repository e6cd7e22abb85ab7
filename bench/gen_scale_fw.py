#!/usr/bin/env python3
# gen_scale_fw.py: writes a synthetic Cortex-M3 firmware of N functions and a profile for it, for
# bench/bench_scale.sh (the scaling table of issue 14, item 6).
#
# Usage: gen_scale_fw.py gen|prof N OUTDIR [SEED]
# With SINGLE_OBJECT=1 in the environment, every function goes to one file (mod0.s), as a
# one-step, unity or LTO build puts a whole firmware in one object.
#
# OUTDIR receives: mod*.s (Thumb-2 assembly, one file per ~200 functions, as GCC emits it with
# -ffunction-sections: one .text.NAME section per function, .file for the statics), start.s (the
# vector table and a reset handler that copies .ramtext with an inline loop, then calls main),
# fw.ld (FLASH and RAM regions, .ramtext before the .text catch-all, INCLUDE ramtext.ld) and
# profile.prof ("offset count" lines, Itsy profd style; the offsets are computed after linking,
# so this script is run twice: `gen` writes the sources, `prof` reads the linked fw.elf).
#
# Realism, as firmware builds have it: calls between functions across files (and to statics in
# the same file), static functions of the same name in many files, .part.N / .constprop.N /
# .isra.N clones and .cold parts (in .text.unlikely.NAME), function sizes with a long tail, and a
# profile whose samples follow a heavy-tailed (Zipf) law over half of the functions.
# Generation is assembly rather than C because GCC on 200,000 functions takes minutes; the ELF is
# still a real link with a map. Deterministic for a given N and SEED.
import os
import random
import struct
import sys

PER_FILE = 200
SINGLE_OBJECT = os.environ.get("SINGLE_OBJECT", "") not in ("", "0")
STATICS = ("init_state", "helper", "lookup", "update")


def func_names(n, rng):
    """[(file index, name, is_static, section name)] of n functions: globals, statics of the same
    names in every file, and clones (local, as GCC makes them) beside some of their parents."""
    out = []
    nfiles = 1 if SINGLE_OBJECT else max(1, (n + PER_FILE - 1) // PER_FILE)
    i = 0
    while len(out) < n:
        f = i % nfiles
        k = i // nfiles
        i += 1
        if k < len(STATICS):
            out.append((f, STATICS[k], True, ".text." + STATICS[k]))
            continue
        base = "m%d_fn%d" % (f, k)
        out.append((f, base, False, ".text." + base))
        r = rng.random()
        if r < 0.03:
            out.append((f, base + ".part.0", True, ".text." + base + ".part.0"))
        elif r < 0.05:
            out.append((f, base + ".constprop.0", True, ".text." + base + ".constprop.0"))
        elif r < 0.06:
            out.append((f, base + ".isra.0", True, ".text." + base + ".isra.0"))
        elif r < 0.07:
            out.append((f, base + ".cold", True, ".text.unlikely." + base))
    return out[:n]


def body_size(rng):
    """Number of 2-byte filler instructions: most functions small, a long tail of big ones."""
    return min(int(rng.paretovariate(1.3)) * 3, 600)


def write_module(path, f, funcs, callees_global, rng):
    lines = ['\t.syntax unified', '\t.cpu cortex-m3', '\t.thumb', '\t.file "mod%d.c"' % f]
    local = [name for (_, name, static, _) in funcs if static]
    for (_, name, static, sect) in funcs:
        lines.append('\t.section %s,"ax",%%progbits' % sect)
        lines.append('\t.align 1')
        if not static:
            lines.append('\t.global %s' % name)
        lines.append('\t.thumb_func')
        lines.append('\t.type %s, %%function' % name)
        lines.append('%s:' % name)
        lines.append('\tpush {r4, lr}')
        for _ in range(body_size(rng)):
            lines.append('\tadds r0, #1')
        for _ in range(rng.randint(0, 3)):
            if local and rng.random() < 0.3:
                lines.append('\tbl %s' % rng.choice(local))
            else:
                lines.append('\tbl %s' % rng.choice(callees_global))
        lines.append('\tpop {r4, pc}')
        lines.append('\t.size %s, .-%s' % (name, name))
    with open(path, "w") as fp:
        fp.write("\n".join(lines) + "\n")


START = """\t.syntax unified
\t.cpu cortex-m3
\t.thumb
\t.file "start.c"
\t.section .vectors,"a",%progbits
\t.word _estack
\t.word Reset_Handler
\t.section .boot.text,"ax",%progbits
\t.align 1
\t.global Reset_Handler
\t.thumb_func
\t.type Reset_Handler, %function
Reset_Handler:
\tldr r0, =__ramtext_start
\tldr r1, =__ramtext_load
\tldr r2, =__ramtext_end
1:\tcmp r0, r2
\tbhs 2f
\tldr r3, [r1], #4
\tstr r3, [r0], #4
\tb 1b
2:\tbl main
3:\tb 3b
\t.size Reset_Handler, .-Reset_Handler
\t.section .text.main,"ax",%progbits
\t.align 1
\t.global main
\t.thumb_func
\t.type main, %function
main:
\tpush {r4, lr}
"""

LDSCRIPT = """/* fw.ld: the synthetic firmware's memory map (bench/gen_scale_fw.py). */
ENTRY(Reset_Handler)
MEMORY
{
\tFLASH (rx)  : ORIGIN = 0x08000000, LENGTH = 16M
\tRAM   (rwx) : ORIGIN = 0x20000000, LENGTH = 256K
}
_estack = ORIGIN(RAM) + LENGTH(RAM);
SECTIONS
{
\t.vectors : { KEEP(*(.vectors)) *(.boot.text .boot.text.*) } > FLASH
\t.ramtext : ALIGN(4)
\t{
\t\t__ramtext_start = .;
\t\t*(.ramtext .ramtext.*)
\t\tINCLUDE ramtext.ld
\t\t. = ALIGN(4);
\t\t__ramtext_end = .;
\t} > RAM AT> FLASH
\t__ramtext_load = LOADADDR(.ramtext);
\t.text : { *(.text .text.*) } > FLASH
\t.note.gnu.build-id : { KEEP(*(.note.gnu.build-id)) } > FLASH
\t.data : { *(.data .data.*) } > RAM AT> FLASH
\t.bss : { *(.bss .bss.*) } > RAM
}
"""


def gen(n, outdir, seed):
    rng = random.Random(seed)
    funcs = func_names(n, rng)
    glob = [name for (_, name, static, _) in funcs if not static]
    byfile = {}
    for x in funcs:
        byfile.setdefault(x[0], []).append(x)
    for f in sorted(byfile):
        write_module("%s/mod%d.s" % (outdir, f), f, byfile[f], glob, rng)
    start = START
    for name in rng.sample(glob, min(len(glob), 8)):
        start += "\tbl %s\n" % name
    start += "\tpop {r4, pc}\n\t.size main, .-main\n"
    with open(outdir + "/start.s", "w") as fp:
        fp.write(start)
    with open(outdir + "/fw.ld", "w") as fp:
        fp.write(LDSCRIPT)
    with open(outdir + "/ramtext.ld", "w") as fp:
        fp.write("")


def elf_funcs(path):
    """(segments [(offset, vaddr, filesz)], function addresses) of a 32-bit little-endian ELF."""
    data = open(path, "rb").read()
    e_phoff, e_shoff = struct.unpack_from("<II", data, 28)
    e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from("<HHHH", data, 42)
    segs = []
    for i in range(e_phnum):
        p_type, p_off, p_vaddr, _, p_filesz = struct.unpack_from("<IIIII", data, e_phoff + i * e_phentsize)
        if p_type == 1:
            segs.append((p_off, p_vaddr, p_filesz))
    addrs = []
    for i in range(e_shnum):
        sh = struct.unpack_from("<IIIIIIIIII", data, e_shoff + i * e_shentsize)
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        off, size, entsize = sh[4], sh[5], sh[9]
        for j in range(size // entsize):
            _, value, _, info, _, shndx = struct.unpack_from("<IIIBBH", data, off + j * entsize)
            if info & 0xF == 2 and shndx != 0:  # STT_FUNC, defined
                addrs.append(value & ~1)
    return segs, sorted(set(addrs))


def prof(outdir, seed):
    rng = random.Random(seed + 1)
    segs, addrs = elf_funcs(outdir + "/fw.elf")
    hot = rng.sample(addrs, max(1, len(addrs) // 2))
    lines = ["image fw.elf", "version 2.1"]
    for rank, a in enumerate(hot, 1):
        count = max(1, int(1000000 / rank ** 1.1))
        for (off, vaddr, filesz) in segs:
            if vaddr <= a < vaddr + filesz:
                lines.append("%x %d" % (a - vaddr + off, count))
                break
    with open(outdir + "/profile.prof", "w") as fp:
        fp.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("gen", "prof"):
        sys.exit("usage: gen_scale_fw.py gen|prof N OUTDIR [SEED]")
    n, outdir = int(sys.argv[2]), sys.argv[3]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 14
    gen(n, outdir, seed) if sys.argv[1] == "gen" else prof(outdir, seed)
