/* SPDX-License-Identifier: MIT */
/*
 * hip_abi.h - the slice of the HIP ABI the shim hooks, declared here so that
 * the shim builds without HIP headers (values as in hip_runtime_api.h of
 * ROCm 5.2 and 6.x; they have not changed).
 */
#ifndef HIPSVM_HIP_ABI_H
#define HIPSVM_HIP_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int hipError_t;
typedef void *hipStream_t;

#define hipSuccess 0
#define hipErrorInvalidValue 1
#define hipErrorOutOfMemory 2
#define hipErrorNotInitialized 3

#define hipMemAttachGlobal 0x01
#define hipMallocSignalMemory 0x2
#define hipMemAdviseSetPreferredLocation 3
#define hipMemAdviseSetAccessedBy 5

/* Pools, the virtual memory API, IPC, pitch/3D memory and arrays
 * (tests/preload/test_abi.c checks each layout against the real headers). */
typedef void *hipMemPool_t;
typedef void *hipMemGenericAllocationHandle_t;
typedef struct { char reserved[64]; } hipIpcMemHandle_t;
typedef struct { char reserved[64]; } hipMemPoolPtrExportData;
typedef struct { int type; int id; } hipMemLocation;
#define hipMemLocationTypeDevice 1
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
#define hipMemAccessFlagsProtNone 0
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
