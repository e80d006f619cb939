/* SPDX-License-Identifier: MIT */
/*
 * render.c - a "hipsvm-report/4" JSON report (or /3, /2, /1) as text, normalised
 * JSON or CSV.
 *
 * Every reader here is tolerant: unknown keys are ignored and a missing value
 * shows as 0 (or "-" for text), so that a report from an older or newer shim
 * still renders. The key lists below are the schema (docs/report.md); the
 * JSON and CSV outputs are driven by them so the three formats cannot drift.
 */
#include "cli.h"
#include "render.h"

#include <errno.h>
#include <string.h>

const char *const dev_keys[] = { "index", "allocations", "frees", "live_bytes", "peak_bytes",
	"quota_bytes", "checkpoints_set", "drains", "drain_timeouts", NULL };
const char *const drain_keys[] = { "count", "median", "max", "total", "hist_lo", NULL };
const char *const fault_keys[] = { "raised", "handled", "dropped", "real", NULL };
const char *const ctx_keys[] = { "allocations", "frees", "live_bytes", "peak_bytes",
	"unmaps_coordinated", NULL };
const char *const routing_keys[] = { "as_hip", "managed_local", "oversubscribed",
	"mapped_all", "quota_denied", NULL };
const char *const unmap_keys[] = { "tracked", "coordinated", "uncoordinated", "partial",
	"live_svm_unmapped", "live_svm_unmapped_bytes", "reentrant_skipped", "refused",
	"freed_after_unmap", "by_hip", NULL };
const char *const hipmem_keys[] = { "pool_trims", "pools_destroyed", "pool_exports",
	"vmm_reserves", "vmm_maps", "vmm_frees", NULL };
const char *const error_keys[] = { "runtime_errors", "unknown_pointer_frees", "trace_events_lost", NULL };
/* the strings schema 4 added after "program" */
const char *const launch_keys[] = { "host", "rank", "rocr_visible_devices", "hip_visible_devices",
	NULL };

#define C_BOLD "\033[1m"
#define C_WARN "\033[33m"
#define C_BAD "\033[31m"
#define C_OFF "\033[0m"

int report_parse_fmt(const char *s, enum report_fmt *out)
{
	if (strcmp(s, "text") == 0)
		*out = FMT_TEXT;
	else if (strcmp(s, "json") == 0)
		*out = FMT_JSON;
	else if (strcmp(s, "csv") == 0)
		*out = FMT_CSV;
	else
		return -EINVAL;
	return 0;
}

const struct json *render_arr(const struct json *r, const char *key)
{
	const struct json *a = json_get(r, key);

	return json_is(a, JSON_ARR) ? a : NULL;
}

size_t render_count(const struct json *a)
{
	return a ? a->n : 0;
}

void report_exit_line(FILE *f, const char *prog, int status, bool color)
{
	const char *on = color ? (status ? C_BAD : C_BOLD) : "", *off = color ? C_OFF : "";

	if (status > 128 && status < 128 + 65)
		fprintf(f, "%shipsvm: %s was killed by SIG%s (exit status %d)%s\n", on, tool_esc(prog),
			sig_name(status - 128), status, off);
	else
		fprintf(f, "%shipsvm: %s exited with status %d%s\n", on, tool_esc(prog), status, off);
}

/* Devices of a context as "0-3" or "0,2" (compact, as taskset prints CPUs). */
void render_dev_list(const struct json *devs, char *buf, size_t cap)
{
	size_t i, n = 0;

	buf[0] = '\0';
	if (!devs || devs->type != JSON_ARR || devs->n == 0) {
		snprintf(buf, cap, "-");
		return;
	}
	for (i = 0; i < devs->n; i++) {
		uint64_t v = devs->items[i]->is_int ? devs->items[i]->u64 : 0, last = v;
		size_t j = i;

		while (j + 1 < devs->n && devs->items[j + 1]->is_int && devs->items[j + 1]->u64 == last + 1)
			last = devs->items[++j]->u64;
		if (j >= i + 2) {
			n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%llu-%llu", i ? "," : "",
					      (unsigned long long)v, (unsigned long long)last);
			i = j;
		} else {
			n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%llu", i ? "," : "",
					      (unsigned long long)v);
		}
	}
}

