/* SPDX-License-Identifier: MIT */
/*
 * gpu.c - the simulated GPUs: a 48-bit clock, the ih0/ih1/ih_soft rings, a
 * page table of lazily mapped pages, and one fault-handler thread per GPU.
 *
 * A GPU access to a page that is not mapped on that GPU writes a retry-fault
 * IV into the fault ring (ih1; ih0 with the retry CAM or on an APU, whose
 * handler re-queues it into ih_soft as gmc_v9 delegates) and waits. The
 * handler runs hipsvm_ring_process over the rings, passes every retry fault
 * through hipsvm_cp_filter and maps the page, or reports a real fault when
 * the address is gone. A dropped fault is retried by the GPU with a new
 * timestamp, as retry faults are.
 *
 * Filter, handling and the stale-fault check run under the GPU's pt_lock,
 * which the hook server's "set" also takes: the kernel runs restore_pages
 * and the checkpoint set under the process's SVM lock, so a fault is
 * filtered and handled either wholly before or wholly after a set.
 *
 * The GPU's side of one access (sim_gpu_access_page, at the end) is here
 * too: check the page table, raise a retry fault, wait for the handler's
 * answer, retry until served. The interpreter's memory (sim/exec/guard.c),
 * the touch model and the test entry points (sim/api/sim_ext.c) call it.
 */
#include "gpu/gpu.h"
#include "runtime/map.h"
#include "runtime/state.h"
#include "runtime/thread.h"
#include "runtime/step.h"
#include "hipsvm_sim.h"

#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SIM_PASID 1

uint64_t sim_gpu_now(struct sim_gpu *g)
{
	return (sim.ts_start + __atomic_load_n(&g->clock, __ATOMIC_RELAXED)) & HIPSVM_TS_MASK;
}

static struct hipsvm_ring *ring_of(struct sim_gpu *g, enum sim_ring r)
{
	return &g->rings[r];
}

static void ring_doorbell(struct sim_gpu *g)
{
	__atomic_fetch_add(&g->doorbell, 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&g->sleeping, __ATOMIC_RELAXED))
		sim_futex_wake(&g->doorbell);
}

int sim_gpu_raise(struct sim_gpu *g, uintptr_t addr, bool write, bool retry,
		  bool have_ts, uint64_t ts, uint64_t token, uint64_t *ts_out)
{
	int err = sim_gpu_write_fault(g, addr, write, retry, have_ts, ts, token, ts_out);

	if (!err)
		ring_doorbell(g);
	return err;
}

int sim_gpu_write_fault(struct sim_gpu *g, uintptr_t addr, bool write, bool retry,
			bool have_ts, uint64_t ts, uint64_t token, uint64_t *ts_out)
{
	enum sim_ring which = SIM_IH0;
	struct hipsvm_iv iv;
	uint32_t dw[HIPSVM_IV_DWORDS];
	int err;

	if (retry && !sim.retry_cam && g->irq.ih1)
		which = SIM_IH1;
	/* The timestamp is taken under the producer lock so that a ring holds
	 * its IVs in timestamp order, as the hardware writes them. */
	pthread_mutex_lock(&g->prod_lock[which]);
	if (!have_ts)
		ts = (sim.ts_start + __atomic_fetch_add(&g->clock, 1, __ATOMIC_RELAXED)) &
		     HIPSVM_TS_MASK;
	hipsvm_iv_make_fault(&iv, addr, write, ts, SIM_PASID, (uint8_t)g->index);
	if (!retry)
		iv.src_data[1] &= ~HIPSVM_IV_SRC_DATA1_RETRY;
	iv.src_data[2] = (uint32_t)token;
	iv.src_data[3] = (uint32_t)(token >> 32);
	hipsvm_iv_encode(&iv, dw);
	err = hipsvm_ring_write(ring_of(g, which), dw);
	pthread_mutex_unlock(&g->prod_lock[which]);
	if (err) {
		__atomic_fetch_add(&g->overflows, 1, __ATOMIC_RELAXED);
		return err;
	}
	__atomic_fetch_add(&g->raised, 1, __ATOMIC_RELAXED);
	if (ts_out)
		*ts_out = ts;
	return 0;
}

