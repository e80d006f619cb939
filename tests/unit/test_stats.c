/* SPDX-License-Identifier: MIT */
/*
 * test_stats.c - the striped memory counters (src/shim/stats.c): exact counts
 * from any number of threads, exact live bytes, and a peak that is exact
 * for one thread (checked against a brute-force model over random traffic
 * that crosses the hand-over batch) and within the documented bound for
 * several.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <pthread.h>
#include <stdlib.h>

#include "shim/api.h"
#include "shim/stats.h"
#include "shim/testing.h"
#include "test_rand.h"

static struct hipsvm_stats st;

static struct hipsvm_mem_view view(unsigned index)
{
	struct hipsvm_mem_view v;

	hipsvm_stats_mem(&st, index, &v);
	return v;
}

Test(stats, live_never_negative_and_peak)
{
	struct hipsvm_mem_view v;

	hipsvm_stats_reset(&st);
	hipsvm_stats_alloc(&st, 0, 0, 100, 0);
	hipsvm_stats_alloc(&st, 0, 0, 50, 0);
	hipsvm_stats_release(&st, 0, 0, 120, false);
	hipsvm_stats_release(&st, 0, 0, 120, true);
	v = view(HIPSVM_STATS_MEM_CTX(0));
	cr_expect_eq(v.live_bytes, 0);
	cr_expect_eq(v.peak_bytes, 150);
	cr_expect_eq(v.frees, 1);
	cr_expect_eq(view(HIPSVM_STATS_MEM_DEV(0)).allocations, 2);
	cr_expect_eq(view(HIPSVM_STATS_MEM_HOST).allocations, 0);
	cr_expect_eq(view(HIPSVM_STATS_NMEM).allocations, 0, "out of range: zeros");
	cr_expect_null(hipsvm_stats_ctx(&st, 64));
	cr_expect_eq(hipsvm_stats_ctx(&st, HIPSVM_CTX_HOST), &st.host);
}

Test(stats, routes_and_out_of_range)
{
	hipsvm_stats_reset(&st);
	hipsvm_stats_alloc(&st, HIPSVM_CTX_HOST, -1, 10, HIPSVM_ROUTE_OVERSUBSCRIBED);
	hipsvm_stats_alloc(&st, 70, 70, 10, HIPSVM_ROUTE_COUNT);
	cr_expect_eq(hipsvm_stats_route(&st, HIPSVM_ROUTE_OVERSUBSCRIBED), 1);
	cr_expect_eq(hipsvm_stats_route(&st, HIPSVM_ROUTE_COUNT), 0);
	cr_expect_eq(view(HIPSVM_STATS_MEM_HOST).live_bytes, 10);
	cr_expect_eq(view(HIPSVM_STATS_MEM_HOST).allocations, 1);
}

/* One thread, random allocations and frees of 1 byte to 3 MiB (so that
 * the stripe hands bytes to the total, both ways, many times): live and
 * peak must equal the model's after every step. */
/* device: through the calls every hipMalloc and hipFree makes inline
 * (hipsvm_stats_alloc_dev / free_dev: device 1's context and the device
 * itself); else through the general ones (host_context, device 1). */
static void one_thread(bool device)
{
	enum { LIVE = 64, STEPS = 20000 };
	uint64_t seed = test_seed(0x57a75), s = seed, sizes[LIVE] = { 0 }, live = 0, peak = 0;
	unsigned step, allocs = 0, frees = 0, ctx = device ? HIPSVM_STATS_MEM_CTX(1) :
							       HIPSVM_STATS_MEM_HOST;

	cr_log_info("seed 0x%llx (HIPSVM_TEST_SEED), %s calls", (unsigned long long)seed,
		    device ? "device" : "general");
	hipsvm_stats_reset(&st);
	for (step = 0; step < STEPS; step++) {
		unsigned k = (unsigned)(rnd(&s) % LIVE);
		struct hipsvm_mem_view v;

		if (sizes[k]) {
			if (device)
				hipsvm_stats_free_dev(&st, 1, sizes[k], HIPSVM_API_FREE);
			else
				hipsvm_stats_release(&st, HIPSVM_CTX_HOST, 1, sizes[k], true);
			live -= sizes[k];
			sizes[k] = 0;
			frees++;
		} else {
			uint64_t r = rnd(&s);

			sizes[k] = r & 1 ? 1 + (r >> 8) % 4096 : 1 + (r >> 8) % (3u << 20);
			if (device)
				hipsvm_stats_alloc_dev(&st, 1, sizes[k], HIPSVM_API_MALLOC);
			else
				hipsvm_stats_alloc(&st, HIPSVM_CTX_HOST, 1, sizes[k],
						   HIPSVM_ROUTE_AS_HIP);
			live += sizes[k];
			allocs++;
			if (live > peak)
				peak = live;
		}
		v = view(ctx);
		if (v.live_bytes != live || v.peak_bytes != peak)
			cr_assert_fail("step %u (seed 0x%llx): live %llu peak %llu, model %llu %llu", step,
				 (unsigned long long)seed, (unsigned long long)v.live_bytes,
				 (unsigned long long)v.peak_bytes, (unsigned long long)live,
				 (unsigned long long)peak);
	}
	cr_expect_eq(view(HIPSVM_STATS_MEM_DEV(1)).peak_bytes, peak);
	cr_expect_eq(view(HIPSVM_STATS_MEM_DEV(1)).live_bytes, live);
	cr_expect_eq(view(ctx).allocations, allocs);
	cr_expect_eq(view(ctx).frees, frees);
	cr_expect_eq(hipsvm_stats_route(&st, HIPSVM_ROUTE_AS_HIP), allocs);
	if (device) {
		uint64_t calls, bytes;

		hipsvm_stats_api_sum(&st, HIPSVM_API_FREE, &calls, &bytes);
		cr_expect_eq(calls, frees);
		hipsvm_stats_api_sum(&st, HIPSVM_API_MALLOC, &calls, &bytes);
		cr_expect_eq(calls, allocs);
		cr_expect_eq(st.max_dev_seen, 2u);
	}
}

