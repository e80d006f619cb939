/* SPDX-License-Identifier: MIT */
/*
 * api.c - the per-API table (api.h).
 */
#include "shim/api.h"

#include <stddef.h>

/*
 * ROCm 6.x hip_memory.cpp / hip_hmm.cpp. For the freeing rows, kind is what
 * the call usually releases; the owner is always found by pointer.
 */
static const struct hipsvm_api_row api_table[HIPSVM_API_COUNT] = {
	[HIPSVM_API_MALLOC] = { HIPSVM_API_MALLOC, "hipMalloc",
		HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	[HIPSVM_API_MALLOC_PITCH] = { HIPSVM_API_MALLOC_PITCH, "hipMallocPitch",
		HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	[HIPSVM_API_MALLOC_3D] = { HIPSVM_API_MALLOC_3D, "hipMalloc3D",
		HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	[HIPSVM_API_MALLOC_ASYNC] = { HIPSVM_API_MALLOC_ASYNC, "hipMallocAsync",
		HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	[HIPSVM_API_EXT_MALLOC_WITH_FLAGS] = { HIPSVM_API_EXT_MALLOC_WITH_FLAGS,
		"hipExtMallocWithFlags", HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	[HIPSVM_API_EXT_MALLOC_SIGNAL] = { HIPSVM_API_EXT_MALLOC_SIGNAL,
		"hipExtMallocWithFlags(hipMallocSignalMemory)", HIPSVM_RULE_HOST,
		HIPSVM_KIND_SIGNAL, false },
	[HIPSVM_API_HOST_MALLOC] = { HIPSVM_API_HOST_MALLOC, "hipHostMalloc",
		HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	[HIPSVM_API_EXT_HOST_ALLOC] = { HIPSVM_API_EXT_HOST_ALLOC, "hipExtHostAlloc",
		HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	[HIPSVM_API_MALLOC_HOST] = { HIPSVM_API_MALLOC_HOST, "hipMallocHost",
		HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	[HIPSVM_API_HOST_ALLOC] = { HIPSVM_API_HOST_ALLOC, "hipHostAlloc",
		HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	[HIPSVM_API_MALLOC_MANAGED] = { HIPSVM_API_MALLOC_MANAGED, "hipMallocManaged",
		HIPSVM_RULE_HOST, HIPSVM_KIND_MANAGED, true },
	[HIPSVM_API_HOST_REGISTER] = { HIPSVM_API_HOST_REGISTER, "hipHostRegister",
		HIPSVM_RULE_HOST, HIPSVM_KIND_REGISTERED, false },
	[HIPSVM_API_FREE] = { HIPSVM_API_FREE, "hipFree",
		HIPSVM_RULE_BY_POINTER, HIPSVM_KIND_DEVICE, false },
	[HIPSVM_API_HOST_FREE] = { HIPSVM_API_HOST_FREE, "hipHostFree",
		HIPSVM_RULE_BY_POINTER, HIPSVM_KIND_HOST, false },
	[HIPSVM_API_FREE_ASYNC] = { HIPSVM_API_FREE_ASYNC, "hipFreeAsync",
		HIPSVM_RULE_BY_POINTER, HIPSVM_KIND_DEVICE, false },
	[HIPSVM_API_HOST_UNREGISTER] = { HIPSVM_API_HOST_UNREGISTER, "hipHostUnregister",
		HIPSVM_RULE_BY_POINTER, HIPSVM_KIND_REGISTERED, false },
#define DEV_ROW(api, name) [api] = { api, name, HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false }
#define FREE_ROW(api, name) [api] = { api, name, HIPSVM_RULE_BY_POINTER, HIPSVM_KIND_DEVICE, false }
	DEV_ROW(HIPSVM_API_MALLOC_FROM_POOL, "hipMallocFromPoolAsync"),
	DEV_ROW(HIPSVM_API_POOL_IMPORT, "hipMemPoolImportPointer"),
	DEV_ROW(HIPSVM_API_MEM_CREATE, "hipMemCreate"),
	DEV_ROW(HIPSVM_API_IPC_OPEN, "hipIpcOpenMemHandle"),
	DEV_ROW(HIPSVM_API_MEM_ALLOC_PITCH, "hipMemAllocPitch"),
	[HIPSVM_API_MEM_ALLOC_HOST] = { HIPSVM_API_MEM_ALLOC_HOST, "hipMemAllocHost",
		HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	DEV_ROW(HIPSVM_API_MALLOC_ARRAY, "hipMallocArray"),
	DEV_ROW(HIPSVM_API_MALLOC_3D_ARRAY, "hipMalloc3DArray"),
	DEV_ROW(HIPSVM_API_ARRAY_CREATE, "hipArrayCreate"),
	DEV_ROW(HIPSVM_API_ARRAY_3D_CREATE, "hipArray3DCreate"),
	FREE_ROW(HIPSVM_API_MEM_RELEASE, "hipMemRelease"),
	FREE_ROW(HIPSVM_API_IPC_CLOSE, "hipIpcCloseMemHandle"),
	FREE_ROW(HIPSVM_API_FREE_ARRAY, "hipFreeArray"),
	FREE_ROW(HIPSVM_API_ARRAY_DESTROY, "hipArrayDestroy"),
#undef DEV_ROW
#undef FREE_ROW
};

const struct hipsvm_api_row *hipsvm_api_row(enum hipsvm_api api)
{
	if ((unsigned)api >= HIPSVM_API_COUNT)
		return NULL;
	return &api_table[api];
}

bool hipsvm_kind_is_svm(enum hipsvm_kind k)
{
	return k == HIPSVM_KIND_MANAGED || k == HIPSVM_KIND_HOST ||
	       k == HIPSVM_KIND_REGISTERED || k == HIPSVM_KIND_SIGNAL;
}
