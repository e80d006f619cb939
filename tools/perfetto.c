/* SPDX-License-Identifier: MIT */
/*
 * perfetto.c - the shim's raw trace events (JSON lines, docs/trace.md) as a
 * Chrome/Perfetto trace JSON that ui.perfetto.dev and chrome://tracing open.
 *
 * Everything is emitted as complete ("X") slices with an explicit duration,
 * computed after pairing (alloc with its free, cp_set with its cp_clear): a
 * slice on one thread track must nest properly, and allocation lifetimes do
 * not nest, so each context's allocations are spread over as many "lanes"
 * (thread tracks) as overlapping lifetimes need, first fit.
 */
#include "cli.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

void pf_ts(struct out *o, const char *key, uint64_t ns)
{
	uint64_t rel = ns >= o->t0 ? ns - o->t0 : 0;

	fprintf(o->f, ",\"%s\":%llu.%03llu", key, (unsigned long long)(rel / 1000),
		(unsigned long long)(rel % 1000));
}

void pf_dur(struct out *o, uint64_t ns)
{
	fprintf(o->f, ",\"dur\":%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

void pf_begin(struct out *o, const char *ph, const char *cat, const char *name, int tid)
{
	fputs(o->first ? "\n" : ",\n", o->f);
	o->first = false;
	fprintf(o->f, "{\"ph\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"name\":", ph, cat,
		o->pid, tid);
	json_write_str(o->f, name);
}

void pf_thread_meta(struct out *o, int tid, const char *name, int sort)
{
	pf_begin(o, "M", "__metadata", "thread_name", tid);
	fputs(",\"args\":{\"name\":", o->f);
	json_write_str(o->f, name);
	fputs("}}", o->f);
	pf_begin(o, "M", "__metadata", "thread_sort_index", tid);
	fprintf(o->f, ",\"args\":{\"sort_index\":%d}}", sort);
}

/* Lanes: first fit over allocations sorted by start. Returns lanes used.
 * Past MAX_LANES live at once the rest are not drawn (lane -1, counted): a
 * few dozen tracks per context is what a person can read, and the live-bytes
 * counter still includes them. */
static int assign_lanes(struct ev *ev, size_t n, int ctx, size_t *undrawn)
{
	uint64_t busy[MAX_LANES];
	int lanes = 0, l;
	size_t i;

	for (i = 0; i < n; i++) {
		if (ev[i].kind != EV_ALLOC || ev[i].ctx != ctx)
			continue;
		for (l = 0; l < lanes; l++)
			if (busy[l] <= ev[i].ts)
				break;
		if (l == lanes) {
			if (lanes == MAX_LANES) {
				ev[i].lane = -1;
				(*undrawn)++;
				continue;
			}
			lanes++;
		}
		busy[l] = ev[i].end > ev[i].ts ? ev[i].end : ev[i].ts + 1;
		ev[i].lane = l;
	}
	return lanes;
}

/* Open allocations by address: open addressing, linear probing. A slot
 * holds the newest open allocation at that address; an older one with the
 * same address (a free the trace missed) hangs off it through prev_open. */
struct open_map {
	uint64_t *key;
	ptrdiff_t *idx;		/* -1 empty, -2 deleted */
	size_t mask;
};

static size_t slot_of(const struct open_map *m, uint64_t key, bool for_insert)
{
	size_t h = (size_t)((key >> 4) * 0x9e3779b97f4a7c15ull) & m->mask, tomb = SIZE_MAX;

	for (;; h = (h + 1) & m->mask) {
		if (m->idx[h] == -1)
			return for_insert && tomb != SIZE_MAX ? tomb : h;
		if (m->idx[h] == -2) {
			if (tomb == SIZE_MAX)
				tomb = h;
		} else if (m->key[h] == key) {
			return h;
		}
	}
}

static void pair_allocs(struct ev *ev, size_t n, uint64_t t_end)
{
	struct open_map m;
	size_t cap = 16, i, h;

	while (cap < 2 * n + 2)
		cap *= 2;
	m.key = calloc(cap, sizeof(*m.key));
	m.idx = malloc(cap * sizeof(*m.idx));
	m.mask = cap - 1;
	for (i = 0; i < n; i++)
		if (ev[i].kind == EV_ALLOC)
			ev[i].end = t_end;
	if (!m.key || !m.idx)
		goto out;	/* no pairing: every allocation lasts to the end */
	for (i = 0; i < cap; i++)
		m.idx[i] = -1;
	for (i = 0; i < n; i++) {
		if (ev[i].kind == EV_ALLOC) {
			h = slot_of(&m, ev[i].ptr, false);
			ev[i].prev_open = m.idx[h] >= 0 && m.key[h] == ev[i].ptr ? m.idx[h] : -1;
			if (ev[i].prev_open < 0)
				h = slot_of(&m, ev[i].ptr, true);
			m.key[h] = ev[i].ptr;
			m.idx[h] = (ptrdiff_t)i;
		} else if (ev[i].kind == EV_FREE) {
			struct ev *a;

			h = slot_of(&m, ev[i].ptr, false);
			if (m.idx[h] < 0)
				continue;	/* a free of something allocated before the trace */
			a = &ev[m.idx[h]];
			a->end = ev[i].ts;
			a->closed = true;
			ev[i].match = (size_t)m.idx[h];
			ev[i].closed = true;
			m.idx[h] = a->prev_open >= 0 ? a->prev_open : -2;
		}
	}
out:
	free(m.key);
	free(m.idx);
}

static void emit_allocs(struct out *o, const struct ev *ev, size_t n)
{
	char name[96], b[24], ptr[24];
	size_t i;
	int tid;

	for (i = 0; i < n; i++) {
		const struct ev *e = &ev[i];

		if (e->kind != EV_ALLOC || e->ctx == -2 || e->lane < 0)
			continue;
		tid = e->ctx == -1 ? TID_HOST(e->lane) : TID_DEVMEM(e->ctx, e->lane);
		snprintf(name, sizeof(name), "%s %s", e->api, fmt_bytes(e->size, b, sizeof(b)));
		pf_begin(o, "X", "alloc", name, tid);
		pf_ts(o, "ts", e->ts);
		pf_dur(o, e->end > e->ts ? e->end - e->ts : 0);
		snprintf(ptr, sizeof(ptr), "0x%llx", (unsigned long long)e->ptr);
		fputs(",\"args\":{\"ptr\":", o->f);
		json_write_str(o->f, ptr);
		fprintf(o->f, ",\"size\":%llu,\"api\":", (unsigned long long)e->size);
		json_write_str(o->f, e->api);
		if (e->route[0]) {
			fputs(",\"route\":", o->f);
			json_write_str(o->f, e->route);
		}
		if (e->dev >= 0)
			fprintf(o->f, ",\"dev\":%d", e->dev);
		if (!e->closed)
			fputs(",\"freed\":false", o->f);
		fputs("}}", o->f);
	}
}

/* Live bytes per context, as counters that step at every alloc and free. */
static void emit_live(struct out *o, const struct ev *ev, size_t n, uint64_t *live_host, uint64_t *live_dev)
{
	char name[48];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ev *e = &ev[i], *a = NULL;
		uint64_t *c;
		int ctx = e->ctx;

		if (e->kind == EV_FREE && e->closed) {
			/* the free's own size may be absent: take the allocation's */
			a = &ev[e->match];
			ctx = a->ctx;
		} else if (e->kind != EV_ALLOC) {
			continue;
		}
		if (ctx == -2)
			continue;
		c = ctx == -1 ? live_host : &live_dev[ctx];
		if (e->kind == EV_ALLOC)
			*c += e->size;
		else
			*c -= *c < a->size ? *c : a->size;
		if (ctx == -1)
			snprintf(name, sizeof(name), "host_context live bytes");
		else
			snprintf(name, sizeof(name), "device:%d live bytes", ctx);
		pf_begin(o, "C", "memory", name, 0);
		pf_ts(o, "ts", e->ts);
		fprintf(o->f, ",\"args\":{\"bytes\":%llu}}", (unsigned long long)*c);
	}
}

int trace_convert(const char *events_path, FILE *f, const struct json *report,
		  struct trace_stats *st, char *err, size_t errcap)
{
	struct out o = { f, 0, 1, true };
	uint64_t t_end, live_host = 0, live_dev[MAX_DEV] = { 0 };
	bool gpu_seen[MAX_DEV] = { false }, unmaps = false;
	int host_lanes, dev_lanes[MAX_DEV] = { 0 }, gpu_lanes[MAX_DEV] = { 0 }, l, d;
	const char *prog = json_str(report, "program", NULL);
	char name[96];
	struct ev *ev = NULL;
	size_t n = 0, i;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = trace_read_events(events_path, &ev, &n, st, err, errcap);
	if (rc)
		return rc;
	o.t0 = n ? ev[0].ts : 0;
	t_end = n ? ev[n - 1].ts : 0;
	for (i = 0; i < n; i++)
		if (ev[i].kind == EV_DRAIN && ev[i].ts + ev[i].dur > t_end)
			t_end = ev[i].ts + ev[i].dur;
	if (json_u64(report, "pid", 0) && json_u64(report, "pid", 0) < (1u << 30))
		o.pid = (int)json_u64(report, "pid", 0);
	st->events = n;
	st->first_ns = o.t0;
	st->last_ns = t_end;

	pair_allocs(ev, n, t_end);
	host_lanes = assign_lanes(ev, n, -1, &st->undrawn);
	for (d = 0; d < MAX_DEV; d++)
		dev_lanes[d] = assign_lanes(ev, n, d, &st->undrawn);
	for (i = 0; i < n; i++) {
		if (ev[i].dev >= 0 && ev[i].kind != EV_ALLOC)
			gpu_seen[ev[i].dev] = true;
		if (ev[i].kind == EV_ALLOC && ev[i].ctx >= 0)
			gpu_seen[ev[i].ctx] = true;
		if (ev[i].kind == EV_UNMAP)
			unmaps = true;
	}

	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"hipsvm " HIPSVM_TOOL_VERSION "\"", f);
	if (prog) {
		fputs(",\"program\":", f);
		json_write_str(f, prog);
	}
	fprintf(f, ",\"t0_ns\":%llu},\n\"traceEvents\":[", (unsigned long long)o.t0);

	snprintf(name, sizeof(name), "%s%s", prog ? "hipsvm: " : "hipsvm", prog ? prog : "");
	pf_begin(&o, "M", "__metadata", "process_name", 0);
	fputs(",\"args\":{\"name\":", f);
	json_write_str(f, name);
	fputs("}}", f);
	/* host_context always has a track, even when it allocated nothing. */
	for (l = 0; l < (host_lanes ? host_lanes : 1); l++) {
		snprintf(name, sizeof(name), l ? "host_context #%d" : "host_context", l + 1);
		pf_thread_meta(&o, TID_HOST(l), name, l);
		st->tracks++;
	}
	if (unmaps) {
		pf_thread_meta(&o, TID_UNMAPS, "unmaps", 300);
		st->tracks++;
	}
	for (d = 0; d < MAX_DEV; d++) {
		if (!gpu_seen[d])
			continue;
		snprintf(name, sizeof(name), "GPU %d", d);
		pf_thread_meta(&o, TID_GPU(d), name, 1000 + d * 1000);
		st->tracks++;
		for (l = 0; l < dev_lanes[d]; l++) {
			snprintf(name, sizeof(name), l ? "device:%d memory #%d" : "device:%d memory", d, l + 1);
			pf_thread_meta(&o, TID_DEVMEM(d, l), name, 1000 + d * 1000 + 1 + l);
			st->tracks++;
		}
	}
	/* Counters start at 0 so the first step is visible. */
	if (n) {
		pf_begin(&o, "C", "memory", "host_context live bytes", 0);
		pf_ts(&o, "ts", o.t0);
		fputs(",\"args\":{\"bytes\":0}}", f);
	}
	emit_allocs(&o, ev, n);
	emit_live(&o, ev, n, &live_host, live_dev);
	pf_emit_gpu(&o, ev, n, t_end, gpu_lanes, &st->undrawn_gpu);
	for (d = 0; d < MAX_DEV; d++) {
		for (l = 1; l < gpu_lanes[d]; l++) {
			snprintf(name, sizeof(name), "GPU %d #%d", d, l + 1);
			pf_thread_meta(&o, TID_GPULANE(d, l), name, 1000 + d * 1000 + 100 + l);
			st->tracks++;
		}
	}
	fputs("\n]}\n", f);
	free(ev);
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(err, errcap, "writing the trace: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}
