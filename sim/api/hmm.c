/* SPDX-License-Identifier: MIT */
/*
 * hmm.c - pointer attributes, advice and prefetch on managed memory
 * (ROCm's hip_hmm.cpp). Advice is bookkeeping only: each call is recorded
 * over its range in the allocations it touches and read back by
 * hipMemRangeGetAttribute, page by page; placement does not change. Any
 * mapped host range takes advice, as the driver's SVM does. Managed memory
 * is SVM from its allocation on (ROCclr sets its attributes then), so all
 * of its pages count in a query; registered memory only where advice made
 * it an SVM range, as the KFD's get_attr reads only the ranges it has. A prefetch to
 * a GPU maps the range on that GPU in stream order, without faults, as
 * svm_range_validate does.
 */
#include "api/api.h"
#include "api/memory.h"
#include "gpu/gpu.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>
#include <sys/mman.h>

#define CPU_BIT 63

SIM_API hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attr, const void *ptr)
{
	struct sim_alloc a;

	SIM_INIT_API();
	if (!attr || !ptr)
		SIM_RETURN(hipErrorInvalidValue);
	/* ROCm 5.x: memory it does not know is an error, not "unregistered" */
	if (!sim_lookup(ptr, &a))
		SIM_RETURN(hipErrorInvalidValue);
	memset(attr, 0, sizeof(*attr));
	attr->memoryType = a.kind == HIPSVM_KIND_DEVICE ? hipMemoryTypeDevice : hipMemoryTypeHost;
	attr->devicePointer = (void *)ptr;
	if (attr->memoryType == hipMemoryTypeHost)
		attr->hostPointer = (void *)ptr;
	attr->isManaged = a.kind == HIPSVM_KIND_MANAGED;
	attr->allocationFlags = a.flags;
	/* host_context memory reports the current device, as ROCm does */
	attr->device = a.ctx >= 0 ? a.ctx : sim_current_device();
	SIM_RETURN(hipSuccess);
}

#define ADV_PREFETCH 1000	/* a prefetch record, next to the advice values */

struct sim_advice {
	uintptr_t start, end;
	int what;			/* a hipMemoryAdvise, or ADV_PREFETCH */
	int dev;
};

static bool valid_location(int dev)
{
	return dev == hipCpuDeviceId || sim_gpu(dev) != NULL;
}

static bool advice_ok(int advice)
{
	return (advice >= hipMemAdviseSetReadMostly && advice <= hipMemAdviseUnsetAccessedBy) ||
	       advice == hipMemAdviseSetCoarseGrain || advice == hipMemAdviseUnsetCoarseGrain;
}

/* ROCr takes advice, prefetches and queries in whole pages: the range
 * from the page of its start to the end of the page of its end
 * (runtime.cpp:1795-1796, 1880-1881, 1964-1965, 2103-2104). */
static uintptr_t page_down(uintptr_t x)
{
	return x & ~(uintptr_t)(SIM_PAGE - 1);
}

static uintptr_t page_up(uintptr_t x)
{
	return x > UINTPTR_MAX - (SIM_PAGE - 1) ? page_down(x) : page_down(x + SIM_PAGE - 1);
}

/* Caller holds map_lock for writing. */
static bool add_record(struct sim_alloc *a, uintptr_t lo, uintptr_t hi, int what, int dev)
{
	struct sim_advice *r;

	if (lo < a->base)
		lo = a->base;
	if (hi > a->base + a->size)
		hi = a->base + a->size;
	if (lo >= hi)
		return true;
	r = realloc(a->adv, (a->nadv + 1) * sizeof(*r));
	if (!r)
		return false;
	a->adv = r;
	r[a->nadv++] = (struct sim_advice){ lo, hi, what, dev };
	return true;
}

/* Records what over [lo, hi) in every allocation it touches. Device
 * memory refuses advice (no_device: the range holds none, checked first):
 * its CPU mapping is the device's (VM_IO | VM_PFNMAP), which the KFD's SVM
 * does not take. */
