/* SPDX-License-Identifier: MIT */
/*
 * pool.c - stream-ordered memory pools (ROCm's hip_mempool.cpp and
 * hip_mempool_impl.cpp). A pool hands out device allocations (made through
 * the allocation map like hipMalloc's, so they take the page-fault path) and
 * keeps the ones freed with hipFreeAsync for reuse: the first free block at
 * least as large as asked, as ROCm's free heap does. Its memory goes back to
 * the device only at hipMemPoolTrimTo and hipMemPoolDestroy (5.2.3's
 * Device::ReleaseFreedMemory, the release at a stream's synchronisation, has
 * no caller).
 *
 * A free is stream-ordered, as in 5.2.3 (hip_mempool_impl.cpp:173-199): the
 * block goes to the free list at once with a marker queued on the freeing
 * stream, and is "reached" when the stream gets there (at once when the
 * stream is idle). A free block is taken again by an allocation on the
 * stream that allocated it (MemoryTimestamp's safe stream: FreeMemory's
 * AddSafeStream adds the freeing stream only when it is already there,
 * hip_mempool_impl.hpp:39-43), or on any stream once reached while
 * hipMemPoolReuseAllowOpportunistic is set (IsSafeFind, hpp:58-68). Trims
 * and destroys give back reached blocks only (IsSafeRelease, hpp:70-77);
 * the last reference of a destroyed pool waits for the rest (~MemoryPool,
 * hpp:160-163). The other two reuse attributes are stored and read back,
 * and nothing else reads them, as in 5.2.3.
 *
 * Answers follow ROCm 5.2.3 even where they are odd: an allocation the
 * device cannot hold gives hipSuccess and NULL; setting
 * hipMemPoolAttrReservedMemHigh to 0 fails (a missing break there); the
 * export, import and access calls succeed without doing anything (no
 * implementation). Pool handles are checked against the live pools, so a
 * bad handle is hipErrorInvalidValue rather than a crash.
 *
 * Locking: pool_lock is a leaf; nothing is allocated, freed or waited for
 * under it.
 */
#include "api/api.h"
#include "api/memory.h"
#include "runtime/map.h"
#include "runtime/stream.h"
#include "runtime/step.h"

#include <stdlib.h>
#include <unistd.h>

#define POOL_MAGIC 0x504f4f4cu	/* "POOL" */

/* The freeing stream's marker: set when the stream reaches the free. Held
 * by the block and by the queued op; under pool_lock. */
struct mark {
	unsigned refs;
	bool done;
};

struct mark_op {
	struct sim_op op;	/* first: the stream frees the op */
	struct mark *m;
};

struct blk {
	struct sim_pool *pool;
	uintptr_t p;
	size_t size;
	bool free;
	const struct sim_stream *safe;	/* the stream it was allocated on */
	struct mark *mark;		/* free: NULL when reached at the free */
	struct blk *prev, *next;	/* the free list, oldest first */
};

