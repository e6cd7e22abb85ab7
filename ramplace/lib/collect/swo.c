/* swo.c: the streaming SWO decoder of swo.h. Two layers, each a byte-at-a-time state machine
 * so that chunk boundaries never matter:
 *  - the TPIU deformatter (CoreSight formatter, continuous mode): full syncs FF FF FF 7F align
 *    16-byte frames; bytes are taken in halfword pairs and a halfword sync FF 7F in a pair is
 *    idle padding; in a frame, an even byte with bit 0 set changes the source ID (aux bit set:
 *    after the following odd byte), an even data byte takes its bit 0 from the aux byte 15;
 *  - the ITM/DWT packet decoder (ARMv7-M ARM D4.2): sync (at least 47 zero bits then a 1,
 *    i.e. five zero bytes then 0x80, recognised in any state), overflow 0x70, local and global
 *    timestamps and extension packets (continuation bit 7, bounded length), source packets of
 *    1, 2 or 4 payload bytes; DWT discriminator 2 is the PC sample (0x17 + PC, 0x15 0x00 when
 *    the core sleeps). A malformed packet is an error and the decoder waits for the next sync,
 *    as orbuculum does; the bytes it skips meanwhile are counted, never silently dropped.
 * Owns the decoder and its detection buffer. Workload: captures of megabytes at 100 kHz PC
 * sampling (five bytes a sample), fed live in socket-sized chunks or as one mapped file. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/swo.h"

enum itm_state { ITM_IDLE, ITM_SOURCE, ITM_CONT, ITM_UNSYNCED };

typedef struct itm {
	enum itm_state state;
	uint8_t header;
	uint8_t need, got;       /* source: payload bytes; cont: bytes so far */
	uint8_t max;             /* cont: most bytes after the header */
	uint8_t payload[4];
	uint64_t zeros;          /* consecutive zero bytes just seen */
	uint64_t unsynced;       /* bytes seen since the sync was lost */
} itm;

typedef struct tpiu {
	int synced;
	uint32_t shift;          /* the last four bytes, for the full sync */
	uint8_t frame[16];
	unsigned pos;            /* bytes of the frame kept */
	int have_low;            /* the first byte of a pair is in frame[pos] */
	unsigned cur_id;         /* source ID of the next data byte */
	uint64_t unsynced;       /* bytes seen before the first full sync */
} tpiu;

struct rp_swo {
	rp_swo_opts opts;
	rp_swo_pc_fn on_pc;
	void *ctx;
	rp_swo_stats st;
	uint64_t at;             /* input offset of the byte being decoded */
	itm itm;
	tpiu tp;
	uint8_t *held;           /* framing undecided: the first bytes */
	size_t nheld;
	uint32_t detect_shift;
	int detected_sync;
};

static void error_at(rp_swo *d)
{
	if (d->st.errors++ == 0)
		d->st.first_error = d->at;
}

/* ---- ITM/DWT packets ---- */

static void itm_lose_sync(rp_swo *d)
{
	error_at(d);
	d->itm.state = ITM_UNSYNCED;
	d->itm.unsynced = 0;
}

static int itm_source_done(rp_swo *d, rp_err *err)
{
	itm *m = &d->itm;
	unsigned disc = m->header >> 3;
	m->state = ITM_IDLE;
	if (!(m->header & 4) || disc != 2) {
		d->st.other_packets++;
		return 0;
	}
	if (m->need == 4) {
		uint32_t pc = (uint32_t)m->payload[0] | (uint32_t)m->payload[1] << 8 |
			      (uint32_t)m->payload[2] << 16 | (uint32_t)m->payload[3] << 24;
		d->st.samples++;
		return d->on_pc(d->ctx, pc, err);
	}
	if (m->need == 1 && m->payload[0] == 0) {
		d->st.sleeping++;
		return 0;
	}
	error_at(d);   /* a PC sample of 2 bytes, or a 1-byte one that is not "sleeping" */
	return 0;
}

static void itm_cont(itm *m, uint8_t header, uint8_t max)
{
	m->state = ITM_CONT;
	m->header = header;
	m->got = 0;
	m->max = max;
}

