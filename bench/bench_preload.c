/* SPDX-License-Identifier: MIT */
/*
 * bench_preload.c - what the shim costs, measured in one run with and
 * without it: the bench re-executes itself once per case and runtime, with
 * and without LD_PRELOAD=libhipsvm.so, and prints the medians side by side.
 *
 *   munmap, untracked page / hole     (target: <= 25 ns added; the timed
 *                                      rows say when the spread hides it)
 *   munmap, untracked, 1M tracked     (the same; fake runtime)
 *   hipMalloc+hipFree pair, simulator (target: <= 150 ns added)
 *   the same on the fake runtime (tests/preload/fake_hip.c: a bump pointer,
 *   no system call), where the shim's own cost is not lost in the noise
 *   2 and 4 threads vs 1, pairs/s, simulator and fake runtime (target:
 *   with the shim, at least 90% of the scaling without it); the fake
 *   runtime never reuses an address unless asked (FAKE_HIP_REUSE=1, the
 *   "reused" row: a freed block handed out again, as real runtimes do)
 *   user instructions per untracked munmap at 0, 1K and 1M live allocations
 *   and per hipMalloc+hipFree pair, under callgrind (exact; target: at most
 *   30 added per munmap)
 *   hipFree of an idle managed range on the simulator (coordinated)
 *   instructions per hipMalloc+hipFree pair on the simulator at 0, 1K, 100K
 *   and 1M live device allocations (target: at most +600), and per
 *   coordinated munmap of an idle managed page with 1, 2, 4 and 8 simulated
 *   GPUs (target: at most 15,000 with 4, and +1,000 per extra GPU)
 *   hipFree of 1 MiB, 1 GiB and 4 GiB of idle managed memory on the
 *   simulator, and the hook requests each made (set: coordinated) (target:
 *   at most 1 ms added at 4 GiB, and coordinated)
 *   munmap of one page of an idle hipMallocManaged range on the simulator:
 *   with the shim a coordinated unmap (set, the unmap, then drainclear: two
 *   hook round trips; three, drain and clear apart, with a hook of protocol
 *   version 1)
 *
 * Usage: bench_preload [--runs N] [--alt N] [--shim PATH] [--sim DIR] [--fake DIR]
 *                      [--only CASE]   (CASE: munmap, munmap_hole, munmap_1m,
 *                      pairs, unmap_tracked, threads, threads4, cg (every
 *                      callgrind row), cg_munmap_0, cg_pairs_1m,
 *                      cg_unmap_gpus4, free_4g, free_4g_sets, ...: one row)
 * Defaults are relative to this executable in the build tree
 * (build/tests/preload/bench_preload). Each case: N runs (default 21) of a
 * batch, the median of the per-operation times, CLOCK_MONOTONIC.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);
typedef int (*hmalloc_fn)(void **, size_t, unsigned);

static int runs = 21;

static double median(double *v, int n)
{
	return bench_median(v, (size_t)n);
}

/* ---- the cases, run in a child ---- */

#define PAGES 2000

/* munmap of pages that are mapped (the kernel's work included), or of a
 * hole (an address range with nothing mapped: the cheapest munmap there is,
 * so the shim's share shows best). */
static double case_munmap(bool hole)
{
	static char *pg[PAGES];
	double per[256];
	int r, i;

	for (r = 0; r < runs; r++) {
		char *base = NULL;
		uint64_t t0;

		if (hole) {
			base = mmap(NULL, (size_t)PAGES * 4096, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			munmap(base, (size_t)PAGES * 4096);
		}
		for (i = 0; i < PAGES; i++)
			pg[i] = hole ? base + (size_t)i * 4096 :
				       mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t0 = now_ns();
		for (i = 0; i < PAGES; i++)
			munmap(pg[i], 4096);
		per[r] = (double)(now_ns() - t0) / PAGES;
	}
	return median(per, runs);
}

static void *runtime(void)
{
	void *h = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_GLOBAL);

	if (!h) {
		fprintf(stderr, "bench_preload: %s\n", dlerror());
		exit(2);
	}
	return h;
}

/* RTLD_DEFAULT: the shim's wrapper when it is preloaded. */
static void *fn(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	if (!p) {
		fprintf(stderr, "bench_preload: no %s\n", name);
		exit(2);
	}
	return p;
}

