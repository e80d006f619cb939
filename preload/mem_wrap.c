/* SPDX-License-Identifier: MIT */
/*
 * mem_wrap.c - the other ways HIP hands out GPU-visible memory: pools,
 * the virtual memory API, IPC, pitch and 3-D memory, page-locked host
 * memory and arrays (docs/report.md lists each, with its context).
 *
 * The allocating and freeing calls go to the core like hipMalloc does;
 * what they take differs only in how the pointer, the size and the device
 * come back. A handle (hipArray, a physical allocation) keys its entry in
 * place of a pointer. The calls that allocate nothing but say where memory
 * lives (a pool's device, a mapping and who may touch it) update the
 * core's tables (shim_vmm.h) after the real call succeeded; hipMemUnmap is
 * an unmap of GPU-visible memory and is coordinated with the hook.
 */
#include <errno.h>
#include <string.h>

#include "wrap.h"

/* --- pools --- */

typedef hipError_t (*pool_alloc_fn)(void **, size_t, hipMemPool_t, hipStream_t);
typedef hipError_t (*pool_import_fn)(void **, hipMemPool_t, hipMemPoolPtrExportData *);
typedef hipError_t (*pool_create_fn)(hipMemPool_t *, const hipMemPoolProps *);
typedef hipError_t (*pool_fn)(hipMemPool_t);
typedef hipError_t (*pool_trim_fn)(hipMemPool_t, size_t);
typedef hipError_t (*dev_pool_fn)(hipMemPool_t *, int);
typedef hipError_t (*range_fn)(void **, size_t *, void *);

/* 1 + the device of a pool the shim has seen, 0 when it has not. */
static int pool_device(struct hipsvm_shim *s, hipMemPool_t pool)
{
	return hipsvm_vmm_pool_dev(&s->vmm, (uintptr_t)pool) + 1;
}

static int call_pool_alloc(struct hipsvm_call *c)
{
	struct a_args *a = c->args;

	return ((pool_alloc_fn)a->real)(c->ptr, c->size, a->pool, a->stream);
}

HIPSVM_EXPORT hipError_t hipMallocFromPoolAsync(void **ptr, size_t size, hipMemPool_t pool,
						hipStream_t stream)
{
	WRAP_BEGIN(hipMallocFromPoolAsync);
	if (!s)
		return ((pool_alloc_fn)real)(ptr, size, pool, stream);
	a.pool = pool;
	a.stream = stream;
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC_FROM_POOL, .ptr = ptr, .size = size,
				 .real = call_pool_alloc, .args = &a,
				 .on_device = pool_device(s, pool) };
	return run(s, &c, true);
}

/* The size of what an imported pointer points at, asked of the runtime. */
static size_t range_size(void *p)
{
	range_fn f = REAL(hipMemGetAddressRange, range_fn);
	void *base = NULL;
	size_t n = 0;

	if (!f || !p || f(&base, &n, p) != hipSuccess || base != p)
		return 0;
	return n;
}

static int call_pool_import(struct hipsvm_call *c)
{
	struct a_args *a = c->args;
	int rc = ((pool_import_fn)a->real)(c->ptr, a->pool, a->export_data);

	c->size = rc == hipSuccess && c->ptr ? range_size(*c->ptr) : 0;
	return rc;
}

HIPSVM_EXPORT hipError_t hipMemPoolImportPointer(void **ptr, hipMemPool_t pool,
						 hipMemPoolPtrExportData *data)
{
	WRAP_BEGIN(hipMemPoolImportPointer);
	if (!s)
		return ((pool_import_fn)real)(ptr, pool, data);
	a.pool = pool;
	a.export_data = data;
	struct hipsvm_call c = { .api = HIPSVM_API_POOL_IMPORT, .ptr = ptr, .real = call_pool_import,
				 .args = &a, .on_device = pool_device(s, pool) };
	return run(s, &c, true);
}

/* The calls below allocate nothing: the real call, and on success what it
 * says about a pool or a mapping goes into the core's tables. */
