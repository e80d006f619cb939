/* SPDX-License-Identifier: MIT */
/*
 * run_report.c - after hipsvm run: the reports the shim left in the run's
 * private directory (report.<pid>.json, one per process that had the shim),
 * rendered on stderr and copied where the user asked.
 */
#include "cli.h"
#include "shim/options.h"
#include "shim/outname.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define MAX_REPORTS 256

extern char **environ;

/* The shim's report, read whole and checked, then written to its place:
 * the place is touched only once the input is known good. */
static int copy_file(const char *from, const char *to)
{
	const char *inputs[] = { from, NULL };
	struct tool_out t;
	char *buf;
	size_t len;
	int err = json_slurp(from, &buf, &len, JSON_REPORT_MAX);

	if (err) {
		char why[128];

		(void)why;
		tool_err("%s: %s: the report not saved to %s", from, json_slurp_strerror(err), to);
		return err;
	}
	if (tool_out_open(&t, to, inputs, "the report", NULL)) {
		free(buf);
		return -EIO;
	}
	fwrite(buf, 1, len, t.f);
	free(buf);
	return tool_out_close(&t, true) ? -EIO : 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The pids that left a report, sorted, the program's own first. */
static size_t list_reports(const char *dir, int main_pid, int *pids, bool *main_found)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	size_t n = 0;

	*main_found = false;
	if (!dp)
		return 0;
	while ((d = readdir(dp)) && n < MAX_REPORTS) {
		int pid;
		char tail[8];

		if (sscanf(d->d_name, "report.%d.%7s", &pid, tail) == 2 && strcmp(tail, "json") == 0) {
			if (pid == main_pid)
				*main_found = true;
			else
				pids[n++] = pid;
		}
	}
	closedir(dp);
	qsort(pids, n, sizeof(*pids), cmp_int);
	return n;
}

static struct json *load(const char *dir, int pid, char *path, size_t cap)
{
	char *buf, err[256];
	struct json *r = NULL;
	size_t len;

	snprintf(path, cap, "%s/report.%d.json", dir, pid);
	if (json_slurp(path, &buf, &len, JSON_REPORT_MAX) != 0)
		return NULL;
	r = json_parse(buf, len, err, sizeof(err));
	free(buf);
	if (!r)
		tool_err("the shim's report for pid %d is not valid JSON (%s)", pid, err);
	return r;
}

/* A process that never reached a HIP runtime (a shell, a helper) has
 * nothing to say: its report is not shown when following. */
static bool used_hip(const struct json *r)
{
	const struct json *devs = json_get(r, "devices");

	return strcmp(json_str(r, "runtime", "unknown"), "unknown") != 0 ||
	       (json_is(devs, JSON_ARR) && devs->n > 0);
}

/* The template a child's report is saved under: FILE itself when it tells
 * processes apart (%p), else FILE with ".%p" before its ".json" (or at the
 * end), so that following never overwrites or drops a report. */
static void child_template(const char *file, char *out, size_t cap)
{
	size_t n = strlen(file);

	if (hipsvm_outname_per_process(file))
		snprintf(out, cap, "%s", file);
	else if (n > 5 && strcmp(file + n - 5, ".json") == 0)
		snprintf(out, cap, "%.*s.%%p.json", (int)(n - 5), file);
	else
		snprintf(out, cap, "%s.%%p", file);
}

/* 0, or -errno (said on stderr). */
static int save(const struct run_opts *o, const char *tmpl, const char *from, int pid)
{
	char dest[PATH_MAX];
	int e;

	e = hipsvm_outname(tmpl, pid, environ, dest, sizeof(dest));
	if (e == -EINVAL) {
		tool_err("%s: %%e needs a variable name in braces, e.g. %%e{SLURM_JOB_ID}: report not saved",
			 tmpl);
	} else if (e) {
		tool_err("%s: path too long: report not saved", tmpl);
	} else if ((e = copy_file(from, dest)) != 0) {
		/* said by copy_file */
	} else if (!o->quiet) {
		tool_err("report saved to %s", dest);
	}
	return e;
}