static double case_munmap_1m(void)
{
	hmalloc_fn hm;
	malloc_fn m;
	void *p;
	int i;

	runtime();
	m = (malloc_fn)fn("hipMalloc");
	hm = (hmalloc_fn)fn("hipHostMalloc");
	/* Half device memory, half SVM (host) memory: both tracked. */
	for (i = 0; i < 500000; i++) {
		if (m(&p, 256) || hm(&p, 256, 0)) {
			fprintf(stderr, "bench_preload: allocation %d failed\n", i);
			exit(2);
		}
	}
	return case_munmap(true);
}

/* munmap of one page at a time of a managed range that no GPU touches: the
 * shim coordinates each (its hook requests are the added cost). */
#define UNMAP_PAGES 64

static double case_unmap_tracked(void)
{
	hmalloc_fn mm;
	free_fn f;
	double per[256];
	long pg = sysconf(_SC_PAGESIZE);
	int r, i;

	runtime();
	mm = (hmalloc_fn)fn("hipMallocManaged");
	f = (free_fn)fn("hipFree");
	for (r = 0; r < runs; r++) {
		char *m = NULL;
		uint64_t t0;

		if (mm((void **)&m, (size_t)(UNMAP_PAGES * pg), 1 /* hipMemAttachGlobal */)) {
			fprintf(stderr, "bench_preload: hipMallocManaged failed\n");
			exit(2);
		}
		t0 = now_ns();
		for (i = 0; i < UNMAP_PAGES; i++)
			munmap(m + (long)i * pg, (size_t)pg);
		per[r] = (double)(now_ns() - t0) / UNMAP_PAGES;
		f(m);
	}
	return median(per, runs);
}

/* hipFree of idle managed ranges (64 KiB each, that no GPU touches): with
 * the shim the runtime's own unmap inside each free is coordinated. */
static double case_free_managed(void)
{
	static void *m[UNMAP_PAGES];
	hmalloc_fn mm;
	free_fn f;
	double per[256];
	int r, i;

	runtime();
	mm = (hmalloc_fn)fn("hipMallocManaged");
	f = (free_fn)fn("hipFree");
	for (r = 0; r < runs; r++) {
		uint64_t t0;

		for (i = 0; i < UNMAP_PAGES; i++)
			if (mm(&m[i], 65536, 1 /* hipMemAttachGlobal */)) {
				fprintf(stderr, "bench_preload: hipMallocManaged failed\n");
				exit(2);
			}
		t0 = now_ns();
		for (i = 0; i < UNMAP_PAGES; i++)
			f(m[i]);
		per[r] = (double)(now_ns() - t0) / UNMAP_PAGES;
	}
	return median(per, runs);
}

#define PAIRS 2000

static malloc_fn pm;
static free_fn pf;

static double pairs(int n)
{
	uint64_t t0 = now_ns();
	void *p;
	int i;

	for (i = 0; i < n; i++) {
		pm(&p, 4096);
		pf(p);
	}
	return (double)(now_ns() - t0) / n;
}

static double case_pairs(void)
{
	double per[256];
	int r, n;

	runtime();
	pm = (malloc_fn)fn("hipMalloc");
	pf = (free_fn)fn("hipFree");
	n = (int)(2e6 / (pairs(200) + 1.0));	/* about 2 ms a run */
	if (n < 200)
		n = 200;
	if (n > PAIRS * 50)
		n = PAIRS * 50;
	for (r = 0; r < runs; r++)
		per[r] = pairs(n);
	return median(per, runs);
}

/* Thread scaling: n threads start together at a barrier, each runs the same
 * batch of pairs; the figure is the throughput of n over that of one
 * (pairs per second, wall time from the first thread's start after the
 * barrier to the last one's end, thread creation left out: the shim adds
 * nothing there). The batch is
 * calibrated after a warm-up, so that the cold first pairs (the shim's
 * table pages faulted in, the runtime's first call) do not shrink it and
 * leave thread start-up to dominate; about 2 ms per thread and run, on each
 * side, with or without the shim. */
#define MAX_THREADS 8

static int tpairs = 2000;
static pthread_barrier_t tbar;

struct span {
	uint64_t t0, t1;
};

static void *pair_thread(void *arg)
{
	struct span *sp = arg;

	pthread_barrier_wait(&tbar);
	sp->t0 = now_ns();
	pairs(tpairs);
	sp->t1 = now_ns();
	return NULL;
}

