/* SPDX-License-Identifier: MIT */
/*
 * run.c - a launch on a simulated GPU (exec.h): where it goes, and
 * interpreted launches.
 *
 * It goes to the interpreter when HIPSVM_SIM_EXEC is not "touch" and the
 * interpreter can run the kernel, otherwise to the buffer-touch model
 * (touch.c); sim_exec_launch is the one place that decides.
 *
 * A kernel is prepared (decoded whole, checked against what the semantics
 * implement) at its first launch and kept in a cache keyed by its code's
 * generation (below): the cache owns a copy of the descriptor and code, so
 * a dispatch still queued when its module is unloaded runs on; the entries
 * of unloaded code are freed once no dispatch holds them. A launch then builds the kernarg segment (the explicit
 * arguments at their metadata offsets, hidden arguments zero: no global
 * offsets, no hostcall buffer, no multigrid) and the dispatch packet, and
 * queues a stream operation that runs every workgroup.
 */
#include "exec/run.h"
#include "exec/loader.h"
#include "gpu/gpu.h"
#include "runtime/state.h"
#include "runtime/stream.h"
#include "runtime/thread.h"
#include "exec/hostcall.h"
#include "runtime/step.h"
#include "hipsvm_sim.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* One copy of a generation's code, shared by its kernels (the whole text
 * section of a code object is copied once, not once per kernel). */
struct ktext {
	struct ktext *next;
	uint64_t gen, vaddr;
	size_t size;
	uint8_t *code;
	unsigned users;			/* kcache entries */
};

/*
 * A prepared kernel, found by its code's generation (info->gen: one number
 * per copy or placement of code, so a module unloaded and another loaded at
 * its address never match) with its placement and entry, in a hash: O(1) a
 * launch whatever the size of the code. Code without a generation (0) is
 * compared byte by byte, as every launch once was.
 */
struct kcache {
	struct kcache *next;
	uint64_t gen;
	unsigned refs;			/* queued dispatches running its program */
	bool dead;			/* its code was unloaded: freed at refs 0 */
	struct ktext *text;		/* its code's shared copy; NULL: its own */
	uint8_t kd[64];
	uint8_t *code;
	size_t code_size, entry;
	uint64_t code_vaddr;
	struct isa_kernel k;
	bool ok;
	char why[128];
};

#define KCACHE_BUCKETS 256

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kcache *cache[KCACHE_BUCKETS];
static struct ktext *texts;

/* interpreter counters, for hipsvmSimIsaStats */
static uint64_t st_dispatches, st_fallbacks, st_insns, st_waves, st_ns, st_pages, st_mem, st_vm;
static uint64_t st_spins, st_pauses;

static void isa_reset(void)
{
	uint64_t bits = sim.opt.num[HIPSVM_SIM_O_SIMD];

	/* the cache itself stays valid in a fork child; only the lock is renewed */
	pthread_mutex_init(&cache_lock, NULL);
	/* before any wave runs: the options are read, no stream has started */
	isa_simd_limit(bits >= 512 ? ISA_SIMD_AVX512 : bits >= 256 ? ISA_SIMD_AVX2 : ISA_SIMD_NONE);
}
SIM_STEP(isa, .reset = isa_reset);

static unsigned kcache_bucket(uint64_t gen, uint64_t vaddr, size_t entry)
{
	uint64_t h = (gen ^ (vaddr + entry)) * UINT64_C(0x9e3779b97f4a7c15);

	return (unsigned)(h >> 56) % KCACHE_BUCKETS;
}

/* c's copy of its code (cache_lock held): its generation's shared one, or
 * a new one; false when out of memory. */
static bool code_copy(struct kcache *c, const uint8_t *code)
{
	struct ktext *t;
	uint8_t *p;

	for (t = texts; c->gen && t; t = t->next)
		if (t->gen == c->gen && t->vaddr == c->code_vaddr && t->size == c->code_size) {
			t->users++;
			c->text = t;
			c->code = t->code;
			return true;
		}
	p = malloc(c->code_size ? c->code_size : 1);
	if (!p)
		return false;
	memcpy(p, code, c->code_size);
	c->code = p;
	if (c->gen && (t = malloc(sizeof(*t))) != NULL) {
		*t = (struct ktext){ texts, c->gen, c->code_vaddr, c->code_size, p, 1 };
		texts = t;
		c->text = t;
	}
	return true;
}

