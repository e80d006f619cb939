/* SPDX-License-Identifier: MIT */
/*
 * hmm.c - pointer attributes, advice and prefetch on managed memory
 * (ROCm's hip_hmm.cpp). Advice is bookkeeping only: it is recorded and read
 * back by hipMemRangeGetAttribute; placement does not change. A prefetch to
 * a GPU maps the range on that GPU in stream order, without faults, as
 * svm_range_validate does.
 */
#include "sim.h"

#include <stdlib.h>

#define CPU_BIT 63

SIM_API hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attr, const void *ptr)
{
	struct sim_alloc a;

	sim_init();
	if (!attr || !ptr)
		return sim_ret(hipErrorInvalidValue);
	/* ROCm 5.x: memory it does not know is an error, not "unregistered" */
	if (!sim_lookup(ptr, &a))
		return sim_ret(hipErrorInvalidValue);
	memset(attr, 0, sizeof(*attr));
	attr->memoryType = a.kind == HIPSVM_KIND_DEVICE ? hipMemoryTypeDevice : hipMemoryTypeHost;
	attr->devicePointer = (void *)ptr;
	if (attr->memoryType == hipMemoryTypeHost)
		attr->hostPointer = (void *)ptr;
	attr->isManaged = a.kind == HIPSVM_KIND_MANAGED;
	attr->allocationFlags = a.flags;
	/* host_context memory reports the current device, as ROCm does */
	attr->device = a.ctx >= 0 ? a.ctx : sim_current_device();
	return sim_ret(hipSuccess);
}

static bool valid_location(int dev)
{
	return dev == hipCpuDeviceId || sim_gpu(dev) != NULL;
}

static hipError_t managed_range(const void *p, size_t n, struct sim_alloc *a)
{
	if (!p || n == 0)
		return hipErrorInvalidValue;
	if (!sim_lookup(p, a) || a->kind != HIPSVM_KIND_MANAGED ||
	    (uintptr_t)p + n < (uintptr_t)p || (uintptr_t)p + n > a->base + a->size)
		return hipErrorInvalidValue;
	return hipSuccess;
}

struct advice {
	int advice;
	int dev;
};

static void apply_advice(struct sim_alloc *a, void *arg)
{
	const struct advice *v = arg;
	unsigned bit = v->dev == hipCpuDeviceId ? CPU_BIT : (unsigned)v->dev;

	switch (v->advice) {
	case hipMemAdviseSetReadMostly: a->read_mostly = 1; break;
	case hipMemAdviseUnsetReadMostly: a->read_mostly = 0; break;
	case hipMemAdviseSetPreferredLocation: a->preferred = v->dev; break;
	case hipMemAdviseUnsetPreferredLocation: a->preferred = hipInvalidDeviceId; break;
	case hipMemAdviseSetAccessedBy: a->accessed_by |= UINT64_C(1) << bit; break;
	case hipMemAdviseUnsetAccessedBy: a->accessed_by &= ~(UINT64_C(1) << bit); break;
	default: break;		/* coarse/fine grain: the simulator is coherent */
	}
}

SIM_API hipError_t hipMemAdvise(const void *ptr, size_t count, hipMemoryAdvise advice, int device)
{
	struct advice v = { (int)advice, device };
	struct sim_alloc a;
	hipError_t e;

	sim_init();
	if ((advice < hipMemAdviseSetReadMostly || advice > hipMemAdviseUnsetAccessedBy) &&
	    advice != hipMemAdviseSetCoarseGrain && advice != hipMemAdviseUnsetCoarseGrain)
		return sim_ret(hipErrorInvalidValue);
	e = managed_range(ptr, count, &a);
	if (e != hipSuccess)
		return sim_ret(e);
	if (!valid_location(device))
		return sim_ret(hipErrorInvalidDevice);
	if (!sim_update(ptr, apply_advice, &v))
		return sim_ret(hipErrorInvalidValue);
	return sim_ret(hipSuccess);
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

static void note_prefetch(struct sim_alloc *a, void *arg)
{
	a->last_prefetch = *(int *)arg;
}

SIM_API hipError_t hipMemPrefetchAsync(const void *ptr, size_t count, int device, hipStream_t stream)
{
	struct prefetch_op *op;
	struct sim_stream *s;
	struct sim_alloc a;
	hipError_t e;

	sim_init();
	e = managed_range(ptr, count, &a);
	if (e != hipSuccess)
		return sim_ret(e);
	if (!valid_location(device))
		return sim_ret(hipErrorInvalidDevice);
	s = sim_stream_get(stream);
	if (!s)
		return sim_ret(hipErrorInvalidHandle);
	sim_update(ptr, note_prefetch, &device);
	op = calloc(1, sizeof(*op));
	if (!op)
		return sim_ret(hipErrorOutOfMemory);
	op->op.fn = prefetch_run;
	op->start = (uintptr_t)ptr;
	op->end = (uintptr_t)ptr + count;
	op->dev = device;
	sim_stream_enqueue(s, &op->op);
	return sim_ret(hipSuccess);
}

static hipError_t range_attribute(void *data, size_t size, hipMemRangeAttribute attr,
				  const struct sim_alloc *a)
{
	int *out = data;
	size_t n = size / sizeof(int), i = 0;
	unsigned d;

	if (!data || size < sizeof(int) || size % sizeof(int))
		return hipErrorInvalidValue;
	switch (attr) {
	case hipMemRangeAttributeReadMostly:
		out[0] = a->read_mostly;
		break;
	case hipMemRangeAttributePreferredLocation:
		out[0] = a->preferred;
		break;
	case hipMemRangeAttributeLastPrefetchLocation:
		out[0] = a->last_prefetch;
		break;
	case hipMemRangeAttributeCoherencyMode:
		out[0] = hipMemRangeCoherencyModeFineGrain;
		break;
	case hipMemRangeAttributeAccessedBy:
		if ((a->accessed_by >> CPU_BIT) & 1)
			out[i++] = hipCpuDeviceId;
		for (d = 0; d < sim.ngpu && i < n; d++)
			if ((a->accessed_by >> d) & 1)
				out[i++] = (int)d;
		for (; i < n; i++)
			out[i] = hipInvalidDeviceId;
		break;
	default:
		return hipErrorInvalidValue;
	}
	return hipSuccess;
}

SIM_API hipError_t hipMemRangeGetAttribute(void *data, size_t size, hipMemRangeAttribute attr,
					   const void *ptr, size_t count)
{
	struct sim_alloc a;
	hipError_t e;

	sim_init();
	e = managed_range(ptr, count, &a);
	if (e == hipSuccess)
		e = range_attribute(data, size, attr, &a);
	return sim_ret(e);
}

SIM_API hipError_t hipMemRangeGetAttributes(void **data, size_t *sizes, hipMemRangeAttribute *attrs,
					    size_t num, const void *ptr, size_t count)
{
	struct sim_alloc a;
	hipError_t e;
	size_t i;

	sim_init();
	if (!data || !sizes || !attrs || num == 0)
		return sim_ret(hipErrorInvalidValue);
	e = managed_range(ptr, count, &a);
	for (i = 0; i < num && e == hipSuccess; i++)
		e = range_attribute(data[i], sizes[i], attrs[i], &a);
	return sim_ret(e);
}

SIM_API hipError_t hipMemPtrGetInfo(void *ptr, size_t *size)
{
	struct sim_alloc a;

	sim_init();
	if (!ptr || !size)
		return sim_ret(hipErrorInvalidValue);
	if (!sim_lookup(ptr, &a))
		return sim_ret(hipErrorInvalidValue);
	*size = a.size;
	return sim_ret(hipSuccess);
}