#define PASS_BEGIN(name, type)						\
	type real = REAL(name, type);					\
	struct hipsvm_shim *s;						\
	hipError_t rc;							\
	int saved;							\
	if (!real)							\
		return hipsvm_missing(HIPSVM_ROW_##name);		\
	s = enter()
#define PASS_END()							\
	errno = saved;							\
	return rc

HIPSVM_EXPORT hipError_t hipMemPoolCreate(hipMemPool_t *pool, const hipMemPoolProps *props)
{
	PASS_BEGIN(hipMemPoolCreate, pool_create_fn);
	rc = real(pool, props);
	saved = errno;
	if (s && rc == hipSuccess && pool && props &&
	    props->location.type == hipMemLocationTypeDevice)
		hipsvm_vmm_pool_set(&s->vmm, (uintptr_t)*pool, props->location.id);
	PASS_END();
}

HIPSVM_EXPORT hipError_t hipMemPoolDestroy(hipMemPool_t pool)
{
	PASS_BEGIN(hipMemPoolDestroy, pool_fn);
	rc = real(pool);
	saved = errno;
	if (s && rc == hipSuccess) {
		hipsvm_vmm_pool_forget(&s->vmm, (uintptr_t)pool);
		hipsvm_shim_pool_event(s, "pool_destroy", (uintptr_t)pool, 0);
	}
	PASS_END();
}

/* Trimming hands a pool's cached memory back to the device: the program's
 * allocations were counted as freed at hipFreeAsync already, so this is an
 * event for the trace and a count, not a free. */
HIPSVM_EXPORT hipError_t hipMemPoolTrimTo(hipMemPool_t pool, size_t keep)
{
	PASS_BEGIN(hipMemPoolTrimTo, pool_trim_fn);
	rc = real(pool, keep);
	saved = errno;
	if (s && rc == hipSuccess)
		hipsvm_shim_pool_event(s, "pool_trim", (uintptr_t)pool, keep);
	PASS_END();
}

static hipError_t dev_pool(enum hipsvm_row_id id, hipMemPool_t *pool, int dev)
{
	dev_pool_fn real = (dev_pool_fn)hipsvm_real(id);
	struct hipsvm_shim *s;
	hipError_t rc;
	int saved;

	if (!real)
		return hipsvm_missing(id);
	s = enter();
	rc = real(pool, dev);
	saved = errno;
	if (s && rc == hipSuccess && pool)
		hipsvm_vmm_pool_set(&s->vmm, (uintptr_t)*pool, dev);
	errno = saved;
	return rc;
}

HIPSVM_EXPORT hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t *pool, int dev)
{
	return dev_pool(HIPSVM_ROW_hipDeviceGetDefaultMemPool, pool, dev);
}

HIPSVM_EXPORT hipError_t hipDeviceGetMemPool(hipMemPool_t *pool, int dev)
{
	return dev_pool(HIPSVM_ROW_hipDeviceGetMemPool, pool, dev);
}

/* --- the virtual memory API --- */

typedef hipError_t (*mem_create_fn)(hipMemGenericAllocationHandle_t *, size_t,
				    const hipMemAllocationProp *, unsigned long long);
typedef hipError_t (*mem_map_fn)(void *, size_t, size_t, hipMemGenericAllocationHandle_t,
				 unsigned long long);
typedef hipError_t (*mem_unmap_fn)(void *, size_t);
typedef hipError_t (*set_access_fn)(void *, size_t, const hipMemAccessDesc *, size_t);
typedef hipError_t (*version_fn)(int *);

/* The device of an allocation's location: ROCm 6 moved the location from
 * offset 4 to offset 8 of hipMemAllocationProp. 1 + device, 0 if none. */
static int prop_device(const hipMemAllocationProp *prop)
{
	version_fn ver = REAL(hipRuntimeGetVersion, version_fn);
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

static int call_mem_create(struct hipsvm_call *c)
{
	struct a_args *a = c->args;

	return ((mem_create_fn)a->real)((hipMemGenericAllocationHandle_t *)c->ptr, c->size, a->desc,
					a->flags64);
}

HIPSVM_EXPORT hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size,
				      const hipMemAllocationProp *prop, unsigned long long flags)
{
	WRAP_BEGIN(hipMemCreate);
	if (!s)
		return ((mem_create_fn)real)(handle, size, prop, flags);
	a.desc = prop;
	a.flags64 = flags;
	struct hipsvm_call c = { .api = HIPSVM_API_MEM_CREATE, .ptr = (void **)handle, .size = size,
				 .real = call_mem_create, .args = &a, .keyed = true,
				 .on_device = prop_device(prop) };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle)
{
	return hipsvm_wrap_free(HIPSVM_ROW_hipMemRelease, HIPSVM_API_MEM_RELEASE, handle);
}

typedef hipError_t (*reserve_fn)(void **, size_t, size_t, void *, unsigned long long);
typedef hipError_t (*address_free_fn)(void *, size_t);
typedef hipError_t (*pool_export_fn)(hipMemPoolPtrExportData *, void *);