/* Frees c, no longer in the cache nor run (cache_lock held). */
static void kcache_free(struct kcache *c)
{
	struct ktext **tp, *t = c->text;

	isa_kernel_release(&c->k);
	if (!t) {
		free(c->code);
	} else if (--t->users == 0) {
		for (tp = &texts; *tp && *tp != t; tp = &(*tp)->next)
			;
		if (*tp)
			*tp = t->next;
		free(t->code);
		free(t);
	}
	free(c);
}

static void kcache_put(struct kcache *c)
{
	pthread_mutex_lock(&cache_lock);
	if (--c->refs == 0 && c->dead)
		kcache_free(c);
	pthread_mutex_unlock(&cache_lock);
}

/*
 * Code of generation gen is gone (its module unloaded, or a fork child's
 * parent's image): its entries could never be found again, so they go,
 * each when the last dispatch running it ends.
 */
void sim_isa_forget(uint64_t gen)
{
	if (!gen)
		return;
	pthread_mutex_lock(&cache_lock);
	for (unsigned b = 0; b < KCACHE_BUCKETS; b++) {
		struct kcache **pp = &cache[b], *c;

		while ((c = *pp) != NULL) {
			if (c->gen != gen) {
				pp = &c->next;
				continue;
			}
			*pp = c->next;
			c->dead = true;
			if (!c->refs)
				kcache_free(c);
		}
	}
	pthread_mutex_unlock(&cache_lock);
}

/*
 * The code a kernel runs in: the whole executable section of its code
 * object when known (the functions it calls are there), entered at the
 * kernel's entry; otherwise its own function.
 */
static struct kcache *prepare(const struct hipsvm_kernel_info *info)
{
	const uint8_t *code = info->code;
	size_t size = info->code_size, entry = 0;
	uint64_t vaddr = info->code_vaddr, gen = info->gen;
	struct kcache *c, **pp, **head;

	if (info->text && info->code >= info->text && info->code < info->text + info->text_size &&
	    info->code_vaddr - info->text_vaddr == (uint64_t)(info->code - info->text)) {
		code = info->text;
		size = info->text_size;
		vaddr = info->text_vaddr;
		entry = (size_t)(info->code - info->text);
	}
	head = &cache[kcache_bucket(gen, vaddr, entry)];
	pthread_mutex_lock(&cache_lock);
	/* the entry found moves to the front of its bucket */
	for (pp = head; (c = *pp) != NULL; pp = &c->next)
		if (c->gen == gen && c->code_size == size && c->code_vaddr == vaddr &&
		    c->entry == entry && !memcmp(c->kd, info->kd, 64) &&
		    (gen || !memcmp(c->code, code, size))) {
			*pp = c->next;
			c->next = *head;
			*head = c;
			break;
		}
	if (!c && (c = calloc(1, sizeof(*c))) != NULL) {
		c->gen = gen;
		c->code_size = size;
		c->code_vaddr = vaddr;
		c->entry = entry;
		if (!code_copy(c, code)) {
			free(c);
			c = NULL;
		} else {
			memcpy(c->kd, info->kd, 64);
			c->ok = isa_kernel_prepare_at(&c->k, c->kd, c->code, c->code_size, c->code_vaddr,
						      entry, c->why, sizeof(c->why)) == 0;
			c->next = *head;
			*head = c;
		}
	}
	/* the caller's reference, for the dispatch it queues */
	if (c && c->ok)
		c->refs++;
	pthread_mutex_unlock(&cache_lock);
	return c;
}