static void text_header(FILE *f, const struct json *r)
{
	const struct json *hook = json_get(r, "hook");
	char d[32], p[24];

	snprintf(p, sizeof(p), "%llu", (unsigned long long)json_u64(r, "pid", 0));
	fprintf(f, "  pid %s, ran %s, runtime %s, policy %s\n", json_u64(r, "pid", 0) ? p : "-",
		json_get(r, "duration_ns") ? fmt_ns(json_u64(r, "duration_ns", 0), d, sizeof(d)) : "-",
		tool_esc(json_str(r, "runtime", "-")), tool_esc(json_str(r, "policy", "-")));
	if (*json_str(r, "host", "") || *json_str(r, "rank", ""))
		fprintf(f, "  host %s, rank %s\n", *json_str(r, "host", "") ? tool_esc(json_str(r, "host", "")) : "-",
			*json_str(r, "rank", "") ? tool_esc(json_str(r, "rank", "")) : "-");
	fprintf(f, "  checkpoint hook: %s", tool_esc(json_str(hook, "path", "-")));
	if (json_get(hook, "state"))
		fprintf(f, " (%s", tool_esc(json_str(hook, "state", "-")));
	else
		fputs(" (-", f);
	if (json_u64(hook, "version", 0))
		fprintf(f, ", protocol %llu", (unsigned long long)json_u64(hook, "version", 0));
	fputs(")\n", f);
}

/* The median drain time as text. One or two drains: exact (the one, or the
 * mean of the two, from max and total). More: the shim's histogram gives the
 * power-of-two bucket that holds it, shown "~" with its lower bound. */
static const char *median(const struct json *dn, char *buf, size_t cap, bool *bucket)
{
	uint64_t n = json_u64(dn, "count", 0), total = json_u64(dn, "total", 0);
	char t[32];

	if (n == 1)
		return fmt_ns(json_u64(dn, "max", 0), buf, cap);
	if (n == 2)
		return fmt_ns(total / 2, buf, cap);
	*bucket = true;
	snprintf(buf, cap, "~%s", fmt_ns(json_u64(dn, "median", 0), t, sizeof(t)));
	return buf;
}

static void text_devices(FILE *f, const struct json *devs)
{
	bool any_bucket = false;
	char b1[24], b2[24], b3[24], t1[24], t2[24];
	size_t i;

	if (!render_count(devs)) {
		fputs("\n  no GPU was used\n", f);
		return;
	}
	fprintf(f, "\n  %-4s %7s %7s %10s %10s %10s\n", "GPU", "allocs", "frees", "live", "peak", "quota");
	for (i = 0; i < devs->n; i++) {
		const struct json *d = devs->items[i];

		fprintf(f, "  %-4llu %7llu %7llu %10s %10s %10s\n",
			(unsigned long long)json_u64(d, "index", i),
			(unsigned long long)json_u64(d, "allocations", 0),
			(unsigned long long)json_u64(d, "frees", 0),
			fmt_bytes(json_u64(d, "live_bytes", 0), b1, sizeof(b1)),
			fmt_bytes(json_u64(d, "peak_bytes", 0), b2, sizeof(b2)),
			json_u64(d, "quota_bytes", 0) ? fmt_bytes(json_u64(d, "quota_bytes", 0), b3, sizeof(b3)) : "-");
	}
	fprintf(f, "\n  %-4s %8s %8s %8s %6s %12s %7s %9s %9s %9s\n", "GPU", "raised", "handled", "dropped",
		"real", "checkpoints", "drains", "median", "max", "timeouts");
	for (i = 0; i < devs->n; i++) {
		const struct json *d = devs->items[i], *dn = json_get(d, "drain_ns"),
				  *fl = json_get(d, "faults");
		bool drains = json_u64(dn, "count", 0) > 0;

		fprintf(f, "  %-4llu %8llu %8llu %8llu %6llu %12llu %7llu %9s %9s %9llu\n",
			(unsigned long long)json_u64(d, "index", i),
			(unsigned long long)json_u64(fl, "raised", 0),
			(unsigned long long)json_u64(fl, "handled", 0),
			(unsigned long long)json_u64(fl, "dropped", 0),
			(unsigned long long)json_u64(fl, "real", 0),
			(unsigned long long)json_u64(d, "checkpoints_set", 0),
			(unsigned long long)json_u64(d, "drains", 0),
			drains ? median(dn, t1, sizeof(t1), &any_bucket) : "-",
			drains ? fmt_ns(json_u64(dn, "max", 0), t2, sizeof(t2)) : "-",
			(unsigned long long)json_u64(d, "drain_timeouts", 0));
	}
	if (any_bucket)
		fputs("  ~: the median drain time is at least this and under twice this (the shim keeps\n"
		      "  a power-of-two histogram of drain times, not each one)\n", f);
}