static hipError_t record_range(uintptr_t lo, uintptr_t hi, int what, int dev, bool no_device)
{
	struct sim_alloc *a, *first;
	hipError_t e = hipSuccess;

	lo = page_down(lo);
	hi = page_up(hi);

	pthread_rwlock_wrlock(&sim.map_lock);
	first = sim_map_find(lo);
	if (!first)
		first = sim_map_ceil(lo);
	for (a = first; no_device && a && a->base < hi; a = sim_map_next(a))
		if (a->kind == HIPSVM_KIND_DEVICE)
			e = hipErrorInvalidValue;
	for (a = first; e == hipSuccess && a && a->base < hi; a = sim_map_next(a))
		if (!add_record(a, lo, hi, what, dev))
			e = hipErrorOutOfMemory;
	pthread_rwlock_unlock(&sim.map_lock);
	return e;
}

/* The KFD's SVM takes any range of the process's address space that is
 * mapped (mincore tells, for anonymous and file memory alike). */
bool sim_range_mapped(uintptr_t lo, uintptr_t hi)
{
	return sim_vm_range_mapped(lo, hi);
}

/* ROCm: any host range goes to the driver's SVM; the device must be the
 * CPU or a GPU; every failure is hipErrorInvalidValue. */
SIM_API hipError_t hipMemAdvise(const void *ptr, size_t count, hipMemoryAdvise advice, int device)
{
	uintptr_t lo = (uintptr_t)ptr, hi = lo + count;

	SIM_INIT_API();
	if (!ptr || count == 0 || !valid_location(device) || !advice_ok((int)advice) || hi < lo)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_range_mapped(lo, hi))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(record_range(lo, hi, (int)advice, device, true));
}

struct prefetch_op {
	struct sim_op op;
	uintptr_t start, end;
	int dev;
};

static void prefetch_run(struct sim_op *op)
{
	struct prefetch_op *p = (struct prefetch_op *)op;

	if (p->dev != hipCpuDeviceId)
		sim_gpu_map_range(sim_gpu(p->dev), p->start, p->end);
}

/* ROCm: HIP memory of any kind, the range inside it; a destroyed stream is
 * hipErrorContextIsDestroyed. */
SIM_API hipError_t hipMemPrefetchAsync(const void *ptr, size_t count, int device, hipStream_t stream)
{
	struct prefetch_op *op;
	struct sim_stream *s;
	struct sim_alloc a;

	SIM_INIT_API();
	if (!ptr || count == 0)
		SIM_RETURN(hipErrorInvalidValue);
	s = sim_stream_get(stream);
	if (!s)
		SIM_RETURN(hipErrorContextIsDestroyed);
	if (!sim_lookup(ptr, &a) || (uintptr_t)ptr + count < (uintptr_t)ptr ||
	    (uintptr_t)ptr + count > a.base + a.size)
		SIM_RETURN(hipErrorInvalidValue);
	if (!valid_location(device))
		SIM_RETURN(hipErrorInvalidDevice);
	record_range((uintptr_t)ptr, (uintptr_t)ptr + count, ADV_PREFETCH, device, false);
	op = calloc(1, sizeof(*op));
	if (!op)
		SIM_RETURN(hipErrorOutOfMemory);
	op->op.fn = prefetch_run;
	op->start = (uintptr_t)ptr;
	op->end = (uintptr_t)ptr + count;
	op->dev = device;
	sim_stream_enqueue(s, &op->op);
	SIM_RETURN(hipSuccess);
}

/* The state of one address: the records that cover it, replayed. */
struct page_state {
	int read_mostly, preferred, prefetch;
	uint64_t accessed;	/* bit per GPU; bit 63: the CPU */
	bool covered;		/* some record covers it */
};

static unsigned loc_bit(int dev)
{
	return dev == hipCpuDeviceId ? CPU_BIT : (unsigned)dev;
}

static struct page_state state_at(const struct sim_alloc *a, uintptr_t x)
{
	struct page_state st = { 0, hipInvalidDeviceId, hipInvalidDeviceId, 0, false };
	unsigned i;

