/* SPDX-License-Identifier: MIT */
/*
 * html.c - hipsvm report --html: one self-contained page of a report (and,
 * when given, the run's raw trace events) with inline SVG charts: no script,
 * no style sheet or font from elsewhere, nothing fetched, so that it opens on
 * a node without network and can be mailed as one file.
 *
 *   drain latency per GPU      the report's log2 histogram (schema 3)
 *   faults over time per GPU   the events' "faults" samples
 *   live bytes per context     the events' allocs and frees, paired
 *   unmaps and their outcome   the report's counters, the events' unmaps
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_ev.h"

#define W 720			/* chart size in px */
#define H 180
#define ML 70			/* margins: room for the axis labels */
#define MR 16
#define MT 14
#define MB 30
#define MAX_SERIES_CTX (MAX_DEV + 1)

void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* a control character is no text: never passed on */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

static const char style[] =
"body{font:14px/1.4 sans-serif;margin:24px;color:#222;max-width:800px}"
"h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ccc}"
"table{border-collapse:collapse}td,th{padding:2px 10px;text-align:right}"
"th:first-child,td:first-child{text-align:left}"
"svg{display:block;margin:6px 0 14px}svg text{font:11px sans-serif;fill:#444}"
".axis{stroke:#888;stroke-width:1}.bar{fill:#4a7ebb}"
".raised{stroke:#d62728}.handled{stroke:#2ca02c}.dropped{stroke:#ff7f0e}.real{stroke:#9467bd}"
".live{stroke:#1f77b4}.line{fill:none;stroke-width:1.5}"
".ok{fill:#2ca02c}.bad{fill:#d62728}.note{color:#666}"
".key span{display:inline-block;margin-right:14px}.key i{display:inline-block;width:14px;"
"height:3px;vertical-align:middle;margin-right:4px}";

