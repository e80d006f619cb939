/* SPDX-License-Identifier: MIT */
/*
 * shim.h - the core of the interposer: attribution, routing and unmap
 * coordination, for the thin wrappers of preload/ to call.
 *
 * The core never looks up a function and never prints: the real HIP calls it
 * needs come in as function pointers (struct hipsvm_hip_ops, and the real
 * call of each wrapper in struct hipsvm_call), and what deserves a warning
 * is reported through s->notify (async-signal-safe, preload/ decides the
 * words and the cap). Nothing in the unmap path calls HIP, takes a lock that
 * a HIP call could hold, or allocates (the registry's punch aside, see
 * docs/limits.md).
 */
#ifndef HIPSVM_SHIM_H
#define HIPSVM_SHIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "shim/api.h"
#include "shim/shim_vmm.h"
#include "shim/hook.h"
#include "shim/policy.h"
#include "shim/registry.h"
#include "shim/route.h"
#include "shim/shim_devmap.h"
#include "shim/stats.h"

#include "shim/hip_values.h"	/* HIP values the core needs */

/* Registry kinds whose unmap is coordinated (bit per enum hipsvm_kind). */
#define HIPSVM_SVM_KIND_MASK ((1u << HIPSVM_KIND_MANAGED) | (1u << HIPSVM_KIND_HOST) | \
			      (1u << HIPSVM_KIND_REGISTERED) | (1u << HIPSVM_KIND_SIGNAL))

/* Real HIP queries the core may make from HIP wrappers (never from the
 * unmap path). Each returns a hipError_t.
 *
 * The core makes no real call of the program's: the wrapper does (see
 * struct hipsvm_call). These are the runtime queries the core's decisions
 * need, and each is asked only when its answer is used, so the program sees
 * no HIP call it would not make without the shim: get_device after the
 * real call only when the call succeeded and names no device (before it
 * the core asks the wrapper, HIPSVM_NEED_DEVICE); get_device_count and
 * sim_socket once per process (the answers are kept); mem_advise and
 * get_last_error only for the routes that advise (map-all, managed-local)
 * or to take back an absorbed error. */
struct hipsvm_hip_ops {
	int (*get_device)(int *dev);
	int (*get_device_count)(int *n);
	int (*mem_advise)(const void *p, size_t n, int advice, int dev);
	int (*get_last_error)(void);
	/* Where the simulated runtime's hook server listens ("" or NULL: not
	 * the simulator, or no server); NULL pointer on other runtimes. */
	const char *(*sim_socket)(void);
};

enum hipsvm_shim_event {
	HIPSVM_EV_NO_HOOK,		/* a tracked unmap went ahead uncoordinated: no hook */
	HIPSVM_EV_HOOK_ERROR,		/* a hook request failed (err) */
	HIPSVM_EV_DRAIN_TIMEOUT,	/* a drain timed out (err = GPU) */
	HIPSVM_EV_REENTRANT,		/* an unmap re-entered the unmap path */
	HIPSVM_EV_REGISTRY,		/* the registry refused an entry (err) */
	HIPSVM_EV_HOOK_REFUSED,		/* the hook named cannot be used (err; s->hook_path,
					 * s->hook_peer_uid/pid for a socket's server) */
	HIPSVM_EV_COUNT
};
typedef void (*hipsvm_notify_fn)(enum hipsvm_shim_event ev, int err);

enum hipsvm_hook_state {
	HIPSVM_HOOK_UNRESOLVED = 0,
	HIPSVM_HOOK_CONNECTED,
	HIPSVM_HOOK_NONE,
	HIPSVM_HOOK_ERROR,
	HIPSVM_HOOK_PUBLISHING,		/* one thread is writing hook_path */
};

