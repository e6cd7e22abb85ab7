/* cli_args.c: helpers every subcommand may call (see cli.h): the usage error and option-value
 * parsers shared by several subcommands. They sit here, not in main.c, so that main.c only
 * calls into the commands and nothing calls back into it. Owns nothing. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_usage_error(rp_err *err, const char *cmd, const char *what)
{
	return rp_err_set(err, RP_EUSAGE, "%s: %s (see 'ramplace %s --help')", cmd, what, cmd);
}

int cli_parse_remote(char *host, size_t hostcap, int *port, const char *text, const char *cmd, rp_err *err)
{
	const char *colon = strrchr(text, ':');
	const char *h = text;
	size_t hlen = colon ? (size_t)(colon - text) : 0;
	if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {   /* [IPv6]:port */
		h++;
		hlen -= 2;
	}
	char *end = NULL;
	unsigned long p = 0;
	errno = 0;
	if (colon && isdigit((unsigned char)colon[1]))
		p = strtoul(colon + 1, &end, 10);
	if (!colon || hlen == 0 || hlen >= hostcap || !end || *end || errno || p < 1 || p > 65535)
		return cli_usage_error(err, cmd, "--remote wants HOST:PORT with a port in 1..65535");
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	*port = (int)p;
	return 0;
}

int cli_push(const char ***list, size_t *n, const char *s, rp_err *err)
{
	const char **bigger = realloc(*list, (*n + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "reading options");
	*list = bigger;
	bigger[(*n)++] = s;
	return 0;
}