/* Address space only: counted and traced, nothing allocated. */
HIPSVM_EXPORT hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t align, void *addr,
					      unsigned long long flags)
{
	PASS_BEGIN(hipMemAddressReserve, reserve_fn);
	rc = real(ptr, size, align, addr, flags);
	saved = errno;
	if (s && rc == hipSuccess)
		hipsvm_shim_vmm_event(s, "vmm_reserve", ptr ? (uintptr_t)*ptr : 0, size);
	PASS_END();
}

/* Mappings still in the range go with it: coordinated as hipMemUnmap's. */
struct address_free_args {
	address_free_fn real;
	void *ptr;
	size_t size;
};

static int call_address_free(void *arg)
{
	struct address_free_args *a = arg;

	return a->real(a->ptr, a->size);
}

HIPSVM_EXPORT hipError_t hipMemAddressFree(void *ptr, size_t size)
{
	struct address_free_args a = { REAL(hipMemAddressFree, address_free_fn), ptr, size };
	struct hipsvm_shim *s;
	hipError_t rc;

	if (!a.real)
		return hipsvm_missing(HIPSVM_ROW_hipMemAddressFree);
	s = enter();
	if (!s)
		return a.real(ptr, size);
	{
		HIPSVM_IN_HIP();
		rc = hipsvm_shim_vmm_unmap(s, (uintptr_t)ptr, size, call_address_free, &a);
	}
	if (rc == hipSuccess)
		hipsvm_shim_vmm_event(s, "vmm_free", (uintptr_t)ptr, size);
	return rc;
}

/* Hands out no memory: counted, so that a report shows pointers leaving. */
HIPSVM_EXPORT hipError_t hipMemPoolExportPointer(hipMemPoolPtrExportData *data, void *ptr)
{
	PASS_BEGIN(hipMemPoolExportPointer, pool_export_fn);
	rc = real(data, ptr);
	saved = errno;
	if (s && rc == hipSuccess)
		hipsvm_shim_pool_event(s, "pool_export", (uintptr_t)ptr, 0);
	PASS_END();
}

/* A mapping may be touched by the device of its physical allocation, and
 * then by whoever hipMemSetAccess names. */
HIPSVM_EXPORT hipError_t hipMemMap(void *ptr, size_t size, size_t offset,
				   hipMemGenericAllocationHandle_t handle, unsigned long long flags)
{
	PASS_BEGIN(hipMemMap, mem_map_fn);
	rc = real(ptr, size, offset, handle, flags);
	saved = errno;
	if (s && rc == hipSuccess)
		hipsvm_shim_vmm_mapped(s, (uintptr_t)ptr, size, (uintptr_t)handle);
	PASS_END();
}

HIPSVM_EXPORT hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc,
					 size_t count)
{
	uint64_t set = 0, clear = 0;
	size_t i;

	PASS_BEGIN(hipMemSetAccess, set_access_fn);
	rc = real(ptr, size, desc, count);
	saved = errno;
	for (i = 0; s && rc == hipSuccess && desc && i < count; i++) {
		int d = desc[i].location.id;

		if (desc[i].location.type != hipMemLocationTypeDevice || d < 0 || d >= HIPSVM_MAX_GPUS)
			continue;
		if (desc[i].flags == hipMemAccessFlagsProtNone)
			clear |= UINT64_C(1) << d;
		else
			set |= UINT64_C(1) << d;
	}
	if (s && (set | clear))
		hipsvm_vmm_access(&s->vmm, (uintptr_t)ptr, size, set, clear);
	PASS_END();
}

struct unmap_args {
	mem_unmap_fn real;
	void *ptr;
	size_t size;
};

static int call_mem_unmap(void *arg)
{
	struct unmap_args *u = arg;

	return u->real(u->ptr, u->size);
}

HIPSVM_EXPORT hipError_t hipMemUnmap(void *ptr, size_t size)
{
	struct unmap_args u = { REAL(hipMemUnmap, mem_unmap_fn), ptr, size };
	struct hipsvm_shim *s;
	hipError_t rc;

	if (!u.real)
		return hipsvm_missing(HIPSVM_ROW_hipMemUnmap);
	s = enter();
	if (!s)
		return u.real(ptr, size);
	HIPSVM_IN_HIP();
	rc = hipsvm_shim_vmm_unmap(s, (uintptr_t)ptr, size, call_mem_unmap, &u);
	return rc;
}

