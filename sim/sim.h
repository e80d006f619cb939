/* SPDX-License-Identifier: MIT */
/*
 * sim.h - internal declarations of the simulated runtime, grouped by the file
 * that defines them.
 *
 * Locking (the shim's munmap hook runs inside our munmap and
 * talks to our hook server, which needs our handler threads):
 *   - sim.map_lock (rwlock): the allocation map. Never held across mmap,
 *     munmap, madvise, a wait on a stream, or a call that takes a GPU lock.
 *   - gpu->pt_lock: one GPU's page table (the lazily mapped pages). Taken by
 *     the fault handler (for a pass of at most 32 IVs), the hook server and
 *     accessors; map_lock (read) is taken inside it, never the other way
 *     round.
 *   - gpu->prod_lock[ring]: serialises the producers of one ring (the
 *     hardware has one writer per ring) and keeps timestamps in ring order.
 *   - the hook's range and log locks (hook_cmds.c): leaves.
 *   - stream/event/registry locks: leaves, never held while unmapping.
 * An API call that unmaps (hipFree) holds no lock at all while it does.
 */
#ifndef HIPSVM_SIM_INTERNAL_H
#define HIPSVM_SIM_INTERNAL_H

#include <hip/hip_runtime_api.h>
#include <pthread.h>

#include "shared/checkpoint.h"
#include "shim/clock.h"
#include "simcore/ctx_model.h"
#include "simcore/sim_options.h"
#include "shared/proto.h"
#include "hipsvm_sim.h"

#define SIM_API __attribute__((visibility("default")))
#define SIM_PAGE 4096u
#define SIM_LOG_LEN 64
#define SIM_ZAP_MAX 256
#define SIM_RES_SLOTS 4096u

/* ---- memory.c: the allocation map ---- */
struct sim_alloc {
	uintptr_t base;
	size_t size;			/* as asked */
	size_t maplen;			/* page-rounded; 0 for registered memory */
	enum hipsvm_kind kind;
	int ctx;			/* HIPSVM_CTX_HOST or a device (primary context) */
	int device;			/* owning device; managed: the device current at alloc */
	unsigned flags;			/* the API's flags */
	uint64_t eager;			/* GPUs where the whole range is mapped at alloc */
	uint64_t lazy;			/* GPUs that map it page by page on faults */
	size_t charged;			/* device memory charged to .device */
	uint64_t *bits[HIPSVM_MAX_GPUS];	/* lazily mapped pages, under that GPU's pt_lock */
	/* Pages the program has unmapped from the CPU (seen at a drain):
	 * no longer part of the allocation. Installed and set atomically
	 * under map_lock for reading (memory.c). */
	uint64_t *released;
	/* hipMemAdvise and hipMemPrefetchAsync, in call order, each over its
	 * own range (hmm.c); under map_lock */
	struct sim_advice *adv;
	unsigned nadv;
	/* the map's AVL tree, by base (memory.c); under map_lock */
	struct sim_alloc *left, *right;
	int height;
	/* what else the allocation is (pool.c, vmm.c, ipc.c, array.c) */
	unsigned role;
	void *owner;			/* the pool, VMM handle or array of that role */
	int ipc_fd;			/* exported: the memfd, or -1 */
	uint32_t uid;			/* HIP_POINTER_ATTRIBUTE_BUFFER_ID */
	uint64_t ipc_ino;
};

/* sim_alloc.role */
enum sim_role {
	SIM_ROLE_PLAIN = 0,
	SIM_ROLE_POOL,		/* from a stream-ordered pool: owner = the pool */
	SIM_ROLE_VMM,		/* hipMemCreate: owner = the handle */
	SIM_ROLE_IPC,		/* opened from an IPC handle: hipIpcCloseMemHandle frees it */
	SIM_ROLE_ARRAY,		/* an array's storage: owner = the array */
	SIM_ROLE_SYMBOL,	/* a device variable's storage */
	SIM_ROLE_CODE,		/* a loaded code object (exec/loader.c), a hostcall buffer */
	SIM_ROLE_COUNT,
};

