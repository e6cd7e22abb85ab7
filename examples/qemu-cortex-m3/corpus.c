/* corpus.c: builds pseudo-random English-ish text from a small word list. Word text is copied
 * with strlen + memcpy (short copies, so newlib's per-call overhead dominates) and the tail is
 * cleared with memset: that is what puts those library functions in the profile. */
#include <string.h>

#include "corpus.h"
#include "rng.h"

static const char *const words[] = {
	"flash", "ram", "cache", "linker", "section", "veneer", "thumb", "cortex",
	"vector", "reset", "stack", "heap", "profile", "sample", "knapsack", "budget",
	"fragment", "relink", "symbol", "address", "branch", "literal", "the", "a",
	"of", "to", "and", "in", "hot", "cold", "wait", "state",
};

#define WORD_COUNT (sizeof words / sizeof words[0])

/* Mostly spaces, some newlines and commas: enough structure for the LZ stage to find repeats. */
static char separator(uint32_t *rng)
{
	uint32_t r = rng_below(rng, 16);

	return r == 0 ? '\n' : r == 1 ? ',' : ' ';
}

size_t corpus_fill(char *buf, size_t cap, uint32_t *rng)
{
	size_t len = 0;

	for (;;) {
		const char *word = words[rng_below(rng, WORD_COUNT)];
		size_t n = strlen(word);

		if (len + n + 2 > cap)
			break;
		memcpy(buf + len, word, n);
		len += n;
		buf[len++] = separator(rng);
	}
	memset(buf + len, 0, cap - len);
	return len;
}
