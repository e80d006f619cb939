/* SPDX-License-Identifier: MIT */
/*
 * guard.c - the interpreter's memory on a simulated GPU: every page an
 * instruction's active lanes touch goes through the GPU's page-fault path
 * (sim_gpu_access_page: a page the GPU has not mapped raises a retry fault
 * into the ring and the wave waits for the handler), then the bytes move
 * with a guarded copy.
 *
 * The common case makes no system call and takes no lock: the bounds and
 * the dispatch's own buffers are checked once per instruction (the lanes'
 * lowest and highest address), the pages through a per-thread translation
 * cache of pages found mapped (dropped whenever sim_pt_gen moves: runtime/map.h),
 * and the bytes are copied directly, one memcpy when the lanes are
 * consecutive, one a row when they lie in rows of 16 consecutive lanes.
 *
 * Why guarded, and how. The program can munmap a range while a kernel
 * reads it (that race is what the shim coordinates; without the shim it is
 * simply allowed to happen). A plain load would then kill the simulator
 * with SIGSEGV. Copies and atomics therefore run under a per-thread
 * sigsetjmp guard: a SIGSEGV/SIGBUS handler, installed once, long-jumps
 * out when the faulting thread is inside a guarded copy and otherwise
 * hands the signal to the handler that was there before (or to the default
 * action). The interpreter's threads unblock SIGSEGV/SIGBUS only while they
 * run a dispatch. Where the guard cannot be trusted, because the program
 * has since installed its own handler for either signal (checked once per
 * dispatch), loads and stores go through process_vm_readv/process_vm_writev
 * on our own pid instead: the kernel copies and answers EFAULT (or a short
 * count) for an unmapped page, with no signal, one system call per
 * instruction (all lanes' ranges in one iovec list). Atomics have no such
 * fallback and stay under the guard (as they always were).
 *
 * Either way a page that has vanished from the CPU is a real GPU fault
 * (-ISA_E_FAULT): the dispatch ends with hipErrorIllegalAddress.
 */
#include "exec/run.h"
#include "gpu/gpu.h"
#include "runtime/map.h"
#include "runtime/state.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_PAGES 16

/* How an instruction's lanes lie: LANES_RUN, consecutive (every byte from
 * addr[0] to the last lane's end is touched); LANES_ROWS, every lane on in
 * ROWS rows of ROW consecutive lanes each, no row wrapping (a tile's rows
 * of a matrix: matmul's loads); LANES_ANY, anything else. */
enum { LANES_ANY, LANES_RUN, LANES_ROWS };
#define ROW 16
#define ROWS (ISA_LANES / ROW)

typedef uint64_t v4u64 __attribute__((vector_size(32)));

struct tcache;

/* A thread's guard and translation cache in one thread-local block: one
 * look-up of its address an access (each __thread variable of a shared
 * library is a __tls_get_addr call of its own). */
struct guard_tls {
	sigjmp_buf jmp;
	volatile sig_atomic_t on;
	struct tcache *tc;
	/* memory instructions of this thread's dispatch (cm), added to
	 * cm->insns when the thread leaves it (mem_leave): a shared counter
	 * that every thread's every memory instruction incremented moved its
	 * cache line, and the dispatch's read-mostly fields beside it, between
	 * the cores (3 to 5 % of the CPU time of two threads here, whose two
	 * vCPUs may share a core; more where they do not) */
	struct sim_isa_mem *cm;
	uint64_t cinsns;
};

static __thread struct guard_tls gt;

static inline void count_insn(struct guard_tls *g, struct sim_isa_mem *m)
{
	if (__builtin_expect(g->cm != m, 0)) {
		g->cm = m;
		g->cinsns = 0;
	}
	g->cinsns++;
}

static struct sigaction old_segv, old_bus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;

	struct guard_tls *g = &gt;

	if (g->on) {
		g->on = 0;
		siglongjmp(g->jmp, 1);
	}
	/* not ours: whoever handled it before us */
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc);
			return;
		}
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* default action: restore it and let the instruction fault again */
	signal(sig, SIG_DFL);
}

static void guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
}

void sim_isa_guard_unblock(sigset_t *saved)
{
	sigset_t s;

	pthread_once(&guard_once, guard_install);
	sigemptyset(&s);
	sigaddset(&s, SIGSEGV);
	sigaddset(&s, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &s, saved);
}

