/* html_flame.c: the flame graph of the sampled call arcs (present.h), as inline SVG: the
 * profile's folded stacks (report.h, rp_report_folded: each function's self time shared among
 * its callers along the arcs) merged into a tree and drawn root at the top. Frames narrower
 * than a pixel are left out, so 50,000 functions still draw quickly. Owns the folded text and
 * the tree while drawing. Workload: up to tens of thousands of stacks, 64 frames deep. */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "ramplace/util.h"

#define FW 1000.0
#define ROW 16.0
#define MAXDEPTH 66

typedef struct fnode {
	const char *name;       /* into the folded text */
	size_t parent;
	unsigned depth;
	double value, x, cursor;
} fnode;

typedef struct flame {
	fnode *nodes;
	size_t n, cap;
	unsigned maxdepth;
} flame;

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_node(flame *f, const char *name, size_t parent, unsigned depth, rp_err *err)
{
	if (rp_grow((void **)&f->nodes, &f->cap, f->n + 1, sizeof(fnode), err))
		return err->code;
	f->nodes[f->n++] = (fnode){ name, parent, depth, 0, 0, 0 };
	if (depth > f->maxdepth)
		f->maxdepth = depth;
	return 0;
}

/* One "a;b;c value" line (frames cut in place); path holds the previous line's nodes. */
static int add_line(flame *f, char *line, size_t *path, unsigned *plen, rp_err *err)
{
	char *sp = strrchr(line, ' ');
	if (!sp)
		return 0;
	*sp = '\0';
	double v = strtod(sp + 1, NULL);
	unsigned d = 1;
	int diverged = 0;
	for (char *fr = line, *next; fr && d < MAXDEPTH; fr = next, d++) {
		next = strchr(fr, ';');
		if (next)
			*next++ = '\0';
		if (!diverged && d < *plen && !strcmp(f->nodes[path[d]].name, fr))
			continue;
		diverged = 1;
		if (add_node(f, fr, path[d - 1], d, err))
			return err->code;
		path[d] = f->n - 1;
	}
	*plen = d;
	for (unsigned k = 0; k < d; k++)
		f->nodes[path[k]].value += v;
	return 0;
}

/* Sorted lines share their prefixes, so each stack extends the previous one's path. */
static int build(flame *f, char *text, rp_err *err)
{
	size_t nlines = 0, cap = 0;
	char **lines = NULL;
	int rc = add_node(f, "all", 0, 0, err);
	for (char *s = text, *nl; !rc && s && *s; s = nl) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = '\0';
		if (!(rc = rp_grow((void **)&lines, &cap, nlines + 1, sizeof(char *), err)))
			lines[nlines++] = s;
	}
	rp_sort(lines, nlines, sizeof(char *), by_text);
	size_t path[MAXDEPTH + 1] = { 0 };
	unsigned plen = 1;
	for (size_t i = 0; !rc && i < nlines; i++)
		rc = add_line(f, lines[i], path, &plen, err);
	free(lines);
	/* preorder: a parent is placed before its children, siblings in order */
	for (size_t i = 1; !rc && i < f->n; i++) {
		fnode *p = &f->nodes[f->nodes[i].parent];
		f->nodes[i].x = p->cursor;
		f->nodes[i].cursor = p->cursor;
		p->cursor += f->nodes[i].value;
	}
	return rc;
}

static unsigned hue(const char *s)
{
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return 10 + h % 50;
}

static void draw(FILE *out, const flame *f)
{
	double total = f->nodes[0].value > 0 ? f->nodes[0].value : 1;
	double h = (f->maxdepth + 1) * ROW;
	size_t drawn = 0;
	fprintf(out, "<svg id=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		FW, h, FW, h);
	for (size_t i = 0; i < f->n; i++) {
		const fnode *nd = &f->nodes[i];
		double w = nd->value / total * FW, x = nd->x / total * FW;
		if (w < 1.0)
			continue;
		drawn++;
		fputs("<g><title>", out);
		html_text(out, nd->name);
		fprintf(out, ": %.6g (%.2f %%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"hsl(%u,80%%,60%%)\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
			nd->value, 100.0 * nd->value / total, x, nd->depth * ROW, w, ROW - 1, hue(nd->name));
		if (w > 40) {
			int chars = (int)(w / 7) - 1;
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, nd->depth * ROW + 12);
			char buf[256];
			snprintf(buf, sizeof(buf), "%.*s", chars < 250 ? chars : 250, nd->name);
			html_text(out, buf);
			fputs("</text>", out);
		}
		fputs("</g>\n", out);
	}
	fprintf(out, "</svg>\n<p class=\"muted\">%zu of %zu frame(s) drawn (the rest are narrower than a pixel).</p>\n", drawn,
		f->n);
}

int html_flame(FILE *out, const rp_present_in *in, rp_err *err)
{
	fputs("<h2 id=\"flame-graph\">Where the time goes: flame graph</h2>\n", out);
	if (!in->prof->narcs) {
		fputs("<p>No call arcs in this profile (record samples the return address with each PC; "
		      "gmon.out counts calls).</p>\n", out);
		return 0;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return rp_err_nomem(err, "drawing the flame graph");
	rp_report_folded(m, in->prof);
	if (fclose(m) != 0) {
		free(text);
		return rp_err_nomem(err, "drawing the flame graph");
	}
	flame f = { 0 };
	int rc = build(&f, text, err);
	if (!rc)
		draw(out, &f);
	free(f.nodes);
	free(text);
	return rc;
}