static void text_contexts(FILE *f, const struct json *ctxs)
{
	char b1[24], b2[24], dl[128];
	size_t i, idle = 0;

	if (!render_count(ctxs))
		return;
	fprintf(f, "\n  %-14s %-9s %7s %7s %10s %10s %8s\n", "context", "GPUs", "allocs", "frees",
		"live", "peak", "unmaps");
	for (i = 0; i < ctxs->n; i++) {
		const struct json *c = ctxs->items[i];

		/* A primary context that never held anything is noise here
		 * (every GPU has one); host_context is always shown. */
		if (strcmp(json_str(c, "id", ""), "host_context") != 0 && !json_u64(c, "allocations", 0) &&
		    !json_u64(c, "peak_bytes", 0) && !json_u64(c, "unmaps_coordinated", 0)) {
			idle++;
			continue;
		}
		render_dev_list(json_get(c, "devices"), dl, sizeof(dl));
		fprintf(f, "  %-14s %-9s %7llu %7llu %10s %10s %8llu\n", tool_esc(json_str(c, "id", "-")), dl,
			(unsigned long long)json_u64(c, "allocations", 0),
			(unsigned long long)json_u64(c, "frees", 0),
			fmt_bytes(json_u64(c, "live_bytes", 0), b1, sizeof(b1)),
			fmt_bytes(json_u64(c, "peak_bytes", 0), b2, sizeof(b2)),
			(unsigned long long)json_u64(c, "unmaps_coordinated", 0));
	}
	if (idle)
		fprintf(f, "  (%zu unused device context%s not shown)\n", idle, idle == 1 ? "" : "s");
}

static void text_counters(FILE *f, const struct json *r)
{
	const struct json *ro = json_get(r, "routing"), *um = json_get(r, "unmaps"), *er = json_get(r, "errors");
	char b[24];

	fprintf(f, "  routing: %llu as HIP, %llu managed-local, %llu oversubscribed, %llu mapped on all GPUs, %llu over quota\n",
		(unsigned long long)json_u64(ro, "as_hip", 0), (unsigned long long)json_u64(ro, "managed_local", 0),
		(unsigned long long)json_u64(ro, "oversubscribed", 0), (unsigned long long)json_u64(ro, "mapped_all", 0),
		(unsigned long long)json_u64(ro, "quota_denied", 0));
	fprintf(f, "  unmaps:  %llu of tracked ranges: %llu coordinated, %llu uncoordinated, %llu partial; "
		"%llu re-entrant skipped\n",
		(unsigned long long)json_u64(um, "tracked", 0), (unsigned long long)json_u64(um, "coordinated", 0),
		(unsigned long long)json_u64(um, "uncoordinated", 0), (unsigned long long)json_u64(um, "partial", 0),
		(unsigned long long)json_u64(um, "reentrant_skipped", 0));
	fprintf(f, "           %llu unmapped live SVM memory (%s), %llu of those allocations freed afterwards; "
		"%llu refused by the kernel\n", (unsigned long long)json_u64(um, "live_svm_unmapped", 0),
		fmt_bytes(json_u64(um, "live_svm_unmapped_bytes", 0), b, sizeof(b)),
		(unsigned long long)json_u64(um, "freed_after_unmap", 0),
		(unsigned long long)json_u64(um, "refused", 0));
	fprintf(f, "  errors:  %llu HIP runtime errors, %llu frees of unknown pointers\n",
		(unsigned long long)json_u64(er, "runtime_errors", 0),
		(unsigned long long)json_u64(er, "unknown_pointer_frees", 0));
	if (json_u64(er, "trace_events_lost", 0))
		fprintf(f, "  trace:   %llu events could not be written (the trace is incomplete)\n",
			(unsigned long long)json_u64(er, "trace_events_lost", 0));
}

