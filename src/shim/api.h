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
#include <stdint.h>
#include <stddef.h>

#define HIPSVM_CTX_HOST (-1)	/* context id of host_context; >= 0: primary of device N */

/* The HIP allocation calls and which context each uses (docs/design.md,
 * Contexts; ROCm 6.x hip_memory.cpp / hip_hmm.cpp): the one list, from which
 * enum hipsvm_api and the table of api.c are made.
 *   X(ID, name, context rule, kind, remembers the current device)
 * For the freeing rows, kind is what the call usually releases; the owner
 * is always found by pointer. The calls of MALLOC_FROM_POOL on make device
 * memory in the primary context of the device the call names (a pool's, a
 * location) or, failing that, the current one. */
#define HIPSVM_API_ROWS(X) \
	X(MALLOC, "hipMalloc", PRIMARY_CURRENT, DEVICE, false) \
	X(MALLOC_PITCH, "hipMallocPitch", PRIMARY_CURRENT, DEVICE, false) \
	X(MALLOC_3D, "hipMalloc3D", PRIMARY_CURRENT, DEVICE, false) \
	X(MALLOC_ASYNC, "hipMallocAsync", PRIMARY_CURRENT, DEVICE, false) \
	/* default or fine-grained */ \
	X(EXT_MALLOC_WITH_FLAGS, "hipExtMallocWithFlags", PRIMARY_CURRENT, DEVICE, false) \
	X(EXT_MALLOC_SIGNAL, "hipExtMallocWithFlags(hipMallocSignalMemory)", HOST, SIGNAL, false) \
	X(HOST_MALLOC, "hipHostMalloc", HOST, HOST, false) \
	X(EXT_HOST_ALLOC, "hipExtHostAlloc", HOST, HOST, false) \
	X(MALLOC_HOST, "hipMallocHost", HOST, HOST, false) \
	X(HOST_ALLOC, "hipHostAlloc", HOST, HOST, false) \
	X(MALLOC_MANAGED, "hipMallocManaged", HOST, MANAGED, true) \
	X(HOST_REGISTER, "hipHostRegister", HOST, REGISTERED, false) \
	X(FREE, "hipFree", BY_POINTER, DEVICE, false) \
	X(HOST_FREE, "hipHostFree", BY_POINTER, HOST, false) \
	X(FREE_ASYNC, "hipFreeAsync", BY_POINTER, DEVICE, false) \
	X(HOST_UNREGISTER, "hipHostUnregister", BY_POINTER, REGISTERED, false) \
	X(MALLOC_FROM_POOL, "hipMallocFromPoolAsync", PRIMARY_CURRENT, DEVICE, false) \
	X(POOL_IMPORT, "hipMemPoolImportPointer", PRIMARY_CURRENT, DEVICE, false) \
	/* a physical allocation (its handle is the key) */ \
	X(MEM_CREATE, "hipMemCreate", PRIMARY_CURRENT, DEVICE, false) \
	/* memory of another process, imported here */ \
	X(IPC_OPEN, "hipIpcOpenMemHandle", PRIMARY_CURRENT, DEVICE, false) \
	X(MEM_ALLOC_PITCH, "hipMemAllocPitch", PRIMARY_CURRENT, DEVICE, false) \
	X(MEM_ALLOC_HOST, "hipMemAllocHost", HOST, HOST, false) \
	/* arrays: the hipArray handle is the key */ \
	X(MALLOC_ARRAY, "hipMallocArray", PRIMARY_CURRENT, DEVICE, false) \
	X(MALLOC_3D_ARRAY, "hipMalloc3DArray", PRIMARY_CURRENT, DEVICE, false) \
	X(ARRAY_CREATE, "hipArrayCreate", PRIMARY_CURRENT, DEVICE, false) \
	X(ARRAY_3D_CREATE, "hipArray3DCreate", PRIMARY_CURRENT, DEVICE, false) \
	X(MEM_RELEASE, "hipMemRelease", BY_POINTER, DEVICE, false) \
	X(IPC_CLOSE, "hipIpcCloseMemHandle", BY_POINTER, DEVICE, false) \
	X(FREE_ARRAY, "hipFreeArray", BY_POINTER, DEVICE, false) \
	X(ARRAY_DESTROY, "hipArrayDestroy", BY_POINTER, DEVICE, false)

enum hipsvm_api {
#define HIPSVM_API_ENUM(id, name, rule, kind, remembers) HIPSVM_API_##id,
	HIPSVM_API_ROWS(HIPSVM_API_ENUM)
#undef HIPSVM_API_ENUM
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
extern const struct hipsvm_api_row hipsvm_api_table[HIPSVM_API_COUNT];

/* Bit i set when api i makes device memory in the current (or named)
 * device's primary context: the calls whose end has an inline common case
 * (shim.h), told from the table's own rows. */
#define HIPSVM_API_DEVICE_BIT(id, name, rule, kind, remembers)			\
	| (HIPSVM_RULE_##rule == HIPSVM_RULE_PRIMARY_CURRENT &&			\
	   HIPSVM_KIND_##kind == HIPSVM_KIND_DEVICE ? UINT64_C(1) << HIPSVM_API_##id : 0)
#define HIPSVM_API_DEVICE_MASK (0 HIPSVM_API_ROWS(HIPSVM_API_DEVICE_BIT))
_Static_assert(HIPSVM_API_COUNT <= 64, "HIPSVM_API_DEVICE_MASK is one word");

static inline bool hipsvm_api_makes_device(enum hipsvm_api api)
{
	return (unsigned)api < HIPSVM_API_COUNT && (HIPSVM_API_DEVICE_MASK >> api & 1);
}

/* The row of api; NULL for an api out of range. Inline: every allocation
 * and free asks. */
static inline const struct hipsvm_api_row *hipsvm_api_row(enum hipsvm_api api)
{
	return (unsigned)api < HIPSVM_API_COUNT ? &hipsvm_api_table[api] : NULL;
}
static inline bool hipsvm_kind_is_svm(enum hipsvm_kind k)
{
	return k == HIPSVM_KIND_MANAGED || k == HIPSVM_KIND_HOST ||
	       k == HIPSVM_KIND_REGISTERED || k == HIPSVM_KIND_SIGNAL;
}

#endif