/* What resolve_held serves: a prefetch or eager mapping (the VMA's mere
 * presence), or a GPU's read or write fault. */
enum { MAP_ONLY = -1, FAULT_READ = 0, FAULT_WRITE = 1 };

/*
 * Whether the CPU's VMA lets the GPU map the page: for a fault, as the
 * kernel's svm_fault_allowed decides it (kfd_svm.c, Linux 6.12: read
 * permission always, write too for a write fault; else -EPERM, a real
 * fault), so that a PROT_NONE page, or a write to a read-only one, is not
 * mapped and counted as served. Where the kernel cannot report the VMA's
 * permissions (before PROCMAP_QUERY, 6.11) its presence alone decides.
 */
static bool cpu_allows(uintptr_t page, int kind)
{
	int acc;

	if (kind == MAP_ONLY)
		return sim_vm_range_mapped(page, page + SIM_PAGE);
	acc = sim_vm_access(page);
	if (acc == -ENOSYS)
		return sim_vm_range_mapped(page, page + SIM_PAGE);
	if (acc < 0)
		return false;
	return (acc & SIM_VM_READ) && (kind != FAULT_WRITE || (acc & SIM_VM_WRITE));
}

static size_t page_index(const struct sim_alloc *a, uintptr_t page)
{
	return (page - (a->base & ~(uintptr_t)(SIM_PAGE - 1))) / SIM_PAGE;
}

static size_t alloc_pages(const struct sim_alloc *a)
{
	uintptr_t first = a->base & ~(uintptr_t)(SIM_PAGE - 1);

	return (a->base + a->size - first + SIM_PAGE - 1) / SIM_PAGE;
}

/* Caller holds pt_lock and map_lock (read). */
static bool mapped_locked(struct sim_gpu *g, const struct sim_alloc *a, uintptr_t page)
{
	uint64_t bit = UINT64_C(1) << g->index;
	size_t i;

	if (sim_alloc_released(a, page))
		return false;	/* unmapped from the CPU: gone from every GPU */
	if (a->eager & bit)
		return true;
	if (!(a->lazy & bit) || !a->bits[g->index])
		return false;
	i = page_index(a, page);
	return (a->bits[g->index][i / 64] >> (i % 64)) & 1;
}

bool sim_gpu_page_mapped(struct sim_gpu *g, uintptr_t addr)
{
	uintptr_t page = addr & ~(uintptr_t)(SIM_PAGE - 1);
	struct sim_alloc *a;
	bool r = false;

	sim_lock(&g->pt_lock);
	pthread_rwlock_rdlock(&sim.map_lock);
	a = sim_map_find(addr);
	if (a)
		r = mapped_locked(g, a, page);
	pthread_rwlock_unlock(&sim.map_lock);
	sim_unlock(&g->pt_lock);
	return r;
}

/* Pages mapped lazily on any GPU, ever: a drain that finds the count where
 * its set left it knows that no fault mapped anything since (the count
 * moves under the GPU's pt_lock, and is read under it). */
static uint64_t map_events;

uint64_t sim_gpu_map_events(void)
{
	return __atomic_load_n(&map_events, __ATOMIC_RELAXED);
}

/* Caller holds pt_lock and map_lock (read): what restore_pages would do
 * for this address. */
