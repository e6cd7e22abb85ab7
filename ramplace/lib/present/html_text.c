/* html_text.c: what every piece of the HTML report shares (html.h): escaping names from input
 * for HTML, the curve's y value, and byte counts in words. A leaf: it calls no other piece, so
 * the pieces and the page skeleton never call each other in a circle. Owns nothing. */
#include "html.h"

void html_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}

double html_curve_y(const rp_present_in *in, uint64_t samples)
{
	if (in->cycles_per_sample > 0)
		return (double)samples * in->cycles_per_sample;
	uint64_t total = in->totals->total;
	return total ? 100.0 * (double)samples / (double)total : 0.0;
}

const char *html_curve_label(const rp_present_in *in, double y, char *buf, size_t cap)
{
	if (in->cycles_per_sample > 0)
		return rp_present_count(y, buf, cap);
	snprintf(buf, cap, "%.3g %%", y);
	return buf;
}

const char *rp_present_bytes(uint64_t n, char *buf, size_t cap)
{
	if (n >= 1024 * 1024 && n % (1024 * 1024) == 0)
		snprintf(buf, cap, "%llu MiB", (unsigned long long)(n >> 20));
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, cap, "%llu KiB", (unsigned long long)(n >> 10));
	else if (n >= 1024)
		snprintf(buf, cap, "%.1f KiB", (double)n / 1024.0);
	else
		snprintf(buf, cap, "%llu B", (unsigned long long)n);
	return buf;
}

const char *rp_present_count(double v, char *buf, size_t cap)
{
	static const char prefix[] = " kMGT";
	int k = 0;
	double a = v < 0 ? -v : v;
	/* 999.6 k would print "1e+03 k": step up once the rounded value reaches 1,000 */
	while (k < 4 && a >= 999.5) {
		a /= 1000.0;
		v /= 1000.0;
		k++;
	}
	if (k == 0 && v == (double)(long long)v)
		snprintf(buf, cap, "%lld", (long long)v);
	else if (k == 0)
		snprintf(buf, cap, "%.3g", v);
	else
		snprintf(buf, cap, "%.3g %c", v, prefix[k]);
	return buf;
}
