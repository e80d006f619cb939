/* SPDX-License-Identifier: MIT */
/*
 * isa_groups.c - workgroups resident together on the interpreter's
 * threads, as on a GPU (sim/isa/dispatch.c), with the kernels of
 * isa_golden.txt ("kernel: flag", "clock", "ldsgroup", "ids"):
 *   1 groups that wait (s_sleep) for a flag the dispatch's last group sets
 *     all end, on 2 threads and on 1; and so do groups that spin on it
 *     without s_sleep ("flagspin");
 *   2 groups spinning on s_memtime run at once: every group's first clock
 *     reading comes before every group's last (their intervals overlap),
 *     which one group after another on each thread can never give;
 *   3 two-wave groups that sleep between an LDS write and a barrier each
 *     read their own group's LDS, and several were resident at once;
 *   4 a fault in the flag's setter while the others wait ends the dispatch
 *     with the fault;
 *   5 a kernel that neither sleeps nor reads a clock keeps one group per
 *     thread;
 *   6 a wave's turn does not end at clock reads in a straight line (clock64
 *     then wall_clock64 must be cycles apart, not a round of the resident
 *     groups), and does end at a read at or before its last read's place
 *     (the next pass of a loop).
 * A hang is a failure, not a stuck test: a watchdog stops the dispatch
 * (its stop word) after WATCHDOG_S seconds. Plain C with TAP output, so
 * that ThreadSanitizer runs it too (scripts/test-sanitizers).
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

#define WATCHDOG_S 30

static uint64_t rd64(unsigned off)
{
	uint64_t v;

	memcpy(&v, gmem + off, 8);
	return v;
}

struct watch {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done, fired;
	struct isa_dispatch *d;
};

static void *watchdog(void *arg)
{
	struct watch *w = arg;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WATCHDOG_S;
	pthread_mutex_lock(&w->mu);
	while (!w->done) {
		if (pthread_cond_timedwait(&w->cv, &w->mu, &until) == ETIMEDOUT) {
			w->fired = true;
			__atomic_store_n(&w->d->stop, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* One dispatch of name's kernel: groups of block work-items (x), on threads;
 * 0 or -ISA_E_*; *hung when the watchdog had to stop it. */
static int dispatch(const char *name, unsigned groups, unsigned block, unsigned threads,
		    uint32_t lds, struct isa_dispatch *d, bool *hung)
{
	const struct golden *g = find(name);
	uint8_t kd[64] = { 0 };
	uint32_t rsrc2 = (4u << 1) | (1u << 7) | (1u << 8);
	uint16_t props = KCP_DISPATCH_PTR | KCP_KERNARG_PTR;
	struct watch w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, d };
	struct isa_kernel k;
	pthread_t t;
	char why[128];
	int err;

	*hung = false;
	memcpy(kd, &lds, 4);
	memcpy(kd + 52, &rsrc2, 4);
	memcpy(kd + 56, &props, 2);
	if (!g || isa_kernel_prepare(&k, kd, g->code, g->len, 0x1000, why, sizeof(why))) {
		printf("# %s: %s\n", name, g ? why : "no such kernel");
		return -ISA_E_DECODE;
	}
	memset(d, 0, sizeof(*d));
	d->k = &k;
	d->grid[0] = groups * block;
	d->grid[1] = d->grid[2] = 1;
	d->block[0] = block;
	d->block[1] = d->block[2] = 1;
	d->kernarg = MEM_BASE;
	d->packet = MEM_BASE + 0x40;
	d->mem = &mem;
	d->threads = threads;
	isa_dispatch_packet(gmem + 0x40, d);
	if (pthread_create(&t, NULL, watchdog, &w)) {
		isa_kernel_release(&k);
		return -ISA_E_NOMEM;
	}
	err = isa_dispatch_run(d);
	pthread_mutex_lock(&w.mu);
	w.done = true;
	pthread_cond_signal(&w.cv);
	pthread_mutex_unlock(&w.mu);
	pthread_join(t, NULL);
	*hung = w.fired;
	isa_kernel_release(&k);
	return err;
}

static bool flag_waits(const char *name, unsigned groups, unsigned threads)
{
	struct isa_dispatch d;
	bool hung;
	int err;

	kernarg(groups - 1, MEM_BASE + 0x100);
	err = dispatch(name, groups, 64, threads, 0, &d, &hung);
	printf("# %s, %u groups on %u threads: err %d%s, %u lanes after the flag (want %u), "
	       "at most %llu resident on a thread\n", name + 8, groups, threads, err, hung ? " (stopped: hung)" : "",
	       rd32(0x104), 64 * (groups - 1), (unsigned long long)d.resident);
	return !err && !hung && rd32(0x104) == 64 * (groups - 1);
}

