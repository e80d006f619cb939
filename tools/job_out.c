/* SPDX-License-Identifier: MIT */
/*
 * job_out.c - the job view as text, JSON ("hipsvm-job/1") and CSV, and the
 * subcommand's job mode (job.h). The three are driven by job_metrics so
 * that they cannot drift.
 */
#include "job.h"
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define C_BOLD "\033[1m"
#define C_WARN "\033[33m"
#define C_OFF "\033[0m"

static const char *fmt_metric(enum job_metric m, uint64_t v, char *buf, size_t cap)
{
	if (job_metrics[m].bytes)
		return fmt_bytes(v, buf, cap);
	if (job_metrics[m].ns)
		return v ? fmt_ns(v, buf, cap) : "-";
	snprintf(buf, cap, "%llu", (unsigned long long)v);
	return buf;
}

/* Terminal output: a control character in a host name or a file name from
 * a report must not reach the terminal as one. */
static void text_str(FILE *f, const char *s, int width)
{
	int n = 0;

	for (; *s; s++, n++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	for (; n < width; n++)
		fputc(' ', f);
}

void job_text(FILE *f, const struct job *j, bool color)
{
	const char *on = color ? C_BOLD : "", *won = color ? C_WARN : "", *off = color ? C_OFF : "";
	char b[8][32];
	size_t i, m;

	fprintf(f, "%shipsvm job report%s: %zu rank%s on %zu host%s", on, off, j->n, j->n == 1 ? "" : "s",
		j->nhost, j->nhost == 1 ? "" : "s");
	if (j->nprog == 1) {
		fputs(", program ", f);
		text_str(f, j->programs[0], 0);
	}
	fputc('\n', f);
	for (i = 0; j->nprog > 1 && i < j->nprog; i++) {
		fprintf(f, "  [%zu] ", i + 1);
		text_str(f, j->programs[i], 0);
		fputc('\n', f);
	}
	fprintf(f, "\n  %-8s %-12s %8s %-10s %4s %10s %-12s %7s %7s %7s %6s %9s %9s %8s\n", "rank", "host",
		"pid", "GPUs", "devs", "peak", "context", "coord", "uncoord", "dropped", "drains",
		"longest", "drain", "ran");
	fprintf(f, "  %-8s %-12s %8s %-10s %4s %10s %-12s %7s %7s %7s %6s %9s %9s %8s\n", "", "", "", "",
		"", "", "", "unmaps", "unmaps", "faults", "", "drain", "time", "");
	for (i = 0; i < j->n; i++) {
		const struct job_rank *k = &j->rk[i];
		char lab[112];

		if (j->nprog > 1)
			snprintf(lab, sizeof(lab), "%s [%zu]", k->label, k->prog + 1);
		else
			snprintf(lab, sizeof(lab), "%s", k->label);
		fputs("  ", f);
		text_str(f, lab, 8);
		fputc(' ', f);
		text_str(f, *k->host ? k->host : "-", 12);
		fprintf(f, " %8llu ", (unsigned long long)k->pid);
		text_str(f, k->gpus, 10);
		fprintf(f, " %4zu %10s ", k->ndev, fmt_bytes(k->v[JM_PEAK], b[0], sizeof(b[0])));
		text_str(f, k->peak_ctx, 12);
		fprintf(f, " %7llu %7llu %7llu %6llu %9s %9s %8s\n",
			(unsigned long long)k->v[JM_COORD], (unsigned long long)k->v[JM_UNCOORD],
			(unsigned long long)k->v[JM_DROPPED], (unsigned long long)k->v[JM_DRAINS],
			fmt_metric(JM_DRAIN_MAX, k->v[JM_DRAIN_MAX], b[1], sizeof(b[1])),
			fmt_metric(JM_DRAIN_TOTAL, k->v[JM_DRAIN_TOTAL], b[2], sizeof(b[2])),
			fmt_metric(JM_DURATION, k->v[JM_DURATION], b[3], sizeof(b[3])));
	}
	fprintf(f, "\n  %-24s %10s %10s %10s %10s  %s\n", "", "total", "min", "median", "max",
		"farthest from the median");
	for (m = 0; m < JM_COUNT; m++) {
		const struct job_stat *s = &j->st[m];

		fprintf(f, "  %-24s %10s %10s %10s %10s  ", job_metrics[m].title,
			fmt_metric(m, s->total, b[0], sizeof(b[0])), fmt_metric(m, s->min, b[1], sizeof(b[1])),
			fmt_metric(m, s->median, b[2], sizeof(b[2])), fmt_metric(m, s->max, b[3], sizeof(b[3])));
		if (s->outlier == SIZE_MAX) {
			fputs("- (all equal)\n", f);
			continue;
		}
		fputs("rank ", f);
		text_str(f, j->rk[s->outlier].label, 0);
		fprintf(f, " (%s)\n", fmt_metric(m, j->rk[s->outlier].v[m], b[4], sizeof(b[4])));
	}
	fputc('\n', f);
	for (i = 0; i < j->nwarn; i++) {
		fprintf(f, "  %s! ", won);
		text_str(f, j->warn[i], 0);
		fprintf(f, "%s\n", off);
	}
	for (i = 0; i < j->nskipped; i++) {
		fputs("  passed over ", f);
		text_str(f, j->skipped[i], 0);
		fputc('\n', f);
	}
	if (j->st[JM_UNCOORD].total)
		fprintf(f, "  %s! %llu unmap%s of tracked memory went without a checkpoint%s\n", won,
			(unsigned long long)j->st[JM_UNCOORD].total, j->st[JM_UNCOORD].total == 1 ? "" : "s", off);
	if (!j->nwarn && !j->nskipped && !j->st[JM_UNCOORD].total)
		fputs("  every report of one program and schema, no rank missing or repeated\n", f);
}

static void json_strs(FILE *f, const char *key, const char *const *v, size_t n)
{
	size_t i;

	fprintf(f, ",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		json_write_str(f, v[i]);
	}
	fputc(']', f);
}

void job_json(FILE *f, const struct job *j)
{
	size_t i, m, c;

	fprintf(f, "{\"schema\":\"hipsvm-job/1\",\"reports\":%zu", j->n);
	json_strs(f, "hosts", j->hosts, j->nhost);
	json_strs(f, "programs", j->programs, j->nprog);
	json_strs(f, "schemas", j->schemas, j->nschema);
	json_strs(f, "warnings", (const char *const *)j->warn, j->nwarn);
	json_strs(f, "skipped", (const char *const *)j->skipped, j->nskipped);
	fputs(",\n\"ranks\":[", f);
	for (i = 0; i < j->n; i++) {
		const struct job_rank *k = &j->rk[i];
		const struct json *ctxs = json_get(k->r, "contexts");

		fputs(i ? ",\n  {\"rank\":" : "\n  {\"rank\":", f);
		json_write_str(f, k->rank);
		fputs(",\"host\":", f);
		json_write_str(f, k->host);
		fprintf(f, ",\"pid\":%llu,\"file\":", (unsigned long long)k->pid);
		json_write_str(f, k->file);
		fprintf(f, ",\"program\":%zu,\"schema\":", k->prog);
		json_write_str(f, k->schema);
		fputs(",\"gpus\":", f);
		json_write_str(f, k->gpus);
		fprintf(f, ",\"devices\":%zu", k->ndev);
		for (m = 0; m < JM_COUNT; m++)
			fprintf(f, ",\"%s\":%llu", job_metrics[m].key, (unsigned long long)k->v[m]);
		fputs(",\"peak_context\":", f);
		json_write_str(f, k->peak_ctx);
		fputs(",\"contexts\":[", f);
		for (c = 0; json_is(ctxs, JSON_ARR) && c < ctxs->n; c++) {
			fputs(c ? ",{\"id\":" : "{\"id\":", f);
			json_write_str(f, json_str(ctxs->items[c], "id", ""));
			fprintf(f, ",\"peak_bytes\":%llu}",
				(unsigned long long)json_u64(ctxs->items[c], "peak_bytes", 0));
		}
		fputs("]}", f);
	}
	fputs("],\n\"summary\":{", f);
	for (m = 0; m < JM_COUNT; m++) {
		const struct job_stat *s = &j->st[m];

		fprintf(f, "%s\n  \"%s\":{\"total\":%llu,\"min\":%llu,\"median\":%llu,\"max\":%llu,\"outlier\":",
			m ? "," : "", job_metrics[m].key, (unsigned long long)s->total,
			(unsigned long long)s->min, (unsigned long long)s->median, (unsigned long long)s->max);
		if (s->outlier == SIZE_MAX) {
			fputs("null}", f);
			continue;
		}
		fputs("{\"rank\":", f);
		json_write_str(f, j->rk[s->outlier].rank);
		fprintf(f, ",\"index\":%zu,\"value\":%llu}}", s->outlier,
			(unsigned long long)j->rk[s->outlier].v[m]);
	}
	fputs("}}\n", f);
}

static void csv_row(FILE *f, const char *sec, const char *id, const char *key, const char *val)
{
	csv_str(f, sec);
	fputc(',', f);
	csv_str(f, id);
	fputc(',', f);
	csv_str(f, key);
	fputc(',', f);
	csv_str(f, val);
	fputc('\n', f);
}

/* section,id,key,value as for one report: "rank,<label>,<key>,<value>",
 * "summary,<measure>,<min|median|max|total|outlier>,<value>", "warning,,,<text>". */
void job_csv(FILE *f, const struct job *j)
{
	char v[64];
	size_t i, m;

	fputs("section,id,key,value\n", f);
	snprintf(v, sizeof(v), "%zu", j->n);
	csv_row(f, "job", "", "reports", v);
	for (i = 0; i < j->nprog; i++) {
		snprintf(v, sizeof(v), "%zu", i);
		csv_row(f, "program", v, "path", j->programs[i]);
	}
	for (i = 0; i < j->nschema; i++)
		csv_row(f, "job", "", "schema", j->schemas[i]);
	for (i = 0; i < j->n; i++) {
		const struct job_rank *k = &j->rk[i];

		csv_row(f, "rank", k->label, "host", k->host);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)k->pid);
		csv_row(f, "rank", k->label, "pid", v);
		csv_row(f, "rank", k->label, "file", k->file);
		snprintf(v, sizeof(v), "%zu", k->prog);
		csv_row(f, "rank", k->label, "program", v);
		csv_row(f, "rank", k->label, "gpus", k->gpus);
		snprintf(v, sizeof(v), "%zu", k->ndev);
		csv_row(f, "rank", k->label, "devices", v);
		for (m = 0; m < JM_COUNT; m++) {
			snprintf(v, sizeof(v), "%llu", (unsigned long long)k->v[m]);
			csv_row(f, "rank", k->label, job_metrics[m].key, v);
		}
		csv_row(f, "rank", k->label, "peak_context", k->peak_ctx);
	}
	for (m = 0; m < JM_COUNT; m++) {
		const struct job_stat *s = &j->st[m];
		static const char *const what[] = { "total", "min", "median", "max" };
		uint64_t val[] = { s->total, s->min, s->median, s->max };
		size_t w;

		for (w = 0; w < 4; w++) {
			snprintf(v, sizeof(v), "%llu", (unsigned long long)val[w]);
			csv_row(f, "summary", job_metrics[m].key, what[w], v);
		}
		csv_row(f, "summary", job_metrics[m].key, "outlier",
			s->outlier == SIZE_MAX ? "" : j->rk[s->outlier].label);
	}
	for (i = 0; i < j->nwarn; i++)
		csv_row(f, "warning", "", "", j->warn[i]);
	for (i = 0; i < j->nskipped; i++)
		csv_row(f, "skipped", "", "", j->skipped[i]);
}

