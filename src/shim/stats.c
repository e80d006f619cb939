/* SPDX-License-Identifier: MIT */
/*
 * stats.c - relaxed-atomic counters, the memory ones striped by thread
 * (stats.h). Async-signal-safe throughout.
 */
#include "shim/stats.h"
#include "shim/testing.h"

#include <string.h>

#include "shim/api.h"

void hipsvm_stats_reset(struct hipsvm_stats *s)
{
	memset(s, 0, sizeof(*s));
}

void hipsvm_stats_add(uint64_t *counter, uint64_t v)
{
	__atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
}

static void raise_max(uint64_t *peak, uint64_t v)
{
	uint64_t cur = __atomic_load_n(peak, __ATOMIC_RELAXED);

	while (v > cur && !__atomic_compare_exchange_n(peak, &cur, v, true, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

static void seen_dev(struct hipsvm_stats *s, int dev)
{
	uint64_t cur, want;

	if (dev < 0)
		return;
	want = (uint64_t)dev + 1;
	cur = __atomic_load_n(&s->max_dev_seen, __ATOMIC_RELAXED);
	while (want > cur) {
		uint32_t c32 = (uint32_t)cur;

		if (__atomic_compare_exchange_n(&s->max_dev_seen, &c32, (uint32_t)want, true,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
		cur = c32;
	}
}

struct hipsvm_ctx_stats *hipsvm_stats_ctx(struct hipsvm_stats *s, int ctx)
{
	if (ctx == HIPSVM_CTX_HOST)
		return &s->host;
	if (ctx < 0 || ctx >= HIPSVM_STATS_MAX_DEV)
		return NULL;
	return &s->primary[ctx];
}

/* 1 + this thread's stripe; 0 until its first update. Threads take the
 * stripes in turn; past HIPSVM_STATS_STRIPES threads share them (every
 * update is atomic, so sharing costs speed, not counts). */
__thread unsigned hipsvm_stats_tl_stripe __attribute__((tls_model("initial-exec")));
static unsigned next_stripe;

unsigned hipsvm_stats_stripe_take(void)
{
	unsigned k = __atomic_fetch_add(&next_stripe, 1, __ATOMIC_RELAXED) % HIPSVM_STATS_STRIPES + 1;

	hipsvm_stats_tl_stripe = k;
	return k;
}

static struct hipsvm_stats_stripe *my_stripe(struct hipsvm_stats *s)
{
	return hipsvm_stats_my_stripe(s);
}

static int ctx_index(int ctx)
{
	return hipsvm_stats_ctx_index(ctx);
}

static int dev_index(int dev)
{
	return hipsvm_stats_dev_index(dev);
}

/* The part's room (stats.h) from its peak and base. Written again while
 * either moved under the write (threads past HIPSVM_STATS_STRIPES share a
 * stripe), so that the room left matches the last peak and base: a room
 * too high would let an allocation past the peak go unseen. */
static void set_room(struct hipsvm_mem_part *m)
{
	for (;;) {
		uint64_t peak = __atomic_load_n(&m->peak, __ATOMIC_RELAXED);
		uint64_t base = __atomic_load_n(&m->base, __ATOMIC_RELAXED);
		int64_t room = (int64_t)(peak - base);

		if (room > (int64_t)HIPSVM_STATS_BATCH - 1)
			room = (int64_t)HIPSVM_STATS_BATCH - 1;
		__atomic_store_n(&m->room, (uint64_t)room, __ATOMIC_RELAXED);
		if (__atomic_load_n(&m->peak, __ATOMIC_RELAXED) == peak &&
		    __atomic_load_n(&m->base, __ATOMIC_RELAXED) == base)
			return;
	}
}

/* delta bytes (signed) on counter i of this thread's stripe. Past a batch
 * the stripe's bytes go to the total, and the total seen then is the base
 * of this stripe's peak estimate until its next hand-over. */
static void mem_change_in(struct hipsvm_stats *s, struct hipsvm_stats_stripe *st, int i,
			  int64_t delta, bool alloc, bool freed)
{
	struct hipsvm_mem_part *m;
	int64_t d, total;

	if (i < 0)
		return;
	m = &st->mem[i];
	if (alloc)
		hipsvm_stats_add(&m->allocations, 1);
	if (freed)
		hipsvm_stats_add(&m->frees, 1);
	d = (int64_t)__atomic_add_fetch(&m->live, (uint64_t)delta, __ATOMIC_RELAXED);
	if (d >= (int64_t)HIPSVM_STATS_BATCH || d <= -(int64_t)HIPSVM_STATS_BATCH) {
		uint64_t x = __atomic_exchange_n(&m->live, 0, __ATOMIC_RELAXED);

		total = (int64_t)__atomic_add_fetch(&s->mem_total[i].live, x, __ATOMIC_RELAXED);
		__atomic_store_n(&m->base, (uint64_t)total, __ATOMIC_RELAXED);
		if (total > 0)
			raise_max(&s->mem_total[i].peak, (uint64_t)total);
		set_room(m);
		return;
	}
	if (delta > 0) {
		total = (int64_t)__atomic_load_n(&m->base, __ATOMIC_RELAXED) + d;
		if (total > 0 && (uint64_t)total > __atomic_load_n(&m->peak, __ATOMIC_RELAXED)) {
			raise_max(&m->peak, (uint64_t)total);
			set_room(m);
		}
	}
}

static void alloc_in(struct hipsvm_stats *s, struct hipsvm_stats_stripe *st, int ctx, int dev,
		     uint64_t bytes, uint32_t route)
{
	mem_change_in(s, st, ctx_index(ctx), (int64_t)bytes, true, false);
	mem_change_in(s, st, dev_index(dev), (int64_t)bytes, true, false);
	if (route < HIPSVM_ROUTE_COUNT)
		hipsvm_stats_add(&st->route[route], 1);
	seen_dev(s, dev);
	if (ctx >= 0 && ctx != dev)
		seen_dev(s, ctx);
}

static void api_in(struct hipsvm_stats_stripe *st, unsigned api, uint64_t bytes)
{
	hipsvm_stats_api_in(st, api, bytes);
}

void hipsvm_stats_alloc(struct hipsvm_stats *s, int ctx, int dev, uint64_t bytes, uint32_t route)
{
	alloc_in(s, my_stripe(s), ctx, dev, bytes, route);
}

void hipsvm_stats_release(struct hipsvm_stats *s, int ctx, int dev, uint64_t bytes, bool freed)
{
	struct hipsvm_stats_stripe *st = my_stripe(s);

	mem_change_in(s, st, ctx_index(ctx), -(int64_t)bytes, false, freed);
	mem_change_in(s, st, dev_index(dev), -(int64_t)bytes, false, freed);
}

void hipsvm_stats_mem_slow(struct hipsvm_stats *s, struct hipsvm_stats_stripe *st, int i,
			   int64_t delta, bool alloc, bool freed)
{
	mem_change_in(s, st, i, delta, alloc, freed);
}

void hipsvm_stats_seen_slow(struct hipsvm_stats *s, int ctx, int dev)
{
	seen_dev(s, dev);
	if (ctx >= 0)
		seen_dev(s, ctx);
}

void hipsvm_stats_mem(const struct hipsvm_stats *s, unsigned i, struct hipsvm_mem_view *out)
{
	int64_t live;
	uint64_t peak;
	unsigned k;

	memset(out, 0, sizeof(*out));
	if (i >= HIPSVM_STATS_NMEM)
		return;
	live = (int64_t)hipsvm_stats_get(&s->mem_total[i].live);
	peak = hipsvm_stats_get(&s->mem_total[i].peak);
	for (k = 0; k < HIPSVM_STATS_STRIPES; k++) {
		const struct hipsvm_mem_part *m = &s->stripe[k].mem[i];
		uint64_t p = hipsvm_stats_get(&m->peak);

		out->allocations += hipsvm_stats_get(&m->allocations);
		out->frees += hipsvm_stats_get(&m->frees);
		live += (int64_t)hipsvm_stats_get(&m->live);
		if (p > peak)
			peak = p;
	}
	/* Never below zero: more released than allocated means an unmap and
	 * a free both counted the same bytes, not negative memory. */
	out->live_bytes = live > 0 ? (uint64_t)live : 0;
	out->peak_bytes = peak > out->live_bytes ? peak : out->live_bytes;
}

uint64_t hipsvm_stats_route(const struct hipsvm_stats *s, unsigned route)
{
	uint64_t n = 0;
	unsigned k;

	if (route >= HIPSVM_ROUTE_COUNT)
		return 0;
	for (k = 0; k < HIPSVM_STATS_STRIPES; k++)
		n += hipsvm_stats_get(&s->stripe[k].route[route]);
	return n;
}

#define DEV_MASK (HIPSVM_STATS_MAX_DEV >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << HIPSVM_STATS_MAX_DEV) - 1)

static unsigned log2_bucket(uint64_t ns)
{
	/* floor(log2(ns)), 0 for 0 and 1: one instruction, not a loop of ~17
	 * shifts for a drain of tens of microseconds */
	unsigned b = ns > 1 ? 63u - (unsigned)__builtin_clzll(ns) : 0;

	return b < HIPSVM_STATS_HIST - 1 ? b : HIPSVM_STATS_HIST - 1;
}

void hipsvm_stats_drains(struct hipsvm_stats *s, uint64_t devs, uint64_t ns, uint64_t timed_out)
{
	unsigned b = log2_bucket(ns);
	uint64_t left = devs & DEV_MASK;

	if (!left)
		return;
	/* the bucket worked out once for every GPU of the drain, and the
	 * highest GPU seen raised once */
	for (; left; left &= left - 1) {
		struct hipsvm_dev_stats *d = &s->dev[__builtin_ctzll(left)];

		hipsvm_stats_add(&d->drains, 1);
		if (timed_out & (left & -left))
			hipsvm_stats_add(&d->drain_timeouts, 1);
		hipsvm_stats_add(&d->drain_count, 1);
		hipsvm_stats_add(&d->drain_total, ns);
		hipsvm_stats_add(&d->drain_hist[b], 1);
		raise_max(&d->drain_max, ns);
	}
	seen_dev(s, 63 - __builtin_clzll(devs & DEV_MASK));
}

void hipsvm_stats_drain(struct hipsvm_stats *s, int dev, uint64_t ns, bool timed_out)
{
	if (dev < 0 || dev >= HIPSVM_STATS_MAX_DEV)
		return;
	hipsvm_stats_drains(s, UINT64_C(1) << dev, ns, timed_out ? UINT64_C(1) << dev : 0);
}

uint64_t hipsvm_stats_drain_median(const struct hipsvm_dev_stats *d)
{
	uint64_t total = 0, run = 0, half;
	unsigned b;

	for (b = 0; b < HIPSVM_STATS_HIST; b++)
		total += hipsvm_stats_get(&d->drain_hist[b]);
	if (!total)
		return 0;
	half = (total + 1) / 2;
	for (b = 0; b < HIPSVM_STATS_HIST; b++) {
		run += hipsvm_stats_get(&d->drain_hist[b]);
		if (run >= half)
			return b ? UINT64_C(1) << b : 0;
	}
	return 0;
}

void hipsvm_stats_api(struct hipsvm_stats *s, unsigned api, uint64_t bytes)
{
	api_in(my_stripe(s), api, bytes);
}

void hipsvm_stats_api_sum(const struct hipsvm_stats *s, unsigned api, uint64_t *calls,
			  uint64_t *bytes)
{
	unsigned k;

	*calls = *bytes = 0;
	if (api >= HIPSVM_API_COUNT)
		return;
	for (k = 0; k < HIPSVM_STATS_STRIPES; k++) {
		*calls += hipsvm_stats_get(&s->stripe[k].api[api].calls);
		*bytes += hipsvm_stats_get(&s->stripe[k].api[api].bytes);
	}
}
