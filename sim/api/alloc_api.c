/* SPDX-License-Identifier: MIT */
/*
 * alloc_api.c - the HIP allocation calls. Validation follows ROCm
 * (docs/hip-edges.md; docs/simulator.md lists what was chosen where ROCm's
 * answer is not listed there). The context of each call comes from the core's API
 * table (hipsvm_ctxset_for_api), so the simulator and the shim agree on it.
 */
#include "api/api.h"
#include "api/graph.h"
#include "api/memory.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <unistd.h>

#define PITCH_ALIGN 256

static hipError_t alloc_via(enum hipsvm_api api, int dev, void **ptr, size_t size,
			    enum hipsvm_kind kind, unsigned flags)
{
	struct hipsvm_context *c = hipsvm_ctxset_for_api(&sim.ctx, api, dev);
	struct sim_alloc *a;
	hipError_t e;

	if (!c)
		return hipErrorInvalidDevice;
	e = sim_alloc_new(size, kind, c->id, dev, flags, NULL, &a);
	if (e == hipSuccess)
		*ptr = (void *)a->base;
	return e;
}

static hipError_t device_alloc(enum hipsvm_api api, void **ptr, size_t size, unsigned flags)
{
	if (!ptr)
		return hipErrorInvalidValue;
	if (!sim.ngpu)
		return hipErrorNoDevice;
	if (size == 0) {
		*ptr = NULL;
		return hipSuccess;
	}
	if (size > sim_max_alloc())
		return hipErrorOutOfMemory;		/* ihipMalloc, hip_memory.cpp:281 */
	return alloc_via(api, sim_current_device(), ptr, size, HIPSVM_KIND_DEVICE, flags);
}

SIM_API hipError_t hipMalloc(void **ptr, size_t size)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(device_alloc(HIPSVM_API_MALLOC, ptr, size, 0));
}

SIM_API hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	size_t p;

	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	if (!ptr || !pitch)
		SIM_RETURN(hipErrorInvalidValue);
	if (width == 0 || height == 0) {
		*ptr = NULL;
		*pitch = 0;
		SIM_RETURN(hipSuccess);
	}
	if (width > SIZE_MAX - PITCH_ALIGN)
		SIM_RETURN(hipErrorOutOfMemory);
	p = (width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
	if (height > SIZE_MAX / p)
		SIM_RETURN(hipErrorOutOfMemory);
	*pitch = p;
	SIM_RETURN(device_alloc(HIPSVM_API_MALLOC_PITCH, ptr, p * height, 0));
}

SIM_API hipError_t hipExtMallocWithFlags(void **ptr, size_t size, unsigned int flags)
{
	SIM_INIT_API();
	if (!ptr)
		SIM_RETURN(hipErrorInvalidValue);
	if (flags == hipMallocSignalMemory) {
		/* a signal lives in host_context and is exactly 8 bytes */
		if (size != 8)
			SIM_RETURN(hipErrorInvalidValue);
		SIM_RETURN(alloc_via(HIPSVM_API_EXT_MALLOC_SIGNAL, sim_current_device(),
				     ptr, size, HIPSVM_KIND_SIGNAL, flags));
	}
	/* 5.2.3 knows no other flag (hip_memory.cpp:472-490): the uncached
	 * one of later headers (0x3) is hipErrorInvalidValue */
	if (flags != hipDeviceMallocDefault && flags != hipDeviceMallocFinegrained)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(device_alloc(HIPSVM_API_EXT_MALLOC_WITH_FLAGS, ptr, size, flags));
}

SIM_API hipError_t hipMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	SIM_INIT_API();
	if (!ptr || size == 0)
		SIM_RETURN(hipErrorInvalidValue);
	if (flags != hipMemAttachGlobal && flags != hipMemAttachHost)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	if (size > sim_max_alloc())
		SIM_RETURN(hipErrorMemoryAllocation);	/* hip_hmm.cpp:221 */
	SIM_RETURN(alloc_via(HIPSVM_API_MALLOC_MANAGED, sim_current_device(), ptr, size,
			     HIPSVM_KIND_MANAGED, flags));
}

/* ROCm's hipHostMalloc: NULL first, then only coherent together with
 * non-coherent is refused (not by hipHostAlloc); other bits pass through
 * to the allocation's flags. */
static hipError_t host_alloc(enum hipsvm_api api, void **ptr, size_t size, unsigned flags)
{
	if (!ptr)
		return hipErrorInvalidValue;
	*ptr = NULL;
	if ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent) &&
	    api != HIPSVM_API_HOST_ALLOC)
		return hipErrorInvalidValue;
	if (size == 0) {
		*ptr = NULL;
		return hipSuccess;
	}
	if (!sim.ngpu)
		return hipErrorNoDevice;
	return alloc_via(api, sim_current_device(), ptr, size, HIPSVM_KIND_HOST, flags);
}

