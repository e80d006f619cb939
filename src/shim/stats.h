/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the shim's counters: per device, per context, routing, unmaps,
 * errors. Every update is a relaxed atomic: the counters are bumped from the
 * unmap hook (any thread, signal handlers included), so no locks and no
 * allocation. Readers (the report) see each counter exactly, and the set of
 * counters as of roughly one moment.
 *
 * The counters every allocation and free bumps (allocations, frees, live
 * and peak bytes, routing) are striped: each thread updates its own stripe,
 * so that threads allocating at once do not pass cache lines back and
 * forth, and readers sum the stripes. Live bytes are exact; a stripe hands
 * its bytes to the shared total once they reach HIPSVM_STATS_BATCH, and the
 * peak is tracked from the total as each stripe last saw it. So the peak is
 * exact when one thread allocates, and within HIPSVM_STATS_BATCH per other
 * allocating thread otherwise (docs/report.md).
 */
#ifndef HIPSVM_STATS_H
#define HIPSVM_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "shim/api.h"
#include "shared/proto.h"
#include "shim/route.h"

#define HIPSVM_STATS_MAX_DEV HIPSVM_MAX_GPUS
#define HIPSVM_STATS_HIST 64	/* log2 buckets of drain durations in ns */
#define HIPSVM_STATS_STRIPES 16
#define HIPSVM_STATS_BATCH (UINT64_C(1) << 20)

struct hipsvm_dev_stats {
	uint64_t checkpoints_set, drains, drain_timeouts;
	uint64_t drain_count, drain_max, drain_total;
	uint64_t drain_hist[HIPSVM_STATS_HIST];	/* bucket i: [2^i, 2^(i+1)) ns; 0 in bucket 0 */
	uint64_t faults_raised, faults_handled, faults_dropped, faults_real;	/* from the hook */
};

struct hipsvm_ctx_stats {
	uint64_t unmaps_coordinated;
};

/* Memory counters: host_context, the primary contexts, the devices. */
#define HIPSVM_STATS_MEM_HOST 0
#define HIPSVM_STATS_MEM_CTX(d) (1 + (d))
#define HIPSVM_STATS_MEM_DEV(d) (1 + HIPSVM_STATS_MAX_DEV + (d))
#define HIPSVM_STATS_NMEM (1 + 2 * HIPSVM_STATS_MAX_DEV)

/* One context's or device's memory counters in one stripe. live and base
 * hold signed values (two's complement): a stripe may free what another
 * allocated. */
struct hipsvm_mem_part {
	uint64_t allocations, frees;
	uint64_t live;		/* bytes allocated minus released here, not yet in the total */
	uint64_t base;		/* the total as this stripe last added to it */
	uint64_t peak;		/* highest base + live seen here */
	/* signed: how high live may go before the general update must run,
	 * min(HIPSVM_STATS_BATCH - 1, peak - base), so that an allocation
	 * below both the batch and this stripe's peak is one compare */
	uint64_t room;
};

struct hipsvm_stats_stripe {
	struct hipsvm_mem_part mem[HIPSVM_STATS_NMEM];
	uint64_t route[HIPSVM_ROUTE_COUNT];
	/* recorded allocations / frees per API; calls and bytes side by side,
	 * so that a call touches one more line of its stripe, not two */
	struct {
		uint64_t calls, bytes;
	} api[HIPSVM_API_COUNT];
} __attribute__((aligned(64)));

/* A context's or device's memory counters, summed (hipsvm_stats_mem). */
struct hipsvm_mem_view {
	uint64_t allocations, frees, live_bytes, peak_bytes;
};