struct hipsvm_shim {
	struct hipsvm_policy policy;
	char policy_text[256];
	struct hipsvm_registry *reg;
	/* hipsvm_reg_svm_bits(reg), kept beside reg so that the unmap hot path
	 * reaches the bitmap in two loads (unmap_wrap.c) */
	uint64_t *const *svm_bits;
	struct hipsvm_stats stats;
	struct hipsvm_quota quota;
	struct hipsvm_hip_ops ops;
	hipsvm_notify_fn notify;
	char hook_opt[HIPSVM_HOOK_PATH_MAX];	/* HIPSVM_HOOK */
	char hook_path[HIPSVM_HOOK_PATH_MAX];	/* resolved */
	int hook_server_pid;		/* 0, or the only process that may serve it */
	int hook_peer_pid;		/* who served it when it was refused */
	uint32_t hook_peer_uid;
	int hook_state;			/* enum hipsvm_hook_state; atomic */
	uint32_t hook_version;
	uint32_t drain_timeout_ms;
	int ndev;			/* device count; 0 until known; atomic */
	int trace_fd;			/* -1: no trace */
	/* set once by init: a policy that routes nothing and no trace, so
	 * that end's common case asks one flag (trace_fd only goes from set to
	 * unset after init, in a child whose trace could not be opened) */
	bool plain;
	int pid;
	uint32_t gen;			/* bumped in every fork child */
	uint64_t start_ns;
	const char *runtime;		/* "sim" | "rocm" | "unknown" */
	char program[PATH_MAX];	/* /proc/self/exe, whole */
	/* the process's place in a job, for the report (hipsvm_shim_init) */
	char host[65], rank[64], rocr_visible[128], hip_visible[128];
	/* Device allocations (shim_devmap.h), made on the first one. */
	struct hipsvm_devmap *devmap;	/* atomic; NULL until made */
	int devmap_state;		/* 0 none, 1 being made, 2 made, 3 failed */
	struct hipsvm_devmap devmap_store;
	struct hipsvm_vmm vmm;		/* pools and virtual-memory mappings */
};

/* Fills s (the registry is created here). 0 or -errno. */
int hipsvm_shim_init(struct hipsvm_shim *s, const struct hipsvm_policy *p, const char *hook_opt,
		     uint32_t drain_timeout_ms, int trace_fd, int pid);
/* In a fork child: fresh counters and registry, new pid, hook to resolve
 * again, every connection inherited from the parent closed. */
void hipsvm_shim_atfork_child(struct hipsvm_shim *s, int pid);

struct hipsvm_tls;

/* The device count, asked of the runtime once (HIP wrappers only). */
int hipsvm_shim_ndev_ask(struct hipsvm_shim *s);
static inline int hipsvm_shim_ndev(struct hipsvm_shim *s)
{
	int n = __atomic_load_n(&s->ndev, __ATOMIC_ACQUIRE);

	return __builtin_expect(n > 0, 1) ? n : hipsvm_shim_ndev_ask(s);
}
/* Resolves HIPSVM_HOOK once per process (HIP wrappers only): every
 * allocation comes by here, and once resolved that is one load. */
void hipsvm_shim_hook_resolve_now(struct hipsvm_shim *s);
static inline void hipsvm_shim_hook_resolve(struct hipsvm_shim *s)
{
	if (__builtin_expect(__atomic_load_n(&s->hook_state, __ATOMIC_ACQUIRE) ==
			     HIPSVM_HOOK_UNRESOLVED, 0))
		hipsvm_shim_hook_resolve_now(s);
}
/* This thread's connection to the hook, opened on first use; NULL when there
 * is no hook or it cannot be reached. */
struct hipsvm_hook *hipsvm_shim_conn(struct hipsvm_shim *s);
/* After a hook request: a transport error closed the connection; forget it. */
void hipsvm_shim_conn_check(struct hipsvm_tls *t, int fd_before);
/* The device-allocation table, made on first use (HIP wrappers only); NULL
 * when it could not be made or is being made by another thread. */