struct isa_op {
	struct sim_op op;
	struct sim_stream *s;
	int dev;
	struct isa_dispatch d;
	struct isa_kernel k;		/* a copy: the cache entry's program */
	struct kcache *c;		/* that entry, held until the dispatch ends */
	uint8_t *kernarg;
	size_t kernarg_len;
	/* 16-byte aligned, as calloc gives: the kernel reads them with
	 * dword loads only */
	uint8_t packet[64] __attribute__((aligned(16)));
	uint8_t queue[256] __attribute__((aligned(16)));
	char name[256];
	unsigned pclass;		/* 0 high, 1 normal, 2 low (the stream's priority) */
	bool held;			/* it holds a pending count (prio_pending) */
	uint32_t passed;		/* that count passed on or given back (prio_drained) */
};

/*
 * Queue priority. ROCm 5.2.3 gives a stream of priority high or low an HSA
 * queue of that priority, and the hardware places the workgroups of a
 * higher-priority queue's dispatches first. Here: per device and class, the
 * interpreted launches that still have workgroups to place; a dispatch
 * defers while a higher class's count is not zero (dispatch.c,
 * defer_wait). A launch whose stream has another interpreted launch queued
 * next passes its count on to it rather than giving it back, as a queue
 * with packets left stays ahead: otherwise, between two kernels of a
 * high-priority stream, a lower one's workers would take the device until
 * the stream's thread was scheduled again (several milliseconds on a busy
 * machine).
 */
static unsigned prio_pending[HIPSVM_MAX_GPUS][3];
/* A launch of that class has been queued (in this process): until one of a
 * high or low class is, no launch counts or defers, so that a program that
 * never asks for a priority pays nothing for them. A normal launch that
 * began before the first low one was queued is not waited for by it. */
static bool prio_seen[3];

static void isa_run(struct sim_op *op);

