/* SPDX-License-Identifier: MIT */
/*
 * wrap.h - what every HIP wrapper (hip_wrap.c, mem_wrap.c) shares: the way
 * in (a wrapper re-entered from inside the real runtime, or from inside the
 * shim, passes straight through), the hand-over to the core, and the
 * arguments the core's real() callbacks need back.
 */
#ifndef HIPSVM_PRELOAD_WRAP_H
#define HIPSVM_PRELOAD_WRAP_H

#include <errno.h>

#include "boot.h"
#include "hip_abi.h"
#include "hooks.h"
#include "shim/shim.h"
#include "table.h"
#include "ucx.h"

#define REAL(name, type) ((type)hipsvm_real(HIPSVM_ROW_##name))

/* The shim for a wrapper, or NULL: pass through. */
static inline struct hipsvm_shim *enter(void)
{
	if (hipsvm_tls.in_hip || hipsvm_tls.guard)
		return NULL;
	return hipsvm_boot();
}

static inline int run(struct hipsvm_shim *s, struct hipsvm_call *c, bool alloc)
{
	int rc;

	hipsvm_ucx_join();
	{
		HIPSVM_IN_HIP();
		rc = alloc ? hipsvm_shim_alloc(s, c) : hipsvm_shim_free(s, c);
	}
	errno = c->saved_errno;
	return rc;
}

/* What a real() callback needs beyond the call itself. */
struct a_args {
	void *real;
	hipStream_t stream;
	size_t *pitch;
	size_t width, height, depth;
	unsigned elem;			/* hipMemAllocPitch's element size */
	const void *desc;		/* an array or allocation descriptor */
	void *out;			/* where a handle or a pitched pointer goes */
	hipMemPool_t pool;
	hipMemPoolPtrExportData *export_data;
	const hipIpcMemHandle_t *ipc;
	unsigned long long flags64;
};

/* Every wrapper starts so: the real function (or the "missing" answer),
 * and the shim, NULL when the call passes straight through. */
#define WRAP_BEGIN(name)						\
	void *real = hipsvm_real(HIPSVM_ROW_##name);			\
	struct hipsvm_shim *s;						\
	struct a_args a = { 0 };					\
	if (!real)							\
		return hipsvm_missing(HIPSVM_ROW_##name);		\
	s = enter();							\
	a.real = real

/* A freeing call that takes one pointer or handle (hipFree, hipHostFree,
 * hipMemRelease, hipIpcCloseMemHandle, hipFreeArray, ...): the core finds the
 * owner by it (hip_wrap.c). */
hipError_t hipsvm_wrap_free(enum hipsvm_row_id id, enum hipsvm_api api, void *p);

#endif