static int resolve_held(struct sim_gpu *g, uintptr_t addr, int kind)
{
	uintptr_t page = addr & ~(uintptr_t)(SIM_PAGE - 1);
	struct sim_alloc *a = sim_map_find(addr);
	size_t i;

	/* A page the program unmapped has left the allocation (the kernel
	 * removes it from the SVM range): a mapping that has reused the
	 * address since is not ours to map. */
	if (!a || sim_alloc_released(a, page))
		return SIM_RES_REAL;
	if (mapped_locked(g, a, page))
		return SIM_RES_PRESENT;
	/* Not an SVM range of this GPU, or unmapped from the CPU: restore_pages
	 * finds no VMA and the fault is real. */
	if (!(a->lazy & (UINT64_C(1) << g->index)) || !cpu_allows(page, kind))
		return SIM_RES_REAL;
	if (!a->bits[g->index])
		a->bits[g->index] = calloc((alloc_pages(a) + 63) / 64, 8);
	if (!a->bits[g->index])
		return SIM_RES_REAL;
	i = page_index(a, page);
	a->bits[g->index][i / 64] |= UINT64_C(1) << (i % 64);
	g->pages++;
	__atomic_fetch_add(&map_events, 1, __ATOMIC_RELAXED);
	return SIM_RES_MAPPED;
}

/* Caller holds pt_lock. */
static int resolve_locked(struct sim_gpu *g, uintptr_t addr)
{
	int res;

	pthread_rwlock_rdlock(&sim.map_lock);
	res = resolve_held(g, addr, MAP_ONLY);
	pthread_rwlock_unlock(&sim.map_lock);
	return res;
}

/* Counters written by the handler alone: a relaxed store, no RMW. */
static void bump(uint64_t *c)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

static void post_result(struct sim_gpu *g, uint64_t token, uint32_t res)
{
	if (!token)
		return;
	__atomic_store_n(&g->res[token % SIM_RES_SLOTS].result, res, __ATOMIC_RELAXED);
	__atomic_store_n(&g->res[token % SIM_RES_SLOTS].token, token, __ATOMIC_RELEASE);
}

/* Runs with pt_lock and map_lock (read) held by process(): filtering and
 * handling are atomic with respect to the hook's set, as under the
 * kernel's SVM lock. */
static void handle_fault(void *arg, const uint32_t *dw, uint64_t ts)
{
	struct sim_gpu *g = arg;
	struct hipsvm_iv iv;
	uint64_t token;
	int res;

	hipsvm_iv_decode(dw, &iv);
	token = (uint64_t)iv.src_data[2] | (uint64_t)iv.src_data[3] << 32;
	if (!hipsvm_iv_fault_retry(&iv)) {
		/* No-retry fault (XNACK off): the GPU cannot wait for a fix. */
		bump(&g->real);
		post_result(g, token, SIM_RES_REAL);
		return;
	}
	if (hipsvm_cp_filter(&g->cp, ts) == -EAGAIN) {
		bump(&g->dropped);
		post_result(g, token, SIM_RES_DROPPED);
		return;
	}
	bump(&g->handled);
	if (g->last_set_ts && hipsvm_ts_after_or_equal(ts, g->last_set_ts))
		bump(&g->stale);
	res = resolve_held(g, (uintptr_t)hipsvm_iv_fault_addr(&iv),
			   iv.src_data[1] & HIPSVM_IV_SRC_DATA1_WRITE ? FAULT_WRITE : FAULT_READ);
	if (res == SIM_RES_REAL)
		bump(&g->real);
	else if (res == SIM_RES_MAPPED)
		bump(&g->mapped);
	post_result(g, token, (uint32_t)res);
}

/* ih0 with the retry CAM (or on an APU): retry faults are delegated to the
 * soft ring, whose handler may sleep; a full soft ring loses the IV and the
 * GPU retries. */
static void ih0_delegate(void *arg, const uint32_t *dw, uint64_t ts)
{
	struct sim_gpu *g = arg;

	if (!(dw[5] & HIPSVM_IV_SRC_DATA1_RETRY)) {
		handle_fault(arg, dw, ts);
		return;
	}
	pthread_mutex_lock(&g->prod_lock[SIM_SOFT]);
	if (hipsvm_ring_write(g->irq.ih_soft, dw))
		__atomic_fetch_add(&g->overflows, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g->prod_lock[SIM_SOFT]);
}

static void locks_take(struct sim_gpu *g)
{
	sim_lock(&g->pt_lock);
	pthread_rwlock_rdlock(&sim.map_lock);
}

