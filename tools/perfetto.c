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
#include <stdlib.h>
#include <string.h>

enum ev_kind { EV_ALLOC, EV_FREE, EV_UNMAP, EV_CP_SET, EV_CP_CLEAR, EV_DRAIN, EV_FAULTS };

struct ev {
	enum ev_kind kind;
	uint64_t ts, ptr, size, dur;
	uint64_t raised, handled, dropped, real;
	int dev;		/* -1 when absent */
	int ctx;		/* -1 host_context, N device:N, -2 unknown */
	bool coordinated;
	char api[32], route[24], result[16], cp[24];
	/* filled while pairing */
	uint64_t end;		/* alloc: the free's ts (or the trace end) */
	bool closed;
	int lane;
	size_t match;		/* free: index of its alloc */
	size_t seq;		/* line order, to keep qsort stable */
};

#define MAX_DEV 64
#define TID_UNMAPS 50
#define TID_GPU(n) (100 + (n))
#define TID_HOST(lane) (1000 + (lane))
#define TID_DEVMEM(n, lane) (10000 + (n) * 1000 + (lane))

static int parse_ctx(const char *s)
{
	char *end;
	long v;

	if (!s)
		return -2;
	if (strcmp(s, "host_context") == 0)
		return -1;
	if (strncmp(s, "device:", 7) == 0) {
		v = strtol(s + 7, &end, 10);
		if (!*end && end != s + 7 && v >= 0 && v < MAX_DEV)
			return (int)v;
	}
	return -2;
}

static uint64_t hexnum(const struct json *o, const char *key)
{
	const char *s = json_str(o, key, NULL);

	if (s)
		return strtoull(s, NULL, 0);
	return json_u64(o, key, 0);
}