struct hipsvm_devmap *hipsvm_shim_devmap_make(struct hipsvm_shim *s);
static inline struct hipsvm_devmap *hipsvm_shim_devmap(struct hipsvm_shim *s)
{
	struct hipsvm_devmap *dm = __atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE);

	return __builtin_expect(dm != NULL, 1) ? dm : hipsvm_shim_devmap_make(s);
}
/* GPUs of a context: every known GPU for host_context. */
uint64_t hipsvm_shim_ctx_gpus(struct hipsvm_shim *s, int ctx);
/* bytes of the piece a leave the live counts of its context and device: a
 * free by api (counted as that API's call) or an unmap that took them (api
 * -1); the quota charge its route made
 * (device memory, managed memory kept local) goes back with them. The one
 * place for both, from the HIP wrappers and from the unmap path alike
 * (async-signal-safe). */
static inline void hipsvm_shim_release(struct hipsvm_shim *s, const struct hipsvm_alloc *a,
				       uint64_t bytes, int api)
{
	if (api >= 0)
		hipsvm_stats_free_call(&s->stats, a->ctx, a->device, bytes, (unsigned)api);
	else
		hipsvm_stats_release(&s->stats, a->ctx, a->device, bytes, false);
	if (s->policy.quota_mask && a->ctx >= 0 &&
	    (a->kind == HIPSVM_KIND_DEVICE || a->route == HIPSVM_ROUTE_MANAGED_LOCAL))
		hipsvm_quota_uncharge(&s->quota, a->ctx, bytes);
}

/* The seam between a HIP wrapper and the core, one shape for every call:
 * the wrapper asks (begin), makes the real call itself, then tells the core
 * what happened (end, with the result, the pointer and the final size).
 * The core never calls back into the wrapper.
 *
 *   begin's verdict   what the wrapper does
 *   HIPSVM_GO         the real call, then end
 *   HIPSVM_REFUSE     returns c->rc (a quota refused it; *ptr is NULL)
 *   HIPSVM_MANAGED    hipMallocManaged(ptr, size, hipMemAttachGlobal) in
 *                     place of the real call, then end with its answer
 *   HIPSVM_NEED_DEVICE  sets c->dev to the current device (-1 when the
 *                     runtime cannot say) and asks begin again
 *
 * end answers HIPSVM_DONE (return c->rc) or HIPSVM_MANAGED (an
 * out-of-memory to be retried as managed memory: as above, then end
 * again). errno is the wrapper's to keep: neither moves it on purpose. */
enum hipsvm_verdict {
	HIPSVM_GO,
	HIPSVM_REFUSE,
	HIPSVM_MANAGED,
	HIPSVM_NEED_DEVICE,
	HIPSVM_DONE,
};

/* One allocating call. The wrapper fills the first fields
 * (hipsvm_call_init, then what its call has); the rest is the core's from
 * begin to end. */
struct hipsvm_call {
	enum hipsvm_api api;
	void **ptr;		/* where the pointer comes back (NULL: the runtime
				 * will refuse the call) */
	size_t size;		/* bytes asked for */
	unsigned flags;
	int on_device;		/* 1 + the device the call allocates on (a pool's, a
				 * location's); 0: the current device */
	bool keyed;		/* the pointer is a handle (hipArray, a physical
				 * allocation), not memory: it keys the entry, it spans
				 * no range */
	int dev;		/* the current device, once asked; -1: not known */
	int rc;			/* what the wrapper returns after REFUSE and DONE */
	/* the core's */
	bool asked, decided, charged, managed;
	struct hipsvm_route rt;
};

static inline void hipsvm_call_init(struct hipsvm_call *c, enum hipsvm_api api, void **ptr,
				    size_t size)
{
	c->api = api;
	c->ptr = ptr;
	c->size = size;
	c->flags = 0;
	c->on_device = 0;
	c->keyed = false;
	c->dev = -1;
	c->rc = 0;
	c->asked = c->decided = c->charged = c->managed = false;
}

/* Routing before the real call: a verdict (above). */
enum hipsvm_verdict hipsvm_alloc_begin(struct hipsvm_shim *s, struct hipsvm_call *c);
/* After it: rc the real call's answer, p the pointer (or handle) it gave and
 * size the bytes it covers (the pitch the runtime chose, an imported
 * range's size; ignored unless rc is hipSuccess). Attribution on success,
 * nothing recorded on error; c->rc is rc, unchanged, or the managed
 * fallback's. */