enum hipsvm_unmap_counter {
	HIPSVM_UNMAP_TRACKED,
	HIPSVM_UNMAP_COORDINATED,
	HIPSVM_UNMAP_UNCOORDINATED,
	HIPSVM_UNMAP_PARTIAL,
	HIPSVM_UNMAP_LIVE_SVM,
	HIPSVM_UNMAP_LIVE_SVM_BYTES,
	HIPSVM_UNMAP_REENTRANT_SKIPPED,
	HIPSVM_UNMAP_REFUSED,		/* the kernel refused it: nothing unmapped */
	HIPSVM_UNMAP_FREED_AFTER,	/* frees of allocations unmapped whole before */
	HIPSVM_UNMAP_BY_HIP,		/* hipMemUnmap, hipIpcCloseMemHandle */
	HIPSVM_UNMAP_COUNT
};

enum hipsvm_error_counter {
	HIPSVM_ERR_RUNTIME,
	HIPSVM_ERR_UNKNOWN_POINTER_FREE,
	HIPSVM_ERR_COUNT
};

struct hipsvm_stats {
	struct hipsvm_dev_stats dev[HIPSVM_STATS_MAX_DEV];
	struct hipsvm_ctx_stats host;				/* host_context */
	struct hipsvm_ctx_stats primary[HIPSVM_STATS_MAX_DEV];	/* device:N */
	uint64_t quota_denied;
	uint64_t pool_trims, pools_destroyed;	/* hipMemPoolTrimTo, hipMemPoolDestroy */
	uint64_t vmm_maps;			/* hipMemMap */
	uint64_t pool_exports;			/* hipMemPoolExportPointer */
	uint64_t vmm_reserves, vmm_frees;	/* hipMemAddressReserve, hipMemAddressFree */
	uint64_t unmap[HIPSVM_UNMAP_COUNT];
	uint64_t error[HIPSVM_ERR_COUNT];
	uint32_t max_dev_seen;		/* 1 + the highest device index counted */
	struct {
		uint64_t live, peak;	/* live: signed */
	} mem_total[HIPSVM_STATS_NMEM];
	struct hipsvm_stats_stripe stripe[HIPSVM_STATS_STRIPES];
};

void hipsvm_stats_reset(struct hipsvm_stats *s);

/* An allocation of bytes in ctx, made while dev was current (dev may be -1). */
void hipsvm_stats_alloc(struct hipsvm_stats *s, int ctx, int dev, uint64_t bytes, uint32_t route);
/* A free (or the removal of bytes by an unmap when freed is false). */
void hipsvm_stats_release(struct hipsvm_stats *s, int ctx, int dev, uint64_t bytes, bool freed);

/* HIPSVM_STATS_MEM_HOST, _CTX(d) or _DEV(d), summed over the stripes
 * (zeros for an index out of range). */
void hipsvm_stats_mem(const struct hipsvm_stats *s, unsigned index, struct hipsvm_mem_view *out);
uint64_t hipsvm_stats_route(const struct hipsvm_stats *s, unsigned route);
/* A recorded allocation (bytes) or free (0) made through api; and the sums. */
void hipsvm_stats_api(struct hipsvm_stats *s, unsigned api, uint64_t bytes);
void hipsvm_stats_api_sum(const struct hipsvm_stats *s, unsigned api, uint64_t *calls,
			  uint64_t *bytes);

void hipsvm_stats_add(uint64_t *counter, uint64_t v);
/* The context's counters: HIPSVM_CTX_HOST or a device index; NULL if out of range. */
struct hipsvm_ctx_stats *hipsvm_stats_ctx(struct hipsvm_stats *s, int ctx);
void hipsvm_stats_drain(struct hipsvm_stats *s, int dev, uint64_t ns, bool timed_out);
/* One drain of the GPUs of the mask devs (those of timed_out timed out),
 * as hipsvm_stats_drain for each. */
void hipsvm_stats_drains(struct hipsvm_stats *s, uint64_t devs, uint64_t ns, uint64_t timed_out);

/* Median of the drain histogram: the lower bound of the bucket holding it
 * (0 when there is none). */
uint64_t hipsvm_stats_drain_median(const struct hipsvm_dev_stats *d);