/* The lines a person should not miss, after the tables. */
static void text_findings(FILE *f, const struct json *r, bool color)
{
	const struct json *devs = render_arr(r, "devices"), *um = json_get(r, "unmaps"),
			  *er = json_get(r, "errors"), *hook = json_get(r, "hook");
	uint64_t tmo = 0, dropped = 0, real = 0, live = 0, n;
	const char *on = color ? C_WARN : "", *off = color ? C_OFF : "";
	char b[24];
	size_t i;
	int shown = 0;

	for (i = 0; i < render_count(devs); i++) {
		const struct json *d = devs->items[i];

		tmo += json_u64(d, "drain_timeouts", 0);
		dropped += json_u64(json_get(d, "faults"), "dropped", 0);
		real += json_u64(json_get(d, "faults"), "real", 0);
		if (!render_count(render_arr(r, "contexts")))
			live += json_u64(d, "live_bytes", 0);
	}
	for (i = 0; i < render_count(render_arr(r, "contexts")); i++)
		live += json_u64(render_arr(r, "contexts")->items[i], "live_bytes", 0);
	fputc('\n', f);
	if ((n = json_u64(um, "live_svm_unmapped", 0))) {
		fprintf(f, "  %s! %llu unmap%s of live SVM memory (%s) that GPUs could still fault on%s\n",
			on, (unsigned long long)n, n == 1 ? "" : "s",
			fmt_bytes(json_u64(um, "live_svm_unmapped_bytes", 0), b, sizeof(b)), off);
		shown++;
	}
	if ((n = json_u64(um, "uncoordinated", 0))) {
		fprintf(f, "  %s! %llu unmap%s of tracked memory went without a checkpoint (no hook?)%s\n",
			on, (unsigned long long)n, n == 1 ? "" : "s", off);
		shown++;
	}
	if (tmo) {
		fprintf(f, "  %s! %llu drain%s timed out: faults may still have been in flight%s\n", on,
			(unsigned long long)tmo, tmo == 1 ? "" : "s", off);
		shown++;
	}
	if (real) {
		fprintf(f, "  %s! %llu GPU fault%s hit unmapped memory (real errors)%s\n", on,
			(unsigned long long)real, real == 1 ? "" : "s", off);
		shown++;
	}
	if (dropped) {
		fprintf(f, "  %llu stale fault%s dropped by the checkpoint filter (raised on a mapping being torn down)\n",
			(unsigned long long)dropped, dropped == 1 ? " was" : "s were");
		shown++;
	}
	if ((n = json_u64(json_get(r, "routing"), "oversubscribed", 0))) {
		fprintf(f, "  %llu allocation%s did not fit device memory and became managed memory\n",
			(unsigned long long)n, n == 1 ? "" : "s");
		shown++;
	}
	if ((n = json_u64(json_get(r, "routing"), "quota_denied", 0))) {
		fprintf(f, "  %s! %llu allocation%s denied by the device quota%s\n", on,
			(unsigned long long)n, n == 1 ? " was" : "s were", off);
		shown++;
	}
	if ((n = json_u64(er, "unknown_pointer_frees", 0))) {
		fprintf(f, "  %s! %llu free%s of a pointer HIP never returned%s\n", on,
			(unsigned long long)n, n == 1 ? "" : "s", off);
		shown++;
	}
	if ((n = json_u64(er, "runtime_errors", 0))) {
		fprintf(f, "  %llu HIP call%s returned an error\n", (unsigned long long)n, n == 1 ? "" : "s");
		shown++;
	}
	if (live) {
		fprintf(f, "  %s of HIP memory still allocated at exit\n", fmt_bytes(live, b, sizeof(b)));
		shown++;
	}
	if (strcmp(json_str(hook, "state", "none"), "error") == 0) {
		fprintf(f, "  %s! the checkpoint hook could not be used: unmaps were not coordinated%s\n", on, off);
		shown++;
	}
	if (!shown)
		fputs("  no unmap races, drain timeouts or errors\n", f);
}

static void render_text(FILE *f, const struct json *r, bool color)
{
	const char *on = color ? C_BOLD : "", *off = color ? C_OFF : "";

	fprintf(f, "%shipsvm report%s for %s\n", on, off, tool_esc(json_str(r, "program", "-")));
	text_header(f, r);
	text_devices(f, render_arr(r, "devices"));
	text_contexts(f, render_arr(r, "contexts"));
	fputc('\n', f);
	text_counters(f, r);
	text_findings(f, r, color);
}

int report_render(FILE *f, const struct json *r, enum report_fmt fmt, bool color,
		  char *err, size_t errcap)
{
	const char *schema = json_str(r, "schema", NULL);

	if (!json_is(r, JSON_OBJ)) {
		snprintf(err, errcap, "not a hipsvm report: the top level is not a JSON object");
		return -EINVAL;
	}
	if (schema ? strncmp(schema, "hipsvm-report/", 14) != 0 : !json_get(r, "devices")) {
		snprintf(err, errcap, "not a hipsvm report (schema \"%s\", expected \"hipsvm-report/4\")",
			 schema ? tool_esc(schema) : "missing");
		return -EINVAL;
	}
	if (!f)
		return 0;	/* only checked */
	switch (fmt) {
	case FMT_TEXT:
		/* /1 lacks what /2 added, /2 the histograms, /3 the launch: shown as zeros */
		if (schema && strcmp(schema, "hipsvm-report/4") != 0 &&
		    strcmp(schema, "hipsvm-report/3") != 0 &&
		    strcmp(schema, "hipsvm-report/2") != 0 && strcmp(schema, "hipsvm-report/1") != 0)
			fprintf(f, "(schema %s is newer than this tool: showing the fields it knows)\n",
				tool_esc(schema));
		render_text(f, r, color);
		break;
	case FMT_JSON:
		render_json(f, r);
		break;
	case FMT_CSV:
		render_csv(f, r);
		break;
	}
	return 0;
}