enum hipsvm_verdict hipsvm_alloc_end_any(struct hipsvm_shim *s, struct hipsvm_call *c, int rc,
					 void *p, size_t size);

/* The device the call allocates on: the one it names, the one the wrapper
 * said was current, or (after a successful call) the current one; -1 when
 * none is known. */
static inline __attribute__((always_inline)) int hipsvm_call_device(struct hipsvm_shim *s,
	const struct hipsvm_call *c)
{
	int dev = -1;

	if (c->on_device > 0 && c->on_device <= HIPSVM_MAX_GPUS)
		return c->on_device - 1;
	if (c->asked)
		return c->dev >= 0 && c->dev < HIPSVM_MAX_GPUS ? c->dev : -1;
	if (!s->ops.get_device || s->ops.get_device(&dev) != HIPSVM_HIP_SUCCESS || dev < 0 ||
	    dev >= HIPSVM_MAX_GPUS)
		return -1;
	return dev;
}

/* end, inline for the commonest call (every hipMalloc comes by): device
 * memory that succeeded, in the primary context of the device it was made
 * on, under a policy that routes nothing, no trace, kept in the device
 * table; what the general end (shim_alloc.c) does for it, written out.
 * Anything else goes to the general end. */
static inline __attribute__((always_inline)) enum hipsvm_verdict hipsvm_alloc_end(
	struct hipsvm_shim *s, struct hipsvm_call *c, int rc, void *p, size_t size)
{
	struct hipsvm_devmap *dm = __atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE);
	struct hipsvm_alloc a;
	int dev;

	if (!(rc == HIPSVM_HIP_SUCCESS && s->plain && dm && p && size && !c->decided &&
	      !c->managed && !c->keyed && hipsvm_api_makes_device(c->api)))
		return hipsvm_alloc_end_any(s, c, rc, p, size);
	dev = hipsvm_call_device(s, c);
	if (__builtin_expect(dev < 0 || dev >= HIPSVM_POLICY_MAX_DEV, 0))
		return hipsvm_alloc_end_any(s, c, rc, p, size);
	hipsvm_shim_hook_resolve(s);
	/* every field written: no memset */
	a.start = a.origin = (uintptr_t)p;
	a.last = a.start + size - 1;
	a.origin_size = size;
	a.kind = HIPSVM_KIND_DEVICE;
	a.ctx = a.device = dev;
	a.flags = c->flags;
	a.route = HIPSVM_ROUTE_AS_HIP;
	a.api = c->api;
	if (__builtin_expect(hipsvm_devmap_insert(dm, &a) != 0, 0))
		return hipsvm_alloc_end_any(s, c, rc, p, size);
	c->rc = rc;	/* (c->rt is not read after DONE) */
	hipsvm_stats_alloc_dev(&s->stats, dev, size, c->api);
	return HIPSVM_DONE;
}

/* Per-thread state; preload/ reads the guard, the core the rest.
 * guard and in_hip are depths, changed only through the scopes below; busy
 * spans a hook request from set to end (shim_unmap.c) and freeing is saved
 * and put back around one real free (shim_alloc.c), each in one place. */
struct hipsvm_freeing {
	uintptr_t start, last;
	int ctx;
};
struct hipsvm_tls {
	int guard;			/* bootstrap / unmap path depth */
	int in_hip;			/* inside a HIP wrapper's real call */
	bool busy;			/* a hook request in flight on this thread */
	bool open;
	uint32_t gen;			/* s->gen when the connection was opened */
	const struct hipsvm_freeing *freeing;	/* inside hipFree of SVM memory */
	struct hipsvm_hook hook;
};
extern __thread struct hipsvm_tls hipsvm_tls __attribute__((tls_model("initial-exec")));

/* A scope of this thread: HIPSVM_GUARDED() (the shim's own code runs: an
 * unmap or a HIP call made from here passes straight through to the system
 * or the runtime) or HIPSVM_IN_HIP() (a wrapper's real call runs: a HIP
 * wrapper re-entered from the runtime passes through). The depth goes up
 * where the macro stands and down when the enclosing block is left, by
 * whatever way (return included: __attribute__((cleanup))); scopes nest.
 * hipsvm_scope_leave may end one early. Async-signal-safe: a handler that
 * enters and leaves a scope leaves the depth as it found it. */