static double case_threads(int nthreads)
{
	double ratio[256];
	struct span sp[MAX_THREADS];
	pthread_t t[MAX_THREADS];
	int r, k;

	runtime();
	pm = (malloc_fn)fn("hipMalloc");
	pf = (free_fn)fn("hipFree");
	pairs(20000);
	tpairs = (int)(2e6 / (pairs(2000) + 1.0));
	if (tpairs < 200)
		tpairs = 200;
	if (tpairs > 200000)
		tpairs = 200000;
	for (r = 0; r < runs; r++) {
		uint64_t lo = UINT64_MAX, hi = 0;
		double one;

		one = pairs(tpairs);
		pthread_barrier_init(&tbar, NULL, (unsigned)nthreads);
		for (k = 0; k < nthreads; k++)
			pthread_create(&t[k], NULL, pair_thread, &sp[k]);
		for (k = 0; k < nthreads; k++) {
			pthread_join(t[k], NULL);
			lo = sp[k].t0 < lo ? sp[k].t0 : lo;
			hi = sp[k].t1 > hi ? sp[k].t1 : hi;
		}
		/* nthreads * tpairs pairs from the first start to the last end */
		ratio[r] = one / ((double)(hi - lo) / ((double)nthreads * tpairs));
		pthread_barrier_destroy(&tbar);
	}
	return median(ratio, runs);
}

/* ---- instruction counts (callgrind) ----
 * Run under valgrind --tool=callgrind --instr-atstart=no: only the measured
 * loop is instrumented and collected, so the total is that loop's user
 * instructions, exactly (the loop's own few per iteration are on both
 * sides and cancel in "added"). */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_TOGGLE_COLLECT
#endif

#define CG_OPS 1000

/* live allocations (half hipMalloc, half hipHostMalloc: SVM memory), then
 * CG_OPS munmaps of pages of a hole. */
static void cg_munmap(long live)
{
	static char *pg[CG_OPS];
	hmalloc_fn hm;
	malloc_fn m;
	char *base;
	void *p;
	long i;

	runtime();
	m = (malloc_fn)fn("hipMalloc");
	hm = (hmalloc_fn)fn("hipHostMalloc");
	for (i = 0; i < live / 2; i++) {
		if (m(&p, 256) || hm(&p, 256, 0)) {
			fprintf(stderr, "bench_preload: allocation %ld failed\n", i);
			exit(2);
		}
	}
	base = mmap(NULL, (size_t)CG_OPS * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(base, (size_t)CG_OPS * 4096);
	for (i = 0; i < CG_OPS; i++)
		pg[i] = base + i * 4096;
	munmap(pg[0], 4096);	/* the first call resolves the real function */
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < CG_OPS; i++)
		munmap(pg[i], 4096);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_STOP_INSTRUMENTATION;
}

static void cg_pairs(void)
{
	void *p;
	int i;

	runtime();
	pm = (malloc_fn)fn("hipMalloc");
	pf = (free_fn)fn("hipFree");
	pairs(CG_OPS);
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < CG_OPS; i++) {
		pm(&p, 4096);
		pf(p);
	}
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_STOP_INSTRUMENTATION;
}

/* live hipMalloc'd pages of device memory, then CG_OPS pairs: the device
 * table's cost as it fills. */
static void cg_pairs_live(long live)
{
	void *p;
	long i;

	runtime();
	pm = (malloc_fn)fn("hipMalloc");
	pf = (free_fn)fn("hipFree");
	for (i = 0; i < live; i++) {
		if (pm(&p, 4096)) {
			fprintf(stderr, "bench_preload: allocation %ld failed\n", i);
			exit(2);
		}
	}
	pairs(CG_OPS);
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < CG_OPS; i++) {
		pm(&p, 4096);
		pf(p);
	}
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_STOP_INSTRUMENTATION;
}

/* CG_OPS munmaps of single pages of an idle managed range: with the shim
 * each is coordinated (set, the unmap, drainclear), and callgrind counts
 * every thread, the simulator's hook server included (a toggle of the
 * collection would count this thread's share only). */