Test(stats, one_thread_exact_vs_model)
{
	one_thread(false);
}

Test(stats, one_thread_exact_vs_model_device_calls)
{
	one_thread(true);
}

/* More threads than stripes, each allocating and freeing its own memory:
 * counts and live bytes exact; the peak at least the highest any one
 * thread had live alone and at most what all had at their own peaks,
 * each bound widened by a batch per thread. */
enum { THREADS = 2 * HIPSVM_STATS_STRIPES + 3, PER_THREAD = 4000 };

struct worker {
	pthread_t t;
	uint64_t seed, left, peak;
	unsigned allocs, frees;
	bool device;		/* the inline device calls (one_thread) */
};

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t s = w->seed, sizes[16] = { 0 }, live = 0;
	unsigned i;

	for (i = 0; i < PER_THREAD; i++) {
		unsigned k = (unsigned)(rnd(&s) % 16);

		if (sizes[k]) {
			if (w->device)
				hipsvm_stats_free_dev(&st, 2, sizes[k], HIPSVM_API_FREE);
			else
				hipsvm_stats_release(&st, 2, 2, sizes[k], true);
			live -= sizes[k];
			sizes[k] = 0;
			w->frees++;
		} else {
			sizes[k] = 1 + rnd(&s) % (256u << 10);
			if (w->device)
				hipsvm_stats_alloc_dev(&st, 2, sizes[k], HIPSVM_API_MALLOC);
			else
				hipsvm_stats_alloc(&st, 2, 2, sizes[k],
						   HIPSVM_ROUTE_MANAGED_LOCAL);
			live += sizes[k];
			w->allocs++;
			if (live > w->peak)
				w->peak = live;
		}
	}
	w->left = live;
	return NULL;
}

static void threads(bool device)
{
	static struct worker w[THREADS];
	uint64_t seed = test_seed(0x57a75), left = 0, max1 = 0, sum = 0;
	uint64_t slack = (uint64_t)THREADS * HIPSVM_STATS_BATCH;
	unsigned i, allocs = 0, frees = 0;
	struct hipsvm_mem_view v;

	cr_log_info("seed 0x%llx (HIPSVM_TEST_SEED), %d threads, %s calls",
		    (unsigned long long)seed, THREADS, device ? "device" : "general");
	hipsvm_stats_reset(&st);
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .seed = seed + i * UINT64_C(0x9e3779b97f4a7c15),
					.device = device };
		cr_assert_eq(pthread_create(&w[i].t, NULL, work, &w[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(w[i].t, NULL);
		left += w[i].left;
		allocs += w[i].allocs;
		frees += w[i].frees;
		sum += w[i].peak;
		if (w[i].peak > max1)
			max1 = w[i].peak;
	}
	v = view(HIPSVM_STATS_MEM_CTX(2));
	cr_expect_eq(v.allocations, allocs);
	cr_expect_eq(v.frees, frees);
	cr_expect_eq(v.live_bytes, left);
	cr_expect_eq(view(HIPSVM_STATS_MEM_DEV(2)).live_bytes, left);
	cr_expect_eq(hipsvm_stats_route(&st, device ? HIPSVM_ROUTE_AS_HIP :
						      HIPSVM_ROUTE_MANAGED_LOCAL), allocs);
	cr_expect_geq(v.peak_bytes + slack, max1, "peak %llu, one thread alone had %llu",
		      (unsigned long long)v.peak_bytes, (unsigned long long)max1);
	cr_expect_leq(v.peak_bytes, sum + slack, "peak %llu, all threads' peaks add to %llu",
		      (unsigned long long)v.peak_bytes, (unsigned long long)sum);
}

Test(stats, threads_exact_counts_bounded_peak)
{
	threads(false);
}

Test(stats, threads_exact_counts_bounded_peak_device_calls)
{
	threads(true);
}
