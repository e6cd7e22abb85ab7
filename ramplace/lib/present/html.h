/* html.h: the private interface between the pieces of the HTML report (present.h). Not
 * installed. Each piece writes one section of the page:
 *
 *   html_text.c    escaping, the curve's y value, byte counts (the leaf the others call)
 *   html_page.c    the skeleton: head, CSS, summary, the script that sorts, the run section
 *   html_curve.c   the budget curve (inline SVG)
 *   html_memmap.c  the RAM and flash maps: one bar per memory region, one piece per section
 *   html_table.c   the hot functions table and the before/after diff
 *   html_flame.c   the flame graph of the sampled call arcs (inline SVG)
 *   curve_text.c   the curve as text and JSON (not HTML, but the same figures) */
#ifndef RAMPLACE_PRESENT_HTML_H
#define RAMPLACE_PRESENT_HTML_H

#include <stdio.h>
#include "ramplace/present.h"

/* Writes s with &, <, >, " and ' escaped (NULL writes nothing). */
void html_text(FILE *out, const char *s);

/* The y value of a curve point: share of samples in percent, or modeled cycles. */
double html_curve_y(const rp_present_in *in, uint64_t samples);

/* A curve value in words: "5.22 G" (modeled cycles) or "37.5 %" (share of samples), three
 * significant digits. */
const char *html_curve_label(const rp_present_in *in, double y, char *buf, size_t cap);

void html_curve(FILE *out, const rp_present_in *in);
int html_memmap(FILE *out, const rp_present_in *in, rp_err *err);
int html_table(FILE *out, const rp_present_in *in, rp_err *err);
int html_diff(FILE *out, const rp_present_in *in, rp_err *err);
int html_flame(FILE *out, const rp_present_in *in, rp_err *err);

#endif
