/* SPDX-License-Identifier: MIT */
/*
 * hip_wrap.c - the HIP wrappers. Each is thin: find the real function, hand
 * the call to the core (shim_alloc.c), give back the real call's result and
 * errno untouched. A wrapper re-entered from inside the real runtime (an
 * internal call through the PLT) passes straight through: the outer call
 * is the one that counts.
 */
#include <errno.h>
#include <string.h>

#include "boot.h"
#include "hip_abi.h"
#include "shim/shim.h"
#include "table.h"
#include "wrap.h"

/* --- allocations --- */

typedef hipError_t (*malloc_fn)(void **, size_t);
typedef hipError_t (*malloc_flags_fn)(void **, size_t, unsigned);
typedef hipError_t (*malloc_async_fn)(void **, size_t, hipStream_t);
typedef hipError_t (*pitch_fn)(void **, size_t *, size_t, size_t);
typedef hipError_t (*free_fn)(void *);
typedef hipError_t (*free_async_fn)(void *, hipStream_t);
typedef hipError_t (*register_fn)(void *, size_t, unsigned);


static int call_malloc(struct hipsvm_call *c)
{
	return ((malloc_fn)((struct a_args *)c->args)->real)(c->ptr, c->size);
}

static int call_malloc_flags(struct hipsvm_call *c)
{
	return ((malloc_flags_fn)((struct a_args *)c->args)->real)(c->ptr, c->size, c->flags);
}

static int call_malloc_async(struct hipsvm_call *c)
{
	struct a_args *a = c->args;

	return ((malloc_async_fn)a->real)(c->ptr, c->size, a->stream);
}

static int call_pitch(struct hipsvm_call *c)
{
	struct a_args *a = c->args;
	int rc = ((pitch_fn)a->real)(c->ptr, a->pitch, a->width, a->height);

	/* What the allocation covers: the pitch the runtime chose, per row. */
	c->size = rc == hipSuccess && a->pitch ? *a->pitch * a->height : 0;
	return rc;
}

static int call_free(struct hipsvm_call *c)
{
	return ((free_fn)((struct a_args *)c->args)->real)(*c->ptr);
}

static int call_free_async(struct hipsvm_call *c)
{
	struct a_args *a = c->args;

	return ((free_async_fn)a->real)(*c->ptr, a->stream);
}

static int call_register(struct hipsvm_call *c)
{
	return ((register_fn)((struct a_args *)c->args)->real)(*c->ptr, c->size, c->flags);
}


