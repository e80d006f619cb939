/* SPDX-License-Identifier: MIT */
/*
 * job_html.c - hipsvm report --html of many reports: one self-contained page
 * of the job (inline SVG, a few lines of CSS, no script, nothing fetched):
 * what was said about the inputs, the summary, one chart per measure with a
 * bar per rank (the rank farthest from the median drawn apart), and the rows.
 */
#include "job.h"

#include <errno.h>
#include <string.h>

#define W 720
#define H 160
#define ML 70
#define MR 16
#define MT 14
#define MB 34

static const char style[] =
"body{font:14px/1.4 sans-serif;margin:24px;color:#222;max-width:1000px}"
"h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ccc}"
"table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
"th:first-child,td:first-child{text-align:left}"
"svg{display:block;margin:6px 0 14px}svg text{font:11px sans-serif;fill:#444}"
".axis{stroke:#888;stroke-width:1}.bar{fill:#4a7ebb}.outlier{fill:#d62728}"
".warn{color:#a15c00}.note{color:#666}";

static const char *val(enum job_metric m, uint64_t v, char *buf, size_t cap)
{
	if (job_metrics[m].bytes)
		return fmt_bytes(v, buf, cap);
	if (job_metrics[m].ns)
		return fmt_ns(v, buf, cap);
	snprintf(buf, cap, "%llu", (unsigned long long)v);
	return buf;
}

/* One bar per rank, in row order; labels under the bars while they fit. */
static void chart(FILE *f, const struct job *j, enum job_metric m)
{
	const struct job_stat *s = &j->st[m];
	double bw = (double)(W - ML - MR) / (double)(j->n ? j->n : 1);
	char b[32];
	size_t i;

	fprintf(f, "<h2>%s per rank</h2>", job_metrics[m].title);
	fprintf(f, "<svg id=\"job-%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
		"<title>%s, one bar per rank</title>", job_metrics[m].key, W, H, W, H, job_metrics[m].title);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		"<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
		ML, MT, ML, H - MB, ML, H - MB, W - MR, H - MB);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", ML - 6, MT + 8);
	html_esc(f, val(m, s->max, b, sizeof(b)));
	fprintf(f, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>", ML - 6, H - MB);
	for (i = 0; i < j->n; i++) {
		uint64_t v = j->rk[i].v[m];
		double h = s->max ? (double)v / (double)s->max * (H - MB - MT) : 0;

		fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>rank ",
			i == s->outlier ? "outlier" : "bar", ML + i * bw + (bw > 4 ? 1 : 0), H - MB - h,
			bw > 4 ? bw - 2 : bw, h);
		html_esc(f, j->rk[i].label);
		fputs(": ", f);
		html_esc(f, val(m, v, b, sizeof(b)));
		fputs("</title></rect>", f);
		if (bw >= 24) {
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", ML + (i + 0.5) * bw,
				H - MB + 14);
			html_esc(f, j->rk[i].label);
			fputs("</text>", f);
		}
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank</text></svg>", W - MR, H - 4);
}

int job_html(FILE *f, const struct job *j, char *err, size_t errcap)
{
	char b[5][32];
	size_t i, m;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"generator\" content=\"hipsvm " HIPSVM_TOOL_VERSION "\"><title>hipsvm job report: ", f);
	html_esc(f, j->nprog == 1 ? j->programs[0] : "several programs");
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>hipsvm job report: ", style);
	html_esc(f, j->nprog == 1 ? j->programs[0] : "several programs");
	fprintf(f, "</h1><p id=\"job\">%zu rank%s on %zu host%s</p>\n", j->n, j->n == 1 ? "" : "s",
		j->nhost, j->nhost == 1 ? "" : "s");
	if (j->nwarn || j->nskipped) {
		fputs("<ul id=\"warnings\">", f);
		for (i = 0; i < j->nwarn; i++) {
			fputs("<li class=\"warn\">", f);
			html_esc(f, j->warn[i]);
			fputs("</li>", f);
		}
		for (i = 0; i < j->nskipped; i++) {
			fputs("<li class=\"note\">passed over ", f);
			html_esc(f, j->skipped[i]);
			fputs("</li>", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("<h2>Summary</h2><table id=\"summary\"><tr><th></th><th>total</th><th>min</th><th>median</th>"
	      "<th>max</th><th>farthest from the median</th></tr>", f);
	for (m = 0; m < JM_COUNT; m++) {
		const struct job_stat *s = &j->st[m];

		fprintf(f, "<tr><td>%s</td><td>", job_metrics[m].title);
		html_esc(f, val(m, s->total, b[0], sizeof(b[0])));
		fputs("</td><td>", f);
		html_esc(f, val(m, s->min, b[1], sizeof(b[1])));
		fputs("</td><td>", f);
		html_esc(f, val(m, s->median, b[2], sizeof(b[2])));
		fputs("</td><td>", f);
		html_esc(f, val(m, s->max, b[3], sizeof(b[3])));
		fputs("</td><td>", f);
		if (s->outlier == SIZE_MAX) {
			fputs("- (all equal)", f);
		} else {
			fputs("rank ", f);
			html_esc(f, j->rk[s->outlier].label);
		}
		fputs("</td></tr>", f);
	}
	fputs("</table>\n", f);
	for (m = 0; m < JM_COUNT; m++)
		chart(f, j, m);
	fputs("<h2>Ranks</h2><table id=\"ranks\"><tr><th>rank</th><th>host</th><th>pid</th><th>GPUs</th>"
	      "<th>peak</th><th>context</th><th>coordinated</th><th>uncoordinated</th><th>dropped</th>"
	      "<th>drains</th><th>longest</th><th>ran</th><th>report</th></tr>", f);
	for (i = 0; i < j->n; i++) {
		const struct job_rank *k = &j->rk[i];

		fputs("<tr><td>", f);
		html_esc(f, k->label);
		fputs("</td><td>", f);
		html_esc(f, *k->host ? k->host : "-");
		fprintf(f, "</td><td>%llu</td><td>", (unsigned long long)k->pid);
		html_esc(f, k->gpus);
		fputs("</td><td>", f);
		html_esc(f, fmt_bytes(k->v[JM_PEAK], b[0], sizeof(b[0])));
		fputs("</td><td>", f);
		html_esc(f, k->peak_ctx);
		fprintf(f, "</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td><td>",
			(unsigned long long)k->v[JM_COORD], (unsigned long long)k->v[JM_UNCOORD],
			(unsigned long long)k->v[JM_DROPPED], (unsigned long long)k->v[JM_DRAINS]);
		html_esc(f, fmt_ns(k->v[JM_DRAIN_MAX], b[1], sizeof(b[1])));
		fputs("</td><td>", f);
		html_esc(f, fmt_ns(k->v[JM_DURATION], b[2], sizeof(b[2])));
		fputs("</td><td>", f);
		html_esc(f, k->file);
		fputs("</td></tr>", f);
	}
	fputs("</table>\n<p class=\"note\">Made by hipsvm " HIPSVM_TOOL_VERSION " (docs/report.md).</p>"
	      "</body></html>\n", f);
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(err, errcap, "writing the page: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}
