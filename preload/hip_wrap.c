/* SPDX-License-Identifier: MIT */
/*
 * hip_wrap.c - the HIP wrappers of plain allocations and frees, one HOOK()
 * each (wrap.h): describe the call to the core, make the real call, tell the
 * core what came back, give back the real call's result and errno untouched.
 */
#include <errno.h>
#include <string.h>

#include "wrap.h"

/* --- allocations --- */

hipError_t hipsvm_wrap_managed(struct hipsvm_shim *s, struct hipsvm_call *c)
{
	hipError_t (*managed)(void **, size_t, unsigned) =
		REAL(hipMallocManaged, hipError_t (*)(void **, size_t, unsigned));
	hipError_t rc;
	int e;

	rc = managed ? managed(c->ptr, c->size, hipMemAttachGlobal) : hipErrorOutOfMemory;
	e = errno;
	hipsvm_alloc_end(s, c, rc, rc == hipSuccess ? *c->ptr : NULL, c->size);
	errno = e;
	return c->rc;
}

/* hipMalloc and the calls of its shape: (void **ptr, size_t size[, flags]) */
#define ALLOC_PLAIN(api_, flags_, call)						\
	do {									\
		struct hipsvm_call c;						\
										\
		hipsvm_call_init(&c, (api_), ptr, size);			\
		c.flags = (flags_);						\
		ALLOC(c, call, ptr ? *ptr : NULL, size);			\
	} while (0)

HOOK(hipMalloc, (void **ptr, size_t size), (ptr, size))
{
	ALLOC_PLAIN(HIPSVM_API_MALLOC, 0, real(ptr, size));
}

HOOK(hipMallocManaged, (void **ptr, size_t size, unsigned flags), (ptr, size, flags))
{
	ALLOC_PLAIN(HIPSVM_API_MALLOC_MANAGED, flags, real(ptr, size, flags));
}

HOOK(hipHostMalloc, (void **ptr, size_t size, unsigned flags), (ptr, size, flags))
{
	ALLOC_PLAIN(HIPSVM_API_HOST_MALLOC, flags, real(ptr, size, flags));
}

HOOK(hipHostAlloc, (void **ptr, size_t size, unsigned flags), (ptr, size, flags))
{
	ALLOC_PLAIN(HIPSVM_API_HOST_ALLOC, flags, real(ptr, size, flags));
}

HOOK(hipMallocHost, (void **ptr, size_t size), (ptr, size))
{
	ALLOC_PLAIN(HIPSVM_API_MALLOC_HOST, 0, real(ptr, size));
}

HOOK(hipMemAllocHost, (void **ptr, size_t size), (ptr, size))
{
	ALLOC_PLAIN(HIPSVM_API_MEM_ALLOC_HOST, 0, real(ptr, size));
}

HOOK(hipExtMallocWithFlags, (void **ptr, size_t size, unsigned flags), (ptr, size, flags))
{
	ALLOC_PLAIN(flags == hipMallocSignalMemory ? HIPSVM_API_EXT_MALLOC_SIGNAL :
						     HIPSVM_API_EXT_MALLOC_WITH_FLAGS,
		    flags, real(ptr, size, flags));
}

HOOK(hipMallocAsync, (void **ptr, size_t size, hipStream_t stream), (ptr, size, stream))
{
	ALLOC_PLAIN(HIPSVM_API_MALLOC_ASYNC, 0, real(ptr, size, stream));
}

/* What a pitched allocation covers: the pitch the runtime chose, per row. */
HOOK(hipMallocPitch, (void **ptr, size_t *pitch, size_t width, size_t height),
     (ptr, pitch, width, height))
{
	struct hipsvm_call c;

	hipsvm_call_init(&c, HIPSVM_API_MALLOC_PITCH, ptr, width * height);
	ALLOC(c, real(ptr, pitch, width, height), ptr ? *ptr : NULL, pitch ? *pitch * height : 0);
}

HOOK(hipMemAllocPitch, (void **ptr, size_t *pitch, size_t width, size_t height, unsigned elem),
     (ptr, pitch, width, height, elem))
{
	struct hipsvm_call c;

	hipsvm_call_init(&c, HIPSVM_API_MEM_ALLOC_PITCH, ptr, width * height);
	ALLOC(c, real(ptr, pitch, width, height, elem), ptr ? *ptr : NULL,
	      pitch ? *pitch * height : 0);
}

/* The pointer comes back inside the pitched pointer. */
HOOK(hipMalloc3D, (hipPitchedPtr *pp, hipExtent extent), (pp, extent))
{
	struct hipsvm_call c;
	void *p = NULL;

	hipsvm_call_init(&c, HIPSVM_API_MALLOC_3D, pp ? &p : NULL,
			 extent.width * extent.height * extent.depth);
	ALLOC(c, real(pp, extent), pp ? pp->ptr : NULL,
	      pp ? pp->pitch * (extent.height ? extent.height : 1) *
			   (extent.depth ? extent.depth : 1) : 0);
}

/* The core keys the entry by the pointer given. */
HOOK(hipHostRegister, (void *host, size_t size, unsigned flags), (host, size, flags))
{
	struct hipsvm_call c;

	hipsvm_call_init(&c, HIPSVM_API_HOST_REGISTER, &host, size);
	c.flags = flags;
	ALLOC(c, real(host, size, flags), host, size);
}

/* --- frees --- */

HOOK(hipFree, (void *p), (p))
{
	FREE(HIPSVM_API_FREE, p, real(p));
}

HOOK(hipHostFree, (void *p), (p))
{
	FREE(HIPSVM_API_HOST_FREE, p, real(p));
}

HOOK(hipFreeHost, (void *p), (p))
{
	FREE(HIPSVM_API_HOST_FREE, p, real(p));
}

HOOK(hipHostUnregister, (void *p), (p))
{
	FREE(HIPSVM_API_HOST_UNREGISTER, p, real(p));
}

HOOK(hipFreeAsync, (void *p, hipStream_t stream), (p, stream))
{
	FREE(HIPSVM_API_FREE_ASYNC, p, real(p, stream));
}

/* --- hipGetProcAddress (ROCm 6.1+) --- */

/* Pointers handed out by the runtime skip the PLT, and so the shim: give the
 * shim's wrapper instead, and keep the runtime's as the real function. */
HOOK_DECLARE(hipGetProcAddress, (const char *symbol, void **pfn, int version, uint64_t flags,
				 void *status))
{
	hipGetProcAddress_fn real = (hipGetProcAddress_fn)hipsvm_real(HIPSVM_ROW_hipGetProcAddress);
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