struct sim_alloc *sim_map_find(uintptr_t addr);	/* caller holds map_lock */
/* The allocation with the lowest base >= addr, or > addr; NULL at the end.
 * Caller holds map_lock. O(log n) each, so a walk over k allocations
 * costs O(k log n). */
struct sim_alloc *sim_map_ceil(uintptr_t addr);
struct sim_alloc *sim_map_next(const struct sim_alloc *a);
/* memmap.c; caller holds map_lock for writing. Insert: 0 or -EEXIST (an
 * allocation starts there already). */
int sim_map_insert(struct sim_alloc *a);
void sim_map_remove(struct sim_alloc *a);
/* Inserts an allocation that is already mapped at base (an IPC import):
 * maplen bytes are munmapped when it dies. HIP error. */
hipError_t sim_alloc_adopt(void *base, size_t size, size_t maplen, enum hipsvm_kind kind, int ctx,
			   int device, unsigned role, void *owner, struct sim_alloc **out);
/* The allocation starting exactly at p, out of the map, to be destroyed by
 * the caller (with no lock held); NULL when none. role: only that role. */
struct sim_alloc *sim_map_take(const void *p, unsigned role);
/* Sets role and owner of the allocation starting at p (under the lock). */
bool sim_alloc_set_role(const void *p, unsigned role, void *owner);
/* What the owner of a role does when hipFree frees one of its allocations,
 * before it is destroyed (pool.c: a pool allocation leaves its pool); set by
 * the owner's reset step, NULL for none. */
extern void (*sim_role_forget[SIM_ROLE_COUNT])(struct sim_alloc *a);
/* hipMallocAsync (pool NULL: the stream's device's current pool) and
 * hipFreeAsync's bookkeeping. HIP errors, as ROCm answers them. */
hipError_t sim_pool_malloc(void **ptr, size_t size, hipMemPool_t pool, hipStream_t stream);
hipError_t sim_pool_free(void *ptr);
/* Device memory accounting: hipErrorOutOfMemory past the capacity. */
hipError_t sim_charge(int dev, size_t bytes);
void sim_uncharge(int dev, size_t bytes);
/* Creates and inserts; HIP error. */
hipError_t sim_alloc_new(size_t size, enum hipsvm_kind kind, int ctx, int device,
			 unsigned flags, void *user_ptr, struct sim_alloc **out);
/* hipFree: sync first when asked; hipErrorInvalidValue for what is not the
 * start of a live allocation (registered memory included). */
hipError_t sim_free(void *ptr, bool sync);
hipError_t sim_unregister(void *ptr);
void sim_alloc_destroy(struct sim_alloc *a);
bool sim_map_overlaps(uintptr_t p, size_t n);
bool sim_lookup(const void *p, struct sim_alloc *copy);
bool sim_update(const void *p, void (*fn)(struct sim_alloc *a, void *arg), void *arg);
/* The pages of [start, end) that are unmapped from the CPU now leave the
 * allocations they belonged to (the hook's drain, after the program's unmap). */
/* The pages of [start, end) that the CPU no longer maps leave the
 * allocations they belonged to; true if none of the range is mapped.
 * O(mappings and allocations of the range), not O(pages). */
bool sim_map_release_unmapped(uintptr_t start, uintptr_t end);

/* vmspan.c: fn(lo, hi, arg) for each piece of [start, end) (page-rounded)
 * the CPU maps, in address order. query false: without PROCMAP_QUERY (the
 * older kernels' way; for tests). */
typedef void (*sim_vm_fn)(uintptr_t lo, uintptr_t hi, void *arg);
void sim_vm_mapped(uintptr_t start, uintptr_t end, sim_vm_fn fn, void *arg);
void sim_vm_mapped_by(uintptr_t start, uintptr_t end, bool query, sim_vm_fn fn, void *arg);
/* Caller holds map_lock. */
bool sim_alloc_released(const struct sim_alloc *a, uintptr_t page);

