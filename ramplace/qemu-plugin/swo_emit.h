/* swo_emit.h: the SWO stream libramplace-qemu.so emits on request: the DWT PC sampler of a
 * Cortex-M as a probe would capture it (swo_emit.c). ramplace_qemu.c hands it the options it
 * does not know, every translation and the exit; nothing else. */
#ifndef RAMPLACE_SWO_EMIT_H
#define RAMPLACE_SWO_EMIT_H

struct qemu_plugin_tb;

/* One plugin option: swo=FILE|tcp:PORT, swo-interval=N, swo-tpiu=on|off. Returns 1 when it
 * was one of these (and valid), 0 when it is not an SWO option, -1 (message printed) when it
 * is one with a bad value. */
int swo_emit_option(const char *arg);
/* Opens the output when swo= was given: a temporary file beside FILE, or a listening socket
 * on 127.0.0.1:PORT. Returns 0 (also when SWO is off), or -1 with a message printed. */
int swo_emit_start(void);
/* A new translation: its instructions' addresses are kept and counted as they execute. */
void swo_emit_translate(struct qemu_plugin_tb *tb);
/* The end: the last frame and bytes out, the file renamed into place or the client closed. */
void swo_emit_stop(void);

#endif