struct sim_pool {
	uint32_t magic;
	int device;
	bool is_default, destroyed;
	unsigned refs;			/* the handle, and each busy block */
	struct blk *free_head, *free_tail;
	uint64_t busy, busy_high, freed, freed_high, threshold;
	int32_t ev_dep, opportunistic, internal_dep;
	struct sim_pool *next;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mark_cond = PTHREAD_COND_INITIALIZER;	/* a mark is done */
static struct sim_pool *pools;
static struct sim_pool *def_pool[HIPSVM_MAX_GPUS], *cur_pool[HIPSVM_MAX_GPUS];

static void pool_forget(struct sim_alloc *a);

/* A fork child's runtime starts over (state.c): the parent's pools name
 * allocations that this runtime no longer knows. Kept, not freed. */
static void pools_reset(void)
{
	pthread_mutex_init(&pool_lock, NULL);
	pthread_cond_init(&mark_cond, NULL);
	pools = NULL;
	memset(def_pool, 0, sizeof(def_pool));
	memset(cur_pool, 0, sizeof(cur_pool));
	sim_role_forget[SIM_ROLE_POOL] = pool_forget;
}
SIM_STEP(pools, .reset = pools_reset);

static struct sim_pool *pool_new(int dev, bool is_default)
{
	struct sim_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->magic = POOL_MAGIC;
	p->device = dev;
	p->is_default = is_default;
	p->refs = 1;
	p->ev_dep = p->opportunistic = p->internal_dep = 1;
	p->next = pools;
	pools = p;
	return p;
}

/* Caller holds pool_lock. */
static bool pool_live(const struct sim_pool *p)
{
	const struct sim_pool *q;

	for (q = pools; q; q = q->next)
		if (q == p)
			return !q->destroyed;
	return false;
}

/* Caller holds pool_lock. The device's default pool, made on first use. */
static struct sim_pool *default_of(int dev)
{
	if (!def_pool[dev])
		def_pool[dev] = pool_new(dev, true);
	return def_pool[dev];
}

static struct sim_pool *current_of(int dev)
{
	return cur_pool[dev] ? cur_pool[dev] : default_of(dev);
}

/* Caller holds pool_lock. */
static void mark_put(struct mark *m)
{
	if (m && !--m->refs)
		free(m);
}

static void mark_run(struct sim_op *op)
{
	struct mark *m = ((struct mark_op *)op)->m;

	pthread_mutex_lock(&pool_lock);
	m->done = true;
	pthread_cond_broadcast(&mark_cond);
	mark_put(m);
	pthread_mutex_unlock(&pool_lock);
}

/* Caller holds pool_lock: has the freeing stream reached the free? */
static bool reached(const struct blk *b)
{
	return !b->mark || b->mark->done;
}

/* Caller holds pool_lock: unlink and free a destroyed pool. */
static void pool_unlink(struct sim_pool *p)
{
	struct sim_pool **pp;

	for (pp = &pools; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	p->magic = 0;
	free(p);
}

/* Caller holds pool_lock: drop one reference. True when it was the last
 * of a destroyed pool: the caller then calls pool_final with no lock held. */
static bool unref(struct sim_pool *p)
{
	return !--p->refs && p->destroyed;
}

static void free_unlink(struct sim_pool *p, struct blk *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		p->free_head = b->next;
	if (b->next)
		b->next->prev = b->prev;
	else
		p->free_tail = b->prev;
	b->prev = b->next = NULL;
	b->free = false;
	mark_put(b->mark);
	b->mark = NULL;
	p->freed -= b->size;
}

static void free_push(struct sim_pool *p, struct blk *b)
{
	b->free = true;
	b->next = NULL;
	b->prev = p->free_tail;
	if (p->free_tail)
		p->free_tail->next = b;
	else
		p->free_head = b;
	p->free_tail = b;
	p->freed += b->size;
	if (p->freed > p->freed_high)
		p->freed_high = p->freed;
}

/* Gives back reached free blocks, oldest first, while more than keep bytes
 * are held (Heap::ReleaseAllMemory); wait: each block's free is waited for
 * first (its safe_release). The blocks leave the map and are destroyed with
 * no lock held. */
static void release_free(struct sim_pool *p, uint64_t keep, bool wait)
{
	for (;;) {
		struct sim_alloc *a;
		struct blk *b = NULL;

		pthread_mutex_lock(&pool_lock);
		if (p->freed > keep) {
			if (wait)
				while (p->free_head && !reached(p->free_head))
					pthread_cond_wait(&mark_cond, &pool_lock);
			for (b = p->free_head; b && !reached(b); b = b->next)
				;
		}
		if (b)
			free_unlink(p, b);
		pthread_mutex_unlock(&pool_lock);
		if (!b)
			return;
		a = sim_map_take((void *)b->p, SIM_ROLE_POOL);
		if (a)
			sim_alloc_destroy(a);
		free(b);
	}
}

/* The last reference of a destroyed pool is gone: every free block goes
 * back once its free is reached (~MemoryPool), then the pool. */
static void pool_final(struct sim_pool *p)
{
	release_free(p, 0, true);
	pthread_mutex_lock(&pool_lock);
	pool_unlink(p);
	pthread_mutex_unlock(&pool_lock);
}

/* MemoryPool::AllocateMemory: NULL when the device cannot hold it. s is
 * the allocating stream. */
static void *pool_alloc(struct sim_pool *p, size_t size, const struct sim_stream *s)
{
	struct hipsvm_context *c;
	struct sim_alloc *a;
	struct blk *b;

	pthread_mutex_lock(&pool_lock);
	for (b = p->free_head; b; b = b->next)
		if (b->size >= size && (b->safe == s || (p->opportunistic && reached(b))))
			break;
	if (b) {
		free_unlink(p, b);
		b->safe = s;
		p->busy += b->size;
		if (p->busy > p->busy_high)
			p->busy_high = p->busy;
		p->refs++;
		pthread_mutex_unlock(&pool_lock);
		return (void *)b->p;
	}
	pthread_mutex_unlock(&pool_lock);
	if (size > sim_max_alloc())			/* hip_mempool_impl.cpp:139 */
		return NULL;
	b = calloc(1, sizeof(*b));
	c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_MALLOC_ASYNC, p->device);
	if (!b || !c || sim_alloc_new(size, HIPSVM_KIND_DEVICE, c->id, p->device, 0, NULL, &a) !=
	    hipSuccess) {
		free(b);
		return NULL;
	}
	b->pool = p;
	b->p = a->base;
	b->size = size;
	b->safe = s;
	pthread_mutex_lock(&pool_lock);
	p->busy += size;
	if (p->busy > p->busy_high)
		p->busy_high = p->busy;
	p->refs++;
	pthread_mutex_unlock(&pool_lock);
	sim_alloc_set_role((void *)b->p, SIM_ROLE_POOL, b);
	return (void *)b->p;
}

static void pool_forget(struct sim_alloc *a)
{
	struct blk *b = a->owner;
	struct sim_pool *p;

	if (!b)
		return;
	pthread_mutex_lock(&pool_lock);
	p = b->pool;
	if (b->free) {
		free_unlink(p, b);
	} else {
		p->busy -= b->size;
		/* hipFree of a busy block of a destroyed pool, its last: the
		 * pool's free blocks cannot be given back from here (the map
		 * is the caller's), so the pool stays, destroyed, with them */
		(void)unref(p);
	}
	pthread_mutex_unlock(&pool_lock);
	free(b);
}

/* hipFreeAsync on s: a busy pool block goes back to its pool, reached when
 * s gets there (MemoryPool::FreeMemory); anything else is freed as hipFree
 * would (ROCm's ihipFree), a pool's free block included, after s's work. */
hipError_t sim_pool_free(void *ptr, struct sim_stream *s)
{
	struct mark_op *op = NULL;
	struct mark *m = NULL;
	struct sim_alloc a;
	struct blk *b;
	bool last;

	if (!sim_lookup(ptr, &a) || a.base != (uintptr_t)ptr)
		return hipErrorInvalidValue;
	if (a.role == SIM_ROLE_POOL && a.owner) {
		/* an idle stream has reached the free already: no marker */
		if (sim_stream_query(s) != hipSuccess) {
			op = calloc(1, sizeof(*op));
			m = calloc(1, sizeof(*m));
			if (!op || !m) {
				/* no marker to queue: the free waits instead */
				free(op);
				free(m);
				op = NULL;
				m = NULL;
				sim_stream_wait(s);
			}
		}
		b = a.owner;
		pthread_mutex_lock(&pool_lock);
		if (!b->free && b->p == (uintptr_t)ptr) {
			/* once unlocked, b is another thread's to free */
			struct sim_pool *bp = b->pool;

			bp->busy -= b->size;
			free_push(bp, b);
			if (m) {
				m->refs = 2;
				b->mark = m;
			}
			last = unref(bp);
			pthread_mutex_unlock(&pool_lock);
			if (op) {
				op->op.fn = mark_run;
				op->m = m;
				sim_stream_enqueue(s, &op->op);
			}
			if (last)
				pool_final(bp);
			return hipSuccess;
		}
		pthread_mutex_unlock(&pool_lock);
		free(op);
		free(m);
	}
	sim_stream_wait(s);
	return sim_free(ptr, false);
}

/* hipMallocAsync and hipMallocFromPoolAsync; pool NULL: the device's
 * current pool. */
hipError_t sim_pool_malloc(void **ptr, size_t size, hipMemPool_t pool, hipStream_t stream)
{
	struct sim_stream *s;
	struct sim_pool *p = (struct sim_pool *)pool;
	int dev;

	if (!ptr || size == 0)
		return hipErrorInvalidValue;
	s = sim_stream_get(stream);
	if (!s)
		return hipErrorInvalidValue;
	dev = sim_stream_device(s);
	pthread_mutex_lock(&pool_lock);
	if (!p)
		p = sim_gpu(dev) ? current_of(dev) : NULL;
	else if (!pool_live(p))
		p = NULL;
	pthread_mutex_unlock(&pool_lock);
	if (!p)
		return hipErrorInvalidValue;
	*ptr = pool_alloc(p, size, s);
	return hipSuccess;
}

SIM_API hipError_t hipMallocFromPoolAsync(void **dev_ptr, size_t size, hipMemPool_t mem_pool,
					  hipStream_t stream)
{
	SIM_INIT_API();
	if (!mem_pool)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(sim_pool_malloc(dev_ptr, size, mem_pool, stream));
}

static bool device_ok(int device)
{
	return device >= 0 && (unsigned)device < sim.ngpu;
}

SIM_API hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t *mem_pool, int device)
{
	SIM_INIT_API();
	if (!mem_pool || !device_ok(device))
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&pool_lock);
	*mem_pool = (hipMemPool_t)default_of(device);
	pthread_mutex_unlock(&pool_lock);
	SIM_RETURN(*mem_pool ? hipSuccess : hipErrorOutOfMemory);
}

