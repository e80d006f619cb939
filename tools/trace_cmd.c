/* SPDX-License-Identifier: MIT */
/*
 * trace_cmd.c - hipsvm trace: a run (or saved raw events) as a Perfetto trace.
 */
#include "cli.h"
#include "shim/outname.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static const char trace_help[] =
"Usage: hipsvm trace [-o OUT.json] [RUN OPTIONS] [--] PROGRAM [ARGS...]\n"
"       hipsvm trace --from EVENTS.jsonl [--report R.json] [-o OUT.json]\n"
"\n"
"Writes a Chrome/Perfetto trace (JSON) of a run: one track per GPU with the\n"
"checkpoint windows (set to clear) and drains, one track for host_context\n"
"and for each device:N context with the allocation lifetimes, unmaps, and\n"
"counters for live bytes and GPU faults over time. Open it at\n"
"https://ui.perfetto.dev (Open trace file) or in chrome://tracing.\n"
"The first form runs PROGRAM like 'hipsvm run' (and prints the same report);\n"
"the second converts raw events saved with 'hipsvm run --trace FILE'.\n"
"\n"
"  -o, --output FILE    the trace to write (default hipsvm-trace.%h.%p.json; '-' =\n"
"                       stdout, and then the program's own stdout goes to stderr).\n"
"                       %p pid, %h host, %r MPI/Slurm rank, %e{VAR} a variable\n"
"      --from FILE      convert this raw event file instead of running a program\n"
"      --report FILE    with --from: the run's JSON report (names the process)\n"
"\n";

/* The events file must be one that can be read as such: a directory, a
 * missing or unreadable file is an input error (exit 2), said before the
 * output is opened, so that a bad --from never truncates an earlier trace. */
static int input_ok(const char *events)
{
	struct stat sb;
	int fd = open(events, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		tool_err("%s: %s", events, strerror(errno));
		return EXIT_USAGE;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > JSON_EVENTS_MAX) {
		tool_err("%s: %s", events, S_ISDIR(sb.st_mode) ?
			 "a directory, not a trace file (give the events file HIPSVM_TRACE wrote)" :
			 !S_ISREG(sb.st_mode) ? json_slurp_strerror(-EINVAL) :
			 (uint64_t)sb.st_size > JSON_EVENTS_MAX ? json_slurp_strerror(-EFBIG) :
			 strerror(errno));
		close(fd);
		return EXIT_USAGE;
	}
	close(fd);
	return 0;
}

static int convert(const char *events, const char *outpath, const char *report_path,
		   const struct json *report, bool quiet)
{
	const char *inputs[] = { events, report_path, NULL };
	struct trace_stats st;
	struct tool_out t = { .f = stdout };
	char err[512];
	bool to_stdout = strcmp(outpath, "-") == 0;
	int rc = input_ok(events);

	if (rc)
		return rc;
	if (!to_stdout && tool_out_open(&t, outpath, inputs, "the trace", NULL))
		return 1;
	rc = trace_convert(events, t.f, report, &st, err, sizeof(err));
	if (rc) {
		tool_err("%s%s", err, to_stdout ? "" : ": the trace not written");
		if (!to_stdout)
			tool_out_close(&t, false);
		return rc == -ENOENT || rc == -EFBIG ? EXIT_USAGE : 1;
	}
	if (to_stdout) {
		if (fflush(stdout) != 0) {
			tool_err("writing the trace: %s", tool_errno(-errno, err, sizeof(err)));
			return 1;
		}
	} else if (tool_out_close(&t, true)) {
		return 1;
	}
	if (st.events == 0)
		tool_err("warning: %s holds no trace event: the trace is empty", events);
	if (st.undrawn)
		tool_err("note: %zu allocation%s not drawn: more than 64 were live at once in one context "
			 "(the live-bytes counters include them)", st.undrawn, st.undrawn == 1 ? "" : "s");
	if (st.undrawn_gpu)
		tool_err("note: %zu drain%s or checkpoint window%s not drawn: more than 64 overlapped on one GPU",
			 st.undrawn_gpu, st.undrawn_gpu == 1 ? "" : "s", st.undrawn_gpu == 1 ? "" : "s");
	if (st.bad_lines)
		tool_err("warning: %zu malformed line%s in %s skipped", st.bad_lines,
			 st.bad_lines == 1 ? "" : "s", events);
	if (!quiet && !to_stdout) {
		char d[32];

		tool_err("trace written to %s: %zu event%s over %s on %zu track%s; open it at https://ui.perfetto.dev",
			 outpath, st.events, st.events == 1 ? "" : "s",
			 fmt_ns(st.last_ns - st.first_ns, d, sizeof(d)), st.tracks, st.tracks == 1 ? "" : "s");
	}
	return 0;
}