static void locks_drop(struct sim_gpu *g)
{
	pthread_rwlock_unlock(&sim.map_lock);
	sim_unlock(&g->pt_lock);
}

/* After each pass of at most 32 IVs: let a set, a free or an accessor in
 * (the locks are held per pass, not per IV, which halves the cost of a
 * fault), then wake drainers and waiting accessors. */
static void wake_fn(void *arg)
{
	struct sim_wake *w = arg;

	locks_drop(w->gpu);
	hipsvm_ring_wake_user(w->ring);
	__atomic_fetch_add(&w->gpu->done_seq, 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&w->gpu->done_waiters, __ATOMIC_RELAXED))
		sim_futex_wake(&w->gpu->done_seq);
	locks_take(w->gpu);
}

/* A disabled ring is not processed (its interrupt is off): its IVs wait
 * until it is enabled again. Tests use that to hold faults in a ring. */
static unsigned process(struct hipsvm_ring *r, hipsvm_iv_fn fn, struct sim_gpu *g,
			struct sim_wake *w)
{
	unsigned n;

	if (!HIPSVM_LOAD(&r->enabled) || hipsvm_ring_empty(r))
		return 0;
	locks_take(g);
	n = hipsvm_ring_process(r, fn, g, wake_fn, w);
	locks_drop(g);
	return n;
}

static unsigned process_rings(struct sim_gpu *g)
{
	unsigned n = 0;

	if (sim.retry_cam || !g->irq.ih1) {
		n += process(g->irq.ih0, ih0_delegate, g, &g->wake[SIM_IH0]);
	} else {
		n += process(g->irq.ih0, handle_fault, g, &g->wake[SIM_IH0]);
		n += process(g->irq.ih1, handle_fault, g, &g->wake[SIM_IH1]);
	}
	n += process(g->irq.ih_soft, handle_fault, g, &g->wake[SIM_SOFT]);
	return n;
}

/* Nothing the handler could do: every enabled ring is empty. */
static bool ring_idle(const struct hipsvm_ring *r)
{
	return !r || !HIPSVM_LOAD(&r->enabled) || hipsvm_ring_empty(r);
}

static bool rings_empty(struct sim_gpu *g)
{
	return ring_idle(g->irq.ih0) && ring_idle(g->irq.ih1) && ring_idle(g->irq.ih_soft);
}

void sim_gpu_kick(struct sim_gpu *g)
{
	ring_doorbell(g);
}

static void *handler_main(void *arg)
{
	struct sim_gpu *g = arg;

	for (;;) {
		uint32_t seq = __atomic_load_n(&g->doorbell, __ATOMIC_ACQUIRE);

		if (process_rings(g))
			continue;
		if (__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE))
			break;
		__atomic_store_n(&g->sleeping, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (rings_empty(g))
			sim_futex_wait(&g->doorbell, seq, 200000000u);
		__atomic_store_n(&g->sleeping, 0, __ATOMIC_RELAXED);
	}
	return NULL;
}


/* sim_alloc_forget_pages: a dying allocation leaves dev's page table. */
static void forget_pages(struct sim_alloc *a, int dev)
{
	struct sim_gpu *g = sim_gpu(dev);
	uint64_t *bits;

	sim_lock(&g->pt_lock);
	bits = a->bits[dev];
	a->bits[dev] = NULL;
	if (bits) {
		size_t w, nw = (alloc_pages(a) + 63) / 64;

		for (w = 0; w < nw; w++)
			g->pages -= (uint64_t)__builtin_popcountll(bits[w]);
	}
	sim_unlock(&g->pt_lock);
	free(bits);
}