int main(void)
{
	int bad = 0;

	printf("1..6\n");
	bad += !report(flag_waits("kernel: flag", 6, 2) && flag_waits("kernel: flag", 6, 1) &&
		       flag_waits("kernel: flagspin", 6, 2) && flag_waits("kernel: flagspin", 6, 1),
		       "groups waiting on a flag a later group sets all end");
	{
		/* 16 groups of one wave, each spinning 20 ms of s_memtime */
		const unsigned n = 16;
		uint32_t ticks = ISA_SHADER_CLOCK_KHZ * 20;
		uint64_t last_start = 0, first_end = UINT64_MAX;
		struct isa_dispatch d;
		bool hung, ok;
		int err;

		kernarg(ticks, 0);
		err = dispatch("kernel: clock", n, 64, 2, 0, &d, &hung);
		ok = !err && !hung;
		for (unsigned i = 0; i < n; i++) {
			uint64_t s = rd64(0x110 + 16 * i), e = rd64(0x118 + 16 * i);

			ok &= s && e - s >= ticks;
			if (s > last_start)
				last_start = s;
			if (e < first_end)
				first_end = e;
		}
		printf("# clock: err %d, latest start %llu, earliest end %llu (ticks), %llu resident\n",
		       err, (unsigned long long)last_start, (unsigned long long)first_end,
		       (unsigned long long)d.resident);
		bad += !report(ok && last_start < first_end,
			       "groups spinning on s_memtime run at once: their intervals overlap");
	}
	{
		const unsigned n = 12;
		struct isa_dispatch d;
		bool hung, ok;
		int err;

		kernarg(0, 0);
		err = dispatch("kernel: ldsgroup", n, 128, 2, 16, &d, &hung);
		ok = !err && !hung && d.resident > 1;
		for (unsigned i = 0; i < 2 * n; i++)
			if (rd32(0x110 + 4 * i) != i / 2) {
				printf("# group %u wave %u read %u from LDS\n", i / 2, i % 2,
				       rd32(0x110 + 4 * i));
				ok = false;
			}
		printf("# ldsgroup: err %d, %llu resident\n", err, (unsigned long long)d.resident);
		bad += !report(ok, "resident groups keep their own LDS across a barrier");
	}
	{
		struct isa_dispatch d;
		bool hung;
		int err;

		kernarg(5, MEM_BASE + MEM_SIZE);	/* the setter's store faults */
		err = dispatch("kernel: flag", 6, 64, 2, 0, &d, &hung);
		printf("# flag with a faulting setter: err %d%s\n", err, hung ? " (stopped: hung)" : "");
		bad += !report(err == -ISA_E_FAULT && !hung,
			       "a fault while other groups wait ends the dispatch with the fault");
	}
	{
		struct isa_dispatch d;
		bool hung;
		int err;

		kernarg(0, 0);
		err = dispatch("kernel: ids", 24, 64, 2, 0, &d, &hung);
		printf("# ids: err %d, %llu resident\n", err, (unsigned long long)d.resident);
		bad += !report(!err && !hung && d.resident <= 1 && rd32(0x100) == 24 * 64,
			       "a kernel that neither sleeps nor reads a clock: one group at a time");
	}
	{
		/* s_memtime s[0:1]; s_memrealtime s[2:3], stepped one by one */
		static const uint8_t code[] = { 0x00, 0x00, 0x90, 0xc0, 0, 0, 0, 0,
						0x80, 0x00, 0x94, 0xc0, 0, 0, 0, 0 };
		static struct isa_wave w;
		const uint32_t stop = 0;
		const struct isa_env env = { .code = code, .code_size = sizeof(code), .stop = &stop };
		bool y[4];
		int err = 0;

		for (unsigned i = 0; i < 4; i++) {
			if (i == 2)
				w.pc = 0;	/* round the loop */
			w.state = W_RUN;
			w.yield = false;
			err |= isa_step(&w, &env);
			y[i] = w.yield;
		}
		printf("# clock reads: err %d, turn ended after memtime %d, memrealtime %d, "
		       "memtime again %d, memrealtime again %d\n", err, y[0], y[1], y[2], y[3]);
		bad += !report(!err && !y[0] && !y[1] && y[2] && !y[3],
			       "a turn ends at a clock read round a loop, not at reads in a line");
	}
	return bad ? 1 : 0;
}