/* ---- gpu.c: GPUs, rings, page tables, the fault handler ---- */
enum sim_ring { SIM_IH0 = 0, SIM_IH1 = 1, SIM_SOFT = 2 };

enum sim_fault_result {
	SIM_RES_NONE = 0,
	SIM_RES_MAPPED,
	SIM_RES_PRESENT,	/* already mapped (a duplicate fault) */
	SIM_RES_DROPPED,
	SIM_RES_REAL,
};

struct sim_gpu;
struct sim_wake {
	struct hipsvm_ring *ring;
	struct sim_gpu *gpu;
};

/* A page-table lock: taken per GPU by every fault and by the hook's sets
 * and drains, a few instructions uncontended where a pthread mutex is
 * about thirty (the coordinated unmap takes two per GPU). 0 free, 1 held,
 * 2 held with waiters (the futex word). Not recursive. */
struct sim_lock {
	uint32_t v;
};
void sim_lock_slow(struct sim_lock *l);
void sim_futex_wake_one(uint32_t *addr);

static inline void sim_lock(struct sim_lock *l)
{
	uint32_t c = 0;

	if (!__atomic_compare_exchange_n(&l->v, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		sim_lock_slow(l);
}

static inline void sim_unlock(struct sim_lock *l)
{
	if (__atomic_exchange_n(&l->v, 0, __ATOMIC_RELEASE) == 2)
		sim_futex_wake_one(&l->v);
}

struct sim_gpu {
	int index;
	struct hipsvm_ring rings[3];	/* ih0, ih1 (unused on an APU), ih_soft */
	struct hipsvm_gpu_irq irq;	/* points at rings[] */
	struct hipsvm_cp cp;		/* this process's checkpoint on this GPU */
	uint32_t *ringbuf[3];
	struct sim_wake wake[3];
	pthread_mutex_t prod_lock[3];
	uint64_t clock;			/* ticks since start; ts = start + clock */
	uint64_t next_token;
	struct sim_lock pt_lock;
	pthread_t handler;
	bool handler_started;
	uint32_t stop;
	uint32_t doorbell;		/* futex: bumped by producers */
	uint32_t sleeping;
	uint32_t done_seq;		/* futex: bumped after each pass */
	uint32_t done_waiters;
	struct {
		uint64_t token;
		uint32_t result;
	} res[SIM_RES_SLOTS];
	/* counters (relaxed atomics) */
	uint64_t raised, handled, mapped, dropped, real, stale, overflows;
	uint64_t sets, clears, pages;
	uint64_t last_set_ts;
	size_t capacity;
	size_t used;			/* under sim.mem_lock */
};

uint64_t sim_gpu_now(struct sim_gpu *g);	/* the clock, without ticking */
/* Writes a fault IV (ticking the clock unless ts is given); 0 or -ENOSPC.
 * *ts_out gets the timestamp used. */
int sim_gpu_raise(struct sim_gpu *g, uintptr_t addr, bool write, bool retry,
		  bool have_ts, uint64_t ts, uint64_t token, uint64_t *ts_out);
/* The same without waking the handler (the caller kicks it later). */
int sim_gpu_write_fault(struct sim_gpu *g, uintptr_t addr, bool write, bool retry,
			bool have_ts, uint64_t ts, uint64_t token, uint64_t *ts_out);
/* The page-table side of an unmap: forget [start, end) on GPU g. */
/* Clears g's lazily mapped pages of [start, end), unless no page was mapped
 * on any GPU since the count was since (sim_gpu_map_events). */
void sim_gpu_unmap_range(struct sim_gpu *g, uintptr_t start, uintptr_t end, uint64_t since);
uint64_t sim_gpu_map_events(void);
/* Map the whole range on GPU g (prefetch, eager mappings). */
void sim_gpu_map_range(struct sim_gpu *g, uintptr_t start, uintptr_t end);
bool sim_gpu_page_mapped(struct sim_gpu *g, uintptr_t addr);
/* Bumped (release) whenever a page may stop being mapped on some GPU: an
 * unmap, a checkpoint, a page the program unmapped, an allocation leaving
 * the map, a fork child's new GPUs. The interpreter's translation caches
 * (sim/exec/guard.c) hold only pages found mapped and drop them all when it
 * moves; a page becoming mapped needs no bump. Never reset. */
extern uint64_t sim_pt_gen;
static inline void sim_pt_changed(void)
{
	__atomic_fetch_add(&sim_pt_gen, 1, __ATOMIC_RELEASE);
}
/* One synchronous GPU access to one page: SIM_RES_* (never NONE/DROPPED). */
int sim_gpu_access_page(struct sim_gpu *g, uintptr_t addr, bool write, const uint32_t *stop);
void sim_gpu_quiesce(struct sim_gpu *g);
void sim_gpu_kick(struct sim_gpu *g);	/* wake the handler (a ring was enabled) */
/* g's counters and state (hipsvmSimGetStats, the hook's stats request) */
void sim_gpu_stats(struct sim_gpu *g, struct hipsvm_sim_stats *out);
/* The hook's "set" on one GPU, atomically with respect to the fault handler
 * (under pt_lock, as the kernel's SVM lock): record the checkpoint and, for
 * a range, unmap it from the GPU. 1 and *ts when a checkpoint was recorded. */
int sim_gpu_set(struct sim_gpu *g, bool range, uintptr_t start, uintptr_t end, uint64_t *ts);
/* sim_gpu_set on every GPU of the mask gpus at once (the range looked up
 * once); the mask of those that recorded a checkpoint, ts[i] for each. */
uint64_t sim_gpus_set(uint64_t gpus, bool range, uintptr_t start, uintptr_t end, uint64_t *ts);

/* ---- hook/: the hook server; hook_cmds.c: one request line to one reply
 * line for the connection whose state is conn (NULL: none); the reply's
 * length. */
struct sim_hook_conn {
	uint64_t pending;	/* GPUs it set and has not drained since */
	uint64_t cp_mask;	/* of those, the ones whose set recorded cp[g] */
	uint64_t cp[HIPSVM_MAX_GPUS];
};
int sim_hook_handle_line(struct sim_hook_conn *conn, const char *line, size_t len, char *out,
			 size_t cap);
/* The connection is gone (its client closed it or died): its unmap is
 * finished for it, as its drainclear would have: bounded. */
void sim_hook_conn_gone(struct sim_hook_conn *conn);

/* ---- state.c: process-wide state ---- */
struct sim_state {
	struct hipsvm_sim_options opt;
	unsigned ngpu;			/* visible devices (visible.c) */
	unsigned nphys;			/* simulated GPUs before the filters */
	int phys[HIPSVM_MAX_GPUS];	/* device -> physical index */
	struct sim_gpu *gpu[HIPSVM_MAX_GPUS];
	struct hipsvm_ctxset ctx;
	bool xnack, retry_cam, apu;
	/* the devices' target ID, "gfx90a:sramecc+:xnack+": gcnArchName and
	 * the code object choice (codeobj_target.h) both read it */
	char target[32];
	uint64_t ts_start;
	uint32_t ring_size;
	pthread_rwlock_t map_lock;
	struct sim_alloc *map_root;	/* AVL tree by base (memory.c) */
	size_t nmap;
	pthread_mutex_t mem_lock;	/* device memory accounting */
	char socket_name[HIPSVM_OPT_STR_MAX + 32];
	bool quiet;
	uint32_t kernel_notice;
};
extern struct sim_state sim;

/* Initialises the runtime once per process (again in a fork child). */
void sim_init(void);
static inline struct sim_gpu *sim_gpu(int dev)
{
	return (dev >= 0 && (unsigned)dev < sim.ngpu) ? sim.gpu[dev] : NULL;
}
void sim_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int sim_current_device(void);
void sim_set_current_device(int dev);

/* ---- device.c ---- */
void sim_fill_props(int dev, hipDeviceProp_t *p);
int sim_pci_bus(int dev);	/* the PCI bus number of a visible device */
/* ctx.c: a device's primary context handle */
hipCtx_t sim_ctx_of(int dev);

/* ---- visible.c ---- */
/* Applies ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES (or
 * CUDA_VISIBLE_DEVICES) to nphys GPUs: fills phys[] and returns the count. */
unsigned sim_visible_devices(unsigned nphys, int *phys);
/* The 16 characters of a physical GPU's uuid (not NUL-terminated). */
void sim_uuid_of(int phys, char out[16]);

/* ---- notsup.c ---- */
/* hipErrorNotSupported, recorded; says once per function (once points at
 * that function's flag) that the simulator does not provide it, unless
 * HIPSVM_SIM_QUIET. */
hipError_t sim_notsup(const char *fn, uint32_t *once);
#define SIM_NOTSUP() ({ static uint32_t once_; sim_notsup(__func__, &once_); })

/* ---- errors.c ---- */
hipError_t sim_ret(hipError_t e);	/* records e as the last error, returns it */
/* The calling thread's last error; clear: reset it to hipSuccess. */
hipError_t sim_last_error(bool clear);

/*
 * The entry and the exit of an API body, as hipamd's HIP_INIT_API and
 * HIP_RETURN: the runtime initialised once per process (again in a fork
 * child), and the answer recorded by the last-error rule (errors.c) before
 * it is returned. A body that returns without SIM_RETURN leaves the last
 * error alone, as ROCm's do where they return directly.
 */
#define SIM_INIT_API() sim_init()
#define SIM_RETURN(e) return sim_ret(e)

/* ---- stream.c ---- */
struct sim_stream;
struct sim_op {
	void (*fn)(struct sim_op *op);
	struct sim_op *next;
};
/* NULL stream = the current device's null stream; NULL if the handle is bad. */
struct sim_stream *sim_stream_get(hipStream_t s);
int sim_stream_device(const struct sim_stream *s);
/* Queues op (owned by the stream, freed with free() after fn), behind the
 * null-stream / blocking-stream barriers (stream.c). Takes the registry
 * lock: not with it held. */
void sim_stream_enqueue(struct sim_stream *s, struct sim_op *op);
hipError_t sim_stream_wait(struct sim_stream *s);	/* s's own queue only */
/* What a synchronous operation on s waits for, as in ROCm 5.2: s's queue,
 * and before that, for the null stream, the device's blocking streams (for
 * a blocking stream, the null stream). Takes the registry lock: not with
 * it held. Returns and clears s's first asynchronous error. */
hipError_t sim_stream_sync(struct sim_stream *s);
hipError_t sim_device_sync(int dev);	/* -1: every device */
void sim_stream_set_error(struct sim_stream *s, hipError_t e);
/* Waits until every blocking stream of dev is idle (the null stream's
 * barrier), leaving their errors alone. */
void sim_stream_wait_blocking(int dev);

/* ---- array.c ---- */
struct sim_array_info {
	uint8_t *mem;			/* the elements, rows packed */
	size_t elem, row, rows, slices;	/* bytes per element and per row; counts */
};
/* The layout of a live array handle; false for anything else. */
bool sim_array_get(const hipArray *h, struct sim_array_info *out);

/* ---- memcpy.c: shared by the copy and fill files ---- */
/* Runs op in stream order: queued when !sync; otherwise after the stream
 * (and, on the null stream, every blocking stream of its device) is idle,
 * on the calling thread. op is freed with free() either way. */
hipError_t sim_run_op(hipStream_t stream, bool sync, struct sim_op *op);
/* The stream of the _spt calls: the per-thread default stream. */
hipStream_t sim_spt_stream(void);
/* ROCm's validation of a linear copy (ihipMemcpy_validate) and kind. */
hipError_t sim_check_copy(void *dst, const void *src, size_t n, int kind);
hipError_t sim_copy(void *dst, const void *src, size_t n, int kind, hipStream_t s, bool sync);

/* ---- hmm.c ---- */
/* Is every page of [lo, hi) mapped in this process? */
bool sim_range_mapped(uintptr_t lo, uintptr_t hi);

/* ---- symbol.c: __hipRegisterVar's variables ---- */
void sim_symbol_register(void **fatbin, const void *host_var, const char *name, size_t size);

/* Does dev have a stream (its null stream included)? ROCm's "active". */
int sim_device_active(int dev);
/* hipDeviceReset: destroys dev's streams (not its null stream). */
void sim_streams_destroy_device(int dev);
/* The stream for a handle as ROCm resolves it: NULL and hipStreamPerThread
 * name the current device's null stream; *destroyed tells a handle that is
 * not (or no longer) a stream. */
struct sim_stream *sim_stream_lookup(hipStream_t h, bool *destroyed);
unsigned sim_stream_flags(const struct sim_stream *s);
int sim_stream_priority(const struct sim_stream *s);
/* hipErrorNotReady while s (or, for the null stream, a blocking stream it
 * waits for) has work queued; hipSuccess when idle. */
hipError_t sim_stream_query(struct sim_stream *s);
/* Unregisters the stream of handle h and frees it once its pending work is
 * done; false when h is not (or no longer) a stream. */
bool sim_stream_destroy(hipStream_t h);
/* hipStreamCreateWithFlags' checks and creation (not recorded). */
hipError_t sim_stream_create(hipStream_t *out, unsigned flags, int prio);
/* The CU mask a stream was created with (at most 4 words); words kept. */
void sim_stream_set_cu_mask(struct sim_stream *s, const uint32_t *mask, unsigned words);
unsigned sim_stream_cu_mask(const struct sim_stream *s, uint32_t *mask);

/* ---- exec/loader.c: code objects in GPU memory, per device ---- */
struct hipsvm_codeobj;
struct hipsvm_kernel_info;
void sim_loader_reset(void);
/* A code object whose kernels and variables are to live in GPU memory
 * (loaded per device at first use); remove unloads it everywhere. */
void sim_loader_add(const struct hipsvm_codeobj *co);
void sim_loader_remove(const struct hipsvm_codeobj *co);
/* The kernel as loaded on dev (code in the image, code_vaddr its address
 * there); the file's copy when its code object cannot be loaded. */
const struct hipsvm_kernel_info *sim_loader_kernel(const struct hipsvm_kernel_info *info, int dev);
/* A variable of co in its image on dev: 0, or -ENOENT (no such variable,
 * or no image), -ENOMEM, -ENOTSUP (relocations the loader lacks). */
int sim_loader_symbol(const struct hipsvm_codeobj *co, const char *name, int dev, void **addr,
		      size_t *size);
/* launch.c: the code object of a registered fat binary (NULL: none for the
 * device), chosen at first use. */
const struct hipsvm_codeobj *sim_fatbin_codeobj(void **handle);

/* ---- launch.c (a launch itself goes to sim/exec/exec.h) ---- */
struct hipsvm_kernel_info;
/* The registered kernel of a host stub: its name and *info (NULL when its
 * code object has no metadata for it); NULL if none. */
const char *sim_func_lookup(const void *host_fn, const struct hipsvm_kernel_info **info);
/* module.c: a module function's kernel name (buf: 256 bytes), and whether
 * the handle is a live module function */
const char *sim_module_fn_name(hipFunction_t f, char *buf);
bool sim_module_fn_live(hipFunction_t f);

/* ---- thread.c: threads and futex helpers ---- */
void sim_futex_wait(uint32_t *addr, uint32_t val, uint64_t timeout_ns);
/* pthread_create with every signal blocked, named; returns once the thread
 * runs (thread.c says why). 0 or the pthread error. */
int sim_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *name);
void sim_futex_wake(uint32_t *addr);

static inline uint64_t sim_now_ns(void)
{
	return hipsvm_now_ns();
}

#endif
