/* SPDX-License-Identifier: MIT */
/*
 * stats.c - relaxed-atomic counters (stats.h). Async-signal-safe throughout.
 */
#include "stats.h"

#include <string.h>

#include "context.h"

void hipsvm_stats_reset(struct hipsvm_stats *s)
{
	memset(s, 0, sizeof(*s));
}

void hipsvm_stats_add(uint64_t *counter, uint64_t v)
{
	__atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
}

static void sub(uint64_t *counter, uint64_t v)
{
	/* Never below zero: a partial unmap followed by a free of what is
	 * left must not wrap the live counter. */
	uint64_t cur = __atomic_load_n(counter, __ATOMIC_RELAXED);

	for (;;) {
		uint64_t next = cur > v ? cur - v : 0;

		if (__atomic_compare_exchange_n(counter, &cur, next, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return;
	}
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

static struct hipsvm_dev_stats *dev_of(struct hipsvm_stats *s, int dev)
{
	if (dev < 0 || dev >= HIPSVM_STATS_MAX_DEV)
		return NULL;
	return &s->dev[dev];
}

void hipsvm_stats_alloc(struct hipsvm_stats *s, int ctx, int dev, uint64_t bytes, uint32_t route)
{
	struct hipsvm_ctx_stats *c = hipsvm_stats_ctx(s, ctx);
	struct hipsvm_dev_stats *d = dev_of(s, dev);

	if (c) {
		hipsvm_stats_add(&c->allocations, 1);
		raise_max(&c->peak_bytes,
			  __atomic_add_fetch(&c->live_bytes, bytes, __ATOMIC_RELAXED));
	}
	if (d) {
		hipsvm_stats_add(&d->allocations, 1);
		raise_max(&d->peak_bytes,
			  __atomic_add_fetch(&d->live_bytes, bytes, __ATOMIC_RELAXED));
	}
	if (route < HIPSVM_ROUTE_COUNT)
		hipsvm_stats_add(&s->route[route], 1);
	seen_dev(s, dev);
	if (ctx >= 0)
		seen_dev(s, ctx);
}

void hipsvm_stats_release(struct hipsvm_stats *s, int ctx, int dev, uint64_t bytes, bool freed)
{
	struct hipsvm_ctx_stats *c = hipsvm_stats_ctx(s, ctx);
	struct hipsvm_dev_stats *d = dev_of(s, dev);

	if (c) {
		if (freed)
			hipsvm_stats_add(&c->frees, 1);
		sub(&c->live_bytes, bytes);
	}
	if (d) {
		if (freed)
			hipsvm_stats_add(&d->frees, 1);
		sub(&d->live_bytes, bytes);
	}
}

static unsigned log2_bucket(uint64_t ns)
{
	unsigned b = 0;

	while (ns > 1 && b < HIPSVM_STATS_HIST - 1) {
		ns >>= 1;
		b++;
	}
	return b;
}

void hipsvm_stats_drain(struct hipsvm_stats *s, int dev, uint64_t ns, bool timed_out)
{
	struct hipsvm_dev_stats *d = dev_of(s, dev);

	if (!d)
		return;
	hipsvm_stats_add(&d->drains, 1);
	if (timed_out)
		hipsvm_stats_add(&d->drain_timeouts, 1);
	hipsvm_stats_add(&d->drain_count, 1);
	hipsvm_stats_add(&d->drain_total, ns);
	hipsvm_stats_add(&d->drain_hist[log2_bucket(ns)], 1);
	raise_max(&d->drain_max, ns);
	seen_dev(s, dev);
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
