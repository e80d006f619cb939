/* SPDX-License-Identifier: MIT */
/*
 * mem_wrap.c - the other ways HIP hands out GPU-visible memory: pools,
 * the virtual memory API and IPC (docs/report.md lists each, with its
 * context); one HOOK() each (wrap.h).
 *
 * The allocating and freeing calls go to the core like hipMalloc does;
 * what they take differs only in how the pointer, the size and the device
 * come back. A handle (a physical allocation) keys its entry in place of a
 * pointer. The calls that allocate nothing but say where memory lives (a
 * pool's device, a mapping and who may touch it) update the core's tables
 * (shim_vmm.h) after the real call succeeded; hipMemUnmap is an unmap of
 * GPU-visible memory and is coordinated with the hook.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "wrap.h"

/* --- pools --- */

/* 1 + the device of a pool the shim has seen, 0 when it has not. */
static int pool_device(struct hipsvm_shim *s, hipMemPool_t pool)
{
	return hipsvm_vmm_pool_dev(&s->vmm, (uintptr_t)pool) + 1;
}

/* The size of what an imported pointer points at, asked of the runtime
 * (only once the import succeeded). */
static size_t range_size(void **pp)
{
	hipError_t (*f)(void **, size_t *, void *) =
		REAL(hipMemGetAddressRange, hipError_t (*)(void **, size_t *, void *));
	void *base = NULL, *p = pp ? *pp : NULL;
	size_t n = 0;

	if (!f || !p || f(&base, &n, p) != hipSuccess || base != p)
		return 0;
	return n;
}

HOOK(hipMallocFromPoolAsync, (void **ptr, size_t size, hipMemPool_t pool, hipStream_t stream),
     (ptr, size, pool, stream))
{
	struct hipsvm_call c;

	hipsvm_call_init(&c, HIPSVM_API_MALLOC_FROM_POOL, ptr, size);
	c.on_device = pool_device(s, pool);
	ALLOC(c, real(ptr, size, pool, stream), ptr ? *ptr : NULL, size);
}

HOOK(hipMemPoolImportPointer, (void **ptr, hipMemPool_t pool, hipMemPoolPtrExportData *data),
     (ptr, pool, data))
{
	struct hipsvm_call c;

	hipsvm_call_init(&c, HIPSVM_API_POOL_IMPORT, ptr, 0);
	c.on_device = pool_device(s, pool);
	ALLOC(c, real(ptr, pool, data), ptr ? *ptr : NULL, range_size(ptr));
}

/* The calls below allocate nothing: the real call, and on success what it
 * says about a pool or a mapping goes into the core's tables. */
HOOK(hipMemPoolCreate, (hipMemPool_t *pool, const hipMemPoolProps *props), (pool, props))
{
	PASS(real(pool, props),
	     if (pool && props && props->location.type == hipMemLocationTypeDevice)
		     hipsvm_vmm_pool_set(&s->vmm, (uintptr_t)*pool, props->location.id));
}

HOOK(hipMemPoolDestroy, (hipMemPool_t pool), (pool))
{
	PASS(real(pool), hipsvm_vmm_pool_forget(&s->vmm, (uintptr_t)pool);
	     hipsvm_shim_pool_event(s, "pool_destroy", (uintptr_t)pool, 0));
}

/* Trimming hands a pool's cached memory back to the device: the program's
 * allocations were counted as freed at hipFreeAsync already, so this is an
 * event for the trace and a count, not a free. */
HOOK(hipMemPoolTrimTo, (hipMemPool_t pool, size_t keep), (pool, keep))
{
	PASS(real(pool, keep), hipsvm_shim_pool_event(s, "pool_trim", (uintptr_t)pool, keep));
}

HOOK(hipDeviceGetDefaultMemPool, (hipMemPool_t *pool, int dev), (pool, dev))
{
	PASS(real(pool, dev), if (pool) hipsvm_vmm_pool_set(&s->vmm, (uintptr_t)*pool, dev));
}

HOOK(hipDeviceGetMemPool, (hipMemPool_t *pool, int dev), (pool, dev))
{
	PASS(real(pool, dev), if (pool) hipsvm_vmm_pool_set(&s->vmm, (uintptr_t)*pool, dev));
}

/* Hands out no memory: counted, so that a report shows pointers leaving. */
HOOK(hipMemPoolExportPointer, (hipMemPoolPtrExportData *data, void *ptr), (data, ptr))
{
	PASS(real(data, ptr), hipsvm_shim_pool_event(s, "pool_export", (uintptr_t)ptr, 0));
}

/* --- the virtual memory API --- */

/* The device of an allocation's location: ROCm 6 moved the location from
 * offset 4 to offset 8 of hipMemAllocationProp. 1 + device, 0 if none. */