/* The first byte of a packet. */
static void itm_header(rp_swo *d, uint8_t c)
{
	itm *m = &d->itm;
	if (c == 0x00)
		return;   /* part of a sync (recognised on its 0x80) or padding */
	if (c & 3) {
		m->state = ITM_SOURCE;
		m->header = c;
		m->need = (c & 3) == 3 ? 4 : (uint8_t)(c & 3);
		m->got = 0;
	} else if (c == 0x70) {
		d->st.overflows++;
	} else if ((c & 0x0f) == 0) {
		/* local timestamp: format 1 (bit 7, up to 4 more bytes), format 2 (one byte) */
		if (c & 0x80)
			itm_cont(m, c, 4);
		else
			d->st.other_packets++;
	} else if ((c & 0xdf) == 0x94) {
		itm_cont(m, c, c & 0x20 ? 6 : 4);   /* global timestamp 1 or 2 */
	} else if (c & 0x80) {
		itm_cont(m, c, 4);   /* extension with continuation, or reserved multi-byte */
	} else {
		d->st.other_packets++;   /* extension (stimulus page) or reserved, one byte */
	}
}

static int itm_byte(rp_swo *d, uint8_t c, rp_err *err)
{
	itm *m = &d->itm;
	uint64_t zeros = m->zeros;
	m->zeros = c == 0 ? zeros + 1 : 0;
	if (c == 0x80 && zeros >= 5) {   /* sync, whatever was going on */
		if (m->state == ITM_UNSYNCED)
			d->st.skipped += m->unsynced - (zeros < m->unsynced ? zeros : m->unsynced);
		m->state = ITM_IDLE;
		d->st.syncs++;
		return 0;
	}
	switch (m->state) {
	case ITM_IDLE:
		itm_header(d, c);
		return 0;
	case ITM_SOURCE:
		m->payload[m->got++] = c;
		return m->got == m->need ? itm_source_done(d, err) : 0;
	case ITM_CONT:
		m->got++;
		if (!(c & 0x80)) {
			m->state = ITM_IDLE;
			d->st.other_packets++;
		} else if (m->got >= m->max) {
			itm_lose_sync(d);   /* longer than the protocol allows */
		}
		return 0;
	case ITM_UNSYNCED:
		m->unsynced++;
		return 0;
	}
	return 0;
}

/* ---- TPIU frames ---- */

static int tpiu_data(rp_swo *d, unsigned id, uint8_t c, rp_err *err)
{
	if (id == 0)
		return 0;   /* the null source: padding */
	if (d->st.stream_id == 0)
		d->st.stream_id = d->opts.stream_id ? d->opts.stream_id : id;
	if (id != d->st.stream_id) {
		d->st.other_stream++;
		return 0;
	}
	return itm_byte(d, c, err);
}

static int tpiu_frame(rp_swo *d, rp_err *err)
{
	tpiu *t = &d->tp;
	uint8_t aux = t->frame[15];
	int rc = 0;
	d->st.frames++;
	for (unsigned i = 0; i < 16 && !rc; i += 2, aux >>= 1) {
		uint8_t b = t->frame[i];
		unsigned later = 0x100;   /* an ID change that takes effect after the odd byte */
		if (b & 1) {
			unsigned id = b >> 1;
			if (id >= 0x70)
				error_at(d);   /* reserved IDs; 0x7f cannot occur outside a sync */
			if (aux & 1)
				later = id;
			else
				t->cur_id = id;
		} else {
			rc = tpiu_data(d, t->cur_id, (uint8_t)(b | (aux & 1)), err);
		}
		if (!rc && i < 14)
			rc = tpiu_data(d, t->cur_id, t->frame[i + 1], err);
		if (later != 0x100)
			t->cur_id = later;
	}
	return rc;
}

static int tpiu_byte(rp_swo *d, uint8_t c, rp_err *err)
{
	tpiu *t = &d->tp;
	t->shift = t->shift << 8 | c;
	if (t->shift == 0xffffff7fu) {
		/* a sync at a frame boundary holds its own three FF bytes; more is a cut frame */
		if (t->synced && t->pos + (unsigned)t->have_low > 3) {
			/* ITM bytes went with the frame: where the next packet starts is unknown */
			itm_lose_sync(d);
		} else if (!t->synced) {
			d->st.skipped += t->unsynced - (t->unsynced < 3 ? t->unsynced : 3);   /* not the sync's FF FF FF */
		}
		t->synced = 1;
		t->pos = 0;
		t->have_low = 0;
		d->st.frame_syncs++;
		return 0;
	}
	if (!t->synced) {
		t->unsynced++;
		return 0;
	}
	if (!t->have_low) {
		t->frame[t->pos] = c;
		t->have_low = 1;
		return 0;
	}
	t->have_low = 0;
	if (t->frame[t->pos] == 0xff && c == 0x7f)
		return 0;   /* halfword sync: idle */
	t->frame[t->pos + 1] = c;
	t->pos += 2;
	if (t->pos < 16)
		return 0;
	t->pos = 0;
	return tpiu_frame(d, err);
}