/* Into run -o's file (even with -q: it was asked for), else on stderr. */
static void render(const struct run_opts *o, const struct json *r, bool color)
{
	FILE *f = o->text_out ? o->text_out : stderr;
	char err[256];

	if (o->quiet && !o->text_out)
		return;
	fputc('\n', f);
	if (report_render(f, r, FMT_TEXT, o->text_out ? false : color, err, sizeof(err)) != 0)
		tool_err("%s", err);
}

int run_show_reports(struct run_opts *o, const char *prog, int code, int raw)
{
	int pids[MAX_REPORTS], failed = 0;
	char path[PATH_MAX + 64], child_tmpl[PATH_MAX];
	bool main_found, color = tool_color(stderr), want_save = o->report && *o->report;
	size_t n = list_reports(o->workdir, o->pid, pids, &main_found), i, hidden = 0, renamed = 0;
	struct json *r;

	if (o->text_out) {
		report_exit_line(o->text_out, prog, code, false);
	} else if (!o->quiet) {
		fputc('\n', stderr);
		report_exit_line(stderr, prog, code, color);
	}
	if (main_found && (r = load(o->workdir, o->pid, path, sizeof(path)))) {
		uint64_t lost = json_u64(json_get(r, "errors"), "trace_events_lost", 0);

		if (lost && o->events[0]) {
			tool_err("the trace %s is incomplete: %llu event%s could not be written "
				 "(the shim said why above)", o->events, (unsigned long long)lost,
				 lost == 1 ? "" : "s");
			failed++;
		}
		render(o, r, color);
		if (want_save && save(o, o->report, path, o->pid))
			failed++;
		json_free(r);
	} else if (WIFSIGNALED(raw)) {
		tool_err("no report: %s was killed before the shim could write one%s", prog,
			 want_save ? ": the report was not saved" : "");
		if (want_save)
			failed++;
	} else if (n && !o->follow) {
		tool_err("%s itself wrote no report, %zu process%s it started did: use --follow to see them",
			 prog, n, n == 1 ? "" : "es");
	} else if (!n) {
		/* The shim writes at exit: a program that leaves by _exit or
		 * replaces itself by exec runs no exit handler, and one without
		 * the shim writes nothing; hipsvm cannot tell which from here. */
		tool_err("no report from the shim: %s ended without running its exit handlers "
			 "(_exit, or exec of another program), or the shim did not load or saw no "
			 "HIP runtime (try 'hipsvm check %s')%s", prog, prog,
			 want_save ? ": the report was not saved" : "");
		if (want_save)
			failed++;
	}
	if (!o->follow) {
		if (n && main_found && !o->quiet)
			tool_err("note: %zu child process%s had the shim too (--follow shows %s)", n,
				 n == 1 ? "" : "es", n == 1 ? "its report" : "their reports");
		return failed;
	}
	if (want_save)
		child_template(o->report, child_tmpl, sizeof(child_tmpl));
	for (i = 0; i < n; i++) {
		r = load(o->workdir, pids[i], path, sizeof(path));
		if (!r)
			continue;
		if (!used_hip(r)) {
			hidden++;
		} else {
			render(o, r, color);
			if (want_save) {
				if (save(o, child_tmpl, path, pids[i]))
					failed++;
				else if (strcmp(child_tmpl, o->report) != 0)
					renamed++;
			}
		}
		json_free(r);
	}
	if (renamed)
		tool_err("note: '%s' has no %%p: %s of %zu child process%s saved as %s (pid for %%p)", o->report,
			 renamed == 1 ? "the report" : "the reports", renamed, renamed == 1 ? "" : "es",
			 child_tmpl);
	if (hidden && !o->quiet)
		tool_err("%zu other process%s did not use HIP (not shown)", hidden, hidden == 1 ? "" : "es");
	return failed;
}