static int gpus_init(void)
{
	unsigned i, r;

	sim_pt_changed();	/* new GPUs (a fork child's too): no cached page holds */
	for (i = 0; i < sim.ngpu; i++) {
		struct sim_gpu *g = calloc(1, sizeof(*g));

		if (!g)
			return -ENOMEM;
		g->index = (int)i;
		for (r = 0; r < 3; r++) {
			g->ringbuf[r] = aligned_alloc(64, sim.ring_size);
			if (!g->ringbuf[r])
				return -ENOMEM;
			memset(g->ringbuf[r], 0, sim.ring_size);
			pthread_mutex_init(&g->prod_lock[r], NULL);
		}
		for (r = 0; r < 3; r++) {
			if (hipsvm_ring_init(&g->rings[r], g->ringbuf[r], sim.ring_size, r == SIM_SOFT))
				return -EINVAL;
			hipsvm_ring_set_clock_start(&g->rings[r], sim.ts_start);
		}
		g->irq.ih0 = &g->rings[SIM_IH0];
		g->irq.ih1 = sim.apu ? NULL : &g->rings[SIM_IH1];
		g->irq.ih_soft = &g->rings[SIM_SOFT];
		g->irq.retry_cam = sim.retry_cam;
		for (r = 0; r < 3; r++) {
			g->wake[r].ring = ring_of(g, (enum sim_ring)r);
			g->wake[r].gpu = g;
		}
		g->pt_lock.v = 0;
		/* 64 GiB by default, an MI210's: only address space, reserved
		 * per allocation and never committed until touched */
		sim.gpu[i] = g;
	}
	sim.mem_capacity = (size_t)sim.opt.num[HIPSVM_SIM_O_MEM];
	sim_alloc_forget_pages = forget_pages;
	return 0;
}

/* atfork child: the parent's GPUs, whose handler threads do not exist
 * here and which the fresh initialisation no longer points to. Nothing is
 * locked: no thread of this process can hold or want their locks. */
static void gpus_abandon(void)
{
	unsigned i, r;

	for (i = 0; i < sim.ngpu && i < HIPSVM_MAX_GPUS; i++) {
		struct sim_gpu *g = sim.gpu[i];

		if (!g)
			continue;
		for (r = 0; r < 3; r++)
			free(g->ringbuf[r]);
		free(g);
		sim.gpu[i] = NULL;
	}
}

static void gpus_start(void)
{
	unsigned i;

	if (gpus_init() != 0) {
		sim_warn("cannot allocate the simulated GPUs' rings; running with none");
		sim.ngpu = 0;
	}

	for (i = 0; i < sim.ngpu; i++) {
		struct sim_gpu *g = sim.gpu[i];
		char name[16];

		snprintf(name, sizeof(name), "hipsvm-ih%u", i);
		if (sim_thread_start(&g->handler, handler_main, g, name) == 0)
			g->handler_started = true;
		else
			sim_warn("cannot start the fault handler of GPU %u", i);
	}
}
SIM_STEP(gpus, .start = gpus_start, .rank = SIM_START_GPU, .abandon = gpus_abandon);

/* Caller holds pt_lock. Clears the lazily mapped pages of [start, end). */
/* Caller holds pt_lock and map_lock (read); a overlaps [start, end). */
static void unmap_alloc_locked(struct sim_gpu *g, struct sim_alloc *a, uintptr_t start,
			       uintptr_t end)
{
	uint64_t *bits = a->bits[g->index];
	uintptr_t lo, hi;
	size_t p, n;

	if (!bits)
		return;
	lo = start > a->base ? start : a->base;
	hi = end < a->base + a->size ? end : a->base + a->size;
	/* by words of the bitmap: a 4 GiB range is 16K words, not 1M pages */
	p = page_index(a, lo & ~(uintptr_t)(SIM_PAGE - 1));
	for (n = page_index(a, (hi + SIM_PAGE - 1) & ~(uintptr_t)(SIM_PAGE - 1)); p < n;) {
		size_t b = p % 64, k = n - p < 64 - b ? n - p : 64 - b;
		uint64_t m = k == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << k) - 1) << b;

		g->pages -= (unsigned)__builtin_popcountll(bits[p / 64] & m);
		bits[p / 64] &= ~m;
		p += k;
	}
}

