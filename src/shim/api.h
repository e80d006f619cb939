/* SPDX-License-Identifier: MIT */
/*
 * api.h - the HIP allocation calls the shim hooks, and for each which context
 * HIP uses and what kind of memory it makes (docs/design.md, Contexts). The
 * router, the statistics and the report read it; the simulator's context model
 * (src/simcore/ctx_model.h) reads it to pick the context it charges.
 *
 * Pure data: no locks, safe anywhere, including signal handlers.
 */
#ifndef HIPSVM_API_H
#define HIPSVM_API_H

#include <stdbool.h>

#define HIPSVM_CTX_HOST (-1)	/* context id of host_context; >= 0: primary of device N */

/* The HIP allocation calls and which context each uses (docs/design.md, Contexts). */
enum hipsvm_api {
	HIPSVM_API_MALLOC,
	HIPSVM_API_MALLOC_PITCH,
	HIPSVM_API_MALLOC_3D,
	HIPSVM_API_MALLOC_ASYNC,
	HIPSVM_API_EXT_MALLOC_WITH_FLAGS,	/* default, fine-grained, uncached, contiguous */
	HIPSVM_API_EXT_MALLOC_SIGNAL,		/* hipExtMallocWithFlags(hipMallocSignalMemory) */
	HIPSVM_API_HOST_MALLOC,
	HIPSVM_API_EXT_HOST_ALLOC,
	HIPSVM_API_MALLOC_HOST,
	HIPSVM_API_HOST_ALLOC,
	HIPSVM_API_MALLOC_MANAGED,
	HIPSVM_API_HOST_REGISTER,
	HIPSVM_API_FREE,
	HIPSVM_API_HOST_FREE,
	HIPSVM_API_FREE_ASYNC,
	HIPSVM_API_HOST_UNREGISTER,
	/* device memory in the primary context of the device the call names
	 * (a pool's, a location) or, failing that, the current one */
	HIPSVM_API_MALLOC_FROM_POOL,
	HIPSVM_API_POOL_IMPORT,
	HIPSVM_API_MEM_CREATE,		/* a physical allocation (its handle is the key) */
	HIPSVM_API_IPC_OPEN,		/* memory of another process, imported here */
	HIPSVM_API_MEM_ALLOC_PITCH,
	HIPSVM_API_MEM_ALLOC_HOST,
	HIPSVM_API_MALLOC_ARRAY,	/* arrays: the hipArray handle is the key */
	HIPSVM_API_MALLOC_3D_ARRAY,
	HIPSVM_API_ARRAY_CREATE,
	HIPSVM_API_ARRAY_3D_CREATE,
	HIPSVM_API_MEM_RELEASE,
	HIPSVM_API_IPC_CLOSE,
	HIPSVM_API_FREE_ARRAY,
	HIPSVM_API_ARRAY_DESTROY,
	HIPSVM_API_COUNT
};

enum hipsvm_ctx_rule {
	HIPSVM_RULE_PRIMARY_CURRENT,	/* the current device's primary context */
	HIPSVM_RULE_HOST,		/* host_context */
	HIPSVM_RULE_BY_POINTER,		/* the context that owns the pointer */
};

/* What an allocation is; SVM kinds are the ones GPUs can fault on through the
 * CPU's address space, and so the ones whose unmap is coordinated. */
enum hipsvm_kind {
	HIPSVM_KIND_DEVICE,
	HIPSVM_KIND_MANAGED,
	HIPSVM_KIND_HOST,
	HIPSVM_KIND_REGISTERED,
	HIPSVM_KIND_SIGNAL,
	HIPSVM_KIND_COUNT
};

struct hipsvm_api_row {
	enum hipsvm_api api;
	const char *name;		/* "hipMalloc" */
	enum hipsvm_ctx_rule rule;
	enum hipsvm_kind kind;		/* for allocating calls */
	bool remembers_device;		/* hipMallocManaged remembers the current device */
};
const struct hipsvm_api_row *hipsvm_api_row(enum hipsvm_api api);
bool hipsvm_kind_is_svm(enum hipsvm_kind k);

#endif