HIPSVM_EXPORT hipError_t hipMalloc(void **ptr, size_t size)
{
	WRAP_BEGIN(hipMalloc);
	if (!s)
		return ((malloc_fn)real)(ptr, size);
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC, .ptr = ptr, .size = size,
				 .real = call_malloc, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipMallocManaged(void **ptr, size_t size, unsigned flags)
{
	WRAP_BEGIN(hipMallocManaged);
	if (!s)
		return ((malloc_flags_fn)real)(ptr, size, flags);
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC_MANAGED, .ptr = ptr, .size = size, .flags = flags,
				 .real = call_malloc_flags, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipHostMalloc(void **ptr, size_t size, unsigned flags)
{
	WRAP_BEGIN(hipHostMalloc);
	if (!s)
		return ((malloc_flags_fn)real)(ptr, size, flags);
	struct hipsvm_call c = { .api = HIPSVM_API_HOST_MALLOC, .ptr = ptr, .size = size, .flags = flags,
				 .real = call_malloc_flags, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipHostAlloc(void **ptr, size_t size, unsigned flags)
{
	WRAP_BEGIN(hipHostAlloc);
	if (!s)
		return ((malloc_flags_fn)real)(ptr, size, flags);
	struct hipsvm_call c = { .api = HIPSVM_API_HOST_ALLOC, .ptr = ptr, .size = size, .flags = flags,
				 .real = call_malloc_flags, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipMallocHost(void **ptr, size_t size)
{
	WRAP_BEGIN(hipMallocHost);
	if (!s)
		return ((malloc_fn)real)(ptr, size);
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC_HOST, .ptr = ptr, .size = size,
				 .real = call_malloc, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipExtMallocWithFlags(void **ptr, size_t size, unsigned flags)
{
	WRAP_BEGIN(hipExtMallocWithFlags);
	if (!s)
		return ((malloc_flags_fn)real)(ptr, size, flags);
	struct hipsvm_call c = { .api = flags == hipMallocSignalMemory ? HIPSVM_API_EXT_MALLOC_SIGNAL : HIPSVM_API_EXT_MALLOC_WITH_FLAGS, .ptr = ptr, .size = size, .flags = flags,
				 .real = call_malloc_flags, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	WRAP_BEGIN(hipMallocPitch);
	if (!s)
		return ((pitch_fn)real)(ptr, pitch, width, height);
	a.pitch = pitch;
	a.width = width;
	a.height = height;
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC_PITCH, .ptr = ptr, .size = width * height,
				 .real = call_pitch, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipMallocAsync(void **ptr, size_t size, hipStream_t stream)
{
	WRAP_BEGIN(hipMallocAsync);
	if (!s)
		return ((malloc_async_fn)real)(ptr, size, stream);
	a.stream = stream;
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC_ASYNC, .ptr = ptr, .size = size,
				 .real = call_malloc_async, .args = &a };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipHostRegister(void *host, size_t size, unsigned flags)
{
	WRAP_BEGIN(hipHostRegister);
	if (!s)
		return ((register_fn)real)(host, size, flags);
	struct hipsvm_call c = { .api = HIPSVM_API_HOST_REGISTER, .ptr = &host, .size = size, .flags = flags,
				 .real = call_register, .args = &a };
	return run(s, &c, true);
}

/* --- frees --- */

hipError_t hipsvm_wrap_free(enum hipsvm_row_id id, enum hipsvm_api api, void *p)
{
	void *real = hipsvm_real(id);
	struct hipsvm_shim *s;
	struct a_args a = { 0 };

	if (!real)
		return hipsvm_missing(id);
	s = enter();
	if (!s)
		return ((free_fn)real)(p);
	a.real = real;
	struct hipsvm_call c = { .api = api, .ptr = &p, .size = 0,
				 .real = call_free, .args = &a };
	return run(s, &c, false);
}

HIPSVM_EXPORT hipError_t hipFree(void *p)
{
	return hipsvm_wrap_free(HIPSVM_ROW_hipFree, HIPSVM_API_FREE, p);
}

HIPSVM_EXPORT hipError_t hipHostFree(void *p)
{
	return hipsvm_wrap_free(HIPSVM_ROW_hipHostFree, HIPSVM_API_HOST_FREE, p);
}

HIPSVM_EXPORT hipError_t hipFreeHost(void *p)
{
	return hipsvm_wrap_free(HIPSVM_ROW_hipFreeHost, HIPSVM_API_HOST_FREE, p);
}

HIPSVM_EXPORT hipError_t hipHostUnregister(void *p)
{
	return hipsvm_wrap_free(HIPSVM_ROW_hipHostUnregister, HIPSVM_API_HOST_UNREGISTER, p);
}

HIPSVM_EXPORT hipError_t hipFreeAsync(void *p, hipStream_t stream)
{
	WRAP_BEGIN(hipFreeAsync);
	if (!s)
		return ((free_async_fn)real)(p, stream);
	a.stream = stream;
	struct hipsvm_call c = { .api = HIPSVM_API_FREE_ASYNC, .ptr = &p, .size = 0,
				 .real = call_free_async, .args = &a };
	return run(s, &c, false);
}

/* --- hipGetProcAddress (ROCm 6.1+) --- */

typedef hipError_t (*gpa_fn)(const char *, void **, int, uint64_t, void *);

/* Pointers handed out by the runtime skip the PLT, and so the shim: give the
 * shim's wrapper instead, and keep the runtime's as the real function. */
HIPSVM_EXPORT hipError_t hipGetProcAddress(const char *symbol, void **pfn, int version,
					   uint64_t flags, void *status)
{
	gpa_fn real = REAL(hipGetProcAddress, gpa_fn);
	struct hipsvm_row *row;
	hipError_t rc;
	int saved;

	if (!real)
		return hipsvm_missing(HIPSVM_ROW_hipGetProcAddress);
	rc = real(symbol, pfn, version, flags, status);
	saved = errno;
	row = hipsvm_row_by_name(symbol);
	if (rc == hipSuccess && pfn && *pfn && row && row->hooked && row->lib == HIPSVM_LIB_HIP &&
	    hipsvm_ready()) {
		enum hipsvm_row_id id = (enum hipsvm_row_id)(row - hipsvm_rows);
		void *none = NULL;

		/* A runtime whose own symbols are interposable hands out what
		 * the global scope binds: the shim's wrapper already. */
		if (*pfn != hipsvm_wrapper(id))
			__atomic_compare_exchange_n(&row->real, &none, *pfn, false,
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		*pfn = hipsvm_wrapper(id);
	}
	errno = saved;
	return rc;
}