static void unmap_locked(struct sim_gpu *g, uintptr_t start, uintptr_t end)
{
	struct sim_alloc *a;

	pthread_rwlock_rdlock(&sim.map_lock);
	a = sim_map_find(start);
	if (!a)
		a = sim_map_ceil(start);
	for (; a && a->base < end; a = sim_map_next(a))
		if (a->base + a->size > start)
			unmap_alloc_locked(g, a, start, end);
	pthread_rwlock_unlock(&sim.map_lock);
}

void sim_gpu_unmap_range(struct sim_gpu *g, uintptr_t start, uintptr_t end, uint64_t since)
{
	sim_lock(&g->pt_lock);
	/* A fault that maps a page holds this lock across its look at the
	 * CPU mapping and the count, so the count read here covers every
	 * fault that saw the range still mapped by the CPU. */
	if (__atomic_load_n(&map_events, __ATOMIC_RELAXED) != since) {
		unmap_locked(g, start, end);
		sim_pt_changed();
	}
	sim_unlock(&g->pt_lock);
}

int sim_gpu_set(struct sim_gpu *g, bool range, uintptr_t start, uintptr_t end, uint64_t *ts)
{
	uint64_t cp = 0;
	int r;

	sim_lock(&g->pt_lock);
	r = hipsvm_cp_set(&g->cp, &g->irq, &cp);
	if (r == 1)
		g->last_set_ts = cp;
	if (range)
		unmap_locked(g, start, end);
	sim_pt_changed();
	sim_unlock(&g->pt_lock);
	__atomic_fetch_add(&g->sets, 1, __ATOMIC_RELAXED);
	if (r == 1 && ts)
		*ts = cp;
	return r;
}

uint64_t sim_gpus_set(uint64_t gpus, bool range, uintptr_t start, uintptr_t end, uint64_t *ts)
{
	uint64_t got = 0, left;
	struct sim_alloc *a;

	/* Every GPU's pt_lock, in index order (nothing else holds two), then
	 * the map once: the range is looked up once for all GPUs, and each
	 * GPU's checkpoint and unmap stay atomic with its fault handler. */
	for (left = gpus; left; left &= left - 1)
		sim_lock(&sim.gpu[__builtin_ctzll(left)]->pt_lock);
	for (left = gpus; left; left &= left - 1) {
		unsigned i = (unsigned)__builtin_ctzll(left);
		struct sim_gpu *g = sim.gpu[i];
		uint64_t cp = 0;

		if (hipsvm_cp_set(&g->cp, &g->irq, &cp) == 1) {
			g->last_set_ts = cp;
			ts[i] = cp;
			got |= UINT64_C(1) << i;
		}
	}
	if (range) {
		pthread_rwlock_rdlock(&sim.map_lock);
		a = sim_map_find(start);
		if (!a)
			a = sim_map_ceil(start);
		for (; a && a->base < end; a = sim_map_next(a)) {
			if (a->base + a->size <= start)
				continue;
			for (left = gpus; left; left &= left - 1)
				unmap_alloc_locked(sim.gpu[__builtin_ctzll(left)], a, start, end);
		}
		pthread_rwlock_unlock(&sim.map_lock);
	}
	sim_pt_changed();
	for (left = gpus; left; left &= left - 1) {
		struct sim_gpu *g = sim.gpu[__builtin_ctzll(left)];

		sim_unlock(&g->pt_lock);
		__atomic_fetch_add(&g->sets, 1, __ATOMIC_RELAXED);
	}
	return got;
}

void sim_gpu_map_range(struct sim_gpu *g, uintptr_t start, uintptr_t end)
{
	uintptr_t p;

	sim_lock(&g->pt_lock);
	for (p = start & ~(uintptr_t)(SIM_PAGE - 1); p < end; p += SIM_PAGE)
		resolve_locked(g, p);
	sim_unlock(&g->pt_lock);
}

/* Polls rather than registering as a waiter: a registered waiter would
 * make the handler wake it after every pass of 32 IVs. */
void sim_gpu_quiesce(struct sim_gpu *g)
{
	while (!rings_empty(g))
		usleep(20);
}