static void cg_unmap_tracked(void)
{
	hmalloc_fn mm;
	char *m = NULL;
	long i;

	runtime();
	mm = (hmalloc_fn)fn("hipMallocManaged");
	if (mm((void **)&m, (size_t)(CG_OPS + 1) * 4096, 1 /* hipMemAttachGlobal */)) {
		fprintf(stderr, "bench_preload: hipMallocManaged failed\n");
		exit(2);
	}
	munmap(m + (size_t)CG_OPS * 4096, 4096);	/* the first one connects */
	/* collected from the start (cg_all_threads): instrumentation, which
	 * is global, bounds the count, so the server thread's share is in */
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < CG_OPS; i++)
		munmap(m + i * 4096, 4096);
	CALLGRIND_STOP_INSTRUMENTATION;
}

/* struct hipsvm_sim_stats (sim/hipsvm_sim.h, not on this target's include
 * path) as words: sets is its tenth counter. */
#define SIM_STATS_WORDS 64
#define SIM_STATS_SETS 9
typedef int (*stats_fn)(int, uint64_t *);

/* hipFree of an idle managed range of size bytes (never touched: the
 * kernel gives it no pages). mode 0: microseconds per free; 1: hook sets on GPU 0
 * per free (1 when the free was coordinated, 0 when it went ahead alone). */
static double case_free_big(size_t size, int mode)
{
	hmalloc_fn mm;
	free_fn f;
	stats_fn st;
	uint64_t s0[SIM_STATS_WORDS] = { 0 }, s1[SIM_STATS_WORDS] = { 0 };
	double per[256];
	int r;

	runtime();
	mm = (hmalloc_fn)fn("hipMallocManaged");
	f = (free_fn)fn("hipFree");
	st = (stats_fn)fn("hipsvmSimGetStats");
	st(0, s0);
	for (r = 0; r < runs; r++) {
		void *m = NULL;
		uint64_t t0;

		if (mm(&m, size, 1 /* hipMemAttachGlobal */)) {
			fprintf(stderr, "bench_preload: hipMallocManaged(%zu) failed\n", size);
			exit(2);
		}
		t0 = now_ns();
		f(m);
		per[r] = (double)(now_ns() - t0);
	}
	st(0, s1);
	if (mode)
		return (double)(s1[SIM_STATS_SETS] - s0[SIM_STATS_SETS]) / runs;
	return median(per, runs) / 1e3;	/* microseconds */
}

/* ---- the parent ---- */

static char self[PATH_MAX], shim[PATH_MAX], simdir[PATH_MAX], fakedir[PATH_MAX];
/* one more variable for the child (the simulator's GPU count), or "" */
static char child_env[64];

