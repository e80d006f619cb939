/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the pieces of the hipsvm command, one file per subcommand.
 *
 * Exit codes (docs/cli.md): 0 success; 1 a failure of hipsvm itself (or, for
 * check, "not visible"); 2 a usage error or an unusable input file; for run and
 * trace, the program's own status (128+N when signal N killed it), 126 when it
 * cannot be executed and 127 when it is not found, as a shell does.
 */
#ifndef HIPSVM_TOOLS_CLI_H
#define HIPSVM_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <getopt.h>

#include "json.h"
#include "shim/outfile.h"

#define EXIT_USAGE 2
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

#ifndef HIPSVM_TOOL_VERSION
#define HIPSVM_TOOL_VERSION "0.0.0"
#endif

/* "hipsvm: <message>\n" on stderr. */
void tool_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* tool_err with " (see 'hipsvm <cmd> --help')" on the same line; EXIT_USAGE. */
int usage_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether stderr/stdout is a terminal that takes colour (NO_COLOR respected). */
bool tool_color(FILE *f);

int cmd_run(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_options(int argc, char **argv);

/* locate.c: where the shim and the simulated runtime are. */
struct tool_paths {
	char shim[4096];	/* libhipsvm.so */
	char simdir[4096];	/* the directory holding libamdhip64.so.5 */
	const char *shim_from;	/* "HIPSVM_SHIM_PATH", "build tree", "installed" */
	const char *sim_from;
};
/* Fills p; returns a bitmask: 1 shim found, 2 sim found. Never fails. */
unsigned tool_locate(struct tool_paths *p);
/* The candidates tried, for error messages. */
void tool_locate_explain(FILE *f);

/* run.c: runs a program under the shim; used by run and trace. */
struct run_opts {
	int sim;		/* -1 auto (no /dev/kfd), 0 real runtime, 1 simulator */
	const char *gpus, *policy, *hook, *report, *trace, *sim_mem;
	const char **env;	/* NAME=VALUE, n_env of them */
	size_t n_env;
	bool quiet;		/* no human report */
	bool verbose;		/* print what is being run */
	bool follow;		/* exec'd children keep the shim; report them all */
	bool stdout_to_stderr;	/* the program's stdout goes to our stderr (trace -o -) */
	FILE *text_out;		/* run -o: the text report goes there, not to stderr */
	const char *format;	/* human report format: text (default) */
	char **argv;		/* the program and its arguments */
	/* filled by run_program */
	char workdir[4096];	/* temp directory, removed by run_cleanup */
	char events[4096];	/* raw event file of this run (when traced) */
	int pid;
	int unsaved;		/* reports that could not be saved */
};
/* Returns the exit code to give (the program's, or 125..127 / 1 / 2). */
int run_program(struct run_opts *o, bool want_events);
void run_cleanup(struct run_opts *o);
/* run_sample.c: waitpid(pid, st, 0) that meanwhile, every period_ms, appends
 * the GPU fault counters of the program's hook (hook: the HIPSVM_HOOK value,
 * NULL for auto) to the raw events file as "faults" lines, for the GPUs whose
 * counters changed. Returns what waitpid returned. */
#define RUN_SAMPLE_MS 10
pid_t run_wait_sampling(pid_t pid, int *st, const char *events, const char *hook,
			unsigned period_ms);
/* run_env.c: the program's environment (NULL-terminated in v). */
struct run_env {
	char **v;
	size_t n, cap;
};
int run_env_build(struct run_opts *o, const struct tool_paths *tp, bool sim, bool want_events,
		  struct run_env *e, const char **user_report);
const char *run_env_get(char **env, const char *name);
void run_env_free(struct run_env *e, const struct run_opts *o);
/* run_report.c: the report(s) the shim wrote into o->workdir, shown and saved.
 * Returns how many could not be saved (each said on stderr). */
int run_show_reports(struct run_opts *o, const char *prog, int code, int raw);
/* The options of run and trace (getopt_long through tool_getopt). */
struct run_args {
	const char *output;	/* -o: run's text report, trace's trace */
	const char *from;	/* trace --from */
	bool help;
	int first;		/* argv index of the program */
};
/* -1 when parsed (x->first set; x->help when --help was asked, nothing
 * else parsed), else the exit code after saying why (EXIT_USAGE). */
int run_parse_args(const char *cmd, struct run_opts *o, int argc, char **argv, struct run_args *x);
extern const char run_opts_help[];

/* getopt.c: getopt_long from optind, for a subcommand: shorts as getopt's
 * optstring (without the leading '+:'), longs NULL-terminated. The option
 * (optarg set), -1 at the first operand or after "--" (optind there), or
 * '?' after a one-line usage error on stderr: an unknown option (with a
 * suggestion), an ambiguous abbreviation, a plural option's singular
 * (--gpu is not --gpus), a missing value, a value given to a flag. */
int tool_getopt(const char *cmd, int argc, char **argv, const char *shorts,
		const struct option *longs);

/* render.c: the human/json/csv report from a parsed "hipsvm-report/2". */
enum report_fmt { FMT_TEXT, FMT_JSON, FMT_CSV };
int report_parse_fmt(const char *s, enum report_fmt *out);
/* 0, or -EINVAL when r is not a report object (message in err). f NULL:
 * only checks. */
int report_render(FILE *f, const struct json *r, enum report_fmt fmt, bool color,
		  char *err, size_t errcap);
/* html.c: one self-contained HTML page of the report r (checked by
 * report_render first) and, when events is not NULL, of the run's raw trace
 * events. 0, or -errno with a message in err (-ENOENT/-EINVAL: the events
 * file cannot be read or holds no event). */
int report_html(FILE *f, const struct json *r, const char *events, char *err, size_t errcap);
/* s as HTML text or attribute value (both pages): <>&" escaped, control
 * characters replaced by '?'. */
void html_esc(FILE *f, const char *s);
/* The one-line run summary above the text report. */
void report_exit_line(FILE *f, const char *prog, int status, bool color);

/* perfetto.c: raw JSON-lines events -> Chrome/Perfetto trace JSON. */
struct trace_stats {
	size_t events, bad_lines, tracks;
	size_t undrawn;		/* allocations past the lanes of their context */
	size_t undrawn_gpu;	/* drains and windows past the lanes of their GPU */
	uint64_t first_ns, last_ns;
};
/* report may be NULL (used for the process name and pid). -errno with a
 * message in err. */
int trace_convert(const char *events_path, FILE *out, const struct json *report,
		  struct trace_stats *st, char *err, size_t errcap);

/* output.c: a file of the command's, written as outfile.h writes. */
#define TOOL_OUT_MAX_INPUTS 64
struct tool_out {
	struct hipsvm_outfile o;
	struct hipsvm_outfile_input in[TOOL_OUT_MAX_INPUTS];
	FILE *f;		/* write here */
	const char *what;	/* "the report", for messages */
};
/* The target checked and refused when it is one of inputs (NULL-terminated
 * paths, NULL for none), then its temporary file opened as t->f. 0, or -1
 * after saying why in one line (note, when not NULL, ends it) ("cannot write the trace to PATH: ENOSPC (...)"). */
int tool_out_open(struct tool_out *t, const char *path, const char *const *inputs, const char *what,
		  const char *note);
/* keep: flush, fsync, rename over the target; 0, or 1 after saying why.
 * !keep: the temporary file removed, the target untouched; 0. */
int tool_out_close(struct tool_out *t, bool keep);
/* "ENOSPC (No space left on device)", or the refusal of outfile.h. */
const char *tool_errno(int err, char *buf, size_t cap);

/* util.c */
/* "1.5 MiB" style, into buf. */
const char *fmt_bytes(uint64_t n, char *buf, size_t cap);
/* "2.3 ms" style. */
const char *fmt_ns(uint64_t ns, char *buf, size_t cap);
/* The candidate closest to given (at most 2 edits away), or NULL. */
const char *tool_suggest(const char *given, const char *const *cands);
/* s printable on a terminal: C0/C1 controls, DEL and bytes that start no
 * UTF-8 character as \xHH or \uHHHH, a backslash doubled; printable UTF-8
 * as it is. For every string that came from a file or a program. tool_esc
 * returns one of 8 rotating static buffers (up to 8 KiB, then "..."). */
const char *tool_esc(const char *s);
void tool_esc_into(char *out, size_t cap, const char *s);
/* Returns the signal's name without SIG ("SEGV") or "?". */
const char *sig_name(int sig);

#endif