void sim_gpu_stats(struct sim_gpu *g, struct hipsvm_sim_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->faults_raised = __atomic_load_n(&g->raised, __ATOMIC_RELAXED);
	out->faults_handled = __atomic_load_n(&g->handled, __ATOMIC_RELAXED);
	out->faults_mapped = __atomic_load_n(&g->mapped, __ATOMIC_RELAXED);
	out->faults_dropped = __atomic_load_n(&g->dropped, __ATOMIC_RELAXED);
	out->faults_real = __atomic_load_n(&g->real, __ATOMIC_RELAXED);
	out->faults_stale_handled = __atomic_load_n(&g->stale, __ATOMIC_RELAXED);
	out->ring_overflows = __atomic_load_n(&g->overflows, __ATOMIC_RELAXED);
	out->drains = __atomic_load_n(&g->cp.stats.drains, __ATOMIC_RELAXED);
	out->drain_timeouts = __atomic_load_n(&g->cp.stats.drain_timeouts, __ATOMIC_RELAXED);
	out->sets = __atomic_load_n(&g->sets, __ATOMIC_RELAXED);
	out->clears = __atomic_load_n(&g->clears, __ATOMIC_RELAXED);
	sim_lock(&g->pt_lock);
	out->pages_mapped = g->pages;
	out->last_set_ts = g->last_set_ts;
	sim_unlock(&g->pt_lock);
	out->clock = sim_gpu_now(g);
	out->checkpoint_ts = hipsvm_cp_get(&g->cp);
	pthread_mutex_lock(&sim.mem_lock);
	out->mem_used = sim.mem_used[g->index];
	pthread_mutex_unlock(&sim.mem_lock);
}

/* ---- one access: the GPU side of a load or store to one page ---- */

#define SIM_WAIT_SLICE_NS 10000000u	/* re-check of a waiting access */
#define SIM_RETRY_NS 50000000u		/* a fault not served by then is raised again */

static uint32_t wait_result(struct sim_gpu *g, uint64_t token, uint64_t timeout_ns)
{
	uint64_t deadline = sim_now_ns() + timeout_ns;
	uint32_t res = SIM_RES_NONE;

	for (;;) {
		uint32_t seq = __atomic_load_n(&g->done_seq, __ATOMIC_ACQUIRE);
		uint64_t now;
		bool found;

		__atomic_fetch_add(&g->done_waiters, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		found = __atomic_load_n(&g->res[token % SIM_RES_SLOTS].token, __ATOMIC_ACQUIRE) == token;
		if (found)
			res = __atomic_load_n(&g->res[token % SIM_RES_SLOTS].result, __ATOMIC_RELAXED);
		now = sim_now_ns();
		if (!found && now < deadline)
			sim_futex_wait(&g->done_seq, seq,
				       deadline - now < SIM_WAIT_SLICE_NS ? deadline - now : SIM_WAIT_SLICE_NS);
		__atomic_fetch_sub(&g->done_waiters, 1, __ATOMIC_RELAXED);
		if (found || now >= deadline)
			return res;
	}
}

int sim_gpu_access_page(struct sim_gpu *g, uintptr_t addr, bool write, const uint32_t *stop)
{
	for (;;) {
		uint64_t token;
		uint32_t res;

		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			return SIM_RES_NONE;
		if (sim_gpu_page_mapped(g, addr))
			return SIM_RES_PRESENT;
		token = __atomic_add_fetch(&g->next_token, 1, __ATOMIC_RELAXED);
		if (sim_gpu_raise(g, addr, write, sim.xnack, false, 0, token, NULL)) {
			usleep(50);	/* ring full: the GPU retries */
			continue;
		}
		res = wait_result(g, token, SIM_RETRY_NS);
		if (res == SIM_RES_MAPPED || res == SIM_RES_PRESENT || res == SIM_RES_REAL)
			return (int)res;
		/* dropped by the checkpoint, lost by a full soft ring, or slow:
		 * a retry fault is raised again with a new timestamp */
	}
}