int cmd_report_job(char *const *paths, size_t npaths, enum report_fmt fmt, const char *out,
		   const char *html, bool color)
{
	const char *dest = html ? html : out;
	struct tool_out t;
	struct job j;
	char err[512];
	FILE *f = stdout;
	int e;

	/* Read and checked before the output is opened: a bad input never
	 * truncates it. */
	e = job_load(&j, paths, npaths, err, sizeof(err));
	if (e) {
		tool_err("%s", err);
		job_free(&j);
		return e == -ENOMEM ? 1 : EXIT_USAGE;
	}
	if (dest) {
		/* the safe writer (output.c): the reports are its inputs */
		if (tool_out_open(&t, dest, (const char *const *)paths, "the job report", NULL)) {
			job_free(&j);
			return 1;
		}
		f = t.f;
	}
	e = 0;
	if (html)
		e = job_html(f, &j, err, sizeof(err));
	else if (fmt == FMT_JSON)
		job_json(f, &j);
	else if (fmt == FMT_CSV)
		job_csv(f, &j);
	else
		job_text(f, &j, color);
	job_free(&j);
	if (e)
		tool_err("%s", err);
	if (f != stdout) {
		if (tool_out_close(&t, !e) && !e)
			e = -EIO;
	} else if (fflush(f) != 0 && !e) {
		tool_err("writing the job report: %s", strerror(errno));
		e = -EIO;
	}
	return e ? 1 : 0;
}
