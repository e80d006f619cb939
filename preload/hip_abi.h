/* SPDX-License-Identifier: MIT */
/*
 * hip_abi.h - the slice of the HIP ABI the shim hooks, declared here so that
 * the shim builds without HIP headers (layouts as in hip_runtime_api.h of
 * ROCm 5.2; the values are the core's, src/shim/hip_values.h, spelled as
 * HIP spells them).
 */
#ifndef HIPSVM_HIP_ABI_H
#define HIPSVM_HIP_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "shim/hip_values.h"

typedef int hipError_t;
typedef void *hipStream_t;

#define hipSuccess HIPSVM_HIP_SUCCESS
#define hipErrorInvalidValue HIPSVM_HIP_ERROR_INVALID_VALUE
#define hipErrorOutOfMemory HIPSVM_HIP_ERROR_OUT_OF_MEMORY
#define hipErrorNotInitialized HIPSVM_HIP_ERROR_NOT_INITIALIZED

#define hipMemAttachGlobal HIPSVM_HIP_MEM_ATTACH_GLOBAL
#define hipMallocSignalMemory HIPSVM_HIP_MALLOC_SIGNAL_MEMORY
#define hipMemAdviseSetPreferredLocation HIPSVM_HIP_ADVISE_PREFERRED_LOCATION
#define hipMemAdviseSetAccessedBy HIPSVM_HIP_ADVISE_ACCESSED_BY

/* Pools, the virtual memory API, IPC, pitch/3D memory and arrays
 * (tests/preload/test_abi.c checks each layout against the real headers). */
typedef void *hipMemPool_t;
typedef void *hipMemGenericAllocationHandle_t;
typedef struct { char reserved[64]; } hipIpcMemHandle_t;
typedef struct { char reserved[64]; } hipMemPoolPtrExportData;
typedef struct { int type; int id; } hipMemLocation;
#define hipMemLocationTypeDevice HIPSVM_HIP_MEM_LOCATION_DEVICE
typedef struct {
	int allocType, handleTypes;
	hipMemLocation location;
	void *win32SecurityAttributes;
	unsigned char reserved[64];
} hipMemPoolProps;
/* ROCm 5.2's layout; ROCm 6 reordered it (see hipsvm_alloc_prop_device) */
typedef struct {
	unsigned char compressionType;
	hipMemLocation location;
	int requestedHandleType, type;
	unsigned short usage;
	void *win32HandleMetaData;
} hipMemAllocationProp;
typedef struct {
	hipMemLocation location;
	int flags;
} hipMemAccessDesc;
#define hipMemAccessFlagsProtNone HIPSVM_HIP_MEM_ACCESS_PROT_NONE
typedef struct { void *ptr; size_t pitch, xsize, ysize; } hipPitchedPtr;
typedef struct { size_t width, height, depth; } hipExtent;
typedef struct { int x, y, z, w, f; } hipChannelFormatDesc;
typedef struct { size_t Width, Height; int Format; unsigned NumChannels; } HIP_ARRAY_DESCRIPTOR;
typedef struct {
	size_t Width, Height, Depth;
	int Format;
	unsigned NumChannels, Flags;
} HIP_ARRAY3D_DESCRIPTOR;
typedef struct hipArray hipArray;	/* opaque here: the handle is the key */

#define HIPSVM_EXPORT __attribute__((visibility("default")))

#endif