static inline uint64_t hipsvm_stats_get(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* ---- what every hipMalloc and hipFree touches, inline ----
 * An allocation and its API's count in one go (one stripe looked up), and a
 * free likewise; the batch's hand-over to the total and the first update of
 * a thread or of a device go out of line (stats.c). */

/* 1 + this thread's stripe; 0 until its first update. Threads take the
 * stripes in turn; past HIPSVM_STATS_STRIPES threads share them (every
 * update is atomic, so sharing costs speed, not counts). */
extern __thread unsigned hipsvm_stats_tl_stripe __attribute__((tls_model("initial-exec")));
unsigned hipsvm_stats_stripe_take(void);
void hipsvm_stats_mem_slow(struct hipsvm_stats *s, struct hipsvm_stats_stripe *st, int i,
			   int64_t delta, bool alloc, bool freed);
void hipsvm_stats_seen_slow(struct hipsvm_stats *s, int ctx, int dev);

static inline struct hipsvm_stats_stripe *hipsvm_stats_my_stripe(struct hipsvm_stats *s)
{
	unsigned k = hipsvm_stats_tl_stripe;

	if (__builtin_expect(!k, 0))
		k = hipsvm_stats_stripe_take();
	return &s->stripe[k - 1];
}

static inline int hipsvm_stats_ctx_index(int ctx)
{
	if (ctx == HIPSVM_CTX_HOST)
		return HIPSVM_STATS_MEM_HOST;
	if (ctx < 0 || ctx >= HIPSVM_STATS_MAX_DEV)
		return -1;
	return HIPSVM_STATS_MEM_CTX(ctx);
}

static inline int hipsvm_stats_dev_index(int dev)
{
	return dev < 0 || dev >= HIPSVM_STATS_MAX_DEV ? -1 : HIPSVM_STATS_MEM_DEV(dev);
}

static inline void hipsvm_stats_api_in(struct hipsvm_stats_stripe *st, unsigned api,
				       uint64_t bytes)
{
	if (api >= HIPSVM_API_COUNT)
		return;
	__atomic_fetch_add(&st->api[api].calls, 1, __ATOMIC_RELAXED);
	if (bytes)
		__atomic_fetch_add(&st->api[api].bytes, bytes, __ATOMIC_RELAXED);
}

/* d at or past a batch either way (|d| >= HIPSVM_STATS_BATCH), or bytes too
 * big to be a signed delta: one unsigned compare and one shift. */
static inline bool hipsvm_stats_past_batch(int64_t d, uint64_t bytes)
{
	return ((uint64_t)d + (HIPSVM_STATS_BATCH - 1) > 2 * (HIPSVM_STATS_BATCH - 1)) |
	       (bytes >> 63);
}

/* One counter part up by bytes (an allocation) or down (a free): the
 * common case here, a batch's hand-over by the general update. */
static inline void hipsvm_stats_mem_up(struct hipsvm_stats *s, struct hipsvm_stats_stripe *st,
				       int i, uint64_t bytes)
{
	struct hipsvm_mem_part *m = &st->mem[i];
	int64_t d;

	d = (int64_t)__atomic_add_fetch(&m->live, bytes, __ATOMIC_RELAXED);
	/* within room: below the batch, and base + live within this stripe's
	 * peak, so neither a hand-over nor a new peak */
	if (__builtin_expect((d > (int64_t)__atomic_load_n(&m->room, __ATOMIC_RELAXED)) |
			     (bytes >> 63), 0)) {
		__atomic_sub_fetch(&m->live, bytes, __ATOMIC_RELAXED);
		hipsvm_stats_mem_slow(s, st, i, (int64_t)bytes, true, false);
		return;
	}
	__atomic_fetch_add(&m->allocations, 1, __ATOMIC_RELAXED);
}

static inline void hipsvm_stats_mem_down(struct hipsvm_stats *s, struct hipsvm_stats_stripe *st,
					 int i, uint64_t bytes)
{
	struct hipsvm_mem_part *m = &st->mem[i];
	int64_t d;

	d = (int64_t)__atomic_sub_fetch(&m->live, bytes, __ATOMIC_RELAXED);
	if (__builtin_expect(hipsvm_stats_past_batch(d, bytes), 0)) {
		__atomic_add_fetch(&m->live, bytes, __ATOMIC_RELAXED);
		hipsvm_stats_mem_slow(s, st, i, -(int64_t)bytes, false, true);
		return;
	}
	__atomic_fetch_add(&m->frees, 1, __ATOMIC_RELAXED);
}

static inline void hipsvm_stats_alloc_call(struct hipsvm_stats *s, int ctx, int dev,
					   uint64_t bytes, uint32_t route, unsigned api)
{
	struct hipsvm_stats_stripe *st = hipsvm_stats_my_stripe(s);
	int ci = hipsvm_stats_ctx_index(ctx), di = hipsvm_stats_dev_index(dev);
	uint64_t seen = __atomic_load_n(&s->max_dev_seen, __ATOMIC_RELAXED);

	if (ci >= 0)
		hipsvm_stats_mem_up(s, st, ci, bytes);
	if (di >= 0)
		hipsvm_stats_mem_up(s, st, di, bytes);
	if (route < HIPSVM_ROUTE_COUNT)
		__atomic_fetch_add(&st->route[route], 1, __ATOMIC_RELAXED);
	if ((uint64_t)dev + 1 > seen || (uint64_t)ctx + 1 > seen)
		hipsvm_stats_seen_slow(s, ctx, dev);
	hipsvm_stats_api_in(st, api, bytes);
}

/* hipsvm_stats_alloc_call for device memory in device dev's primary
 * context (ctx == dev, 0 <= dev < HIPSVM_STATS_MAX_DEV, bytes > 0), routed
 * as HIP: the same counters, without the index checks. */
static inline __attribute__((always_inline)) void hipsvm_stats_alloc_dev(struct hipsvm_stats *s,
	int dev, uint64_t bytes, unsigned api)
{
	struct hipsvm_stats_stripe *st = hipsvm_stats_my_stripe(s);

	hipsvm_stats_mem_up(s, st, HIPSVM_STATS_MEM_CTX(dev), bytes);
	hipsvm_stats_mem_up(s, st, HIPSVM_STATS_MEM_DEV(dev), bytes);
	__atomic_fetch_add(&st->route[HIPSVM_ROUTE_AS_HIP], 1, __ATOMIC_RELAXED);
	if ((uint32_t)dev >= __atomic_load_n(&s->max_dev_seen, __ATOMIC_RELAXED))
		hipsvm_stats_seen_slow(s, dev, dev);
	if (__builtin_expect(api < HIPSVM_API_COUNT, 1)) {
		/* (bytes > 0: the caller's allocation is not empty) */
		__atomic_fetch_add(&st->api[api].calls, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&st->api[api].bytes, bytes, __ATOMIC_RELAXED);
	}
}

/* hipsvm_stats_free_call for an allocation counted by
 * hipsvm_stats_alloc_dev. */
static inline __attribute__((always_inline)) void hipsvm_stats_free_dev(struct hipsvm_stats *s,
	int dev, uint64_t bytes, unsigned api)
{
	struct hipsvm_stats_stripe *st = hipsvm_stats_my_stripe(s);

	hipsvm_stats_mem_down(s, st, HIPSVM_STATS_MEM_CTX(dev), bytes);
	hipsvm_stats_mem_down(s, st, HIPSVM_STATS_MEM_DEV(dev), bytes);
	hipsvm_stats_api_in(st, api, 0);
}

static inline void hipsvm_stats_free_call(struct hipsvm_stats *s, int ctx, int dev,
					  uint64_t bytes, unsigned api)
{
	struct hipsvm_stats_stripe *st = hipsvm_stats_my_stripe(s);
	int ci = hipsvm_stats_ctx_index(ctx), di = hipsvm_stats_dev_index(dev);

	if (ci >= 0)
		hipsvm_stats_mem_down(s, st, ci, bytes);
	if (di >= 0)
		hipsvm_stats_mem_down(s, st, di, bytes);
	hipsvm_stats_api_in(st, api, 0);
}

#endif