void sim_isa_guard_restore(const sigset_t *saved)
{
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static bool internal(const struct sim_isa_mem *m, uint64_t a, size_t n)
{
	for (unsigned i = 0; i < m->ninternal; i++)
		if (a >= m->lo[i] && a <= m->hi[i] && n <= m->hi[i] - a)
			return true;
	return false;
}

/* ---- the translation cache ----
 *
 * Each interpreter thread keeps the pages it has found mapped on its GPU,
 * direct-mapped by page number, tagged with sim_pt_gen: when the page
 * tables may have lost a page (runtime/map.h) the generation moves and
 * the whole cache is dropped at the next instruction. An instruction reads the
 * generation once, before its checks, so it sees the page tables as they
 * were when it started: the same window the check-then-copy always had.
 * Only pages found mapped are kept: a page that is not goes through the
 * fault path every time, as it must.
 *
 * Two ways a set, the set a hash of the whole page number: allocations of
 * 2 MiB and more start on a 2 MiB granule, and each aperture's first
 * allocation at its base (runtime/memory.c), so a kernel's source and
 * destination are often a multiple of 2 MiB apart. Indexed by the page
 * number's low bits, their pages shared a slot and evicted each other on
 * every load and store (a page walk each: hip-tests'
 * Unit_hipMallocManaged_MultiKrnlComnMalloc made 35.6 M of them for
 * 67.2 M memory instructions). */
#define TC_SETS 512

struct tcache {
	uint64_t gen;
	const struct sim_gpu *gpu;
	uint64_t page[TC_SETS][2];	/* page number + 1, the newer first; 0: empty */
};

/* Fibonacci hashing: consecutive pages spread over the sets, and pages
 * a power of two apart do not meet in one */
static inline uint64_t *tc_set(struct tcache *c, uint64_t page)
{
	_Static_assert(TC_SETS == 512, "the hash keeps 9 bits");
	return c->page[(page * UINT64_C(0x9e3779b97f4a7c15)) >> 55];
}

static inline bool tc_has(struct tcache *c, uint64_t page)
{
	const uint64_t *s = tc_set(c, page);

	return (s[0] == page + 1) | (s[1] == page + 1);
}

/* the older way makes room */
static inline void tc_put(struct tcache *c, uint64_t page)
{
	uint64_t *s = tc_set(c, page);

	s[1] = s[0];
	s[0] = page + 1;
}

static pthread_key_t tc_key;
static pthread_once_t tc_once = PTHREAD_ONCE_INIT;

static void tc_key_init(void)
{
	(void)pthread_key_create(&tc_key, free);	/* frees a thread's cache at its exit */
}

/* This thread's cache, current for m's GPU; NULL without memory (every
 * page then takes the fault path). */
static struct tcache *tc_get(const struct sim_isa_mem *m, struct guard_tls *g)
{
	uint64_t gen = __atomic_load_n(&sim_pt_gen, __ATOMIC_ACQUIRE);
	struct tcache *c = g->tc;

	if (__builtin_expect(!c, 0)) {
		pthread_once(&tc_once, tc_key_init);
		c = calloc(1, sizeof(*c));
		if (!c || pthread_setspecific(tc_key, c)) {
			free(c);
			return NULL;
		}
		g->tc = c;
		c->gen = gen - 1;
	}
	if (c->gen != gen || c->gpu != m->gpu) {
		memset(c->page, 0, sizeof(c->page));
		c->gen = gen;
		c->gpu = m->gpu;
	}
	return c;
}

/* One page through the GPU's fault path (a page the GPU has not mapped
 * raises a retry fault and waits for the handler); cached when mapped. */
static int page_in(struct sim_isa_mem *m, struct tcache *c, uint64_t page, bool write)
{
	int r;

	if (c && tc_has(c, page))
		return 0;
	r = sim_gpu_access_page(m->gpu, (uintptr_t)(page * SIM_PAGE), write, m->stop);
	if (r == SIM_RES_REAL || r == SIM_RES_NONE)
		return -ISA_E_FAULT;
	__atomic_fetch_add(&m->pages, 1, __ATOMIC_RELAXED);
	if (c)
		tc_put(c, page);
	return 0;
}

/* Pages p0..p1 in, but *last, the page the previous span ended on (a run
 * of lanes on one page costs a compare each); *last is then p1. */
static inline int span_in(struct sim_isa_mem *m, struct tcache *c, uint64_t p0, uint64_t p1,
			  bool write, uint64_t *last)
{
	for (uint64_t p = p0; p <= p1; p++) {
		if (p == *last)
			continue;
		if (page_in(m, c, p, write))
			return -ISA_E_FAULT;
		*last = p;
	}
	return 0;
}

/* Every page [addr[i], addr[i] + size) touches, lane order; a run of lanes
 * on one page costs one compare each, and consecutive lanes (run: every
 * byte from addr[0] to the last lane's end is touched) just their span. */
/* lo and hi: the lowest and the highest lane's address (the caller has
 * them from its bounds check). */
/* noipa: g stays the caller's (constant-propagated, &gt would be a
 * __tls_get_addr call again) */
static __attribute__((noipa)) int pages_in(struct sim_isa_mem *m, struct guard_tls *g,
					   const uint64_t *addr, unsigned n, unsigned size,
					   bool write, int lanes, uint64_t lo, uint64_t hi)
{
	struct tcache *c = tc_get(m, g);
	uint64_t last = ~0ull;

	if (lanes == LANES_RUN) {
		for (uint64_t p = addr[0] / SIM_PAGE; p <= (addr[n - 1] + size - 1) / SIM_PAGE; p++)
			if (page_in(m, c, p, write))
				return -ISA_E_FAULT;
		return 0;
	}
	/* the lanes within two pages: the lowest lane touches the first, the
	 * highest the last, so both are touched */
	if ((hi + size - 1) / SIM_PAGE - lo / SIM_PAGE <= 1) {
		for (uint64_t p = lo / SIM_PAGE; p <= (hi + size - 1) / SIM_PAGE; p++)
			if (page_in(m, c, p, write))
				return -ISA_E_FAULT;
		return 0;
	}
	/* rows: a row's lanes visit its pages in order, each once, so a row
	 * is its span; the same pages in the same order as lane by lane */
	if (lanes == LANES_ROWS) {
		for (unsigned r = 0; r < ROWS; r++) {
			if (span_in(m, c, addr[r * ROW] / SIM_PAGE,
				    (addr[r * ROW + ROW - 1] + size - 1) / SIM_PAGE, write, &last))
				return -ISA_E_FAULT;
		}
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		if (span_in(m, c, addr[i] / SIM_PAGE, (addr[i] + size - 1) / SIM_PAGE, write, &last))
			return -ISA_E_FAULT;
	return 0;
}

/* A global access counted and its pages in: lanes within two pages, both
 * already known mapped, need no more (every path of pages_in would only
 * find them in the cache: the lowest lane touches the first, the highest
 * the last). */
static inline __attribute__((always_inline)) int
pages_ready(struct sim_isa_mem *m, struct guard_tls *g, const uint64_t *addr, unsigned n,
	    unsigned size, bool write, int lanes, uint64_t lo, uint64_t hi)
{
	count_insn(g, m);
	struct tcache *c = g->tc;
	uint64_t p0 = lo / SIM_PAGE, p1 = (hi + size - 1) / SIM_PAGE;

	/* a cache of this generation and GPU here; any other goes through
	 * pages_in, whose tc_get makes it current */
	if (c && c->gen == __atomic_load_n(&sim_pt_gen, __ATOMIC_ACQUIRE) && c->gpu == m->gpu &&
	    p1 - p0 <= 1 && tc_has(c, p0) && tc_has(c, p1))
		return 0;
	return pages_in(m, g, addr, n, size, write, lanes, lo, hi);
}

/* process_vm_* refused (a seccomp filter may do that in a container):
 * the copies then run under the signal guard, as the atomics do. */
static int vm_refused;

static __attribute__((noinline)) void plain_copy(const struct iovec *local,
						 const struct iovec *remote, unsigned nr, bool write)
{
	uint8_t *lp = local->iov_base;

	for (unsigned i = 0; i < nr; i++) {
		if (write)
			memcpy(remote[i].iov_base, lp, remote[i].iov_len);
		else
			memcpy(lp, remote[i].iov_base, remote[i].iov_len);
		lp += remote[i].iov_len;
	}
}

static int guarded_copy(const struct iovec *local, const struct iovec *remote, unsigned nr,
			bool write)
{
	struct guard_tls *g = &gt;

	if (sigsetjmp(g->jmp, 0))
		return -ISA_E_FAULT;
	g->on = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	plain_copy(local, remote, nr, write);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	g->on = 0;
	return 0;
}

/* One guarded copy between local (one buffer) and nr remote ranges. */
static int vm_copy(struct sim_isa_mem *m, const struct iovec *local,
		   const struct iovec *remote, unsigned nr, bool write)
{
	ssize_t got;

	if (!__atomic_load_n(&vm_refused, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&m->vm_calls, 1, __ATOMIC_RELAXED);
		got = write ? process_vm_writev(m->pid, local, 1, remote, nr, 0)
			    : process_vm_readv(m->pid, local, 1, remote, nr, 0);
		if (got == (ssize_t)local->iov_len)
			return 0;
		if (got >= 0 || (errno != EPERM && errno != ENOSYS))
			return -ISA_E_FAULT;
		__atomic_store_n(&vm_refused, 1, __ATOMIC_RELAXED);
	}
	return guarded_copy(local, remote, nr, write);
}

/* Is the guard's handler the one installed for SIGSEGV and SIGBUS? A
 * program that put its own in after ours would get our faults: the copies
 * of that dispatch then take process_vm_* (two system calls a dispatch). */
static bool guard_current(void)
{
	struct sigaction s, b;

	return sigaction(SIGSEGV, NULL, &s) == 0 && sigaction(SIGBUS, NULL, &b) == 0 &&
	       (s.sa_flags & SA_SIGINFO) && s.sa_sigaction == guard_handler &&
	       (b.sa_flags & SA_SIGINFO) && b.sa_sigaction == guard_handler;
}

static bool direct(struct sim_isa_mem *m)
{
	int d = __atomic_load_n(&m->direct, __ATOMIC_RELAXED);

	if (!d) {
		d = guard_current() ? 1 : 2;
		__atomic_store_n(&m->direct, d, __ATOMIC_RELAXED);
	}
	return d == 1;
}

/* The lanes' bytes, straight: one copy when the lanes are consecutive. Not
 * inlined, so that no load or store moves out of the guard's window; wide
 * (a row of 16 dwords is two 32-byte moves). */
ISA_WIDE static __attribute__((noinline)) void copy_lanes(const uint64_t *addr, unsigned n, unsigned size,
						 bool write, uint8_t *buf, int lanes)
{
	if (lanes == LANES_RUN) {
		if (write)
			memcpy((void *)(uintptr_t)addr[0], buf, (size_t)n * size);
		else
			memcpy(buf, (const void *)(uintptr_t)addr[0], (size_t)n * size);
		return;
	}
	/* rows: one copy a row, in lane order (so where rows overlap a later
	 * lane's store still wins); the common sizes of a fixed length */
#define ROW_COPY(sz) \
	_Pragma("GCC unroll 4") \
	for (unsigned r = 0; r < ROWS; r++, buf += ROW * (sz)) { \
		void *p = (void *)(uintptr_t)addr[r * ROW]; \
		if (write) \
			memcpy(p, buf, ROW * (sz)); \
		else \
			memcpy(buf, p, ROW * (sz)); \
	}
	if (lanes == LANES_ROWS) {
		switch (size) {
		case 4: ROW_COPY(4) break;
		case 16: ROW_COPY(16) break;
		default: ROW_COPY(size) break;
		}
		return;
	}
#undef ROW_COPY
	/* the common sizes as fixed-size copies (no call per lane) */
#define LANE_COPY(sz) \
	for (unsigned i = 0; i < n; i++, buf += (sz)) { \
		void *p = (void *)(uintptr_t)addr[i]; \
		if (write) \
			memcpy(p, buf, (sz)); \
		else \
			memcpy(buf, p, (sz)); \
	}
	if (size == 4 && !write) {
		isa_gather32(buf, addr, n);
		return;
	}
	switch (size) {
	case 4: LANE_COPY(4) break;
	case 8: LANE_COPY(8) break;
	default: LANE_COPY(size) break;
	}
#undef LANE_COPY
}

static __attribute__((noipa)) int guarded_lanes(struct guard_tls *g, const uint64_t *addr,
						unsigned n, unsigned size, bool write,
						uint8_t *buf, int lanes)
{
	if (sigsetjmp(g->jmp, 0))
		return -ISA_E_FAULT;
	g->on = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	copy_lanes(addr, n, size, write, buf, lanes);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	g->on = 0;
	return 0;
}

/* One run of len bytes under the guard: the sizes a wave's run or one
 * lane's access has (a dword, a dwordx4, 64 dwords) as fixed-size copies
 * inside the fences, the rest through copy_lanes. */
static __attribute__((noipa)) int guarded_run(struct guard_tls *g, uint64_t a, unsigned len,
					      bool write, uint8_t *buf)
{
	void *p = (void *)(uintptr_t)a;

	if (sigsetjmp(g->jmp, 0))
		return -ISA_E_FAULT;
	g->on = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#define RUN_COPY(n) (write ? memcpy(p, buf, n) : memcpy(buf, p, n))
	switch (len) {
	case 4: RUN_COPY(4); break;
	case 8: RUN_COPY(8); break;
	case 16: RUN_COPY(16); break;
	case 4 * ISA_LANES: RUN_COPY(4 * ISA_LANES); break;
	default: copy_lanes(&a, 1, len, write, buf, LANES_RUN); break;
	}
#undef RUN_COPY
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	g->on = 0;
	return 0;
}

/* Lane by lane, for an instruction that touches the dispatch's own
 * buffers (the kernarg segment, the packet): those are plain memory. */
static int mixed_access(struct sim_isa_mem *m, const uint64_t *addr, unsigned n, unsigned size,
			bool write, uint8_t *buf)
{
	bool global = false;

	for (unsigned i = 0; i < n; i++) {
		uint8_t *b = buf + (size_t)i * size;
		struct iovec l = { b, size };
		struct iovec r = { (void *)(uintptr_t)addr[i], size };

		if (internal(m, addr[i], size)) {
			if (write)
				memcpy((void *)(uintptr_t)addr[i], b, size);
			else
				memcpy(b, (const void *)(uintptr_t)addr[i], size);
			continue;
		}
		if (addr[i] + size < addr[i] ||
		    pages_in(m, &gt, &addr[i], 1, size, write, LANES_RUN, addr[i], addr[i]))
			return -ISA_E_FAULT;
		global = true;
		if (direct(m) ? guarded_lanes(&gt, &addr[i], 1, size, write, b, LANES_RUN)
			      : vm_copy(m, &l, &r, 1, write))
			return -ISA_E_FAULT;
	}
	if (global)
		count_insn(&gt, m);
	return 0;
}

/* The lowest and highest of addr[0..n): a whole wave's loop has a fixed
 * count, which the compiler vectorises. */
static inline void span(const uint64_t *addr, unsigned n, uint64_t *lo_, uint64_t *hi_)
{
	uint64_t lo = ~0ull, hi = 0;

	if (n == ISA_LANES) {
		for (unsigned i = 0; i < ISA_LANES; i++) {
			lo = addr[i] < lo ? addr[i] : lo;
			hi = addr[i] > hi ? addr[i] : hi;
		}
	} else {
		for (unsigned i = 0; i < n; i++) {
			lo = addr[i] < lo ? addr[i] : lo;
			hi = addr[i] > hi ? addr[i] : hi;
		}
	}
	*lo_ = lo;
	*hi_ = hi;
}

ISA_WIDE static int mem_access(struct isa_mem *im, const uint64_t *addr, unsigned n, unsigned size,
			       bool write, void *buf)
{
	struct sim_isa_mem *m = (struct sim_isa_mem *)im;
	struct iovec local, remote[ISA_LANES];
	uint64_t lo = ~0ull, hi = 0;
	unsigned nr = 0;
	bool run = true;
	int lanes;
	struct guard_tls *g;

	if (n > ISA_LANES || !n)
		return n ? -ISA_E_FAULT : 0;
	/* the bounds, once per instruction: consecutive lanes have theirs at
	 * the ends. A whole wave's loops have a fixed count, which the
	 * compiler vectorises (-O2 leaves a loop of unknown count scalar). */
	if (n == ISA_LANES) {
		/* row by row: each row's lanes against its first; consecutive
		 * when every row is and each starts where the one before ends */
		uint64_t gaps, chain, rlo, rhi;
		bool whole;

		/* each lane against its row's first, four lanes a vector
		 * (GCC's vector extension: -O2 leaves the nested loops' offsets
		 * a multiply per lane); the offsets in registers across rows */
		v4u64 o0 = { 0, size, 2 * (uint64_t)size, 3 * (uint64_t)size };
		v4u64 st = { 4 * (uint64_t)size, 4 * (uint64_t)size, 4 * (uint64_t)size,
			     4 * (uint64_t)size };
		v4u64 o1 = o0 + st, o2 = o1 + st, o3 = o2 + st, acc = { 0, 0, 0, 0 };

		for (unsigned r = 0; r < ROWS; r++) {
			const uint64_t *a = addr + r * ROW;
			v4u64 bv = { a[0], a[0], a[0], a[0] }, x0, x1, x2, x3;

			memcpy(&x0, a, sizeof(x0));
			memcpy(&x1, a + 4, sizeof(x1));
			memcpy(&x2, a + 8, sizeof(x2));
			memcpy(&x3, a + 12, sizeof(x3));
			acc |= ((x0 - o0) ^ bv) | ((x1 - o1) ^ bv) | ((x2 - o2) ^ bv) |
			       ((x3 - o3) ^ bv);
		}
		gaps = acc[0] | acc[1] | acc[2] | acc[3];
		/* the rows' ends, straight (a loop of four kept its branches) */
		const uint64_t b0 = addr[0], b1 = addr[ROW], b2 = addr[2 * ROW], b3 = addr[3 * ROW];
		const uint64_t rs = (uint64_t)ROW * size;
		uint64_t l01 = b0 < b1 ? b0 : b1, l23 = b2 < b3 ? b2 : b3;
		uint64_t h01 = b0 > b1 ? b0 : b1, h23 = b2 > b3 ? b2 : b3;

		_Static_assert(ROWS == 4, "the rows' ends are written out for four rows");
		whole = (addr[ROW - 1] >= b0) & (addr[2 * ROW - 1] >= b1) &
			(addr[3 * ROW - 1] >= b2) & (addr[4 * ROW - 1] >= b3);	/* no row wrapped */
		chain = (b1 ^ (b0 + rs)) | (b2 ^ (b1 + rs)) | (b3 ^ (b2 + rs));
		rlo = l01 < l23 ? l01 : l23;
		rhi = h01 > h23 ? h01 : h23;
		run = gaps == 0 && chain == 0;
		if (!run && gaps == 0 && whole) {
			/* each row spans its first lane to its last */
			lanes = LANES_ROWS;
			lo = rlo;
			hi = rhi + (uint64_t)(ROW - 1) * size;
			goto spanned;
		}
	} else {
		unsigned gaps = 0;

		for (unsigned i = 1; i < n; i++)
			gaps += addr[i] - addr[i - 1] != size;
		run = gaps == 0;
	}
	run &= addr[n - 1] >= addr[0];	/* not wrapped */
	lanes = run ? LANES_RUN : LANES_ANY;
	if (run) {
		lo = addr[0];
		hi = addr[n - 1];
	} else {
		span(addr, n, &lo, &hi);
	}
spanned:
	if (hi + size < hi)
		return -ISA_E_FAULT;
	for (unsigned i = 0; lo < m->ihi && hi + size > m->ilo && i < m->ninternal; i++) {
		if (!(lo < m->hi[i] && hi + size > m->lo[i]))
			continue;
		/* consecutive lanes within one of them (SMEM's kernarg loads) */
		if (run && lo >= m->lo[i] && hi + size <= m->hi[i]) {
			if (write)
				memcpy((void *)(uintptr_t)lo, buf, (size_t)n * size);
			else
				memcpy(buf, (const void *)(uintptr_t)lo, (size_t)n * size);
			return 0;
		}
		return mixed_access(m, addr, n, size, write, buf);
	}
	g = &gt;
	__asm__("" : "+r"(g));	/* one __tls_get_addr, kept across the calls */
	if (pages_ready(m, g, addr, n, size, write, lanes, lo, hi))
		return -ISA_E_FAULT;
	if (direct(m))
		return guarded_lanes(g, addr, n, size, write, buf, lanes);
	/* one process_vm_* call: consecutive lanes at consecutive addresses merge */
	for (unsigned i = 0; i < n; i++) {
		if (nr && (uintptr_t)remote[nr - 1].iov_base + remote[nr - 1].iov_len == addr[i]) {
			remote[nr - 1].iov_len += size;
			continue;
		}
		remote[nr].iov_base = (void *)(uintptr_t)addr[i];
		remote[nr].iov_len = size;
		nr++;
	}
	local.iov_base = buf;
	local.iov_len = (size_t)n * size;
	return vm_copy(m, &local, remote, nr, write);
}

/* n lanes of size bytes side by side from a: what mem_access does with
 * those addresses, as one lane of n * size bytes (the same pages in the
 * same order, one copy). A run within one of the dispatch's own buffers
 * is a copy; one that wraps or lies partly in one takes mem_access, lane
 * by lane. */
ISA_WIDE static int mem_run(struct isa_mem *im, uint64_t a, unsigned n, unsigned size, bool write,
			    void *buf)
{
	struct sim_isa_mem *m = (struct sim_isa_mem *)im;
	uint64_t len = (uint64_t)n * size, end = a + len - 1;
	bool plain = n && n <= ISA_LANES && end >= a;
	struct guard_tls *g;

	for (unsigned i = 0; plain && a < m->ihi && end >= m->ilo && i < m->ninternal; i++) {
		if (!(a < m->hi[i] && end >= m->lo[i]))
			continue;
		/* within one of them (SMEM's kernarg loads): plain memory */
		if (a >= m->lo[i] && end < m->hi[i]) {
			if (write)
				memcpy((void *)(uintptr_t)a, buf, (size_t)len);
			else
				memcpy(buf, (const void *)(uintptr_t)a, (size_t)len);
			return 0;
		}
		plain = false;
	}
	if (!plain) {
		uint64_t addr[ISA_LANES];

		for (unsigned i = 0; i < n && i < ISA_LANES; i++)
			addr[i] = a + (uint64_t)i * size;
		return mem_access(im, addr, n, size, write, buf);
	}
	g = &gt;
	__asm__("" : "+r"(g));	/* one __tls_get_addr */
	if (pages_ready(m, g, &a, 1, (unsigned)len, write, LANES_RUN, a, a))
		return -ISA_E_FAULT;
	if (direct(m))
		return guarded_run(g, a, (unsigned)len, write, buf);
	struct iovec local = { buf, (size_t)len }, remote = { (void *)(uintptr_t)a, (size_t)len };

	return vm_copy(m, &local, &remote, 1, write);
}

/* One lane's atomic, a host atomic: the operations x86 has as one
 * instruction directly, the others as a compare-and-swap loop. */
static uint64_t rmw_lane(uint64_t addr, unsigned size, int op, uint64_t src, uint64_t cmp)
{
	if (size == 4) {
		uint32_t *p = (uint32_t *)(uintptr_t)addr, old, nv, s = (uint32_t)src;

		switch (op) {
		case ISA_AT_ADD: return __atomic_fetch_add(p, s, __ATOMIC_SEQ_CST);
		case ISA_AT_SUB: return __atomic_fetch_sub(p, s, __ATOMIC_SEQ_CST);
		case ISA_AT_AND: return __atomic_fetch_and(p, s, __ATOMIC_SEQ_CST);
		case ISA_AT_OR: return __atomic_fetch_or(p, s, __ATOMIC_SEQ_CST);
		case ISA_AT_XOR: return __atomic_fetch_xor(p, s, __ATOMIC_SEQ_CST);
		case ISA_AT_SWAP: return __atomic_exchange_n(p, s, __ATOMIC_SEQ_CST);
		}
		old = __atomic_load_n(p, __ATOMIC_RELAXED);
		do {
			if (op == ISA_AT_CMPSWAP) {
				if (old != (uint32_t)cmp)
					break;
				nv = s;
			} else {
				nv = (uint32_t)isa_atomic_rmw(op, 4, old, src);
			}
		} while (!__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED));
		return old;
	}
	uint64_t *p = (uint64_t *)(uintptr_t)addr, old, nv;

	switch (op) {
	case ISA_AT_ADD: return __atomic_fetch_add(p, src, __ATOMIC_SEQ_CST);
	case ISA_AT_SUB: return __atomic_fetch_sub(p, src, __ATOMIC_SEQ_CST);
	case ISA_AT_AND: return __atomic_fetch_and(p, src, __ATOMIC_SEQ_CST);
	case ISA_AT_OR: return __atomic_fetch_or(p, src, __ATOMIC_SEQ_CST);
	case ISA_AT_XOR: return __atomic_fetch_xor(p, src, __ATOMIC_SEQ_CST);
	case ISA_AT_SWAP: return __atomic_exchange_n(p, src, __ATOMIC_SEQ_CST);
	}
	old = __atomic_load_n(p, __ATOMIC_RELAXED);
	do {
		if (op == ISA_AT_CMPSWAP) {
			if (old != cmp)
				break;
			nv = src;
		} else {
			nv = isa_atomic_rmw(op, 8, old, src);
		}
	} while (!__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return old;
}

/* The lanes' atomics in lane order, under one guard window. */
static int guarded_rmw(const uint64_t *addr, unsigned n, unsigned size, int op,
		       const uint64_t *src, const uint64_t *cmp, uint64_t *old)
{
	struct guard_tls *g = &gt;

	if (sigsetjmp(g->jmp, 0))
		return -ISA_E_FAULT;
	g->on = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (size == 4 && op == ISA_AT_ADD) {
		/* atomicAdd, the common one: the loop without a switch per lane */
		for (unsigned i = 0; i < n; i++)
			old[i] = __atomic_fetch_add((uint32_t *)(uintptr_t)addr[i], (uint32_t)src[i],
						    __ATOMIC_SEQ_CST);
	} else {
		for (unsigned i = 0; i < n; i++)
			old[i] = rmw_lane(addr[i], size, op, src[i], cmp ? cmp[i] : 0);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	g->on = 0;
	return 0;
}

/* Float atomics: the lanes on fine-grained host memory do nothing and
 * read 0, as on an MI200 over PCIe (hip-tests' own AtomicAddTester.hh and
 * BuiltIns_fadd.cc expect it of coherent hipHostMalloc memory); the others
 * as every atomic. */
static int fp_rmw(const uint64_t *addr, unsigned n, unsigned size, int op, const uint64_t *src,
		  uint64_t *old)
{
	uint64_t ka[ISA_LANES], ks[ISA_LANES], ko[ISA_LANES];
	bool drop[ISA_LANES];
	unsigned k = 0;

	if (!sim_fp_atomic_drops(addr, n, size, drop))
		return guarded_rmw(addr, n, size, op, src, NULL, old);
	for (unsigned i = 0; i < n; i++)
		if (!drop[i]) {
			ka[k] = addr[i];
			ks[k++] = src[i];
		}
	if (k && guarded_rmw(ka, k, size, op, ks, NULL, ko))
		return -ISA_E_FAULT;
	k = 0;
	for (unsigned i = 0; i < n; i++)
		old[i] = drop[i] ? 0 : ko[k++];
	return 0;
}

ISA_WIDE static int mem_atomic(struct isa_mem *im, const uint64_t *addr, unsigned n, unsigned size,
			       int op, const uint64_t *src, const uint64_t *cmp, uint64_t *old)
{
	struct sim_isa_mem *m = (struct sim_isa_mem *)im;
	uint64_t lo, hi, mis = 0;

	if (n > ISA_LANES)
		return -ISA_E_FAULT;
	/* misaligned atomics fault on the hardware too (size is 4 or 8, so
	 * the lanes' OR tells); the dispatch's own buffers are not for
	 * atomics: lane by lane only when the lanes' span meets one of them */
	if (n == ISA_LANES)
		for (unsigned i = 0; i < ISA_LANES; i++)
			mis |= addr[i];
	else
		for (unsigned i = 0; i < n; i++)
			mis |= addr[i];
	span(addr, n, &lo, &hi);
	if (mis % size)
		return -ISA_E_FAULT;
	for (unsigned r = 0; n && r < m->ninternal; r++)
		if (lo < m->hi[r] && hi + size > m->lo[r]) {
			for (unsigned i = 0; i < n; i++)
				if (internal(m, addr[i], size))
					return -ISA_E_FAULT;
			break;
		}
	count_insn(&gt, m);
	if (n && pages_in(m, &gt, addr, n, size, true, LANES_ANY, lo, hi))
		return -ISA_E_FAULT;
	if (op >= ISA_AT_FADD32)
		return fp_rmw(addr, n, size, op, src, old);
	return guarded_rmw(addr, n, size, op, src, cmp, old);
}

/* A worker thread is done with the dispatch: its count goes to m. */
static void mem_leave(struct isa_mem *im)
{
	struct sim_isa_mem *m = (struct sim_isa_mem *)(void *)im;

	if (gt.cm == m && gt.cinsns)
		__atomic_fetch_add(&m->insns, gt.cinsns, __ATOMIC_RELAXED);
	gt.cm = NULL;
	gt.cinsns = 0;
}

void sim_isa_mem_init(struct sim_isa_mem *m, struct sim_gpu *g, const uint32_t *stop)
{
	memset(m, 0, sizeof(*m));
	m->ops.access = mem_access;
	m->ops.run = mem_run;
	m->ops.atomic = mem_atomic;
	m->ops.leave = mem_leave;
	m->gpu = g;
	m->stop = stop;
	m->pid = sim.pid;
}

void sim_isa_mem_internal(struct sim_isa_mem *m, const void *p, size_t n)
{
	if (m->ninternal < SIM_ISA_INTERNAL) {
		m->lo[m->ninternal] = (uint64_t)(uintptr_t)p;
		m->hi[m->ninternal] = (uint64_t)(uintptr_t)p + n;
		if (!m->ninternal || m->lo[m->ninternal] < m->ilo)
			m->ilo = m->lo[m->ninternal];
		if (!m->ninternal || m->hi[m->ninternal] > m->ihi)
			m->ihi = m->hi[m->ninternal];
		m->ninternal++;
	}
}
