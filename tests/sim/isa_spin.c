/* SPDX-License-Identifier: MIT */
/*
 * isa_spin.c - waves spinning on memory cost the host little (sim/isa/step.c
 * spin detection, dispatch.c's pause), with the kernels of isa_golden.txt:
 *   1 a wave spinning on a word the host sets 300 ms later ("flagspin"; and
 *     "flag", whose loop has s_sleep) ends with the right result, and the
 *     worker's CPU time meanwhile is a small part of the wall time;
 *   2 a spin that ends is resumed promptly: the dispatch returns within a
 *     few milliseconds of the host's store (the pause is capped at 200 us);
 *   3 a stop request ends a paused dispatch promptly too;
 *   4 loops that store nothing but progress, 10M passes counting in an SGPR,
 *     a VGPR or an AGPR, are never taken for spins (no detection, no pause)
 *     and count right.
 * Plain C with TAP output, as isa_groups (ThreadSanitizer runs it too). A
 * watchdog stops a dispatch that hangs (its stop word) after WATCHDOG_S.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isa/dispatch.h"

#include "isa_shared_mem.h"

#define WATCHDOG_S 60
#define WAIT_MS 300

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What another thread does while the dispatch runs: after ms, store 1 to
 * the word at off (or, with stop, set the dispatch's stop word); *at is
 * when (CLOCK_MONOTONIC). The watchdog is the same thread, later. */
struct helper {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done, fired, stop;
	unsigned ms, off;
	uint64_t at;
	struct isa_dispatch *d;
};

