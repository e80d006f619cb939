/* SPDX-License-Identifier: MIT */
/*
 * perfetto_gpu.c - the GPU tracks of the Chrome/Perfetto trace (perfetto.h):
 * checkpoint windows and drains, spread over lanes so that slices on one
 * track nest, the fault counters and the unmaps.
 */
#include "perfetto.h"

#include <stdlib.h>
#include <string.h>

/* Checkpoint windows, per GPU, in time order: a set opens one (a set while
 * one is open joins it: several unmaps at once), the next clear closes it.
 * A clear without a set is not drawn: the shim drains and clears every GPU
 * of the context, but sets a checkpoint only on those whose ring held faults
 * (docs/design.md, Checkpoints), so such a GPU had no checkpoint at all.
 *
 * Windows and drains of one GPU overlap without nesting when several
 * threads unmap at once (a drain outlives the window it started in, two
 * drains cross): on one track a viewer drops or misdraws such slices. So
 * each GPU's slices are spread over lanes (GPU N, GPU N #2, ...): a slice
 * goes to the first lane where it nests in, or follows, what is there. */
struct gslice {
	uint64_t start, end;
	const struct ev *drain;	/* NULL: a checkpoint window */
	unsigned sets;
	bool cleared;
	char cp[24];
	int dev, lane;
	size_t seq;
};

struct window {
	bool open;
	uint64_t start;
	unsigned sets;
	char cp[24];
};

struct gslices {
	struct gslice *v;
	size_t n, cap;
	bool oom;
};

static struct gslice *gs_add(struct gslices *g, int dev, uint64_t start, uint64_t end)
{
	struct gslice *x;

	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		struct gslice *nv = realloc(g->v, cap * sizeof(*nv));

		if (!nv) {
			g->oom = true;
			return NULL;
		}
		g->v = nv;
		g->cap = cap;
	}
	x = &g->v[g->n];
	memset(x, 0, sizeof(*x));
	x->dev = dev;
	x->start = start;
	x->end = end > start ? end : start;
	x->seq = g->n++;
	return x;
}

static void gs_window(struct gslices *g, int dev, const struct window *w, uint64_t end, bool cleared)
{
	struct gslice *x = gs_add(g, dev, w->start, end);

	if (!x)
		return;
	x->sets = w->sets;
	x->cleared = cleared;
	memcpy(x->cp, w->cp, sizeof(x->cp));
}