static bool prio_defer(void *arg)
{
	const struct isa_op *o = arg;

	for (unsigned c = 0; c < o->pclass; c++)
		if (__atomic_load_n(&prio_pending[o->dev][c], __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* o's last workgroup is taken, or o ends: its count passes to the stream's
 * next op if that is an interpreted launch (the same device and class),
 * else is given back; once. Called on a thread the stream's worker waits
 * for (isa_dispatch_run joins it) or on that worker itself, so the head op
 * stays where it is. */
static void prio_drained(void *arg)
{
	struct isa_op *o = arg;
	struct sim_op *nx;

	if (!o->held || __atomic_exchange_n(&o->passed, 1, __ATOMIC_ACQ_REL))
		return;
	nx = sim_stream_peek(o->s);
	if (nx && nx->fn == isa_run) {
		((struct isa_op *)nx)->held = true;
		return;
	}
	__atomic_fetch_sub(&prio_pending[o->dev][o->pclass], 1, __ATOMIC_RELEASE);
}

/* The CPU count is read once (sysconf reads /sys: three system calls a
 * launch otherwise); 0: not read yet. */
static unsigned ncpus;

static unsigned threads(void)
{
	uint64_t n = sim.opt.num[HIPSVM_SIM_O_EXEC_THREADS];
	unsigned c = __atomic_load_n(&ncpus, __ATOMIC_RELAXED);

	if (n)
		return (unsigned)n;
	if (!c) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		c = cpus < 1 ? 1 : cpus > 4 ? 4 : (unsigned)cpus;
		__atomic_store_n(&ncpus, c, __ATOMIC_RELAXED);
	}
	return c;
}

static void isa_run(struct sim_op *op)
{
	struct isa_op *o = (struct isa_op *)op;
	struct sim_isa_mem mem;
	struct sim_gpu *g = sim_gpu(o->dev);
	uint64_t t0 = sim_now_ns();
	sigset_t saved;
	int err;

	if (!g) {
		prio_drained(o);	/* a count passed to it */
		sim_stream_set_error(o->s, hipErrorInvalidDevice);
		free(o->kernarg);
		kcache_put(o->c);
		return;
	}
	sim_isa_mem_init(&mem, g, &o->d.stop);
	sim_isa_mem_internal(&mem, o->kernarg, o->kernarg_len);
	sim_isa_mem_internal(&mem, o->packet, sizeof(o->packet));
	sim_isa_mem_internal(&mem, o->queue, sizeof(o->queue));
	o->d.mem = &mem.ops;
	o->d.spawn = sim_isa_pool_spawn;
	o->d.join = sim_isa_pool_join;
	o->d.threads = threads();
	/* high launches count if a lower class has been seen, normal ones
	 * if a low one has; normal ones defer if a high one has, low ones
	 * always (to a normal or a high one) */
	bool counts = o->pclass == 0 ? __atomic_load_n(&prio_seen[1], __ATOMIC_RELAXED) ||
					   __atomic_load_n(&prio_seen[2], __ATOMIC_RELAXED)
				     : o->pclass == 1 && __atomic_load_n(&prio_seen[2], __ATOMIC_RELAXED);
	bool defers = o->pclass == 2 ||
		      (o->pclass == 1 && __atomic_load_n(&prio_seen[0], __ATOMIC_RELAXED));

	if (!o->held && counts && o->dev >= 0 && o->dev < HIPSVM_MAX_GPUS) {
		o->held = true;
		__atomic_fetch_add(&prio_pending[o->dev][o->pclass], 1, __ATOMIC_RELEASE);
	}
	o->d.defer = defers ? prio_defer : NULL;
	o->d.drained = o->held ? prio_drained : NULL;
	o->d.prio_arg = o;
	sim_isa_guard_unblock(&saved);
	err = isa_dispatch_run(&o->d);
	sim_isa_guard_restore(&saved);
	prio_drained(o);	/* stopped before its last group, or no group */
	__atomic_fetch_add(&st_insns, o->d.insns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st_waves, o->d.waves, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st_pages, mem.pages, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st_mem, mem.insns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st_vm, mem.vm_calls, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st_spins, o->d.spins, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st_pauses, o->d.pauses, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st_ns, sim_now_ns() - t0, __ATOMIC_RELAXED);
	if (err == -ISA_E_FAULT) {
		sim_warn("memory access fault by GPU %d in kernel %s (a real fault)", o->dev, o->name);
		sim_stream_set_error(o->s, hipErrorIllegalAddress);
	} else if (err == -ISA_E_SCRATCH) {
		sim_warn("kernel %s not run on GPU %d: %s (private_segment_fixed_size %u bytes per "
			 "work-item; a wave has at most %llu KiB)", o->name, o->dev, isa_strerror(err),
			 o->k.scratch, (unsigned long long)(ISA_SCRATCH_WAVE_MAX / 1024));
		sim_stream_set_error(o->s, hipErrorOutOfMemory);
	} else if (err) {
		sim_warn("kernel %s stopped on GPU %d: %s", o->name, o->dev, isa_strerror(err));
		sim_stream_set_error(o->s, hipErrorLaunchFailure);
	}
	free(o->kernarg);
	kcache_put(o->c);
}

static bool say_fallback(const struct hipsvm_kernel_info *info, const char *name, const char *why)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static const struct hipsvm_kernel_info *said[64];
	static unsigned nsaid;
	bool first = true;

	__atomic_fetch_add(&st_fallbacks, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < nsaid; i++)
		if (said[i] == info)
			first = false;
	if (first && nsaid < 64)
		said[nsaid++] = info;
	pthread_mutex_unlock(&lock);
	if (first && !sim.quiet)
		sim_warn("kernel %s is not interpreted (%s): its launches touch its buffers instead",
			 name, why);
	return false;
}

bool sim_isa_enqueue(const struct sim_launch *l, struct sim_stream *s)
{
	const struct hipsvm_kernel_info *info = l->info;
	const struct sim_launch_dims *dims = &l->dims;
	const char *name = l->name;
	void **args = l->args;
	const void *kernarg = l->kernarg;
	size_t kernarg_size = l->kernarg_size;
	struct kcache *c;
	struct isa_op *o;
	size_t len;

	if (!info->has_code)
		return say_fallback(info, name, "no machine code found for it");
	if (!args && !kernarg && info->nargs)
		return say_fallback(info, name, "no arguments given");
	c = prepare(info);
	if (!c)
		return say_fallback(info, name, "out of memory");
	if (!c->ok)
		return say_fallback(info, name, c->why);
	/* the group limit was checked at the launch's entry point
	 * (sim_exec_check_block), in ROCm's order */
	o = calloc(1, sizeof(*o));
	if (!o) {
		kcache_put(c);
		return say_fallback(info, name, "out of memory");
	}
	len = info->kernarg_size > c->k.kernarg_size ? info->kernarg_size : c->k.kernarg_size;
	if (kernarg && kernarg_size > len)
		len = kernarg_size;
	o->kernarg_len = len + 64;
	o->kernarg = aligned_alloc(64, (o->kernarg_len + 63) & ~(size_t)63);
	if (!o->kernarg) {
		free(o);
		kcache_put(c);
		return say_fallback(info, name, "out of memory");
	}
	memset(o->kernarg, 0, o->kernarg_len);
	if (args) {
		for (unsigned i = 0; i < info->nargs; i++) {
			const struct hipsvm_karg *a = &info->args[i];

			if (args[i] && (size_t)a->offset + a->size <= len)
				memcpy(o->kernarg + a->offset, args[i], a->size);
		}
	} else if (kernarg) {
		memcpy(o->kernarg, kernarg, kernarg_size < len ? kernarg_size : len);
	}
	o->k = c->k;	/* the program stays while o holds c */
	o->c = c;
	o->d.k = &o->k;
	memcpy(o->d.grid, dims->grid, sizeof(o->d.grid));
	memcpy(o->d.block, dims->block, sizeof(o->d.block));
	o->d.dyn_lds = dims->shmem;
	/* printf and other hostcalls: the device's buffer in the hidden
	 * argument, and its doorbell's interrupt to the host side */
	if (info->hidden_mask & (1u << HIPSVM_HIDDEN_HOSTCALL)) {
		uint64_t hb = sim_hostcall_buffer(sim_stream_device(s));

		if (hb && (size_t)info->hidden_off[HIPSVM_HIDDEN_HOSTCALL] + 8 <= len)
			memcpy(o->kernarg + info->hidden_off[HIPSVM_HIDDEN_HOSTCALL], &hb, 8);
		o->d.interrupt = sim_hostcall_interrupt;
		o->d.interrupt_arg = (void *)(uintptr_t)hb;
	}
	o->d.kernarg = (uint64_t)(uintptr_t)o->kernarg;
	o->d.packet = (uint64_t)(uintptr_t)o->packet;
	o->d.queue = (uint64_t)(uintptr_t)o->queue;
	isa_dispatch_packet(o->packet, &o->d);
	o->op.fn = isa_run;
	o->s = s;
	o->dev = sim_stream_device(s);
	o->pclass = (unsigned)(sim_stream_priority(s) + 1);
	if (o->pclass > 2)
		o->pclass = 1;
	if (!__atomic_load_n(&prio_seen[o->pclass], __ATOMIC_RELAXED))
		__atomic_store_n(&prio_seen[o->pclass], true, __ATOMIC_RELAXED);
	{
		/* the name as snprintf would cut it, without its format parsing */
		size_t n = strnlen(name, sizeof(o->name) - 1);

		memcpy(o->name, name, n);
		o->name[n] = 0;
	}
	__atomic_fetch_add(&st_dispatches, 1, __ATOMIC_RELAXED);
	sim_stream_enqueue(s, &o->op);
	return true;
}

void sim_isa_stats(struct hipsvm_sim_isa_stats *out)
{
	out->dispatches = __atomic_load_n(&st_dispatches, __ATOMIC_RELAXED);
	out->fallbacks = __atomic_load_n(&st_fallbacks, __ATOMIC_RELAXED);
	out->wave_insns = __atomic_load_n(&st_insns, __ATOMIC_RELAXED);
	out->waves = __atomic_load_n(&st_waves, __ATOMIC_RELAXED);
	out->ns = __atomic_load_n(&st_ns, __ATOMIC_RELAXED);
	out->page_walks = __atomic_load_n(&st_pages, __ATOMIC_RELAXED);
	out->mem_insns = __atomic_load_n(&st_mem, __ATOMIC_RELAXED);
	out->vm_calls = __atomic_load_n(&st_vm, __ATOMIC_RELAXED);
	out->spins = __atomic_load_n(&st_spins, __ATOMIC_RELAXED);
	out->spin_pauses = __atomic_load_n(&st_pauses, __ATOMIC_RELAXED);
}

hipError_t sim_exec_check_block(const uint32_t block[3])
{
	if ((uint64_t)block[0] * block[1] * block[2] > SIM_BLOCK_MAX)
		return hipErrorInvalidConfiguration;
	return hipSuccess;
}

hipError_t sim_exec_check_bounds(const struct hipsvm_kernel_info *info, const uint32_t block[3])
{
	if (info && info->max_flat_wg &&
	    (uint64_t)block[0] * block[1] * block[2] > info->max_flat_wg)
		return hipErrorLaunchFailure;
	return hipSuccess;
}

hipError_t sim_exec_dims_blocks(dim3 grid, dim3 block, size_t shmem,
				struct sim_launch_dims *out)
{
	struct sim_launch_dims d = {
		.grid = { grid.x * block.x, grid.y * block.y, grid.z * block.z },
		.block = { block.x, block.y, block.z },
		.shmem = shmem > UINT32_MAX ? UINT32_MAX : (uint32_t)shmem,
	};

	if ((uint64_t)grid.x * block.x > UINT32_MAX || (uint64_t)grid.y * block.y > UINT32_MAX ||
	    (uint64_t)grid.z * block.z > UINT32_MAX)
		return hipErrorInvalidConfiguration;
	if (!block.x || !block.y || !block.z || !grid.x || !grid.y || !grid.z)
		return hipErrorInvalidValue;
	if (sim_exec_check_block(d.block) != hipSuccess)
		return hipErrorInvalidConfiguration;
	*out = d;
	return hipSuccess;
}

/* The kernel's group_segment_fixed_size (0 without machine code). */
static uint64_t launch_lds(const struct hipsvm_kernel_info *k)
{
	if (!k || !k->has_code)
		return 0;
	return (uint64_t)k->kd[0] | (uint64_t)k->kd[1] << 8 | (uint64_t)k->kd[2] << 16 |
	       (uint64_t)k->kd[3] << 24;
}

static bool touch_only(void)
{
	static uint32_t notice;

	if (strcmp(sim.opt.str[HIPSVM_SIM_O_EXEC], "touch"))
		return false;
	if (!sim.quiet && !__atomic_exchange_n(&notice, 1, __ATOMIC_RELAXED))
		sim_warn("HIPSVM_SIM_EXEC=touch: kernel code is not run; a launch only touches "
			 "the memory its buffer arguments point to");
	return true;
}

hipError_t sim_exec_launch(const struct sim_launch *l, hipStream_t stream)
{
	struct sim_stream *s = sim_stream_get(stream);
	struct sim_launch here;

	if (!s)
		return hipErrorInvalidHandle;
	if (sim_exec_check_bounds(l->info, l->dims.block) != hipSuccess)
		return hipErrorLaunchFailure;
	/* ROCclr sums the launch's dynamic shared memory and the kernel's
	 * group_segment_fixed_size and refuses more than the device's LDS when
	 * it captures the arguments; hipamd 5.2.3 returns that as
	 * hipErrorOutOfMemory, before anything is queued. */
	if (launch_lds(l->info) + l->dims.shmem > SIM_LDS_BYTES)
		return hipErrorOutOfMemory;
	/* the kernel's code in its code object's image on the stream's GPU */
	here = *l;
	here.info = sim_loader_kernel(l->info, sim_stream_device(s));
	if (!touch_only() && here.info && sim_isa_enqueue(&here, s))
		return hipSuccess;
	return sim_touch_enqueue(&here, s);
}