static int prop_device(const hipMemAllocationProp *prop)
{
	hipError_t (*ver)(int *) = REAL(hipRuntimeGetVersion, hipError_t (*)(int *));
	const hipMemLocation *loc;
	int v = 0;

	if (!prop)
		return 0;
	if (ver && ver(&v) == hipSuccess && v >= 60000000)
		loc = (const hipMemLocation *)((const char *)prop + 8);
	else
		loc = &prop->location;
	return loc->type == hipMemLocationTypeDevice && loc->id >= 0 ? loc->id + 1 : 0;
}

HOOK(hipMemCreate, (hipMemGenericAllocationHandle_t *handle, size_t size,
		    const hipMemAllocationProp *prop, unsigned long long flags),
     (handle, size, prop, flags))
{
	struct hipsvm_call c;

	hipsvm_call_init(&c, HIPSVM_API_MEM_CREATE, (void **)handle, size);
	c.keyed = true;
	c.on_device = prop_device(prop);
	ALLOC(c, real(handle, size, prop, flags), handle ? *handle : NULL, size);
}

HOOK(hipMemRelease, (hipMemGenericAllocationHandle_t handle), (handle))
{
	FREE(HIPSVM_API_MEM_RELEASE, handle, real(handle));
}

/* Address space only: counted and traced, nothing allocated. */
HOOK(hipMemAddressReserve, (void **ptr, size_t size, size_t align, void *addr,
			    unsigned long long flags),
     (ptr, size, align, addr, flags))
{
	PASS(real(ptr, size, align, addr, flags),
	     hipsvm_shim_vmm_event(s, "vmm_reserve", ptr ? (uintptr_t)*ptr : 0, size));
}

/* A mapping may be touched by the device of its physical allocation, and
 * then by whoever hipMemSetAccess names. */
HOOK(hipMemMap, (void *ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle,
		 unsigned long long flags),
     (ptr, size, offset, handle, flags))
{
	PASS(real(ptr, size, offset, handle, flags),
	     hipsvm_shim_vmm_mapped(s, (uintptr_t)ptr, size, (uintptr_t)handle));
}

/* The core reads the descriptors in HIP's layout (shim.h). */
_Static_assert(sizeof(hipMemAccessDesc) == sizeof(struct hipsvm_access_desc) &&
	       offsetof(hipMemAccessDesc, location.id) ==
		       offsetof(struct hipsvm_access_desc, location.id) &&
	       offsetof(hipMemAccessDesc, flags) == offsetof(struct hipsvm_access_desc, flags),
	       "hipMemAccessDesc as the core reads it");

HOOK(hipMemSetAccess, (void *ptr, size_t size, const hipMemAccessDesc *desc, size_t count),
     (ptr, size, desc, count))
{
	PASS(real(ptr, size, desc, count),
	     hipsvm_shim_vmm_access(s, (uintptr_t)ptr, size,
				    (const struct hipsvm_access_desc *)desc, count));
}

/* An unmap of GPU-visible memory: coordinated with the hook (event: what
 * is counted and traced after it succeeded, or NULL). */
static hipError_t vmm_unmap(struct hipsvm_shim *s, hipError_t (*real)(void *, size_t), void *ptr,
			    size_t size, const char *event)
{
	struct hipsvm_unmap u;
	hipError_t rc;
	int e;

	hipsvm_shim_vmm_unmap_begin(s, &u, (uintptr_t)ptr, size);
	rc = real(ptr, size);
	e = errno;
	hipsvm_shim_vmm_unmap_end(s, &u, rc);
	if (rc == hipSuccess && event)
		hipsvm_shim_vmm_event(s, event, (uintptr_t)ptr, size);
	errno = e;
	return rc;
}

HOOK(hipMemUnmap, (void *ptr, size_t size), (ptr, size))
{
	return vmm_unmap(s, real, ptr, size, NULL);
}

/* Mappings still in the range go with it: coordinated as hipMemUnmap's. */
HOOK(hipMemAddressFree, (void *ptr, size_t size), (ptr, size))
{
	return vmm_unmap(s, real, ptr, size, "vmm_free");
}

/* --- IPC --- */

/* Imported memory belongs to the importing (current) device's primary
 * context; its size comes from the runtime. */
HOOK(hipIpcOpenMemHandle, (void **ptr, hipIpcMemHandle_t handle, unsigned flags),
     (ptr, handle, flags))
{
	struct hipsvm_call c;

	hipsvm_call_init(&c, HIPSVM_API_IPC_OPEN, ptr, 0);
	c.flags = flags;
	ALLOC(c, real(ptr, handle, flags), ptr ? *ptr : NULL, range_size(ptr));
}

HOOK(hipIpcCloseMemHandle, (void *ptr), (ptr))
{
	FREE(HIPSVM_API_IPC_CLOSE, ptr, real(ptr));
}