static int measure(const char *which, bool preload, const char *libdir, double *out)
{
	char cmd_runs[16], ldpre[PATH_MAX + 16], ldlib[PATH_MAX + 32], buf[128];
	char *argv[] = { self, "--child", (char *)which, cmd_runs, NULL };
	char *envp[] = { "HIPSVM_SIM_QUIET=1", ldlib, child_env[0] ? child_env : "BENCH_PRELOAD_NO_ENV=",
			 preload ? ldpre : NULL, NULL };
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	snprintf(cmd_runs, sizeof(cmd_runs), "%d", runs);
	snprintf(ldpre, sizeof(ldpre), "LD_PRELOAD=%s", shim);
	snprintf(ldlib, sizeof(ldlib), "LD_LIBRARY_PATH=%s", libdir ? libdir : "");
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execve(self, argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	waitpid(pid, &st, 0);
	if (n <= 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	buf[n] = '\0';
	*out = strtod(buf, NULL);
	return 0;
}

/* Alternations of without/with (--alt, default 5), so that a busy
 * machine's drift hits both sides. Each side is the median of its runs;
 * "added" is the median of the paired differences (each "with" minus the
 * "without" just before it), and "spread" the range of those differences:
 * an added cost smaller than the spread is within this machine's noise. */
#define MAX_ALT 31
static int alternations = 5;
static const char *only;	/* --only CASE: that row alone */

/* limit: the target ("added" at most limit ns; for unit "x", the share of
 * the scaling without the shim that must be kept, e.g. 0.9). Every paired
 * difference over the target is "NOT met", every one within it "met"; for
 * a spread that straddles the target the verdict says "within noise" when
 * the spread is wider than the target (such a figure proves nothing either
 * way), else it goes by the median. */
static void row(const char *name, const char *which, const char *libdir, const char *unit,
		double limit, const char *target)
{
	double wo[MAX_ALT] = { 0 }, wi[MAX_ALT] = { 0 }, diff[MAX_ALT] = { 0 }, without, with, lo, hi;
	double added;
	int k, bad = 0;

	if (only && strcmp(only, which))
		return;
	for (k = 0; k < alternations; k++) {
		bad |= measure(which, false, libdir, &wo[k]);
		bad |= measure(which, true, libdir, &wi[k]);
		diff[k] = wi[k] - wo[k];
	}
	if (bad) {
		printf("%-36s %12s %12s %12s  %17s  %s\n", name, "failed", "failed", "", "", target);
		return;
	}
	lo = hi = diff[0];
	for (k = 1; k < alternations; k++) {
		lo = diff[k] < lo ? diff[k] : lo;
		hi = diff[k] > hi ? diff[k] : hi;
	}
	without = median(wo, alternations);
	with = median(wi, alternations);
	if (!strcmp(unit, "x")) {
		double share = without > 0 ? with / without : 0;

		/* Without the shim the threads must scale at all (1.3x for two)
		 * for a share of it to mean something: on a busy machine they
		 * do not, and the row proves nothing either way. */
		printf("%-36s %11.2fx %11.2fx %11.0f%%  %17s  %s: %s\n", name, without, with,
		       100 * share, "(with / without)", target,
		       limit <= 0 ? "figure" : without < 1.3 ? "no scaling to keep (busy machine?)" :
		       share >= limit ? "met" : "NOT met");
		return;
	}
	added = median(diff, alternations);
	printf("%-36s %12.1f %12.1f %+12.1f  [%+7.0f,%+7.0f]  %s: %s\n", name, without, with, added,
	       lo, hi, target,
	       limit <= 0 ? "figure" : lo > limit ? "NOT met" : hi <= limit ? "met" :
	       hi - lo > limit ? "within noise" : added <= limit ? "met" : "NOT met");
}

/* Instructions per operation under callgrind, with and without the shim,
 * one run each: exact, so one run is enough. -1 when valgrind is missing
 * or failed. */
static bool cg_all_threads;	/* collect in every thread (see cg_unmap_tracked) */

static double cg_measure(const char *which, bool preload, const char *libdir)
{
	char out[64], ofile[96], cmd_runs[16], ldpre[PATH_MAX + 16], ldlib[PATH_MAX + 32];
	char line[256];
	char *argv[] = { "valgrind", "-q", "--tool=callgrind", "--instr-atstart=no",
			 cg_all_threads ? "--collect-atstart=yes" : "--collect-atstart=no", ofile, self, "--child", (char *)which, cmd_runs,
			 NULL };
	char *envp[] = { "HIPSVM_SIM_QUIET=1", "HIPSVM_INHERIT=1", ldlib,
			 child_env[0] ? child_env : "BENCH_PRELOAD_NO_ENV=", preload ? ldpre : NULL, NULL };
	double total = -1;
	FILE *f;
	pid_t pid;
	int st;

	snprintf(out, sizeof(out), "/tmp/bench_preload.cg.%d", (int)getpid());
	snprintf(ofile, sizeof(ofile), "--callgrind-out-file=%s", out);
	snprintf(cmd_runs, sizeof(cmd_runs), "%d", runs);
	snprintf(ldpre, sizeof(ldpre), "LD_PRELOAD=%s", shim);
	snprintf(ldlib, sizeof(ldlib), "LD_LIBRARY_PATH=%s", libdir ? libdir : "");
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 1);
		dup2(devnull, 2);
		execve("/usr/bin/valgrind", argv, envp);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		goto out;
	f = fopen(out, "r");
	if (!f)
		goto out;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "totals:", 7) || !strncmp(line, "summary:", 8))
			total = strtod(strchr(line, ':') + 1, NULL);
	fclose(f);
out:
	unlink(out);
	/* whole instructions per operation: what is left over is the
	 * toggles' own handful, once per run */
	return total < 0 ? -1 : (double)(long)(total / CG_OPS + 0.5);
}

/* Prints the row; returns what the shim adds, or -1. */
static double cg_row(const char *name, const char *which, const char *libdir, double limit,
		     const char *target)
{
	double wo, wi;

	if (only && strcmp(only, which) && strcmp(only, "cg"))
		return -1;
	wo = cg_measure(which, false, libdir);
	wi = cg_measure(which, true, libdir);
	if (wo < 0 || wi < 0) {
		printf("%-36s %12s %12s %12s  %17s  %s\n", name, "no valgrind", "", "", "",
		       target);
		return -1;
	}
	printf("%-36s %12.1f %12.1f %+12.1f  %17s  %s%s%s\n", name, wo, wi, wi - wo, "exact",
	       target, target[0] ? ": " : "",
	       limit <= 0 ? "figure" : wi - wo <= limit ? "met" : "NOT met");
	fflush(stdout);
	return wi - wo;
}