/* GPU, then start, then the longer first (the parent), then line order. */
static int by_dev_start(const void *a, const void *b)
{
	const struct gslice *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

#define LANE_DEPTH 8

/* Lanes of one GPU's slices v[0..n) (sorted by by_dev_start). Each lane keeps
 * the ends of the slices open at the current start; a slice fits where,
 * after the finished ones are dropped, the innermost open one ends no
 * earlier than it does. Past MAX_LANES (or LANE_DEPTH) lane -1: not drawn. */
static int assign_gpu_lanes(struct gslice *v, size_t n, size_t *undrawn)
{
	uint64_t stack[MAX_LANES][LANE_DEPTH];
	int depth[MAX_LANES], lanes = 0, l;
	size_t i;

	for (i = 0; i < n; i++) {
		for (l = 0; l < lanes; l++) {
			while (depth[l] && stack[l][depth[l] - 1] <= v[i].start)
				depth[l]--;
			if (depth[l] < LANE_DEPTH && (!depth[l] || stack[l][depth[l] - 1] >= v[i].end))
				break;
		}
		if (l == lanes) {
			if (lanes == MAX_LANES) {
				v[i].lane = -1;
				(*undrawn)++;
				continue;
			}
			depth[lanes++] = 0;
		}
		stack[l][depth[l]++] = v[i].end;
		v[i].lane = l;
	}
	return lanes;
}

static int gpu_tid(int dev, int lane)
{
	return lane ? TID_GPULANE(dev, lane) : TID_GPU(dev);
}

static void emit_gslice(struct out *o, const struct gslice *x)
{
	const struct ev *e = x->drain;
	char name[64];

	if (!e) {
		pf_begin(o, "X", "checkpoint", "checkpoint", gpu_tid(x->dev, x->lane));
		pf_ts(o, "ts", x->start);
		pf_dur(o, x->end - x->start);
		fputs(",\"args\":{\"cp\":", o->f);
		json_write_str(o->f, x->cp);
		fprintf(o->f, ",\"sets\":%u,\"cleared\":%s}}", x->sets, x->cleared ? "true" : "false");
		return;
	}
	snprintf(name, sizeof(name), strcmp(e->result, "ok") ? "drain (%s)" : "drain", e->result);
	pf_begin(o, "X", "drain", name, gpu_tid(x->dev, x->lane));
	pf_ts(o, "ts", e->ts);
	pf_dur(o, e->dur);
	fputs(",\"args\":{\"result\":", o->f);
	json_write_str(o->f, e->result);
	fprintf(o->f, ",\"dur_ns\":%llu}}", (unsigned long long)e->dur);
}

void pf_emit_gpu(struct out *o, struct ev *ev, size_t n, uint64_t t_end, int *lanes,
		 size_t *undrawn)
{
	struct window w[MAX_DEV];
	struct gslices g = { 0 };
	char name[64];
	size_t i, j;
	int d;

	memset(w, 0, sizeof(w));
	for (i = 0; i < n; i++) {
		const struct ev *e = &ev[i];
		struct window *x = e->dev >= 0 ? &w[e->dev] : NULL;

		if (e->kind == EV_CP_SET) {
			if (x->open) {
				x->sets++;
				continue;
			}
			x->open = true;
			x->start = e->ts;
			x->sets = 1;
			trace_copy_str(x->cp, sizeof(x->cp), e->cp);
		} else if (e->kind == EV_CP_CLEAR) {
			if (x->open)
				gs_window(&g, e->dev, x, e->ts, true);
			memset(x, 0, sizeof(*x));
		} else if (e->kind == EV_DRAIN) {
			struct gslice *s = gs_add(&g, e->dev, e->ts, e->ts + e->dur);

			if (s)
				s->drain = e;
		} else if (e->kind == EV_FAULTS) {
			snprintf(name, sizeof(name), "GPU %d faults", e->dev);
			pf_begin(o, "C", "faults", name, 0);
			pf_ts(o, "ts", e->ts);
			fprintf(o->f, ",\"args\":{\"raised\":%llu,\"handled\":%llu,\"dropped\":%llu,\"real\":%llu}}",
				(unsigned long long)e->raised, (unsigned long long)e->handled,
				(unsigned long long)e->dropped, (unsigned long long)e->real);
		} else if (e->kind == EV_UNMAP) {
			char b[24], addr[24];

			snprintf(name, sizeof(name), "munmap %s%s", fmt_bytes(e->size, b, sizeof(b)),
				 e->coordinated ? "" : " (uncoordinated)");
			pf_begin(o, "i", "unmap", name, TID_UNMAPS);
			fputs(",\"s\":\"t\"", o->f);
			pf_ts(o, "ts", e->ts);
			snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)e->ptr);
			fputs(",\"args\":{\"addr\":", o->f);
			json_write_str(o->f, addr);
			fprintf(o->f, ",\"len\":%llu,\"coordinated\":%s}}", (unsigned long long)e->size,
				e->coordinated ? "true" : "false");
		}
	}
	/* A window never cleared lasts to the end of the trace. */
	for (d = 0; d < MAX_DEV; d++)
		if (w[d].open)
			gs_window(&g, d, &w[d], t_end, false);
	if (g.oom)
		*undrawn += g.n;	/* counted; nothing half drawn */
	else if (g.n)
		qsort(g.v, g.n, sizeof(*g.v), by_dev_start);
	for (i = 0; !g.oom && i < g.n; i = j) {
		for (j = i; j < g.n && g.v[j].dev == g.v[i].dev; j++)
			;
		lanes[g.v[i].dev] = assign_gpu_lanes(&g.v[i], j - i, undrawn);
	}
	for (i = 0; !g.oom && i < g.n; i++)
		if (g.v[i].lane >= 0)
			emit_gslice(o, &g.v[i]);
	free(g.v);
}
