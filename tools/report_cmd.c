/* SPDX-License-Identifier: MIT */
/*
 * report_cmd.c - hipsvm report: a saved JSON report, again.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char report_help[] =
"Usage: hipsvm report [--format text|json|csv] FILE.json\n"
"\n"
"Shows a JSON report saved by 'hipsvm run --report FILE.json' (or written by\n"
"the shim to HIPSVM_REPORT). FILE may be '-' for standard input.\n"
"\n"
"  -f, --format FMT   text (default): the report hipsvm run prints\n"
"                     json: the report with every field of hipsvm-report/3\n"
"                           present (missing ones as 0), for scripts\n"
"                     csv:  one value per row: section,id,key,value\n"
"      --color        colour the text even when not writing to a terminal\n"
"\n"
"Fields: docs/report.md.\n";

int cmd_report(int argc, char **argv)
{
	enum report_fmt fmt = FMT_TEXT;
	const char *file = NULL;
	char err[256], *buf;
	struct json *r;
	bool color = tool_color(stdout), dashdash = false;
	size_t len;
	int i, e;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;

		if (!dashdash && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
			fputs(report_help, stdout);
			return 0;
		}
		if (!dashdash && strcmp(a, "--") == 0) {
			dashdash = true;
		} else if (!dashdash && (strcmp(a, "-f") == 0 || strcmp(a, "--format") == 0)) {
			if (++i >= argc)
				return usage_err("report", "option '%s' needs a value", a);
			v = argv[i];
		} else if (!dashdash && strncmp(a, "--format=", 9) == 0) {
			v = a + 9;
		} else if (!dashdash && strcmp(a, "--color") == 0) {
			color = true;
		} else if (!dashdash && a[0] == '-' && a[1]) {
			return usage_err("report", "unknown option '%s'", a);
		} else if (file) {
			return usage_err("report", "one report at a time ('%s' and '%s')", file, a);
		} else {
			file = a;
		}
		if (v && report_parse_fmt(v, &fmt) != 0)
			return usage_err("report", "unknown format '%s' (text, json or csv)", v);
	}
	if (!file)
		return usage_err("report", "no report file given");
	if (fmt != FMT_TEXT)
		color = false;
	e = json_slurp(file, &buf, &len);
	if (e) {
		tool_err("%s: %s", file, strerror(-e));
		return EXIT_USAGE;
	}
	r = json_parse(buf, len, err, sizeof(err));
	free(buf);
	if (!r) {
		tool_err("%s: not valid JSON: %s", file, err);
		return EXIT_USAGE;
	}
	e = report_render(stdout, r, fmt, color, err, sizeof(err));
	json_free(r);
	if (e) {
		tool_err("%s: %s", file, err);
		return EXIT_USAGE;
	}
	if (fflush(stdout) != 0) {
		tool_err("writing the report: %s", strerror(errno));
		return 1;
	}
	return 0;
}
