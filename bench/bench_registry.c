/* SPDX-License-Identifier: MIT */
/*
 * bench_registry.c - median ns per registry operation (21 runs, median).
 *
 * Allocations are laid out like real ones: sizes 4 KiB .. 2 MiB (log-uniform),
 * page-aligned, with 4 .. 64 KiB gaps, packed into four regions far apart.
 * Untracked ranges are measured far from everything (the granule filter says
 * no) and in the gaps between entries (the filter says maybe: seqlock + tree).
 * Query addresses are random so that the tree's caches are cold-ish.
 *
 * Usage: bench_registry [runs]   (default 21)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#include "shim/registry.h"

#define KB ((uintptr_t)1 << 10)
#define MB ((uintptr_t)1 << 20)
#define GB ((uintptr_t)1 << 30)
#define ALL_KINDS ((1u << HIPSVM_KIND_COUNT) - 1)
#define SVM_KINDS (ALL_KINDS & ~(1u << HIPSVM_KIND_DEVICE))
#define NQ 8192			/* prepared queries, cycled */
#define MAXN 1000000

static unsigned runs = 21;
static uint64_t rs = 0x5eed5eedULL;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * UINT64_C(2685821657736338717);
}



static double median(double *v, unsigned n)
{
	return bench_median(v, n);
}

/*
 * Wall-clock (CLOCK_MONOTONIC) medians are the figures; the thread's CPU
 * time is printed beside them because this machine is shared: a run that
 * lost the CPU shows a wall time far above its CPU time. Runs are kept short
 * (about a millisecond) so that most of them fit in one time slice.
 */
struct med {
	double wall, cpu;
};

struct runs {
	double wall[64], cpu[64];
	uint64_t w0, c0;
	unsigned n;
};

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_begin(struct runs *r)
{
	r->c0 = cpu_ns();
	r->w0 = now_ns();
}

static void run_end(struct runs *r, unsigned ops)
{
	uint64_t w = now_ns(), c = cpu_ns();

	r->wall[r->n] = (double)(w - r->w0) / ops;
	r->cpu[r->n] = (double)(c - r->c0) / ops;
	r->n++;
}

static struct med runs_median(struct runs *r)
{
	struct med m = { median(r->wall, r->n), median(r->cpu, r->n) };

	return m;
}

static struct hipsvm_registry *reg;
static uintptr_t *starts, *sizes;
static unsigned nlive;
static volatile long sink;

/* Four regions 16 TiB apart from 0x100000000000 (inside the 47-bit space). */
static void populate(unsigned n)
{
	uintptr_t cur[4];

	for (unsigned k = 0; k < 4; k++)
		cur[k] = ((uintptr_t)1 << 44) * (k + 1);
	for (unsigned i = 0; i < n; i++) {
		unsigned k = i % 4;
		/* log-uniform 4 KiB .. 2 MiB, in pages */
		uintptr_t pages = (uintptr_t)1 << (rnd() % 10);
		uintptr_t size = (pages + rnd() % pages) * 4 * KB;
		struct hipsvm_alloc a;

		if (size > 2 * MB)
			size = 2 * MB;
		memset(&a, 0, sizeof(a));
		a.start = a.origin = cur[k];
		a.last = a.start + size - 1;
		a.origin_size = size;
		a.kind = (uint32_t)(rnd() % HIPSVM_KIND_COUNT);
		a.ctx = HIPSVM_CTX_HOST;
		a.device = -1;
		if (hipsvm_reg_insert(reg, &a)) {
			fprintf(stderr, "insert failed\n");
			exit(1);
		}
		starts[i] = a.start;
		sizes[i] = size;
		cur[k] += size + (1 + rnd() % 16) * 4 * KB;
	}
	nlive = n;
}

static void depopulate(void)
{
	for (unsigned i = 0; i < nlive; i++)
		hipsvm_reg_remove_origin(reg, starts[i], NULL, NULL);
	nlive = 0;
}