SIM_API hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(host_alloc(HIPSVM_API_HOST_MALLOC, ptr, size, flags));
}

SIM_API hipError_t hipMallocHost(void **ptr, size_t size)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(host_alloc(HIPSVM_API_MALLOC_HOST, ptr, size, 0));
}

/* ROCm 5.2.3's hipHostAlloc is ihipMalloc with the flags as they come
 * (hip_memory.cpp:1083): nothing refuses coherent with non-coherent. Its
 * memory stays host memory here (docs/hip-edges.md says why). */
SIM_API hipError_t hipHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(host_alloc(HIPSVM_API_HOST_ALLOC, ptr, size, flags));
}

SIM_API hipError_t hipMemAllocHost(void **ptr, size_t size)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(host_alloc(HIPSVM_API_MALLOC_HOST, ptr, size, 0));
}

SIM_API hipError_t hipFree(void *ptr)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(sim_free(ptr, true));
}

SIM_API hipError_t hipHostFree(void *ptr)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(sim_free(ptr, true));
}

SIM_API hipError_t hipFreeHost(void *ptr)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(sim_free(ptr, true));
}

/* ROCm's hipMallocAsync: from the current pool of the stream's device
 * (pool.c), and a size of 0 is an error there. */
SIM_API hipError_t hipMallocAsync(void **ptr, size_t size, hipStream_t stream)
{
	SIM_INIT_API();
	SIM_RETURN(sim_pool_malloc(ptr, size, NULL, stream));
}

SIM_API hipError_t hipFreeAsync(void *ptr, hipStream_t stream)
{
	struct sim_stream *s;

	SIM_INIT_API();
	if (!ptr)
		SIM_RETURN(hipErrorInvalidValue);
	s = sim_stream_get(stream);
	if (!s)
		SIM_RETURN(hipErrorInvalidValue);
	/* stream order: a pool block is reached when s gets to the free;
	 * anything else is freed after s's work (pool.c) */
	SIM_RETURN(sim_pool_free(ptr, s));
}

/* ROCm pins the range (hsa_amd_memory_lock): more than the machine's
 * memory, or pages that are not mapped, fail with hipErrorOutOfMemory. An
 * address registered before is not refused: a second registration at the
 * same address succeeds and adds nothing, as ROCm's map keeps the first.
 * 5.2.3 reads no flag (hip_memory.cpp:1001-1033): any is taken, and the
 * memory object's own flags carry none, so hipHostGetFlags answers 0. */
SIM_API hipError_t hipHostRegister(void *ptr, size_t size, unsigned int flags)
{
	struct hipsvm_context *c;
	struct sim_alloc *a;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	SIM_INIT_API();
	(void)flags;
	SIM_CAPTURE_SUPPORTED();
	if (!ptr || size == 0 || (uintptr_t)ptr + size < (uintptr_t)ptr)
		SIM_RETURN(hipErrorInvalidValue);
	if ((pages > 0 && psz > 0 && size / (size_t)psz > (size_t)pages) ||
	    !sim_range_mapped((uintptr_t)ptr, (uintptr_t)ptr + size))
		SIM_RETURN(hipErrorOutOfMemory);
	c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_HOST_REGISTER, sim_current_device());
	if (!c)
		SIM_RETURN(hipErrorInvalidDevice);
	SIM_RETURN(sim_alloc_new(size, HIPSVM_KIND_REGISTERED, c->id, sim_current_device(),
				 0, ptr, &a));
}

SIM_API hipError_t hipHostUnregister(void *ptr)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	if (!ptr)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(sim_unregister(ptr));
}

SIM_API hipError_t hipHostGetDevicePointer(void **dptr, void *hptr, unsigned int flags)
{
	struct sim_alloc a;

	SIM_INIT_API();
	(void)flags;	/* ROCm does not look at them */
	if (!dptr || !hptr)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_lookup(hptr, &a))
		SIM_RETURN(hipErrorInvalidValue);
	*dptr = hptr;	/* one address space: the device sees the host address */
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipHostGetFlags(unsigned int *flags, void *hptr)
{
	struct sim_alloc a;

	SIM_INIT_API();
	if (!flags || !hptr)
		SIM_RETURN(hipErrorInvalidValue);
	/* ROCm: the flags of any HIP memory (getMemFlags() >> 16) */
	if (!sim_lookup(hptr, &a))
		SIM_RETURN(hipErrorInvalidValue);
	*flags = a.flags;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemGetInfo(size_t *free_, size_t *total)
{
	int dev;

	SIM_INIT_API();
	if (!free_ || !total)
		SIM_RETURN(hipErrorInvalidValue);
	dev = sim_current_device();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	pthread_mutex_lock(&sim.mem_lock);
	*free_ = sim.mem_capacity - sim.mem_used[dev];
	*total = sim.mem_capacity;
	pthread_mutex_unlock(&sim.mem_lock);
	SIM_RETURN(hipSuccess);
}