	for (i = 0; i < a->nadv; i++) {
		const struct sim_advice *r = &a->adv[i];

		if (x < r->start || x >= r->end)
			continue;
		st.covered = true;
		switch (r->what) {
		case hipMemAdviseSetReadMostly: st.read_mostly = 1; break;
		case hipMemAdviseUnsetReadMostly: st.read_mostly = 0; break;
		case hipMemAdviseSetPreferredLocation: st.preferred = r->dev; break;
		case hipMemAdviseUnsetPreferredLocation: st.preferred = hipInvalidDeviceId; break;
		case hipMemAdviseSetAccessedBy: st.accessed |= UINT64_C(1) << loc_bit(r->dev); break;
		case hipMemAdviseUnsetAccessedBy: st.accessed &= ~(UINT64_C(1) << loc_bit(r->dev)); break;
		case ADV_PREFETCH: st.prefetch = r->dev; break;
		default: break;	/* coarse/fine grain: the simulator is coherent */
		}
	}
	return st;
}

/* The range's state as the KFD reports it: read-mostly only if every page
 * is, a location only if every page agrees (hipInvalidDeviceId otherwise),
 * accessed-by the devices every page has. Of registered memory only the
 * pages some advice covers count (svm_range_get_attr walks the SVM ranges
 * it holds); none: the defaults. */
struct range_query {
	uintptr_t lo, hi;
	struct page_state st;
};

static void range_state(struct sim_alloc *a, void *arg)
{
	struct range_query *q = arg;
	struct page_state s;
	uintptr_t x = q->lo;
	unsigned i;
	bool first = true;

	q->st = (struct page_state){ 0, hipInvalidDeviceId, hipInvalidDeviceId, 0, false };
	for (;;) {
		uintptr_t next = q->hi;

		s = state_at(a, x);
		/* a registered page no advice covers is no SVM range: unseen */
		if (a->kind == HIPSVM_KIND_REGISTERED && !s.covered) {
		} else if (first) {
			q->st = s;
			first = false;
		} else {
			q->st.read_mostly &= s.read_mostly;
			if (q->st.preferred != s.preferred)
				q->st.preferred = hipInvalidDeviceId;
			if (q->st.prefetch != s.prefetch)
				q->st.prefetch = hipInvalidDeviceId;
			q->st.accessed &= s.accessed;
		}
		/* the next place where some record starts or ends */
		for (i = 0; i < a->nadv; i++) {
			if (a->adv[i].start > x && a->adv[i].start < next)
				next = a->adv[i].start;
			if (a->adv[i].end > x && a->adv[i].end < next)
				next = a->adv[i].end;
		}
		if (next >= q->hi)
			break;
		x = next;
	}
}

static hipError_t managed_range(const void *p, size_t n, struct sim_alloc *a)
{
	if (!p || n == 0)
		return hipErrorInvalidValue;
	/* hipamd checks no kind (hip_hmm.cpp:149) and ROCclr none without
	 * ROC_HMM_FLAGS tracking; the driver refuses device mappings, which
	 * device and hipHostMalloc memory are */
	if (!sim_lookup(p, a) ||
	    (a->kind != HIPSVM_KIND_MANAGED && a->kind != HIPSVM_KIND_REGISTERED) ||
	    (uintptr_t)p + n < (uintptr_t)p || (uintptr_t)p + n > a->base + a->size)
		return hipErrorInvalidValue;
	return hipSuccess;
}

/* ROCclr's GetSvmAttributes: one int for every attribute but AccessedBy,
 * which takes a multiple of 4 bytes (the GPUs first, then the CPU, the rest
 * hipInvalidDeviceId). */
static hipError_t range_attribute(void *data, size_t size, hipMemRangeAttribute attr,
				  const struct page_state *st)
{
	int *out = data;
	size_t n = size / sizeof(int), i = 0;
	unsigned d;

	if (!data)
		return hipErrorInvalidValue;
	switch (attr) {
	case hipMemRangeAttributeReadMostly:
	case hipMemRangeAttributePreferredLocation:
	case hipMemRangeAttributeLastPrefetchLocation:
	case hipMemRangeAttributeCoherencyMode:
		if (size != sizeof(int))
			return hipErrorInvalidValue;
		out[0] = attr == hipMemRangeAttributeReadMostly ? st->read_mostly
			: attr == hipMemRangeAttributePreferredLocation ? st->preferred
			: attr == hipMemRangeAttributeLastPrefetchLocation ? st->prefetch
			: hipMemRangeCoherencyModeFineGrain;
		return hipSuccess;
	case hipMemRangeAttributeAccessedBy:
		if (size % sizeof(int))
			return hipErrorInvalidValue;
		for (d = 0; d < sim.ngpu && i < n; d++)
			if ((st->accessed >> d) & 1)
				out[i++] = (int)d;
		if (i < n && ((st->accessed >> CPU_BIT) & 1))
			out[i++] = hipCpuDeviceId;
		for (; i < n; i++)
			out[i] = hipInvalidDeviceId;
		return hipSuccess;
	default:
		return hipErrorInvalidValue;
	}
}

