/* SPDX-License-Identifier: MIT */
/*
 * report_cmd.c - hipsvm report: a saved JSON report, again.
 */
#include "cli.h"
#include "job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char report_help[] =
"Usage: hipsvm report [--format text|json|csv] [-o OUT] FILE.json\n"
"       hipsvm report --html OUT.html [--events EVENTS.jsonl] FILE.json\n"
"       hipsvm report [--format ...] [-o OUT | --html OUT.html] FILE|DIR...\n"
"\n"
"Shows a JSON report saved by 'hipsvm run --report FILE.json' (or written by\n"
"the shim to HIPSVM_REPORT). FILE may be '-' for standard input.\n"
"Several reports, or a directory (its *.json), show the job: a row per rank,\n"
"totals, min/median/max and the rank farthest from the median.\n"
"\n"
"  -f, --format FMT   text (default): the report hipsvm run prints\n"
"                     json: the report with every field of hipsvm-report/4\n"
"                           present (missing ones as 0), for scripts\n"
"                     csv:  one value per row: section,id,key,value\n"
"  -o, --output OUT   write there instead of standard output\n"
"      --color        colour the text even when not writing to a terminal\n"
"      --html OUT     one self-contained HTML page (inline SVG, nothing fetched):\n"
"                     drain latency per GPU, unmaps and their outcome, and with\n"
"                     --events also faults and live bytes over time\n"
"      --events FILE  the run's raw trace events (hipsvm run --trace FILE)\n"
"\n"
"Fields: docs/report.md.\n";

static const struct option report_longs[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "color", no_argument, NULL, 'C' },
	{ "html", required_argument, NULL, 'H' },
	{ "events", required_argument, NULL, 'E' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool is_dir(const char *path)
{
	struct stat sb;

	return strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int cmd_report(int argc, char **argv)
{
	enum report_fmt fmt = FMT_TEXT;
	const char *file = NULL, *out = NULL, *html = NULL, *events = NULL;
	char err[256], *buf;
	struct json *r;
	bool color = tool_color(stdout), color_forced = false;
	FILE *f = stdout;
	struct tool_out t;
	size_t len;
	int c, e;

	optind = 0;
	while ((c = tool_getopt("report", argc, argv, "f:o:h", report_longs)) != -1) {
		switch (c) {
		case 'f':
			if (report_parse_fmt(optarg, &fmt) != 0)
				return usage_err("report", "unknown format '%s' (text, json or csv)", optarg);
			break;
		case 'o': out = optarg; break;
		case 'C': color_forced = true; break;
		case 'H': html = optarg; break;
		case 'E': events = optarg; break;
		case 'h':
			fputs(report_help, stdout);
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_err("report", "no report file given");
	file = argv[optind];
	if (html && out)
		return usage_err("report", "--html names its own output: -o is for the other formats");
	if (events && !html)
		return usage_err("report", "--events goes with --html");
	if (out || html)
		color = false;
	if (color_forced)
		color = true;
	if (fmt != FMT_TEXT)
		color = false;
	if (optind + 1 < argc || is_dir(file)) {
		if (events)
			return usage_err("report", "--events is for one report, not a job");
		return cmd_report_job(argv + optind, (size_t)(argc - optind), fmt, out, html, color);
	}
	e = json_slurp(file, &buf, &len, JSON_REPORT_MAX);
	if (e) {
		tool_err("%s: %s", file, json_slurp_strerror(e));
		return EXIT_USAGE;
	}
	r = json_parse(buf, len, err, sizeof(err));
	free(buf);
	if (!r) {
		tool_err("%s: not valid JSON: %s", file, err);
		return EXIT_USAGE;
	}
	/* Checked before the output is opened: a bad input never truncates it. */
	e = report_render(NULL, r, fmt, false, err, sizeof(err));
	if (e) {
		tool_err("%s: %s", file, err);
		json_free(r);
		return EXIT_USAGE;
	}
	if (out || html) {
		const char *inputs[] = { file, events, NULL };

		if (tool_out_open(&t, html ? html : out, inputs, html ? "the page" : "the report", NULL)) {
			json_free(r);
			return 1;
		}
		f = t.f;
	}
	if (html) {
		e = report_html(f, r, events, err, sizeof(err));
		if (e)
			tool_err("%s%s", err, ": the page not written");
	} else {
		e = report_render(f, r, fmt, color, err, sizeof(err));
		if (e)
			tool_err("%s: %s", file, err);
	}
	json_free(r);
	if (f != stdout) {
		/* Only a whole page or report replaces what was there. */
		if (tool_out_close(&t, !e) && !e)
			e = -EIO;
	} else if (fflush(f) != 0 && !e) {
		tool_err("writing the report: %s", tool_errno(-errno, err, sizeof(err)));
		e = -EIO;
	}
	if (e == -ENOENT || e == -EINVAL || e == -EFBIG)
		return EXIT_USAGE;	/* an events file missing, unreadable or too big */
	return e ? 1 : 0;
}
