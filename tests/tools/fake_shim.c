/* SPDX-License-Identifier: MIT */
/*
 * fake_shim.c - a stand-in for libhipsvm.so in the CLI's own tests, so that
 * `hipsvm run` (exit codes, environment, report and trace plumbing) is tested
 * without the real shim. At exit it copies FAKESHIM_REPORT to HIPSVM_REPORT
 * and FAKESHIM_EVENTS to HIPSVM_TRACE (%p expanded), as the shim would write
 * them. It never touches HIP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void expand(const char *tmpl, char *out, size_t cap)
{
	size_t n = 0;

	for (; *tmpl && n + 16 < cap; tmpl++) {
		if (tmpl[0] == '%' && tmpl[1] == 'p') {
			n += (size_t)snprintf(out + n, cap - n, "%d", (int)getpid());
			tmpl++;
		} else {
			out[n++] = *tmpl;
		}
	}
	out[n] = '\0';
}

static void copy(const char *from, const char *to_tmpl)
{
	char to[4096], buf[8192];
	FILE *in, *out;
	size_t n;

	if (!from || !to_tmpl || !*from || !*to_tmpl)
		return;
	expand(to_tmpl, to, sizeof(to));
	in = fopen(from, "r");
	if (!in)
		return;
	out = fopen(to, "w");
	if (out) {
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, out);
		fclose(out);
	}
	fclose(in);
}

__attribute__((destructor)) static void fake_shim_fini(void)
{
	copy(getenv("FAKESHIM_REPORT"), getenv("HIPSVM_REPORT"));
	copy(getenv("FAKESHIM_EVENTS"), getenv("HIPSVM_TRACE"));
}