struct hipsvm_scope {
	int *depth;
};

static inline struct hipsvm_scope hipsvm_scope_enter(int *depth)
{
	struct hipsvm_scope sc = { depth };

	++*depth;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return sc;
}

static inline void hipsvm_scope_leave(struct hipsvm_scope *sc)
{
	if (!sc->depth)
		return;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	--*sc->depth;
	sc->depth = NULL;
}

#define HIPSVM_SCOPE_CAT2(a, b) a##b
#define HIPSVM_SCOPE_CAT(a, b) HIPSVM_SCOPE_CAT2(a, b)
#define HIPSVM_SCOPE_ON(field)						\
	struct hipsvm_scope HIPSVM_SCOPE_CAT(hipsvm_scope_, __LINE__)	\
		__attribute__((cleanup(hipsvm_scope_leave), unused)) =	\
			hipsvm_scope_enter(&hipsvm_tls.field)
#define HIPSVM_GUARDED() HIPSVM_SCOPE_ON(guard)
#define HIPSVM_IN_HIP() HIPSVM_SCOPE_ON(in_hip)

/* Unmap coordination. A wrapper of munmap & co. calls begin when the range
 * may be tracked (hipsvm_reg_touches said so, or this thread is inside a
 * hipFree), performs the real call, then end with the range to remove from
 * the registry (len 0: none, e.g. madvise). */
enum hipsvm_unmap_op {
	HIPSVM_UNMAP_MUNMAP,
	HIPSVM_UNMAP_MREMAP,
	HIPSVM_UNMAP_MADVISE,
	HIPSVM_UNMAP_MMAP_FIXED,
	HIPSVM_UNMAP_SHMDT,
	HIPSVM_UNMAP_HIP,	/* hipMemUnmap, hipIpcCloseMemHandle: the runtime's */
};

#define HIPSVM_UNMAP_MAX_OVER 8

struct hipsvm_unmap {
	enum hipsvm_unmap_op op;
	uintptr_t addr;
	size_t len;
	bool active;		/* begin found tracked SVM memory */
	bool internal;		/* the runtime's own unmap inside hipFree */
	bool coordinated;	/* checkpoints set; drain and clear owed */
	bool partial;
	uint64_t gpus;
	uint64_t cp_mask;
	uint64_t ctx_host;	/* 1 if host_context owns a piece */
	uint64_t ctx_dev;	/* bit per primary context owning a piece */
	uint64_t cp[HIPSVM_MAX_GPUS];
	uint64_t punched_bytes;
	/* What begin found: the tracked pieces over the range (up to
	 * HIPSVM_UNMAP_MAX_OVER of them, n_over in all), so that end punches
	 * without asking the registry again when they are all known. */
	int n_over;
	struct hipsvm_alloc over[HIPSVM_UNMAP_MAX_OVER];
};

/* 1: tracked SVM memory, end() must follow; 0: nothing to do. Call it only
 * for a call whose arguments the kernel accepts (unmap_args.h): begin sends
 * "set", which takes the range from the GPUs. */
int hipsvm_unmap_begin(struct hipsvm_shim *s, struct hipsvm_unmap *u, enum hipsvm_unmap_op op,
		       uintptr_t addr, size_t len);
/* The same for an unmap that a HIP call makes of memory the registry does
 * not hold as ranges (a virtual-memory mapping, imported IPC memory): the
 * GPUs to checkpoint are given. 1 when gpus is not empty. */
int hipsvm_unmap_begin_gpus(struct hipsvm_shim *s, struct hipsvm_unmap *u, uintptr_t addr,
			    size_t len, uint64_t gpus);
/* ok: the real call succeeded (counted as tracked, then coordinated or not);
 * false: the kernel refused it (counted as refused). [punch_addr, +punch_len)
 * is what the call took from the address space (0: nothing, e.g. madvise). */