SIM_API hipError_t hipDeviceGetMemPool(hipMemPool_t *mem_pool, int device)
{
	SIM_INIT_API();
	if (!mem_pool || !device_ok(device))
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&pool_lock);
	*mem_pool = (hipMemPool_t)current_of(device);
	pthread_mutex_unlock(&pool_lock);
	SIM_RETURN(*mem_pool ? hipSuccess : hipErrorOutOfMemory);
}

SIM_API hipError_t hipDeviceSetMemPool(int device, hipMemPool_t mem_pool)
{
	struct sim_pool *p = (struct sim_pool *)mem_pool;
	hipError_t e = hipSuccess;

	SIM_INIT_API();
	if (!mem_pool || !device_ok(device))
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&pool_lock);
	if (pool_live(p))
		cur_pool[device] = p;
	else
		e = hipErrorInvalidValue;
	pthread_mutex_unlock(&pool_lock);
	SIM_RETURN(e);
}

SIM_API hipError_t hipMemPoolCreate(hipMemPool_t *mem_pool, const hipMemPoolProps *props)
{
	struct sim_pool *p;

	SIM_INIT_API();
	if (!mem_pool || !props)
		SIM_RETURN(hipErrorInvalidValue);
	if (props->location.type != hipMemLocationTypeDevice || !device_ok(props->location.id))
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&pool_lock);
	p = pool_new(props->location.id, false);
	pthread_mutex_unlock(&pool_lock);
	if (!p)
		SIM_RETURN(hipErrorInvalidValue);
	*mem_pool = (hipMemPool_t)p;
	SIM_RETURN(hipSuccess);
}

