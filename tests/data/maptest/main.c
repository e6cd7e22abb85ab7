/* main.c: the maptest program's entry: calls newlib's memset/memcpy (archive members in the
 * map), a long-named CRC function (GNU ld wraps its section name) and two filters that each
 * have a static function called `step`. Built by build.sh; its map and ELF are test data. */
#include <string.h>

#include "maptest.h"

static unsigned char src_buf[64];
static unsigned char dst_buf[64];

int main(void)
{
	/* volatile length: keeps memset/memcpy as real library calls at -O2 */
	volatile unsigned n = sizeof(src_buf);
	memset(src_buf, 0x5a, n);
	memcpy(dst_buf, src_buf, n);
	unsigned crc = crc32_bitwise_reference_implementation(dst_buf, n);
	int a = filt_a_run(5);
	int b = filt_b_run(5);
	/* exit status 0 when every function computed what it should, wherever it runs from */
	return (crc == MAPTEST_CRC && a == MAPTEST_A && b == MAPTEST_B) ? 0 : 1;
}