static bool wait_until(struct helper *h, uint64_t ns)
{
	struct timespec until = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (!h->done)
		if (pthread_cond_timedwait(&h->cv, &h->mu, &until) == ETIMEDOUT)
			return true;
	return false;
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	uint64_t t0 = now_ns(CLOCK_REALTIME);

	pthread_mutex_lock(&h->mu);
	if (h->ms && wait_until(h, t0 + h->ms * 1000000ull)) {
		h->at = now_ns(CLOCK_MONOTONIC);
		if (h->stop)
			__atomic_store_n(&h->d->stop, 1, __ATOMIC_RELAXED);
		else
			__atomic_store_n((uint32_t *)(void *)(gmem + h->off), 1, __ATOMIC_RELAXED);
	}
	if (wait_until(h, t0 + WATCHDOG_S * 1000000000ull)) {
		h->fired = true;
		__atomic_store_n(&h->d->stop, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

struct run {
	int err;
	bool hung;
	uint64_t wall_ns, cpu_ns;	/* of the dispatch, on this (the worker's) thread */
	uint64_t late_ns;		/* from the helper's store or stop to the return */
	bool early;			/* returned before the store (or with none) */
};

/* One group of 64 work-items of name's kernel on one thread (this one). */
static struct run dispatch(const char *name, uint32_t rsrc1, unsigned ms, bool stop,
			   struct isa_dispatch *d)
{
	const struct golden *g = find(name);
	uint8_t kd[64] = { 0 };
	uint32_t rsrc2 = (4u << 1) | (1u << 7) | (1u << 8);
	uint16_t props = KCP_DISPATCH_PTR | KCP_KERNARG_PTR;
	struct helper h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, stop,
			    ms, 0x100, 0, d };
	struct run r = { 0 };
	struct isa_kernel k;
	pthread_t t;
	uint64_t w0, c0, end;
	char why[128];

	memcpy(kd + 48, &rsrc1, 4);
	memcpy(kd + 52, &rsrc2, 4);
	memcpy(kd + 56, &props, 2);
	if (!g || isa_kernel_prepare(&k, kd, g->code, g->len, 0x1000, why, sizeof(why))) {
		printf("# %s: %s\n", name, g ? why : "no such kernel");
		r.err = -ISA_E_DECODE;
		return r;
	}
	memset(d, 0, sizeof(*d));
	d->k = &k;
	d->grid[0] = d->block[0] = 64;
	d->grid[1] = d->grid[2] = d->block[1] = d->block[2] = 1;
	d->kernarg = MEM_BASE;
	d->packet = MEM_BASE + 0x40;
	d->mem = &mem;
	d->threads = 1;
	isa_dispatch_packet(gmem + 0x40, d);
	if (pthread_create(&t, NULL, helper_main, &h)) {
		isa_kernel_release(&k);
		r.err = -ISA_E_NOMEM;
		return r;
	}
	w0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	r.err = isa_dispatch_run(d);
	end = now_ns(CLOCK_MONOTONIC);
	r.cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	r.wall_ns = end - w0;
	pthread_mutex_lock(&h.mu);
	h.done = true;
	pthread_cond_signal(&h.cv);
	pthread_mutex_unlock(&h.mu);
	pthread_join(t, NULL);
	r.hung = h.fired;
	r.late_ns = h.at && end > h.at ? end - h.at : 0;
	r.early = !h.at || end < h.at;
	isa_kernel_release(&k);
	return r;
}

/* name's waiters (count 1: group 0 is no setter) until the host stores the
 * flag after WAIT_MS; the best of three for how late it ended. */
static bool spin_wait(const char *name, uint64_t *late)
{
	bool ok = true;

	*late = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		struct isa_dispatch d;
		struct run r;

		kernarg(1, MEM_BASE + 0x100);
		r = dispatch(name, 0, WAIT_MS, false, &d);
		printf("# %s: err %d%s%s, %u lanes after the flag (want 64), wall %.1f ms, worker CPU "
		       "%.1f ms, returned %.3f ms after the store, %llu detected, %llu pauses\n",
		       name + 8, r.err, r.hung ? " (stopped: hung)" : "",
		       r.early ? " (ended before the store)" : "", rd32(0x104),
		       r.wall_ns / 1e6, r.cpu_ns / 1e6, r.late_ns / 1e6,
		       (unsigned long long)d.spins, (unsigned long long)d.pauses);
		/* the host's wait is 300 ms: a fifth of it on the CPU is a lot
		 * for a pause of 200 us that costs one pass of the loop. The
		 * helper's clock starts before the dispatch's, so the wall
		 * time may be a little under 300 ms: what must hold is that
		 * the dispatch did not end before the store. */
		ok &= !r.err && !r.hung && rd32(0x104) == 64 && !r.early && r.cpu_ns * 5 < r.wall_ns;
		if (r.late_ns < *late)
			*late = r.late_ns;
	}
	return ok;
}

static bool counts(const char *name, uint32_t rsrc1, uint32_t n)
{
	struct isa_dispatch d;
	struct run r;

	kernarg(n, MEM_BASE + 0x100);
	r = dispatch(name, rsrc1, 0, false, &d);
	printf("# %s: err %d%s, counted %u (want %u), %llu wave-instructions, %llu detected, "
	       "%llu pauses, %.1f ms\n", name + 8, r.err, r.hung ? " (stopped: hung)" : "",
	       rd32(0x100), n, (unsigned long long)d.insns, (unsigned long long)d.spins,
	       (unsigned long long)d.pauses, r.wall_ns / 1e6);
	return !r.err && !r.hung && rd32(0x100) == n && !d.spins && !d.pauses;
}

int main(void)
{
	uint64_t late_spin, late_sleep;
	int bad = 0;
	bool ok;

	printf("1..4\n");
	ok = spin_wait("kernel: flagspin", &late_spin);
	ok &= spin_wait("kernel: flag", &late_sleep);
	bad += !report(ok, "a wave spinning on a word the host sets costs the worker little CPU");
	/* 200 us of pause, the kernel's timer slack, one pass: a few ms is
	 * the bound on a loaded machine, where an unbounded back-off would
	 * have slept for a good part of the 300 ms */
	printf("# ended %.3f ms (flagspin), %.3f ms (flag) after the store, at best\n",
	       late_spin / 1e6, late_sleep / 1e6);
	bad += !report(late_spin < 5000000 && late_sleep < 5000000,
		       "a spin that ends is resumed within a few milliseconds");
	{
		struct isa_dispatch d;
		struct run r;

		kernarg(1, MEM_BASE + 0x100);
		r = dispatch("kernel: flagspin", 0, 100, true, &d);
		printf("# flagspin stopped after 100 ms: err %d%s, returned %.3f ms after the stop\n",
		       r.err, r.hung ? " (stopped: hung)" : "", r.late_ns / 1e6);
		bad += !report(r.err == -ISA_E_ABORT && !r.hung && r.late_ns < 5000000,
			       "a stop request ends a pausing dispatch promptly");
	}
	ok = counts("kernel: countsgpr", 0, 10000000);
	ok &= counts("kernel: countvgpr", 0, 10000000);
	/* 16 registers (rsrc1), the AGPRs from a4 (rsrc3 0: accum_offset 4) */
	ok &= counts("kernel: countagpr", 1, 2000000);
	bad += !report(ok, "loops that store nothing but progress are no spins");
	return bad ? 1 : 0;
}