/* Releases what the threshold lets go, points the device back at its
 * default pool, drops the handle's reference: blocks still in use keep the
 * pool alive until they are freed. A default pool stays (the device keeps
 * pointing at it). */
SIM_API hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool)
{
	struct sim_pool *p = (struct sim_pool *)mem_pool;
	bool live, last = false;

	SIM_INIT_API();
	if (!mem_pool)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&pool_lock);
	live = pool_live(p);
	pthread_mutex_unlock(&pool_lock);
	if (!live)
		SIM_RETURN(hipErrorInvalidValue);
	release_free(p, p->threshold, false);
	pthread_mutex_lock(&pool_lock);
	if (cur_pool[p->device] == p)
		cur_pool[p->device] = NULL;
	if (!p->is_default) {
		p->destroyed = true;
		last = unref(p);
	}
	pthread_mutex_unlock(&pool_lock);
	if (last)
		pool_final(p);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemPoolTrimTo(hipMemPool_t mem_pool, size_t min_bytes_to_hold)
{
	struct sim_pool *p = (struct sim_pool *)mem_pool;
	bool live;

	SIM_INIT_API();
	if (!mem_pool)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&pool_lock);
	live = pool_live(p);
	pthread_mutex_unlock(&pool_lock);
	if (!live)
		SIM_RETURN(hipErrorInvalidValue);
	release_free(p, min_bytes_to_hold, false);
	SIM_RETURN(hipSuccess);
}