/* ---- the stream ---- */

static int decode(rp_swo *d, const uint8_t *p, size_t len, rp_err *err)
{
	int rc = 0;
	for (size_t i = 0; i < len && !rc; i++, d->at++)
		rc = d->st.framed ? tpiu_byte(d, p[i], err) : itm_byte(d, p[i], err);
	return rc;
}

/* The framing is known: what was held back is decoded as such. */
static int decide(rp_swo *d, int framed, rp_err *err)
{
	d->st.framed = framed;
	size_t n = d->nheld;
	d->nheld = 0;
	int rc = decode(d, d->held, n, err);
	free(d->held);
	d->held = NULL;
	return rc;
}

int rp_swo_new(rp_swo **out, const rp_swo_opts *opts, rp_swo_pc_fn on_pc, void *ctx, rp_err *err)
{
	rp_swo *d = calloc(1, sizeof(*d));
	*out = NULL;
	if (!d)
		return rp_err_nomem(err, "an SWO decoder");
	if (opts)
		d->opts = *opts;
	d->on_pc = on_pc;
	d->ctx = ctx;
	d->st.framed = d->opts.framing == RP_SWO_FRAMING_AUTO ? -1 : d->opts.framing == RP_SWO_FRAMING_TPIU;
	if (d->st.framed < 0 && !(d->held = malloc(RP_SWO_DETECT_BYTES))) {
		free(d);
		return rp_err_nomem(err, "an SWO decoder");
	}
	*out = d;
	return 0;
}

void rp_swo_free(rp_swo *d)
{
	if (d) {
		free(d->held);
		free(d);
	}
}

int rp_swo_feed(rp_swo *d, const void *buf, size_t len, rp_err *err)
{
	const uint8_t *p = buf;
	d->st.bytes += len;
	while (d->st.framed < 0 && len) {
		d->detect_shift = d->detect_shift << 8 | *p;
		d->detected_sync |= d->detect_shift == 0xffffff7fu;
		d->held[d->nheld++] = *p++;
		len--;
		if (d->detected_sync || d->nheld == RP_SWO_DETECT_BYTES) {
			int rc = decide(d, d->detected_sync, err);
			if (rc)
				return rc;
		}
	}
	return decode(d, p, len, err);
}

int rp_swo_finish(rp_swo *d, rp_err *err)
{
	int rc = d->st.framed < 0 ? decide(d, d->detected_sync, err) : 0;
	if (d->itm.state == ITM_UNSYNCED) {
		d->st.skipped += d->itm.unsynced;
		d->itm.unsynced = 0;
	}
	if (d->st.framed && !d->tp.synced) {
		d->st.skipped += d->tp.unsynced;   /* a "framed" capture without one full sync */
		d->tp.unsynced = 0;
	}
	d->st.truncated = d->itm.state == ITM_SOURCE || d->itm.state == ITM_CONT ||
			  (d->st.framed && d->tp.synced && (d->tp.pos || d->tp.have_low));
	return rc;
}

const rp_swo_stats *rp_swo_get_stats(const rp_swo *d)
{
	return &d->st;
}

int rp_swo_framing_parse(rp_swo_framing *out, const char *text, rp_err *err)
{
	if (strcmp(text, "auto") == 0)
		*out = RP_SWO_FRAMING_AUTO;
	else if (strcmp(text, "raw") == 0 || strcmp(text, "itm") == 0)
		*out = RP_SWO_FRAMING_RAW;
	else if (strcmp(text, "tpiu") == 0)
		*out = RP_SWO_FRAMING_TPIU;
	else
		return rp_err_set(err, RP_EUSAGE, "unknown SWO framing '%s' (auto, raw, tpiu)", text);
	return 0;
}
