/* SPDX-License-Identifier: MIT */
/*
 * bench_core.c - what the fault path and the unmap path of the core cost.
 *
 * Each row: RUNS runs of N operations, the median of the per-operation times,
 * CLOCK_MONOTONIC. The filter runs on every retry fault of every GPU, so it
 * has a target of 10 ns; the same filter under a pthread mutex is printed next
 * to it because that is the alternative the lock-free design was chosen over.
 *
 * Usage: bench_core [scale]   (scale multiplies N; default 1, under ~5 s)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

#include "shared/checkpoint.h"
#include "shared/ring.h"
#include "shared/ts.h"

#define RUNS 21



/* Keeps a result alive without a memory round trip per operation. */
static volatile uint64_t sink;

typedef uint64_t (*bench_fn)(uint64_t n);

static double median_ns(bench_fn fn, uint64_t n)
{
	double per[RUNS];
	int i;

	fn(n / 10 + 1);	/* warm up caches and branch predictors */
	for (i = 0; i < RUNS; i++) {
		uint64_t t0 = now_ns(), ops;

		ops = fn(n);
		per[i] = (double)(now_ns() - t0) / (double)ops;
	}
	return bench_median(per, RUNS);
}

/* ---- ts_after ---- */

static uint64_t pairs[1024][2];

static uint64_t b_ts_after(uint64_t n)
{
	uint64_t i, acc = 0;

	for (i = 0; i < n; i++) {
		const uint64_t *p = pairs[i & 1023];

		acc += hipsvm_ts_after(p[0], p[1]);
	}
	sink = acc;
	return n;
}

/* ---- the filter ---- */

static struct hipsvm_cp cp;
static pthread_mutex_t cp_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t b_filter(uint64_t n)
{
	uint64_t i, acc = 0;

	for (i = 0; i < n; i++)
		acc += (uint64_t)hipsvm_cp_filter(&cp, 0x1000 + (i & 1023));
	sink = acc;
	return n;
}

static uint64_t b_filter_locked(uint64_t n)
{
	uint64_t i, acc = 0;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&cp_lock);
		acc += (uint64_t)hipsvm_cp_filter(&cp, 0x1000 + (i & 1023));
		pthread_mutex_unlock(&cp_lock);
	}
	sink = acc;
	return n;
}

/* ---- ring write + process ---- */

static uint32_t ring_buf[8192 / 4];
static struct hipsvm_ring ring;
static uint64_t dispatched;

static void count_fn(void *arg, const uint32_t *dw, uint64_t ts)
{
	dispatched += ts;
}

static uint64_t b_ring(uint64_t n)
{
	uint32_t dw[HIPSVM_IV_DWORDS];
	struct hipsvm_iv iv;
	uint64_t i, ts = 0x1000;
	int k;

	hipsvm_iv_make_fault(&iv, 0x7f0000001000, false, ts, 1, 0);
	hipsvm_iv_encode(&iv, dw);
	for (i = 0; i < n / HIPSVM_RING_PASS + 1; i++) {
		for (k = 0; k < HIPSVM_RING_PASS; k++) {
			dw[1] = (uint32_t)ts++;
			hipsvm_ring_write(&ring, dw);
		}
		hipsvm_ring_process(&ring, count_fn, NULL, hipsvm_ring_wake_user, &ring);
	}
	sink = dispatched;
	return (n / HIPSVM_RING_PASS + 1) * HIPSVM_RING_PASS;
}

/* ---- drain on an empty ring ---- */

static struct hipsvm_ring drain_ring;
static uint32_t drain_buf[4096 / 4];
static struct hipsvm_gpu_irq gpu;

static uint64_t b_drain_empty(uint64_t n)
{
	uint64_t i, acc = 0;

	for (i = 0; i < n; i++)
		acc += (uint64_t)hipsvm_cp_drain(&cp, &gpu, 1000000000u);
	sink = acc;
	return n;
}

struct row {
	const char *name;
	bench_fn fn;
	uint64_t n;
	double target;	/* ns, 0: none (a comparison) */
	void (*setup)(void);
};

static void no_checkpoint(void)
{
	cp.ts = 0;
}

static void checkpoint_set(void)
{
	/* faults at 0x1000.. are at or before it: every one is dropped and the
	 * checkpoint stays, as while an unmap is in progress */
	cp.ts = 0x100000 | HIPSVM_CP_VALID;
}

int main(int argc, char **argv)
{
	uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 0) : 1, s = 0x9e3779b97f4a7c15u;
	struct row rows[] = {
		{ "ts_after compare", b_ts_after, 20000000, 5, NULL },
		{ "cp_filter, no checkpoint", b_filter, 5000000, 10, no_checkpoint },
		{ "cp_filter, checkpoint set (drop)", b_filter, 5000000, 10, checkpoint_set },
		{ "cp_filter under a mutex, none", b_filter_locked, 2000000, 0, no_checkpoint },
		{ "cp_filter under a mutex, set", b_filter_locked, 2000000, 0, checkpoint_set },
		{ "ring write+process, per IV", b_ring, 2000000, 50, NULL },
		{ "drain, empty ring", b_drain_empty, 500000, 200, NULL },
	};
	unsigned i;

	if (!scale)
		scale = 1;
	for (i = 0; i < 1024; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		pairs[i][0] = s & HIPSVM_TS_MASK;
		pairs[i][1] = (s >> 7) & HIPSVM_TS_MASK;
	}
	if (hipsvm_ring_init(&ring, ring_buf, sizeof(ring_buf), false) ||
	    hipsvm_ring_init(&drain_ring, drain_buf, sizeof(drain_buf), false)) {
		fprintf(stderr, "bench_core: ring init failed\n");
		return 1;
	}
	gpu.ih1 = &drain_ring;

	printf("bench_core: median of %d runs, ns per operation (single thread)\n", RUNS);
	printf("%-36s %10s %10s  %s\n", "operation", "median", "target", "");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double ns;

		if (rows[i].setup)
			rows[i].setup();
		ns = median_ns(rows[i].fn, rows[i].n * scale);
		if (rows[i].target > 0)
			printf("%-36s %10.2f %10.0f  %s\n", rows[i].name, ns, rows[i].target,
			       ns <= rows[i].target ? "ok" : "OVER");
		else
			printf("%-36s %10.2f %10s  %s\n", rows[i].name, ns, "-", "(comparison)");
	}
	return 0;
}