/* --- IPC --- */

typedef hipError_t (*ipc_open_fn)(void **, hipIpcMemHandle_t, unsigned);
typedef hipError_t (*ipc_close_fn)(void *);

static int call_ipc_open(struct hipsvm_call *c)
{
	struct a_args *a = c->args;
	int rc = ((ipc_open_fn)a->real)(c->ptr, *a->ipc, c->flags);

	c->size = rc == hipSuccess && c->ptr ? range_size(*c->ptr) : 0;
	return rc;
}

/* Imported memory belongs to the importing (current) device's primary
 * context; its size comes from the runtime. */
HIPSVM_EXPORT hipError_t hipIpcOpenMemHandle(void **ptr, hipIpcMemHandle_t handle, unsigned flags)
{
	WRAP_BEGIN(hipIpcOpenMemHandle);
	if (!s)
		return ((ipc_open_fn)real)(ptr, handle, flags);
	a.ipc = &handle;
	struct hipsvm_call c = { .api = HIPSVM_API_IPC_OPEN, .ptr = ptr, .flags = flags,
				 .real = call_ipc_open, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipIpcCloseMemHandle(void *ptr)
{
	return hipsvm_wrap_free(HIPSVM_ROW_hipIpcCloseMemHandle, HIPSVM_API_IPC_CLOSE, ptr);
}

/* --- pitch and 3-D memory, page-locked host memory --- */

typedef hipError_t (*malloc3d_fn)(hipPitchedPtr *, hipExtent);
typedef hipError_t (*alloc_pitch_fn)(void **, size_t *, size_t, size_t, unsigned);
typedef hipError_t (*alloc_host_fn)(void **, size_t);

static int call_malloc3d(struct hipsvm_call *c)
{
	struct a_args *a = c->args;
	hipPitchedPtr *pp = a->out;
	hipExtent e = { a->width, a->height, a->depth };
	int rc = ((malloc3d_fn)a->real)(pp, e);

	/* the pointer comes back inside the pitched pointer */
	if (rc == hipSuccess && pp) {
		*c->ptr = pp->ptr;
		c->size = pp->pitch * (e.height ? e.height : 1) * (e.depth ? e.depth : 1);
	}
	return rc;
}

HIPSVM_EXPORT hipError_t hipMalloc3D(hipPitchedPtr *pp, hipExtent extent)
{
	void *p = NULL;

	WRAP_BEGIN(hipMalloc3D);
	if (!s)
		return ((malloc3d_fn)real)(pp, extent);
	a.out = pp;
	a.width = extent.width;
	a.height = extent.height;
	a.depth = extent.depth;
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC_3D, .ptr = pp ? &p : NULL,
				 .size = extent.width * extent.height * extent.depth,
				 .real = call_malloc3d, .args = &a };
	return run(s, &c, true);
}

static int call_alloc_pitch(struct hipsvm_call *c)
{
	struct a_args *a = c->args;
	int rc = ((alloc_pitch_fn)a->real)(c->ptr, a->pitch, a->width, a->height, a->elem);

	c->size = rc == hipSuccess && a->pitch ? *a->pitch * a->height : 0;
	return rc;
}

HIPSVM_EXPORT hipError_t hipMemAllocPitch(void **ptr, size_t *pitch, size_t width, size_t height,
					  unsigned elem)
{
	WRAP_BEGIN(hipMemAllocPitch);
	if (!s)
		return ((alloc_pitch_fn)real)(ptr, pitch, width, height, elem);
	a.pitch = pitch;
	a.width = width;
	a.height = height;
	a.elem = elem;
	struct hipsvm_call c = { .api = HIPSVM_API_MEM_ALLOC_PITCH, .ptr = ptr, .size = width * height,
				 .real = call_alloc_pitch, .args = &a };
	return run(s, &c, true);
}

static int call_alloc_host(struct hipsvm_call *c)
{
	return ((alloc_host_fn)((struct a_args *)c->args)->real)(c->ptr, c->size);
}

HIPSVM_EXPORT hipError_t hipMemAllocHost(void **ptr, size_t size)
{
	WRAP_BEGIN(hipMemAllocHost);
	if (!s)
		return ((alloc_host_fn)real)(ptr, size);
	struct hipsvm_call c = { .api = HIPSVM_API_MEM_ALLOC_HOST, .ptr = ptr, .size = size,
				 .real = call_alloc_host, .args = &a };
	return run(s, &c, true);
}
