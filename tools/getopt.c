/* SPDX-License-Identifier: MIT */
/*
 * getopt.c - getopt_long as the subcommands use it: bundled short options
 * (-qf, -g2), --name=value and --name value, an abbreviation of a long
 * option when it is the prefix of exactly one, and one line of error in
 * the tool's own words instead of getopt's.
 *
 * One abbreviation is refused though unambiguous: a plural option's
 * singular (--gpu for --gpus). It reads as another option ("use GPU 3"),
 * and taking it for the count would run something the user did not ask for.
 */
#include "cli.h"

#include <string.h>

static size_t name_len(const char *a)
{
	return strcspn(a, "=");
}

/* A long option's name as given: 0 exact or a usable abbreviation (*match
 * set), 1 unknown, 2 ambiguous, 3 a plural's singular. */
static int classify(const char *name, size_t len, const struct option *longs,
		    const struct option **match)
{
	const struct option *o, *hit = NULL;
	int hits = 0;

	for (o = longs; o->name; o++) {
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
			*match = o;
			return 0;
		}
	}
	for (o = longs; o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		/* Two names of one option (--no-sim, --real) are one. */
		if (!hit || o->val != hit->val || o->has_arg != hit->has_arg)
			hits++;
		hit = o;
	}
	if (hits == 0)
		return 1;
	if (hits > 1)
		return 2;
	*match = hit;
	if (strlen(hit->name) == len + 1 && hit->name[len] == 's')
		return 3;
	return 0;
}

static const char *suggest_long(const char *name, size_t len, const struct option *longs)
{
	static char buf[64];
	const char *cands[64], *s;
	char given[64];
	size_t n = 0;

	for (; longs->name && n < 63; longs++)
		cands[n++] = longs->name;
	cands[n] = NULL;
	snprintf(given, sizeof(given), "%.*s", (int)len, name);
	s = tool_suggest(given, cands);
	if (!s)
		return NULL;
	snprintf(buf, sizeof(buf), "--%s", s);
	return buf;
}

static void list_prefixed(const char *name, size_t len, const struct option *longs, char *out,
			  size_t cap)
{
	size_t n = 0;

	out[0] = '\0';
	for (; longs->name; longs++)
		if (strncmp(longs->name, name, len) == 0 && n < cap)
			n += (size_t)snprintf(out + n, cap - n, "%s--%s", n ? ", " : "", longs->name);
}

int tool_getopt(const char *cmd, int argc, char **argv, const char *shorts,
		const struct option *longs)
{
	int at = optind ? optind : 1;	/* optind 0: getopt starts over at 1 */
	char optstr[64], names[256];
	const char *a;
	int c;

	/* Long options are looked at before getopt_long does, for the messages
	 * and the rule above. argv[at] starts an element here (a bundle of
	 * short options in progress never starts with "--"). */

	if (at < argc && (a = argv[at]) && a[0] == '-' && a[1] == '-' && a[2]) {
		const struct option *m = NULL;
		size_t len = name_len(a + 2);
		const char *s;

		switch (classify(a + 2, len, longs, &m)) {
		case 1:
			s = suggest_long(a + 2, len, longs);
			if (s)
				usage_err(cmd, "unknown option '%.*s', did you mean '%s'?", (int)len + 2, a, s);
			else
				usage_err(cmd, "unknown option '%.*s'", (int)len + 2, a);
			return '?';
		case 2:
			list_prefixed(a + 2, len, longs, names, sizeof(names));
			usage_err(cmd, "option '%.*s' is ambiguous (%s)", (int)len + 2, a, names);
			return '?';
		case 3:
			usage_err(cmd, "unknown option '%.*s', did you mean '--%s'?", (int)len + 2, a, m->name);
			return '?';
		}
		if (m->has_arg == no_argument && a[2 + len] == '=') {
			usage_err(cmd, "option '--%s' takes no value", m->name);
			return '?';
		}
	}
	snprintf(optstr, sizeof(optstr), "+:%s", shorts);
	opterr = 0;
	c = getopt_long(argc, argv, optstr, longs, NULL);
	if (c == '?') {
		usage_err(cmd, "unknown option '-%c'", optopt);
	} else if (c == ':') {
		a = argv[optind - 1];
		if (a[0] == '-' && a[1] == '-')
			usage_err(cmd, "option '%s' needs a value", a);
		else
			usage_err(cmd, "option '-%c' needs a value", optopt);
		c = '?';
	}
	return c;
}