static void copy(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

/* One line into e: 1 kept, 0 an unknown "ev" (skipped quietly), -1 malformed. */
static int parse_line(const char *line, size_t len, struct ev *e)
{
	struct json *j = json_parse(line, len, NULL, 0);
	const char *kind;
	const struct json *dev;
	int rc = 1;

	if (!j)
		return -1;
	kind = json_str(j, "ev", NULL);
	if (!json_is(j, JSON_OBJ) || !kind || !json_get(j, "ts_ns")) {
		json_free(j);
		return -1;
	}
	memset(e, 0, sizeof(*e));
	e->ts = json_u64(j, "ts_ns", 0);
	dev = json_get(j, "dev");
	e->dev = json_is(dev, JSON_NUM) && dev->is_int && !dev->neg && dev->u64 < MAX_DEV ? (int)dev->u64 : -1;
	e->ctx = parse_ctx(json_str(j, "ctx", NULL));
	if (strcmp(kind, "alloc") == 0) {
		e->kind = EV_ALLOC;
		e->ptr = hexnum(j, "ptr");
		e->size = json_u64(j, "size", 0);
		copy(e->api, sizeof(e->api), json_str(j, "api", "alloc"));
		copy(e->route, sizeof(e->route), json_str(j, "route", ""));
	} else if (strcmp(kind, "free") == 0) {
		e->kind = EV_FREE;
		e->ptr = hexnum(j, "ptr");
		e->size = json_u64(j, "size", 0);
	} else if (strcmp(kind, "unmap") == 0) {
		const struct json *c = json_get(j, "coordinated");

		e->kind = EV_UNMAP;
		e->ptr = hexnum(j, "addr");
		e->size = json_u64(j, "len", 0);
		e->coordinated = json_is(c, JSON_BOOL) && c->b;
	} else if (strcmp(kind, "cp_set") == 0) {
		e->kind = EV_CP_SET;
		copy(e->cp, sizeof(e->cp), json_str(j, "cp", ""));
	} else if (strcmp(kind, "cp_clear") == 0) {
		e->kind = EV_CP_CLEAR;
	} else if (strcmp(kind, "drain") == 0) {
		e->kind = EV_DRAIN;
		e->dur = json_u64(j, "dur_ns", 0);
		copy(e->result, sizeof(e->result), json_str(j, "result", "ok"));
	} else if (strcmp(kind, "faults") == 0) {
		e->kind = EV_FAULTS;
		e->raised = json_u64(j, "raised", 0);
		e->handled = json_u64(j, "handled", 0);
		e->dropped = json_u64(j, "dropped", 0);
		e->real = json_u64(j, "real", 0);
	} else {
		rc = 0;
	}
	if (rc == 1 && (e->kind == EV_CP_SET || e->kind == EV_CP_CLEAR || e->kind == EV_DRAIN ||
			e->kind == EV_FAULTS) && e->dev < 0)
		rc = -1;
	json_free(j);
	return rc;
}

static int by_ts(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct out {
	FILE *f;
	uint64_t t0;
	int pid;
	bool first;
};

static void ts_us(struct out *o, const char *key, uint64_t ns)
{
	uint64_t rel = ns >= o->t0 ? ns - o->t0 : 0;

	fprintf(o->f, ",\"%s\":%llu.%03llu", key, (unsigned long long)(rel / 1000),
		(unsigned long long)(rel % 1000));
}

static void dur_us(struct out *o, uint64_t ns)
{
	fprintf(o->f, ",\"dur\":%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

static void begin(struct out *o, const char *ph, const char *name, int tid)
{
	fputs(o->first ? "\n" : ",\n", o->f);
	o->first = false;
	fprintf(o->f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"name\":", ph, o->pid, tid);
	json_write_str(o->f, name);
}

static void thread_meta(struct out *o, int tid, const char *name, int sort)
{
	begin(o, "M", "thread_name", tid);
	fputs(",\"args\":{\"name\":", o->f);
	json_write_str(o->f, name);
	fputs("}}", o->f);
	begin(o, "M", "thread_sort_index", tid);
	fprintf(o->f, ",\"args\":{\"sort_index\":%d}}", sort);
}

/* Lanes: first fit over allocations sorted by start. Returns lanes used. */
static int assign_lanes(struct ev *ev, size_t n, int ctx)
{
	uint64_t busy[256];
	int lanes = 0, l;
	size_t i;

	for (i = 0; i < n; i++) {
		if (ev[i].kind != EV_ALLOC || ev[i].ctx != ctx)
			continue;
		for (l = 0; l < lanes; l++)
			if (busy[l] <= ev[i].ts)
				break;
		if (l == lanes) {
			if (lanes < 256)
				lanes++;
			else
				l = lanes - 1;	/* overlapping slices on the last lane: rare */
		}
		busy[l] = ev[i].end > ev[i].ts ? ev[i].end : ev[i].ts + 1;
		ev[i].lane = l;
	}
	return lanes;
}

static void pair_allocs(struct ev *ev, size_t n, uint64_t t_end)
{
	size_t i, j;

	/* Open allocations are looked up newest first: a free almost always
	 * matches a recent allocation, and an address reused after a free must
	 * match its newest allocation. */
	size_t *open = malloc((n + 1) * sizeof(*open)), nopen = 0;

	for (i = 0; i < n; i++) {
		if (ev[i].kind == EV_ALLOC) {
			ev[i].end = t_end;
			if (open)
				open[nopen++] = i;
		} else if (ev[i].kind == EV_FREE && open) {
			for (j = nopen; j-- > 0;) {
				struct ev *a = &ev[open[j]];

				if (a->ptr == ev[i].ptr) {
					a->end = ev[i].ts;
					a->closed = true;
					ev[i].match = open[j];
					open[j] = open[--nopen];
					ev[i].closed = true;
					break;
				}
			}
		}
	}
	free(open);
}

static void emit_allocs(struct out *o, const struct ev *ev, size_t n)
{
	char name[96], b[24], ptr[24];
	size_t i;
	int tid;

	for (i = 0; i < n; i++) {
		const struct ev *e = &ev[i];

		if (e->kind != EV_ALLOC || e->ctx == -2)
			continue;
		tid = e->ctx == -1 ? TID_HOST(e->lane) : TID_DEVMEM(e->ctx, e->lane);
		snprintf(name, sizeof(name), "%s %s", e->api, fmt_bytes(e->size, b, sizeof(b)));
		begin(o, "X", name, tid);
		fputs(",\"cat\":\"alloc\"", o->f);
		ts_us(o, "ts", e->ts);
		dur_us(o, e->end > e->ts ? e->end - e->ts : 0);
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
		begin(o, "C", name, 0);
		ts_us(o, "ts", e->ts);
		fprintf(o->f, ",\"args\":{\"bytes\":%llu}}", (unsigned long long)*c);
	}
}

static void emit_gpu(struct out *o, struct ev *ev, size_t n, uint64_t t_end)
{
	size_t i, j;
	char name[64];

	/* Checkpoint windows: a set opens one per GPU, the next clear closes it;
	 * a set while one is open joins it (several unmaps at once). A drain
	 * that starts inside a window widens it to contain the drain, so that
	 * the slices nest. */
	for (i = 0; i < n; i++) {
		struct ev *s = &ev[i];
		uint64_t end = t_end;
		unsigned sets = 1;
		bool cleared = false;

		if (s->kind != EV_CP_SET || s->closed)
			continue;
		for (j = i + 1; j < n; j++) {
			struct ev *e = &ev[j];

			if (e->dev != s->dev)
				continue;
			if (e->kind == EV_CP_SET && !e->closed) {
				e->closed = true;
				sets++;
			} else if (e->kind == EV_CP_CLEAR && !e->closed) {
				e->closed = true;
				end = e->ts;
				cleared = true;
				break;
			}
		}
		for (j = i + 1; j < n && ev[j].ts <= end; j++)
			if (ev[j].kind == EV_DRAIN && ev[j].dev == s->dev && ev[j].ts + ev[j].dur > end)
				end = ev[j].ts + ev[j].dur;
		begin(o, "X", "checkpoint", TID_GPU(s->dev));
		fputs(",\"cat\":\"checkpoint\"", o->f);
		ts_us(o, "ts", s->ts);
		dur_us(o, end - s->ts);
		fputs(",\"args\":{\"cp\":", o->f);
		json_write_str(o->f, s->cp);
		fprintf(o->f, ",\"sets\":%u,\"cleared\":%s}}", sets, cleared ? "true" : "false");
	}
	for (i = 0; i < n; i++) {
		const struct ev *e = &ev[i];

		if (e->kind == EV_CP_CLEAR && !e->closed) {
			begin(o, "i", "checkpoint clear", TID_GPU(e->dev));
			fputs(",\"cat\":\"checkpoint\",\"s\":\"t\"", o->f);
			ts_us(o, "ts", e->ts);
			fputs("}", o->f);
		} else if (e->kind == EV_DRAIN) {
			snprintf(name, sizeof(name), strcmp(e->result, "ok") ? "drain (%s)" : "drain", e->result);
			begin(o, "X", name, TID_GPU(e->dev));
			fputs(",\"cat\":\"drain\"", o->f);
			ts_us(o, "ts", e->ts);
			dur_us(o, e->dur);
			fputs(",\"args\":{\"result\":", o->f);
			json_write_str(o->f, e->result);
			fprintf(o->f, ",\"dur_ns\":%llu}}", (unsigned long long)e->dur);
		} else if (e->kind == EV_FAULTS) {
			snprintf(name, sizeof(name), "GPU %d faults", e->dev);
			begin(o, "C", name, 0);
			ts_us(o, "ts", e->ts);
			fprintf(o->f, ",\"args\":{\"raised\":%llu,\"handled\":%llu,\"dropped\":%llu,\"real\":%llu}}",
				(unsigned long long)e->raised, (unsigned long long)e->handled,
				(unsigned long long)e->dropped, (unsigned long long)e->real);
		} else if (e->kind == EV_UNMAP) {
			char b[24], addr[24];

			snprintf(name, sizeof(name), "munmap %s%s", fmt_bytes(e->size, b, sizeof(b)),
				 e->coordinated ? "" : " (uncoordinated)");
			begin(o, "i", name, TID_UNMAPS);
			fputs(",\"cat\":\"unmap\",\"s\":\"t\"", o->f);
			ts_us(o, "ts", e->ts);
			snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)e->ptr);
			fputs(",\"args\":{\"addr\":", o->f);
			json_write_str(o->f, addr);
			fprintf(o->f, ",\"len\":%llu,\"coordinated\":%s}}", (unsigned long long)e->size,
				e->coordinated ? "true" : "false");
		}
	}
}

static int read_events(const char *path, struct ev **out, size_t *nout, struct trace_stats *st,
		       char *err, size_t errcap)
{
	struct ev *ev = NULL, *nv, e;
	size_t n = 0, cap = 0, len;
	char *buf, *p, *nl;
	int rc;

	rc = json_slurp(path, &buf, &len);
	if (rc) {
		snprintf(err, errcap, "%s: %s", path, strerror(-rc));
		return rc;
	}
	for (p = buf; p < buf + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (!nl)
			nl = buf + len;
		if (nl == p || (nl - p == 1 && *p == '\r'))
			continue;
		rc = parse_line(p, (size_t)(nl - p), &e);
		if (rc < 0) {
			st->bad_lines++;
			continue;
		}
		if (rc == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			nv = realloc(ev, cap * sizeof(*ev));
			if (!nv) {
				free(ev);
				free(buf);
				snprintf(err, errcap, "out of memory");
				return -ENOMEM;
			}
			ev = nv;
		}
		e.seq = n;
		ev[n++] = e;
	}
	free(buf);
	if (n == 0 && st->bad_lines) {
		free(ev);
		snprintf(err, errcap, "%s: no trace event could be read (%zu malformed line%s)", path,
			 st->bad_lines, st->bad_lines == 1 ? "" : "s");
		return -EINVAL;
	}
	/* Events come from several threads, each line written whole but not
	 * necessarily in time order. */
	if (n)
		qsort(ev, n, sizeof(*ev), by_ts);
	*out = ev;
	*nout = n;
	return 0;
}

int trace_convert(const char *events_path, FILE *f, const struct json *report,
		  struct trace_stats *st, char *err, size_t errcap)
{
	struct out o = { f, 0, 1, true };
	uint64_t t_end, live_host = 0, live_dev[MAX_DEV] = { 0 };
	bool gpu_seen[MAX_DEV] = { false }, unmaps = false;
	int host_lanes, dev_lanes[MAX_DEV] = { 0 }, l, d;
	const char *prog = json_str(report, "program", NULL);
	char name[96];
	struct ev *ev = NULL;
	size_t n = 0, i;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = read_events(events_path, &ev, &n, st, err, errcap);
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
	host_lanes = assign_lanes(ev, n, -1);
	for (d = 0; d < MAX_DEV; d++)
		dev_lanes[d] = assign_lanes(ev, n, d);
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
	begin(&o, "M", "process_name", 0);
	fputs(",\"args\":{\"name\":", f);
	json_write_str(f, name);
	fputs("}}", f);
	/* host_context always has a track, even when it allocated nothing. */
	for (l = 0; l < (host_lanes ? host_lanes : 1); l++) {
		snprintf(name, sizeof(name), l ? "host_context #%d" : "host_context", l + 1);
		thread_meta(&o, TID_HOST(l), name, l);
		st->tracks++;
	}
	if (unmaps) {
		thread_meta(&o, TID_UNMAPS, "unmaps", 300);
		st->tracks++;
	}
	for (d = 0; d < MAX_DEV; d++) {
		if (!gpu_seen[d])
			continue;
		snprintf(name, sizeof(name), "GPU %d", d);
		thread_meta(&o, TID_GPU(d), name, 1000 + d * 1000);
		st->tracks++;
		for (l = 0; l < dev_lanes[d]; l++) {
			snprintf(name, sizeof(name), l ? "device:%d memory #%d" : "device:%d memory", d, l + 1);
			thread_meta(&o, TID_DEVMEM(d, l), name, 1000 + d * 1000 + 1 + l);
			st->tracks++;
		}
	}
	/* Counters start at 0 so the first step is visible. */
	if (n) {
		begin(&o, "C", "host_context live bytes", 0);
		ts_us(&o, "ts", o.t0);
		fputs(",\"args\":{\"bytes\":0}}", f);
	}
	emit_allocs(&o, ev, n);
	emit_live(&o, ev, n, &live_host, live_dev);
	emit_gpu(&o, ev, n, t_end);
	fputs("\n]}\n", f);
	free(ev);
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(err, errcap, "writing the trace: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}