void hipsvm_unmap_end(struct hipsvm_shim *s, struct hipsvm_unmap *u, bool ok,
		      uintptr_t punch_addr, size_t punch_len);
/* A call over tracked memory that the kernel refuses on its arguments alone:
 * it goes to the real function without a set, and is counted as refused. */
void hipsvm_unmap_refused(struct hipsvm_shim *s);

/* One call of the unmap family as its wrapper describes it (munmap, mremap,
 * madvise that drops pages, mmap(MAP_FIXED), shmdt): the core decides what
 * it needs, the wrapper makes the call (preload/unmap_wrap.c).
 *
 *   hipsvm_unmap_call_begin: 0, make the real call and nothing more (it
 *     cannot take tracked memory, or the kernel refuses it on its
 *     arguments alone: counted, nothing asked of the GPUs); 1, tracked
 *     memory is in the range and its checkpoints are set: make the real
 *     call in an HIPSVM_GUARDED() scope, then hipsvm_unmap_call_end with
 *     its result, which drains, clears and takes from the registry what
 *     the call took. */
struct hipsvm_vm_limits;
struct hipsvm_unmap_call {
	enum hipsvm_unmap_op op;	/* MUNMAP, MREMAP, MADVISE, MMAP_FIXED, SHMDT */
	bool takes;		/* the call may take memory (madvise: drops pages;
				 * mmap: MAP_FIXED); false: passes through */
	void *addr;		/* the range it may take (shmdt: the wrapper reads
				 * the segment's extent when the core asks) */
	size_t len;
	/* the call's other arguments */
	int prot, flags, fd, advice;
	off_t off;
	size_t new_size;	/* mremap */
	void *new_addr;		/* mremap with MREMAP_FIXED */
};
/* Does shmdt's call need the segment's extent (the shim tracks anything)? */
bool hipsvm_unmap_call_needs_extent(struct hipsvm_shim *s);
/* u: the range's ticket, t: the one of what MREMAP_FIXED replaces at the
 * new address (both the core's from begin to end). */
int hipsvm_unmap_call_begin(struct hipsvm_shim *s, const struct hipsvm_unmap_call *c,
			    struct hipsvm_unmap *u, struct hipsvm_unmap *t,
			    const struct hipsvm_vm_limits *limits);
/* r: the real call's result, an int (munmap, madvise, shmdt) or a pointer
 * (mmap, mremap) as a long. errno unchanged. */
void hipsvm_unmap_call_end(struct hipsvm_shim *s, const struct hipsvm_unmap_call *c,
			   struct hipsvm_unmap *u, struct hipsvm_unmap *t, long r);
/* A call while this thread is already inside the shim, made straight as
 * the system call: counted when it takes tracked memory (the registry keeps
 * the stale entry until the free). Async-signal-safe. */
void hipsvm_unmap_call_reentered(struct hipsvm_shim *s, const struct hipsvm_unmap_call *c);

/* An unmap of tracked memory that re-entered the shim (see unmap_wrap.c):
 * counted as reentrant_skipped. Async-signal-safe. */
void hipsvm_unmap_reentered(struct hipsvm_shim *s);

/* One freeing call (hipFree, hipHostFree, hipMemRelease, hipFreeArray,
 * hipIpcCloseMemHandle, ...): the owner is found by the pointer or handle,
 * not by device. begin takes the entry out before the real free (see
 * shim_alloc.c) and coordinates what the free unmaps; end puts it back when
 * the free failed, or releases it. */
struct hipsvm_free {
	enum hipsvm_api api;
	void *p;
	/* the core's */
	bool mine, from_devmap, unmapped, ipc;
	uint64_t bytes;
	const struct hipsvm_freeing *prev;
	struct hipsvm_freeing fr;
	struct hipsvm_alloc a;
	struct hipsvm_unmap u;	/* when the free unmaps (ipc) */
};
void hipsvm_free_begin_any(struct hipsvm_shim *s, struct hipsvm_free *f, enum hipsvm_api api,
			   void *p);