/* The -o name for this pid ("-" as it is); checked before the run. */
static const char *expand_out(const char *out, int pid, char *buf, size_t cap)
{
	if (strcmp(out, "-") == 0 || hipsvm_outname(out, pid, environ, buf, cap) != 0)
		return out;
	return buf;
}

static struct json *load_report(const char *path)
{
	char *buf, err[128];
	struct json *r = NULL;
	size_t len;

	if (json_slurp(path, &buf, &len, JSON_REPORT_MAX) == 0) {
		r = json_parse(buf, len, err, sizeof(err));
		free(buf);
	}
	return r;
}

int cmd_trace(int argc, char **argv)
{
	struct run_opts o = { .sim = -1 };
	const char *out = "hipsvm-trace.%h.%p.json", *from = NULL;
	char outpath[PATH_MAX];
	struct json *report = NULL;
	char path[8192];
	struct run_args x = { 0 };
	int i, r, code;

	code = run_parse_args("trace", &o, argc, argv, &x);
	if (code >= 0 || x.help) {
		if (x.help) {
			fputs(trace_help, stdout);
			fputs(run_opts_help, stdout);
		}
		free(o.env);
		return x.help ? 0 : code;
	}
	i = x.first;
	from = x.from;
	if (x.output)
		out = x.output;
	if (!*out) {
		free(o.env);
		return usage_err("trace", "-o needs a file name");
	}
	/* A bad name is said before anything runs. */
	r = strcmp(out, "-") == 0 ? 0 : hipsvm_outname(out, 0, environ, outpath, sizeof(outpath));
	if (r) {
		free(o.env);
		return usage_err("trace", "-o '%s': %s", out, r == -EINVAL ?
				 "%e needs a variable name in braces, e.g. %e{SLURM_JOB_ID}" : "name too long");
	}
	if (from) {
		if (i < argc) {
			free(o.env);
			return usage_err("trace", "--from converts a saved file: no program is run ('%s')", argv[i]);
		}
		if (o.report)
			report = load_report(o.report);
		code = convert(from, expand_out(out, (int)getpid(), outpath, sizeof(outpath)), o.report,
			       report, o.quiet);
		json_free(report);
		free(o.env);
		return code;
	}
	if (i >= argc) {
		free(o.env);
		return usage_err("trace", "no program given: hipsvm trace [-o OUT.json] -- PROGRAM [ARGS...]");
	}
	o.argv = argv + i;
	o.stdout_to_stderr = strcmp(out, "-") == 0;
	code = run_program(&o, true);
	if (o.pid > 0) {
		snprintf(path, sizeof(path), "%s/report.%d.json", o.workdir, o.pid);
		report = load_report(path);
		if (access(o.events, R_OK) != 0)
			tool_err("no trace events were written (did the shim load? try 'hipsvm check %s')", o.argv[0]);
		else if (convert(o.events, expand_out(out, o.pid, outpath, sizeof(outpath)), NULL, report,
				 o.quiet) != 0 && code == 0)
			code = 1;
	}
	json_free(report);
	run_cleanup(&o);
	free(o.env);
	return code;
}