static void dir_of(char *out, const char *rel)
{
	char tmp[PATH_MAX];
	char *slash;

	memcpy(tmp, self, sizeof(tmp));
	slash = strrchr(tmp, '/');
	if (slash)
		*slash = '\0';
	if (strlen(tmp) + strlen(rel) + 2 > PATH_MAX)
		return;
	strcpy(out, tmp);
	strcat(out, "/");
	strcat(out, rel);
}

int main(int argc, char **argv)
{
	int i;

	if (argc > 3 && !strcmp(argv[1], "--child")) {
		double v = 0;

		runs = atoi(argv[3]);
		if (runs < 1 || runs > 256)
			runs = 21;
		if (!strcmp(argv[2], "munmap"))
			v = case_munmap(false);
		else if (!strcmp(argv[2], "munmap_hole"))
			v = case_munmap(true);
		else if (!strcmp(argv[2], "munmap_1m"))
			v = case_munmap_1m();
		else if (!strcmp(argv[2], "pairs"))
			v = case_pairs();
		else if (!strcmp(argv[2], "unmap_tracked"))
			v = case_unmap_tracked();
		else if (!strcmp(argv[2], "free_managed"))
			v = case_free_managed();
		else if (!strcmp(argv[2], "threads"))
			v = case_threads(2);
		else if (!strcmp(argv[2], "threads4"))
			v = case_threads(4);
		else if (!strcmp(argv[2], "threads_reuse") && !setenv("FAKE_HIP_REUSE", "1", 1))
			v = case_threads(2);
		else if (!strcmp(argv[2], "cg_munmap_0"))
			cg_munmap(0);
		else if (!strcmp(argv[2], "cg_munmap_1k"))
			cg_munmap(1000);
		else if (!strcmp(argv[2], "cg_munmap_1m"))
			cg_munmap(1000000);
		else if (!strcmp(argv[2], "cg_pairs"))
			cg_pairs();
		else if (!strcmp(argv[2], "cg_pairs_0"))
			cg_pairs_live(0);
		else if (!strcmp(argv[2], "cg_pairs_1k"))
			cg_pairs_live(1000);
		else if (!strcmp(argv[2], "cg_pairs_100k"))
			cg_pairs_live(100000);
		else if (!strcmp(argv[2], "cg_pairs_1m"))
			cg_pairs_live(1000000);
		else if (!strncmp(argv[2], "cg_unmap_gpus", 13))
			cg_unmap_tracked();
		else if (!strcmp(argv[2], "free_1m"))
			v = case_free_big((size_t)1 << 20, 0);
		else if (!strcmp(argv[2], "free_1g"))
			v = case_free_big((size_t)1 << 30, 0);
		else if (!strcmp(argv[2], "free_4g"))
			v = case_free_big((size_t)4 << 30, 0);
		else if (!strcmp(argv[2], "free_4g_sets"))
			v = case_free_big((size_t)4 << 30, 1);
		printf("%.3f\n", v);
		return 0;
	}
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		return 1;
	dir_of(shim, "../../preload/libhipsvm.so");
	dir_of(simdir, "../../sim");
	dir_of(fakedir, "fake");
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--runs"))
			runs = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--shim"))
			snprintf(shim, sizeof(shim), "%s", argv[i + 1]);
		else if (!strcmp(argv[i], "--sim"))
			snprintf(simdir, sizeof(simdir), "%s", argv[i + 1]);
		else if (!strcmp(argv[i], "--fake"))
			snprintf(fakedir, sizeof(fakedir), "%s", argv[i + 1]);
		else if (!strcmp(argv[i], "--alt"))
			alternations = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--only"))
			only = argv[i + 1];
	}
	if (alternations < 1 || alternations > MAX_ALT)
		alternations = 5;
	if (runs < 1 || runs > 256)
		runs = 21;
	printf("bench_preload: median of %d runs, %d alternations; shim %s\n", runs, alternations,
	       shim);
	printf("%-36s %12s %12s %12s  %17s  %s\n", "case (ns per op)", "without", "with", "added",
	       "spread", "target");
	row("munmap, untracked page", "munmap", NULL, "ns", 25, "<= 25 ns added");
	row("munmap, untracked hole", "munmap_hole", NULL, "ns", 25, "<= 25 ns added");
	row("munmap, untracked hole, 1M tracked", "munmap_1m", fakedir, "ns", 25,
	    "<= 25 ns added");
	cg_row("instr/munmap of a hole, 0 live", "cg_munmap_0", fakedir, 30, "<= +30");
	cg_row("instr/munmap of a hole, 1K live", "cg_munmap_1k", fakedir, 30, "<= +30");
	cg_row("instr/munmap of a hole, 1M live", "cg_munmap_1m", fakedir, 30, "<= +30");
	cg_row("instr/hipMalloc+hipFree (fake rt)", "cg_pairs", fakedir, 0, "");
	cg_row("instr/pair, sim, 0 live", "cg_pairs_0", simdir, 600, "<= +600");
	cg_row("instr/pair, sim, 1K live", "cg_pairs_1k", simdir, 600, "<= +600");
	cg_row("instr/pair, sim, 100K live", "cg_pairs_100k", simdir, 600, "<= +600");
	cg_row("instr/pair, sim, 1M live", "cg_pairs_1m", simdir, 600, "<= +600");
	{
		static const struct { const char *name, *which, *n; } g[] = {
			{ "instr/coordinated munmap, 1 GPU", "cg_unmap_gpus1", "1" },
			{ "instr/coordinated munmap, 2 GPUs", "cg_unmap_gpus2", "2" },
			{ "instr/coordinated munmap, 4 GPUs", "cg_unmap_gpus4", "4" },
			{ "instr/coordinated munmap, 8 GPUs", "cg_unmap_gpus8", "8" },
		};
		double added[4] = { -1, -1, -1, -1 };
		unsigned k;

		/* the with-shim figure is the whole unmap (the simulator's
		 * server thread included); the targets are on "added" */
		cg_all_threads = true;
		for (k = 0; k < 4; k++) {
			snprintf(child_env, sizeof(child_env), "HIPSVM_SIM_GPUS=%s", g[k].n);
			added[k] = cg_row(g[k].name, g[k].which, simdir, k == 2 ? 15000 : 0,
					  k == 2 ? "<= +15,000" : "");
		}
		child_env[0] = '\0';
		cg_all_threads = false;
		if (added[2] >= 0 && added[3] >= 0)
			printf("%-36s %12s %12s %+12.1f  %17s  %s: %s\n", "instr/extra GPU (4 to 8)", "",
			       "", (added[3] - added[2]) / 4, "exact", "<= +1,000",
			       (added[3] - added[2]) / 4 <= 1000 ? "met" : "NOT met");
	}
	row("hipFree, managed 1 MiB (sim), us", "free_1m", simdir, "us", 0, "");
	row("hipFree, managed 1 GiB (sim), us", "free_1g", simdir, "us", 0, "");
	row("hipFree, managed 4 GiB (sim), us", "free_4g", simdir, "us", 1000, "<= 1000 us added");
	if (!only || !strcmp(only, "free_4g_sets")) {
		double sets = -1;

		measure("free_4g_sets", true, simdir, &sets);
		printf("%-36s %12s %12.2f %12s  %17s  %s: %s\n", "hook sets per 4 GiB hipFree", "",
		       sets, "", "", "1 (coordinated)", sets >= 1 ? "met" : "NOT met");
	}
	row("hipMalloc+hipFree pair (simulator)", "pairs", simdir, "ns", 150, "<= 150 ns added");
	row("munmap, tracked idle page (simulator)", "unmap_tracked", simdir, "ns", 0,
	    "2 hook round trips");
	row("hipFree, managed 64 KiB (simulator)", "free_managed", simdir, "ns", 0,
	    "2 hook round trips");
	row("hipMalloc+hipFree pair (fake rt)", "pairs", fakedir, "ns", 150, "<= 150 ns added");
	row("2 threads / 1 thread, pairs/s (sim)", "threads", simdir, "x", 0.9, ">= 90%");
	row("2 threads / 1 thread, pairs/s (fake)", "threads", fakedir, "x", 0.9, ">= 90%");
	row("4 threads / 1 thread, pairs/s (fake)", "threads4", fakedir, "x", 0.9, ">= 90%");
	row("2 threads / 1, fake, addresses reused", "threads_reuse", fakedir, "x", 0.9, ">= 90%");
	return 0;
}