struct q {
	uintptr_t addr;
	size_t len;
};
static struct q qs[NQ];

enum qkind { Q_FAR, Q_FREED, Q_GAP, Q_TRACKED };

static void prepare(enum qkind k)
{
	for (unsigned i = 0; i < NQ; i++) {
		unsigned e = nlive ? (unsigned)(rnd() % nlive) : 0;

		switch (k) {
		case Q_FAR:	/* 4 KiB .. 1 MiB somewhere in a 1 TiB hole */
		case Q_FREED:	/* the same in a region where allocations came and went */
			qs[i].addr = ((uintptr_t)(k == Q_FAR ? 0x80 : 0x90) << 40) +
				     (rnd() % (1ull << 28)) * 4 * KB;
			qs[i].len = (1 + rnd() % 256) * 4 * KB;
			break;
		case Q_GAP:	/* the first page after an entry (gaps are >= 4 KiB) */
			qs[i].addr = starts[e] + sizes[e];
			qs[i].len = 4 * KB;
			break;
		case Q_TRACKED:
			qs[i].addr = starts[e] + rnd() % sizes[e];
			qs[i].len = 4 * KB;
			break;
		}
	}
}

enum op { OP_TOUCHES, OP_TOUCHES_SVM, OP_FIND };

/* Median over runs of (iters operations) in ns per operation. */
static struct med time_queries(enum op op, unsigned iters, int expect)
{
	struct runs rr = { .n = 0 };
	struct hipsvm_alloc a;
	unsigned qi = 0;

	for (unsigned run = 0; run < runs; run++) {
		long acc = 0;

		run_begin(&rr);
		for (unsigned i = 0; i < iters; i++, qi++) {
			const struct q *q = &qs[qi & (NQ - 1)];

			switch (op) {
			case OP_TOUCHES:
				acc += hipsvm_reg_touches(reg, q->addr, q->len, ALL_KINDS);
				break;
			case OP_TOUCHES_SVM:
				acc += hipsvm_reg_touches(reg, q->addr, q->len, SVM_KINDS);
				break;
			case OP_FIND:
				acc += hipsvm_reg_find(reg, q->addr, &a) == 0;
				break;
			}
		}
		run_end(&rr, iters);
		sink = acc;
		if (expect >= 0 && acc != (long)expect * iters) {
			fprintf(stderr, "wrong answers (%ld of %u)\n", acc, iters);
			exit(1);
		}
	}
	return runs_median(&rr);
}

static void row(const char *what, unsigned n, struct med m, const char *target)
{
	printf("%-42s %8u %9.1f %9.1f   %s\n", what, n, m.wall, m.cpu, target);
}

static struct med time_insert_remove(unsigned iters)
{
	struct runs rr = { .n = 0 };
	unsigned qi = 0;

	for (unsigned run = 0; run < runs; run++) {
		run_begin(&rr);
		for (unsigned i = 0; i < iters; i++, qi++) {
			struct hipsvm_alloc a;

			memset(&a, 0, sizeof(a));
			a.start = a.origin = qs[qi & (NQ - 1)].addr;
			a.last = a.start + 64 * KB - 1;
			a.origin_size = 64 * KB;
			a.kind = HIPSVM_KIND_MANAGED;
			if (hipsvm_reg_insert(reg, &a) ||
			    hipsvm_reg_remove_origin(reg, a.start, NULL, NULL)) {
				fprintf(stderr, "insert/remove failed\n");
				exit(1);
			}
		}
		run_end(&rr, iters);
	}
	return runs_median(&rr);
}

/* Punches the middle half of fresh entries; each run uses its own entries. */
static struct med time_punch(unsigned iters)
{
	struct runs rr = { .n = 0 };
	unsigned next = 0;

