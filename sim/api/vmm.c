/* SPDX-License-Identifier: MIT */
/*
 * vmm.c - the virtual memory API as ROCm 5.2.3 has it (hip_vm.cpp). There,
 * only hipMemCreate does something: it allocates device memory (through the
 * allocation map here, so it takes the page-fault path) and the handle
 * records it with its properties; hipMemRelease frees it. Reserving an
 * address range, mapping, unmapping, access and retaining check their
 * arguments and succeed without doing anything (a reservation writes no
 * address); exporting and importing shareable handles, with their argument
 * checks passed, are hipErrorNotSupported. The simulator answers the same.
 * Handles are checked against the live ones, so a stale handle is
 * hipErrorInvalidValue rather than a crash.
 */
#include "api/api.h"
#include "gpu/gpu.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>

/* ROCclr's memBaseAddrAlign_ for a ROCm device: 8 * sizeof(int64_t[16]),
 * a figure in bits that hipMemGetAllocationGranularity reports as bytes. */
#define VMM_GRANULARITY 1024u

struct ihipMemGenericAllocationHandle {
	uint32_t magic;
	void *ptr;
	size_t size;
	hipMemAllocationProp prop;
	struct ihipMemGenericAllocationHandle *next;
};

#define VMM_MAGIC 0x564d4d48u	/* "VMMH" */

static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ihipMemGenericAllocationHandle *handles;

static bool device_ok(int id)
{
	return id >= 0 && (unsigned)id < sim.ngpu;
}

static bool prop_ok(const hipMemAllocationProp *prop)
{
	return prop && prop->type == hipMemAllocationTypePinned &&
	       prop->location.type == hipMemLocationTypeDevice && device_ok(prop->location.id);
}

SIM_API hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
					unsigned long long flags)
{
	(void)size, (void)alignment, (void)addr;
	SIM_INIT_API();
	if (!ptr || flags != 0)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemAddressFree(void *devPtr, size_t size)
{
	SIM_INIT_API();
	if (!devPtr || size == 0)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size,
				const hipMemAllocationProp *prop, unsigned long long flags)
{
	struct ihipMemGenericAllocationHandle *h;
	struct hipsvm_context *c;
	struct sim_alloc *a;
	struct sim_gpu *g;
	int dev;

	SIM_INIT_API();
	if (!handle || size == 0 || flags != 0 || !prop_ok(prop))
		SIM_RETURN(hipErrorInvalidValue);
	if (prop->requestedHandleType != hipMemHandleTypeNone)
		SIM_RETURN(hipErrorNotSupported);
	dev = prop->location.id;
	g = sim_gpu(dev);
	if (!g || size > sim.mem_capacity)
		SIM_RETURN(hipErrorOutOfMemory);
	if (size % VMM_GRANULARITY)
		SIM_RETURN(hipErrorInvalidValue);
	c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_MALLOC, dev);
	h = calloc(1, sizeof(*h));
	if (!c || !h || sim_alloc_new(size, HIPSVM_KIND_DEVICE, c->id, dev, 0, NULL, &a) != hipSuccess) {
		free(h);
		SIM_RETURN(hipErrorOutOfMemory);
	}
	h->magic = VMM_MAGIC;
	h->ptr = (void *)a->base;
	h->size = size;
	h->prop = *prop;
	sim_alloc_set_role(h->ptr, SIM_ROLE_VMM, h);
	pthread_mutex_lock(&vmm_lock);
	h->next = handles;
	handles = h;
	pthread_mutex_unlock(&vmm_lock);
	*handle = h;
	SIM_RETURN(hipSuccess);
}

/* Caller holds vmm_lock. */
static struct ihipMemGenericAllocationHandle **find(hipMemGenericAllocationHandle_t h)
{
	struct ihipMemGenericAllocationHandle **pp;

	for (pp = &handles; *pp; pp = &(*pp)->next)
		if (*pp == h)
			return pp;
	return NULL;
}

SIM_API hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle)
{
	struct ihipMemGenericAllocationHandle **pp, *h = NULL;
	struct sim_alloc *a;

	SIM_INIT_API();
	if (!handle)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	pp = find(handle);
	if (pp) {
		h = *pp;
		*pp = h->next;
	}
	pthread_mutex_unlock(&vmm_lock);
	if (!h)
		SIM_RETURN(hipErrorInvalidValue);
	/* ~GenericAllocation: ihipFree, which synchronises first */
	sim_device_sync(-1);
	a = sim_map_take(h->ptr, SIM_ROLE_VMM);
	if (a)
		sim_alloc_destroy(a);
	h->magic = 0;
	free(h);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemGetAllocationPropertiesFromHandle(hipMemAllocationProp *prop,
							   hipMemGenericAllocationHandle_t handle)
{
	hipError_t e = hipSuccess;

	SIM_INIT_API();
	if (!prop || !handle)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	if (find(handle))
		*prop = handle->prop;
	else
		e = hipErrorInvalidValue;
	pthread_mutex_unlock(&vmm_lock);
	SIM_RETURN(e);
}

SIM_API hipError_t hipMemGetAllocationGranularity(size_t *granularity,
						  const hipMemAllocationProp *prop,
						  hipMemAllocationGranularity_flags option)
{
	(void)option;
	SIM_INIT_API();
	if (!granularity || !prop_ok(prop))
		SIM_RETURN(hipErrorInvalidValue);
	*granularity = VMM_GRANULARITY;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemMap(void *ptr, size_t size, size_t offset,
			     hipMemGenericAllocationHandle_t handle, unsigned long long flags)
{
	SIM_INIT_API();
	if (!ptr || !handle || size == 0 || offset != 0 || flags != 0)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemUnmap(void *ptr, size_t size)
{
	(void)size;
	SIM_INIT_API();
	if (!ptr)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc,
				   size_t count)
{
	SIM_INIT_API();
	if (!ptr || size == 0 || !desc || count == 0)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemGetAccess(unsigned long long *flags, const hipMemLocation *location,
				   void *ptr)
{
	SIM_INIT_API();
	if (!flags || !location || !ptr)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t *handle, void *addr)
{
	SIM_INIT_API();
	if (!handle || !addr)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemExportToShareableHandle(void *shareableHandle,
						 hipMemGenericAllocationHandle_t handle,
						 hipMemAllocationHandleType handleType,
						 unsigned long long flags)
{
	(void)handleType;
	SIM_INIT_API();
	if (flags != 0 || !handle || !shareableHandle)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t *handle,
						   void *osHandle,
						   hipMemAllocationHandleType shHandleType)
{
	(void)shHandleType;
	SIM_INIT_API();
	if (!handle || !osHandle)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipErrorNotSupported);
}
