/* SPDX-License-Identifier: MIT */
/*
 * util.c - messages and number formatting shared by the subcommands.
 */
#include "cli.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim/utf8.h"

void tool_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("hipsvm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("hipsvm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* One line: the error and where to look, so that it greps as one. */
	fprintf(stderr, " (see 'hipsvm %s%s--help')\n", cmd ? cmd : "", cmd ? " " : "");
	return EXIT_USAGE;
}

bool tool_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (nc && *nc)
		return false;
	if (!term || strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(f));
}

const char *fmt_bytes(uint64_t n, char *buf, size_t cap)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, cap, "%llu B", (unsigned long long)n);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, cap, v < 10 ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

const char *fmt_ns(uint64_t ns, char *buf, size_t cap)
{
	if (ns < 1000)
		snprintf(buf, cap, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, cap, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, cap, "%.2f s", (double)ns / 1e9);
	return buf;
}

const char *sig_name(int sig)
{
	const char *d = sigabbrev_np(sig);

	return d ? d : "?";
}

/* Levenshtein distance, capped: only small ones matter for a suggestion. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[64], i, j, prev, tmp, la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = a[i - 1] == b[j - 1] ? prev :
				 1 + (prev < row[j] ? (prev < row[j - 1] ? prev : row[j - 1]) :
					  (row[j] < row[j - 1] ? row[j] : row[j - 1]));
			prev = tmp;
		}
	}
	return row[lb];
}

const char *tool_suggest(const char *given, const char *const *cands)
{
	const char *best = NULL;
	unsigned d, best_d = 3;

	for (; *cands; cands++) {
		d = edit_distance(given, *cands);
		if (d < best_d) {
			best_d = d;
			best = *cands;
		}
	}
	return best;
}

/* Rotating buffers: a few escaped strings may sit in one printf. */
#define ESC_BUFS 8
#define ESC_CAP 8192

const char *tool_esc(const char *s)
{
	static char bufs[ESC_BUFS][ESC_CAP];
	static unsigned next;
	char *out = bufs[next++ % ESC_BUFS];

	tool_esc_into(out, ESC_CAP, s);
	return out;
}

void tool_esc_into(char *out, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = 0, left = strlen((const char *)p), k;

	if (!cap)
		return;
	while (left && n + 5 < cap) {
		unsigned cp = 0;

		k = *p < 0x80 ? 1 : hipsvm_utf8_len(p, left);
		if (k == 2)
			cp = ((unsigned)(p[0] & 0x1f) << 6) | (p[1] & 0x3f);
		if (k == 1 && *p >= 0x20 && *p != 0x7f && *p != '\\') {
			out[n++] = (char)*p;
		} else if (k == 1 && *p == '\\') {
			out[n++] = '\\';
			out[n++] = '\\';
		} else if (k > 1 && !(k == 2 && cp >= 0x80 && cp < 0xa0)) {
			memcpy(out + n, p, k);	/* a printable character */
			n += k;
		} else {
			/* C0 and C1 controls, DEL, and bytes that start no
			 * character: ESC ] 0 ; would set a window title. */
			if (k == 2) {
				n += (size_t)snprintf(out + n, cap - n, "\\u%04x", cp);
			} else {
				k = 1;
				n += (size_t)snprintf(out + n, cap - n, "\\x%02x", *p);
			}
		}
		p += k;
		left -= k;
	}
	if (left && n + 4 <= cap) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n < cap ? n : cap - 1] = '\0';
}