static hipError_t query(const void *ptr, size_t count, struct page_state *st)
{
	struct range_query q = { page_down((uintptr_t)ptr), page_up((uintptr_t)ptr + count), { 0 } };
	struct sim_alloc a;
	hipError_t e = managed_range(ptr, count, &a);

	if (e != hipSuccess)
		return e;
	/* the records end where the allocation does */
	if (q.lo < a.base)
		q.lo = a.base;
	if (q.hi > a.base + a.size)
		q.hi = a.base + a.size;
	if (!sim_update(ptr, range_state, &q))
		return hipErrorInvalidValue;
	*st = q.st;
	return hipSuccess;
}

/* The grain of memory the runtime allocated itself, as ROCr's pointer
 * info gives it (map.h's sim_alloc_fine). */
static int grain_of(const struct sim_alloc *a)
{
	return sim_alloc_fine(a) ? hipMemRangeCoherencyModeFineGrain
				 : hipMemRangeCoherencyModeCoarseGrain;
}

/* The coherency mode alone of memory ROCr allocated or locked: ROCclr
 * answers it from hsa_amd_pointer_info and asks the driver nothing
 * (ROCclr rocdevice.cpp:2391-2410 and 2440-2443: nothing is left to ask;
 * ROCr's GetSvmAttrib calls the KFD only with attributes, runtime.cpp:1883),
 * so the range is not checked. 1: answered; 0: not such memory. */
static int coherency_of_known(void *data, size_t size, const void *ptr, hipError_t *e)
{
	struct sim_alloc a;

	if (!sim_lookup(ptr, &a) || a.kind == HIPSVM_KIND_MANAGED)
		return 0;
	if (size != sizeof(int)) {
		*e = hipErrorInvalidValue;
		return 1;
	}
	*(int *)data = grain_of(&a);
	*e = hipSuccess;
	return 1;
}

SIM_API hipError_t hipMemRangeGetAttribute(void *data, size_t size, hipMemRangeAttribute attr,
					   const void *ptr, size_t count)
{
	struct page_state st;
	hipError_t e;

	SIM_INIT_API();
	if (!data || size == 0 || !ptr || count == 0)
		SIM_RETURN(hipErrorInvalidValue);
	if (attr == hipMemRangeAttributeCoherencyMode && coherency_of_known(data, size, ptr, &e))
		SIM_RETURN(e);
	e = query(ptr, count, &st);
	if (e == hipSuccess)
		e = range_attribute(data, size, attr, &st);
	SIM_RETURN(e);
}

SIM_API hipError_t hipMemRangeGetAttributes(void **data, size_t *sizes, hipMemRangeAttribute *attrs,
					    size_t num, const void *ptr, size_t count)
{
	struct page_state st;
	hipError_t e;
	size_t i;

	SIM_INIT_API();
	if (!data || !sizes || !attrs || num == 0 || !ptr || count == 0)
		SIM_RETURN(hipErrorInvalidValue);
	e = query(ptr, count, &st);
	for (i = 0; i < num && e == hipSuccess; i++)
		e = range_attribute(data[i], sizes[i], attrs[i], &st);
	SIM_RETURN(e);
}

/* ROCm 5.2.3 checks the arguments and does nothing else. */
SIM_API hipError_t hipStreamAttachMemAsync(hipStream_t stream, void *dev_ptr, size_t length,
					   unsigned int flags)
{
	(void)flags;
	SIM_INIT_API();
	if (!stream || !dev_ptr || length == 0)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemPtrGetInfo(void *ptr, size_t *size)
{
	struct sim_alloc a;

	SIM_INIT_API();
	if (!ptr || !size)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_lookup(ptr, &a))
		SIM_RETURN(hipErrorInvalidValue);
	*size = a.size;
	SIM_RETURN(hipSuccess);
}