/* MemoryPool::SetAttribute, reproduced case by case. */
static hipError_t set_attr(struct sim_pool *p, hipMemPoolAttr attr, const void *value)
{
	uint64_t reset;

	switch (attr) {
	case hipMemPoolReuseFollowEventDependencies:
		p->ev_dep = *(const int32_t *)value;
		return hipSuccess;
	case hipMemPoolReuseAllowOpportunistic:
		p->opportunistic = *(const int32_t *)value;
		return hipSuccess;
	case hipMemPoolReuseAllowInternalDependencies:
		p->internal_dep = *(const int32_t *)value;
		return hipSuccess;
	case hipMemPoolAttrReleaseThreshold:
		p->threshold = *(const uint64_t *)value;
		return hipSuccess;
	case hipMemPoolAttrReservedMemHigh:
		/* ROCm 5.2.3 resets the mark for 0 and then falls through
		 * into the next case, which refuses: every value fails */
		reset = *(const uint64_t *)value;
		if (reset == 0)
			p->freed_high = 0;
		return hipErrorInvalidValue;
	case hipMemPoolAttrUsedMemHigh:
		reset = *(const uint64_t *)value;
		if (reset != 0)
			return hipErrorInvalidValue;
		p->busy_high = 0;
		return hipSuccess;
	default:	/* the current values, and what is unknown */
		return hipErrorInvalidValue;
	}
}

static hipError_t get_attr(const struct sim_pool *p, hipMemPoolAttr attr, void *value)
{
	switch (attr) {
	case hipMemPoolReuseFollowEventDependencies:
		*(int32_t *)value = p->ev_dep != 0;
		return hipSuccess;
	case hipMemPoolReuseAllowOpportunistic:
		*(int32_t *)value = p->opportunistic != 0;
		return hipSuccess;
	case hipMemPoolReuseAllowInternalDependencies:
		*(int32_t *)value = p->internal_dep != 0;
		return hipSuccess;
	case hipMemPoolAttrReleaseThreshold:
		*(uint64_t *)value = p->threshold;
		return hipSuccess;
	case hipMemPoolAttrReservedMemCurrent:
		*(uint64_t *)value = p->busy + p->freed;
		return hipSuccess;
	case hipMemPoolAttrReservedMemHigh:
		*(uint64_t *)value = p->busy + p->freed_high;
		return hipSuccess;
	case hipMemPoolAttrUsedMemCurrent:
		*(uint64_t *)value = p->busy;
		return hipSuccess;
	case hipMemPoolAttrUsedMemHigh:
		*(uint64_t *)value = p->busy_high;
		return hipSuccess;
	default:
		return hipErrorInvalidValue;
	}
}

static hipError_t attr_call(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value, bool set)
{
	struct sim_pool *p = (struct sim_pool *)mem_pool;
	hipError_t e;

	if (!mem_pool || !value)
		return hipErrorInvalidValue;
	pthread_mutex_lock(&pool_lock);
	if (!pool_live(p))
		e = hipErrorInvalidValue;
	else
		e = set ? set_attr(p, attr, value) : get_attr(p, attr, value);
	pthread_mutex_unlock(&pool_lock);
	return e;
}

SIM_API hipError_t hipMemPoolSetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)
{
	SIM_INIT_API();
	SIM_RETURN(attr_call(mem_pool, attr, value, true));
}

SIM_API hipError_t hipMemPoolGetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)
{
	SIM_INIT_API();
	SIM_RETURN(attr_call(mem_pool, attr, value, false));
}

/* ROCm 5.2.3 has no implementation of these: success, nothing written. */
SIM_API hipError_t hipMemPoolSetAccess(hipMemPool_t mem_pool, const hipMemAccessDesc *desc_list,
				       size_t count)
{
	(void)mem_pool, (void)desc_list, (void)count;
	SIM_INIT_API();
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemPoolGetAccess(hipMemAccessFlags *flags, hipMemPool_t mem_pool,
				       hipMemLocation *location)
{
	(void)flags, (void)mem_pool, (void)location;
	SIM_INIT_API();
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemPoolExportToShareableHandle(void *shared_handle, hipMemPool_t mem_pool,
						     hipMemAllocationHandleType handle_type,
						     unsigned int flags)
{
	(void)shared_handle, (void)mem_pool, (void)handle_type, (void)flags;
	SIM_INIT_API();
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemPoolImportFromShareableHandle(hipMemPool_t *mem_pool, void *shared_handle,
						       hipMemAllocationHandleType handle_type,
						       unsigned int flags)
{
	(void)mem_pool, (void)shared_handle, (void)handle_type, (void)flags;
	SIM_INIT_API();
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemPoolExportPointer(hipMemPoolPtrExportData *export_data, void *dev_ptr)
{
	(void)export_data, (void)dev_ptr;
	SIM_INIT_API();
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemPoolImportPointer(void **dev_ptr, hipMemPool_t mem_pool,
					   hipMemPoolPtrExportData *export_data)
{
	(void)dev_ptr, (void)mem_pool, (void)export_data;
	SIM_INIT_API();
	SIM_RETURN(hipSuccess);
}