/* The frame of a chart: axes, the y range [0, ymax] and the x range. */
static void frame(FILE *f, const char *id, const char *title, const char *ylab_max,
		  const char *xlab_lo, const char *xlab_hi)
{
	fprintf(f, "<svg id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\"><title>", id, W, H, W, H);
	html_esc(f, title);
	fprintf(f, "</title><line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		"<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
		ML, MT, ML, H - MB, ML, H - MB, W - MR, H - MB);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", ML - 6, MT + 8);
	html_esc(f, ylab_max);
	fprintf(f, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>", ML - 6, H - MB);
	fprintf(f, "<text x=\"%d\" y=\"%d\">", ML, H - MB + 16);
	html_esc(f, xlab_lo);
	fprintf(f, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", W - MR, H - MB + 16);
	html_esc(f, xlab_hi);
	fputs("</text>", f);
}

static double px(uint64_t v, uint64_t lo, uint64_t hi)
{
	return ML + (hi > lo ? (double)(v - lo) / (double)(hi - lo) : 0) * (W - ML - MR);
}

static double py(uint64_t v, uint64_t max)
{
	return H - MB - (max ? (double)v / (double)max : 0) * (H - MB - MT);
}

/* ---- drain latency: the report's histogram ---- */

static void drain_hist(FILE *f, const struct json *r)
{
	const struct json *devs = json_get(r, "devices");
	char id[32], t[128], lo[32], hi[32], ymax[32];
	size_t i, k;
	bool any = false;

	fputs("<h2>Drain latency per GPU</h2>", f);
	for (i = 0; json_is(devs, JSON_ARR) && i < devs->n; i++) {
		const struct json *d = devs->items[i], *dn = json_get(d, "drain_ns"),
				  *h = json_get(dn, "hist");
		uint64_t b0 = json_u64(dn, "hist_lo", 0), max = 0, gpu = json_u64(d, "index", i);
		double bw;

		if (!json_is(h, JSON_ARR) || !h->n || b0 >= 64)
			continue;
		for (k = 0; k < h->n; k++)
			if (json_is(h->items[k], JSON_NUM) && h->items[k]->u64 > max)
				max = h->items[k]->u64;
		any = true;
		snprintf(id, sizeof(id), "drain-hist-gpu%llu", (unsigned long long)gpu);
		snprintf(t, sizeof(t), "GPU %llu: %llu drains, by duration (power-of-two buckets)",
			 (unsigned long long)gpu, (unsigned long long)json_u64(dn, "count", 0));
		snprintf(ymax, sizeof(ymax), "%llu", (unsigned long long)max);
		fmt_ns(UINT64_C(1) << b0, lo, sizeof(lo));
		fmt_ns(b0 + h->n < 64 ? UINT64_C(1) << (b0 + h->n) : UINT64_MAX, hi, sizeof(hi));
		fprintf(f, "<p>GPU %llu: %llu drains, max ", (unsigned long long)gpu,
			(unsigned long long)json_u64(dn, "count", 0));
		html_esc(f, fmt_ns(json_u64(dn, "max", 0), t, sizeof(t)));
		fputs("</p>", f);
		snprintf(t, sizeof(t), "drain latency of GPU %llu", (unsigned long long)gpu);
		frame(f, id, t, ymax, lo, hi);
		bw = (double)(W - ML - MR) / (double)h->n;
		for (k = 0; k < h->n; k++) {
			uint64_t c = json_is(h->items[k], JSON_NUM) ? h->items[k]->u64 : 0;
			char from[32];

			fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
				"<title>%llu drains from ", ML + k * bw + 1, py(c, max), bw - 2,
				H - MB - py(c, max), (unsigned long long)c);
			html_esc(f, fmt_ns(UINT64_C(1) << (b0 + k), from, sizeof(from)));
			fputs("</title></rect>", f);
		}
		fputs("</svg>", f);
	}
	if (!any)
		fputs("<p class=\"note\">No drain, or a report older than schema 3 (no histogram).</p>", f);
}

/* ---- faults over time: the events' samples ---- */

static void faults(FILE *f, const struct ev *ev, size_t n, uint64_t t0, uint64_t t1)
{
	static const char *const cls[] = { "raised", "handled", "dropped", "real" };
	char id[32], t[64], ymax[32], dur[32];
	int d, k;
	bool any = false;

	fputs("<h2>GPU faults over time</h2>", f);
	for (d = 0; d < MAX_DEV; d++) {
		uint64_t max = 0;
		size_t i, samples = 0;

		for (i = 0; i < n; i++) {
			if (ev[i].kind != EV_FAULTS || ev[i].dev != d)
				continue;
			samples++;
			if (ev[i].raised > max)
				max = ev[i].raised;
		}
		if (!samples)
			continue;
		any = true;
		snprintf(id, sizeof(id), "faults-gpu%d", d);
		snprintf(t, sizeof(t), "GPU %d: faults so far (%zu samples)", d, samples);
		snprintf(ymax, sizeof(ymax), "%llu", (unsigned long long)max);
		fprintf(f, "<p>GPU %d, %zu samples</p>", d, samples);
		frame(f, id, t, ymax, "0", fmt_ns(t1 - t0, dur, sizeof(dur)));
		for (k = 0; k < 4; k++) {
			fprintf(f, "<polyline class=\"line %s\" points=\"", cls[k]);
			for (i = 0; i < n; i++) {
				const struct ev *e = &ev[i];
				uint64_t v;

				if (e->kind != EV_FAULTS || e->dev != d)
					continue;
				v = k == 0 ? e->raised : k == 1 ? e->handled : k == 2 ? e->dropped : e->real;
				fprintf(f, "%.1f,%.1f ", px(e->ts, t0, t1), py(v, max));
			}
			fputs("\"/>", f);
		}
		fputs("</svg>", f);
	}
	if (any)
		fputs("<p class=\"key\"><span><i style=\"background:#d62728\"></i>raised</span>"
		      "<span><i style=\"background:#2ca02c\"></i>handled</span>"
		      "<span><i style=\"background:#ff7f0e\"></i>dropped</span>"
		      "<span><i style=\"background:#9467bd\"></i>real</span></p>", f);
	else
		fputs("<p class=\"note\">No fault sample in the events.</p>", f);
}

/* ---- live bytes per context: allocs and frees paired by address ---- */

struct live_map {
	uint64_t *ptr, *size;
	int *ctx;
	size_t mask;
};

static size_t slot(const struct live_map *m, uint64_t p)
{
	size_t h = (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull) & m->mask;

	while (m->ptr[h] && m->ptr[h] != p)
		h = (h + 1) & m->mask;
	return h;
}

/* Applies event e to live[] (index: context + 1, host_context 0): the
 * index it changed, or -2 when e changes none. A free finds its allocation
 * (its size and context) by address. */
static int live_step(struct live_map *m, const struct ev *e, uint64_t *live)
{
	size_t h;
	int c;

	if (e->kind == EV_ALLOC && e->ctx >= -1 && e->ptr) {
		h = slot(m, e->ptr);
		if (m->ptr[h])
			return -2;	/* a free the trace missed: keep the first */
		m->ptr[h] = e->ptr;
		m->size[h] = e->size;
		m->ctx[h] = e->ctx;
		live[e->ctx + 1] += e->size;
		return e->ctx + 1;
	}
	if (e->kind == EV_FREE && e->ptr) {
		h = slot(m, e->ptr);
		if (!m->ptr[h])
			return -2;
		c = m->ctx[h] + 1;
		live[c] -= live[c] < m->size[h] ? live[c] : m->size[h];
		/* Backward-shift deletion keeps every probe chain whole. */
		for (size_t j = (h + 1) & m->mask; m->ptr[j]; j = (j + 1) & m->mask) {
			size_t home = (size_t)((m->ptr[j] >> 4) * 0x9e3779b97f4a7c15ull) & m->mask;

			if (((j - home) & m->mask) >= ((j - h) & m->mask)) {
				m->ptr[h] = m->ptr[j];
				m->size[h] = m->size[j];
				m->ctx[h] = m->ctx[j];
				h = j;
			}
		}
		m->ptr[h] = 0;
		return c;
	}
	return -2;
}

static void live_polyline(FILE *f, struct live_map *m, size_t cap, const struct ev *ev, size_t n,
			  int c, uint64_t max, uint64_t t0, uint64_t t1)
{
	uint64_t live[MAX_SERIES_CTX] = { 0 }, prev = 0;
	size_t i;

	memset(m->ptr, 0, cap * sizeof(*m->ptr));
	fprintf(f, "<polyline class=\"line live\" points=\"%.1f,%.1f", px(t0, t0, t1), py(0, max));
	for (i = 0; i < n; i++) {
		if (live_step(m, &ev[i], live) != c)
			continue;
		/* a step: across at the old value, then up or down */
		fprintf(f, " %.1f,%.1f %.1f,%.1f", px(ev[i].ts, t0, t1), py(prev, max),
			px(ev[i].ts, t0, t1), py(live[c], max));
		prev = live[c];
	}
	fprintf(f, " %.1f,%.1f\"/>", px(t1, t0, t1), py(prev, max));
}

static int live_bytes(FILE *f, const struct ev *ev, size_t n, uint64_t t0, uint64_t t1)
{
	uint64_t live[MAX_SERIES_CTX] = { 0 }, max[MAX_SERIES_CTX] = { 0 };
	bool seen[MAX_SERIES_CTX] = { false }, any = false;
	struct live_map m;
	size_t cap = 16, i;
	char id[32], t[64], ymax[32], dur[32];
	int c;

	while (cap < 2 * n + 2)
		cap *= 2;
	m.ptr = calloc(cap, sizeof(*m.ptr));
	m.size = calloc(cap, sizeof(*m.size));
	m.ctx = calloc(cap, sizeof(*m.ctx));
	m.mask = cap - 1;
	if (!m.ptr || !m.size || !m.ctx) {
		free(m.ptr);
		free(m.size);
		free(m.ctx);
		return -ENOMEM;
	}
	/* Once through for each context's peak (the y scale), then once per
	 * context to draw it. */
	for (i = 0; i < n; i++) {
		c = live_step(&m, &ev[i], live);
		if (c >= 0 && c < MAX_SERIES_CTX) {
			seen[c] = true;
			if (live[c] > max[c])
				max[c] = live[c];
		}
	}
	fputs("<h2>Live bytes per context over time</h2>", f);
	for (c = 0; c < MAX_SERIES_CTX; c++) {
		if (!seen[c])
			continue;
		any = true;
		if (c == 0)
			snprintf(t, sizeof(t), "host_context");
		else
			snprintf(t, sizeof(t), "device:%d", c - 1);
		snprintf(id, sizeof(id), c ? "live-device%d" : "live-host", c - 1);
		fprintf(f, "<p>%s, peak ", t);
		html_esc(f, fmt_bytes(max[c], ymax, sizeof(ymax)));
		fputs("</p>", f);
		frame(f, id, t, ymax, "0", fmt_ns(t1 - t0, dur, sizeof(dur)));
		live_polyline(f, &m, cap, ev, n, c, max[c], t0, t1);
		fputs("</svg>", f);
	}
	if (!any)
		fputs("<p class=\"note\">No allocation in the events.</p>", f);
	free(m.ptr);
	free(m.size);
	free(m.ctx);
	return 0;
}

/* ---- unmaps: the report's counters, the events' timeline ---- */

static void unmaps(FILE *f, const struct json *r, const struct ev *ev, size_t n, uint64_t t0,
		   uint64_t t1)
{
	static const struct {
		const char *key, *what;
	} rows[] = {
		{ "tracked", "unmaps of tracked ranges" },
		{ "coordinated", "coordinated with the checkpoint hook" },
		{ "uncoordinated", "not coordinated (no hook, or the hook failed)" },
		{ "partial", "partial (part of an allocation)" },
		{ "live_svm_unmapped", "of live GPU-visible memory" },
		{ "live_svm_unmapped_bytes", "bytes of live GPU-visible memory" },
		{ "reentrant_skipped", "re-entrant, skipped" },
		{ "refused", "refused" },
		{ "freed_after_unmap", "freed after their unmap" },
		{ "by_hip", "made by HIP itself" },
	};
	const struct json *u = json_get(r, "unmaps");
	char dur[32];
	size_t i, shown = 0;

	fputs("<h2>Unmaps and their outcome</h2><table id=\"unmaps\">", f);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(f, "<tr><td>%s</td><td>%llu</td></tr>", rows[i].what,
			(unsigned long long)json_u64(u, rows[i].key, 0));
	fputs("</table>", f);
	for (i = 0; i < n; i++)
		shown += ev[i].kind == EV_UNMAP;
	if (!shown)
		return;
	fprintf(f, "<p>%zu unmaps over time (green: coordinated, red: not)</p>", shown);
	frame(f, "unmaps-timeline", "unmaps over time", "", "0", fmt_ns(t1 - t0, dur, sizeof(dur)));
	for (i = 0; i < n; i++) {
		char b[32];

		if (ev[i].kind != EV_UNMAP)
			continue;
		fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%d\" r=\"4\"><title>%s ", ev[i].coordinated ?
			"ok" : "bad", px(ev[i].ts, t0, t1), (H - MB + MT) / 2,
			ev[i].coordinated ? "coordinated" : "uncoordinated");
		html_esc(f, fmt_bytes(ev[i].size, b, sizeof(b)));
		fputs("</title></circle>", f);
	}
	fputs("</svg>", f);
}