	for (unsigned run = 0; run < runs; run++) {
		if (next + iters > nlive) {	/* out of fresh entries: lay out anew */
			unsigned n = nlive;

			depopulate();
			populate(n);
			next = 0;
		}
		run_begin(&rr);
		for (unsigned i = 0; i < iters; i++) {
			unsigned e = next + i;

			if (hipsvm_reg_punch(reg, starts[e] + sizes[e] / 4, sizes[e] / 2, NULL,
					     NULL) != 1) {
				fprintf(stderr, "punch failed\n");
				exit(1);
			}
		}
		run_end(&rr, iters);
		next += iters;
	}
	return runs_median(&rr);
}

/* What one cache-missing, TLB-missing load costs on this machine: a pointer
 * chase through 256 MiB in random order. The tree's cold lookups are a few
 * of those; the figures mean little without this one beside them. */
static struct med ref_dram_ns(void)
{
	size_t n = ((size_t)256 << 20) / 64, p = 0;
	uint64_t *b = malloc(n * 64);
	uint32_t *perm = malloc(n * sizeof(*perm));
	struct runs rr = { .n = 0 };
	struct med none = { 0, 0 };

	if (!b || !perm)
		return none;
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1);
		uint32_t x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (size_t i = 0; i < n; i++)
		b[(size_t)perm[i] * 8] = (size_t)perm[(i + 1) % n] * 8;
	for (unsigned run = 0; run < runs; run++) {
		run_begin(&rr);
		for (unsigned i = 0; i < 2000; i++)
			p = b[p];
		run_end(&rr, 2000);
	}
	sink = (long)p;
	free(b);
	free(perm);
	return runs_median(&rr);
}

int main(int argc, char **argv)
{
	static const unsigned sizes_n[] = { 0, 1000, MAXN };
	const char *untracked = "<= 25 ns";

	if (argc > 1)
		runs = (unsigned)atoi(argv[1]);
	if (runs < 1 || runs > 64)
		runs = 21;
	starts = calloc(MAXN, sizeof(*starts));
	sizes = calloc(MAXN, sizeof(*sizes));
	if (!starts || !sizes || hipsvm_reg_create(&reg)) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	printf("bench_registry: median of %u runs, ns per operation\n", runs);
	printf("%-42s %8s %9s %9s   %s\n", "operation", "entries", "wall ns", "cpu ns",
	       "target (wall)");
	row("reference: one random load, 256 MiB (chase)", 0, ref_dram_ns(), "(machine)");
	for (unsigned si = 0; si < 3; si++) {
		unsigned n = sizes_n[si];

		depopulate();
		populate(n);
		prepare(Q_FAR);
		row("touches(untracked, far away)", n, time_queries(OP_TOUCHES, 50000, 0),
		    untracked);
		row("touches(untracked, far away, SVM kinds)", n,
		    time_queries(OP_TOUCHES_SVM, 50000, 0), untracked);
		if (n == 0)
			continue;
		prepare(Q_GAP);
		row("touches(untracked, gap between entries)", n,
		    time_queries(OP_TOUCHES, n < 10000 ? 10000 : 2000, 0),
		    "(seqlock path)");
		prepare(Q_TRACKED);
		row("touches(tracked, random)", n,
		    time_queries(OP_TOUCHES, n < 10000 ? 10000 : 2000, 1),
		    n == MAXN ? "<= 200 ns" : "");
		row("find(tracked, random)", n,
		    time_queries(OP_FIND, n < 10000 ? 10000 : 2000, 1),
		    n == MAXN ? "<= 200 ns" : "");
		prepare(Q_FREED);
		row("insert + remove_origin pair", n, time_insert_remove(2000), "");
		row("touches(untracked, where the pairs were)", n,
		    time_queries(OP_TOUCHES, 50000, 0), untracked);
		row("punch(middle of an entry)", n, time_punch(n < 4000 ? n / 2 : 2000), "");
	}
	depopulate();
	hipsvm_reg_destroy(reg);
	free(starts);
	free(sizes);
	return 0;
}
