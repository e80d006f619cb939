/* SPDX-License-Identifier: MIT */
/*
 * table.h - the hook table: one row per function the shim hooks or needs.
 *
 * A row: the name, where its real function lives (HIP runtime or libc),
 * whether the shim exports a wrapper for it (hooked) and whether a runtime
 * may lack it (optional: hipGetProcAddress before ROCm 6.1, hipFreeHost...),
 * and the real pointer, resolved on first use through the seam
 * (seam.h). The exported wrappers are exactly the hooked rows: the version
 * script is made from them (gen-map.py) and tests/preload/test_exports
 * checks it against what the library exports.
 */
#ifndef HIPSVM_PRELOAD_TABLE_H
#define HIPSVM_PRELOAD_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/*  X(name, lib, hooked, optional) */
#define HIPSVM_HOOK_ROWS(X) \
	X(hipMalloc, HIP, 1, 0) \
	X(hipFree, HIP, 1, 0) \
	X(hipMallocManaged, HIP, 1, 0) \
	X(hipHostMalloc, HIP, 1, 0) \
	X(hipHostFree, HIP, 1, 0) \
	X(hipMallocHost, HIP, 1, 1) \
	X(hipHostAlloc, HIP, 1, 1) \
	X(hipExtMallocWithFlags, HIP, 1, 1) \
	X(hipMallocPitch, HIP, 1, 0) \
	X(hipMallocAsync, HIP, 1, 1) \
	X(hipFreeAsync, HIP, 1, 1) \
	X(hipHostRegister, HIP, 1, 0) \
	X(hipHostUnregister, HIP, 1, 0) \
	X(hipGetProcAddress, HIP, 1, 1) \
	X(hipFreeHost, HIP, 1, 1) \
	X(hipMallocFromPoolAsync, HIP, 1, 1) \
	X(hipMemPoolImportPointer, HIP, 1, 1) \
	X(hipMemPoolCreate, HIP, 1, 1) \
	X(hipMemPoolDestroy, HIP, 1, 1) \
	X(hipMemPoolTrimTo, HIP, 1, 1) \
	X(hipDeviceGetDefaultMemPool, HIP, 1, 1) \
	X(hipDeviceGetMemPool, HIP, 1, 1) \
	X(hipMemCreate, HIP, 1, 1) \
	X(hipMemRelease, HIP, 1, 1) \
	X(hipMemMap, HIP, 1, 1) \
	X(hipMemUnmap, HIP, 1, 1) \
	X(hipMemSetAccess, HIP, 1, 1) \
	X(hipMemAddressReserve, HIP, 1, 1) \
	X(hipMemAddressFree, HIP, 1, 1) \
	X(hipMemPoolExportPointer, HIP, 1, 1) \
	X(hipIpcOpenMemHandle, HIP, 1, 0) \
	X(hipIpcCloseMemHandle, HIP, 1, 0) \
	X(hipMalloc3D, HIP, 1, 0) \
	X(hipMemAllocPitch, HIP, 1, 1) \
	X(hipMemAllocHost, HIP, 1, 1) \
	X(hipMallocArray, HIP, 1, 0) \
	X(hipMalloc3DArray, HIP, 1, 0) \
	X(hipArrayCreate, HIP, 1, 1) \
	X(hipArray3DCreate, HIP, 1, 1) \
	X(hipFreeArray, HIP, 1, 0) \
	X(hipArrayDestroy, HIP, 1, 1) \
	X(hipMemGetAddressRange, HIP, 0, 1) \
	X(hipRuntimeGetVersion, HIP, 0, 1) \
	X(hipGetDevice, HIP, 0, 0) \
	X(hipGetDeviceCount, HIP, 0, 0) \
	X(hipMemAdvise, HIP, 0, 1) \
	X(hipGetLastError, HIP, 0, 0) \
	X(hipsvmSimAccess, HIP, 0, 1) \
	X(hipsvmSimSocketPath, HIP, 0, 1) \
	X(munmap, LIBC, 1, 0) \
	X(mremap, LIBC, 1, 0) \
	X(madvise, LIBC, 1, 0) \
	X(mmap, LIBC, 1, 0) \
	X(mmap64, LIBC, 1, 0) \
	X(shmdt, LIBC, 1, 0)

enum hipsvm_row_id {
#define HIPSVM_ROW_ENUM(name, lib, hooked, optional) HIPSVM_ROW_##name,
	HIPSVM_HOOK_ROWS(HIPSVM_ROW_ENUM)
#undef HIPSVM_ROW_ENUM
	HIPSVM_ROW_COUNT
};

enum hipsvm_row_lib { HIPSVM_LIB_HIP, HIPSVM_LIB_LIBC };

struct hipsvm_row {
	const char *name;
	enum hipsvm_row_lib lib;
	bool hooked;
	bool optional;
	void *wrapper;		/* the shim's exported function (hooked rows) */
	void *real;		/* resolved real function; atomic */
	int warned;		/* "not found" said once */
};

extern struct hipsvm_row hipsvm_rows[HIPSVM_ROW_COUNT];

/* The real function of a row, resolved on first use (under the thread's
 * recursion guard). NULL when there is none. Inline for the resolved case
 * (one acquire load): every wrapper and every callback of the core asks. */
void *hipsvm_real_resolve(enum hipsvm_row_id id);

/* The real function of a row as far as it is resolved: NULL before the
 * first lookup. The hot wrappers (munmap, mmap) take this and go out of
 * line on NULL, so that they set up no frame. */
static inline void *hipsvm_real_loaded(enum hipsvm_row_id id)
{
	return __atomic_load_n(&hipsvm_rows[id].real, __ATOMIC_ACQUIRE);
}

static inline void *hipsvm_real(enum hipsvm_row_id id)
{
	void *p = hipsvm_real_loaded(id);

	return __builtin_expect(p != NULL, 1) ? p : hipsvm_real_resolve(id);
}
/* The shim's exported wrapper of a hooked row (*_wrap.c); NULL for a row
 * that is not hooked. */
static inline void *hipsvm_wrapper(enum hipsvm_row_id id)
{
	return hipsvm_rows[id].wrapper;
}
/* Lookup of a row by name; NULL if the shim has none. */
struct hipsvm_row *hipsvm_row_by_name(const char *name);
/* Says once, clearly, that a HIP function has no real implementation to go
 * to, and gives the HIP error the wrapper returns (hipErrorNotInitialized). */
int hipsvm_missing(enum hipsvm_row_id id);
/* Forgets every resolved HIP pointer that was not found, so that a runtime
 * loaded later is looked for again. */
void hipsvm_table_reset_missing(void);

#endif