int report_html(FILE *f, const struct json *r, const char *events, char *err, size_t errcap)
{
	const struct json *hook = json_get(r, "hook");
	struct trace_stats st = { 0 };
	struct ev *ev = NULL;
	size_t n = 0;
	uint64_t t0 = 0, t1 = 0;
	char d[32];
	int rc;

	if (events) {
		rc = trace_read_events(events, &ev, &n, &st, err, errcap);
		if (rc)
			return rc;
		if (n) {
			t0 = ev[0].ts;
			t1 = ev[n - 1].ts > t0 ? ev[n - 1].ts : t0 + 1;
		}
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"generator\" content=\"hipsvm " HIPSVM_TOOL_VERSION "\"><title>hipsvm report: ", f);
	html_esc(f, json_str(r, "program", "?"));
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>hipsvm report: ", style);
	html_esc(f, json_str(r, "program", "?"));
	fprintf(f, "</h1><p id=\"run\">pid %llu, ran ", (unsigned long long)json_u64(r, "pid", 0));
	html_esc(f, fmt_ns(json_u64(r, "duration_ns", 0), d, sizeof(d)));
	fputs(", runtime ", f);
	html_esc(f, json_str(r, "runtime", "unknown"));
	fputs(", policy ", f);
	html_esc(f, json_str(r, "policy", "default"));
	fputs(", checkpoint hook ", f);
	html_esc(f, json_str(hook, "path", "-"));
	fputs(" (", f);
	html_esc(f, json_str(hook, "state", "none"));
	fputs(")</p>\n", f);
	drain_hist(f, r);
	if (events) {
		faults(f, ev, n, t0, t1);
		if (live_bytes(f, ev, n, t0, t1) != 0) {
			free(ev);
			snprintf(err, errcap, "out of memory");
			return -ENOMEM;
		}
	} else {
		fputs("<h2>Over time</h2><p class=\"note\">Faults and live bytes over time need the run's "
		      "events: <code>hipsvm run --trace EVENTS.jsonl</code>, then <code>hipsvm report --html "
		      "OUT.html --events EVENTS.jsonl REPORT.json</code>.</p>", f);
	}
	unmaps(f, r, ev, n, t0, t1);
	fputs("\n<p class=\"note\">Made by hipsvm " HIPSVM_TOOL_VERSION " (docs/report.md, docs/trace.md).</p>"
	      "</body></html>\n", f);
	free(ev);
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(err, errcap, "writing the page: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}