void hipsvm_free_end_any(struct hipsvm_shim *s, struct hipsvm_free *f, int rc);

/* begin and end, inline for the commonest free (every hipFree of device
 * memory comes by): an entry of the device table, in its device's primary
 * context, no quota, no trace, the real free succeeded. Never SVM memory,
 * so the thread's freeing marker stays as it was. Anything else goes to
 * the general begin and end (shim_alloc.c), which do the same for it. */
static inline __attribute__((always_inline)) void hipsvm_free_begin(struct hipsvm_shim *s,
	struct hipsvm_free *f, enum hipsvm_api api, void *p)
{
	struct hipsvm_devmap *dm = __atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE);

	if (__builtin_expect(p && dm && api != HIPSVM_API_IPC_CLOSE &&
			     hipsvm_devmap_take(dm, (uintptr_t)p, &f->a) == 0, 1)) {
		f->api = api;
		f->p = p;
		f->mine = f->from_devmap = true;
		f->unmapped = f->ipc = false;
		f->bytes = f->a.origin_size;
		/* (f->prev unset: not SVM, so the marker was not moved, and
		 * the general end leaves it as it is for a device-table entry) */
		return;
	}
	hipsvm_free_begin_any(s, f, api, p);
}

static inline __attribute__((always_inline)) void hipsvm_free_end(struct hipsvm_shim *s,
	struct hipsvm_free *f, int rc)
{
	if (__builtin_expect(rc == HIPSVM_HIP_SUCCESS && f->from_devmap && !f->ipc &&
			     f->a.ctx == f->a.device &&
			     (unsigned)f->a.ctx < HIPSVM_STATS_MAX_DEV && s->plain, 1)) {
		hipsvm_stats_free_dev(&s->stats, f->a.ctx, f->bytes, (unsigned)f->api);
		return;
	}
	hipsvm_free_end_any(s, f, rc);
}

/* Pools and the virtual memory API (preload/mem_wrap.c), after the real
 * call succeeded: a pool event ("pool_trim", "pool_destroy", "pool_export")
 * is counted and
 * traced; a mapping of [start, +len) backed by the physical allocation
 * handle is remembered with the GPU of that allocation. */
void hipsvm_shim_pool_event(struct hipsvm_shim *s, const char *what, uintptr_t pool,
			    uint64_t arg);
void hipsvm_shim_vmm_mapped(struct hipsvm_shim *s, uintptr_t start, size_t len, uintptr_t handle);
/* "vmm_reserve", "vmm_free": address space reserved or given back, counted
 * and traced. */
void hipsvm_shim_vmm_event(struct hipsvm_shim *s, const char *what, uintptr_t addr, size_t len);
/* hipMemSetAccess succeeded: count descriptors of desc, in HIP's layout
 * (struct hipsvm_access_desc), say which devices may touch the mappings in
 * [start, +len) from now on and which may not (hipMemAccessFlagsProtNone). */
struct hipsvm_access_desc {
	struct {
		int type, id;
	} location;
	int flags;
};
void hipsvm_shim_vmm_access(struct hipsvm_shim *s, uintptr_t start, size_t len,
			    const struct hipsvm_access_desc *desc, size_t count);
/* hipMemUnmap and hipMemAddressFree: begin sets checkpoints on the GPUs that
 * may touch the mappings in the range (every GPU when the shim lost count of
 * them); the wrapper makes the real call; end drains and clears, and
 * forgets the mappings when the call succeeded (rc). */
void hipsvm_shim_vmm_unmap_begin(struct hipsvm_shim *s, struct hipsvm_unmap *u, uintptr_t start,
				 size_t len);
void hipsvm_shim_vmm_unmap_end(struct hipsvm_shim *s, struct hipsvm_unmap *u, int rc);

/* Asks the hook for its fault counters (into s->stats) and traces them. */
void hipsvm_shim_refresh_faults(struct hipsvm_shim *s);
/* The report of this process (report.h). Length or -ENOSPC. */
int hipsvm_shim_report(struct hipsvm_shim *s, char *buf, size_t cap);

#endif
