/* SPDX-License-Identifier: MIT */
/*
 * hooks.h - the HIP functions the shim exports, each with its signature:
 * X(name, parameters). The wrappers (*_wrap.c) define them; the prototypes
 * below let the compiler hold each definition to its signature.
 */
#ifndef HIPSVM_PRELOAD_HOOKS_H
#define HIPSVM_PRELOAD_HOOKS_H

#include "hip_abi.h"

#define HIPSVM_HIP_HOOKS(X) \
	X(hipMalloc, (void **ptr, size_t size)) \
	X(hipFree, (void *p)) \
	X(hipMallocManaged, (void **ptr, size_t size, unsigned flags)) \
	X(hipHostMalloc, (void **ptr, size_t size, unsigned flags)) \
	X(hipHostFree, (void *p)) \
	X(hipMallocHost, (void **ptr, size_t size)) \
	X(hipHostAlloc, (void **ptr, size_t size, unsigned flags)) \
	X(hipExtMallocWithFlags, (void **ptr, size_t size, unsigned flags)) \
	X(hipMallocPitch, (void **ptr, size_t *pitch, size_t width, size_t height)) \
	X(hipMallocAsync, (void **ptr, size_t size, hipStream_t stream)) \
	X(hipFreeAsync, (void *p, hipStream_t stream)) \
	X(hipHostRegister, (void *host, size_t size, unsigned flags)) \
	X(hipHostUnregister, (void *p)) \
	X(hipGetProcAddress, (const char *symbol, void **pfn, int version, uint64_t flags, \
			      void *status)) \
	X(hipFreeHost, (void *p)) \
	X(hipMallocFromPoolAsync, (void **ptr, size_t size, hipMemPool_t pool, hipStream_t stream)) \
	X(hipMemPoolImportPointer, (void **ptr, hipMemPool_t pool, hipMemPoolPtrExportData *data)) \
	X(hipMemPoolCreate, (hipMemPool_t *pool, const hipMemPoolProps *props)) \
	X(hipMemPoolDestroy, (hipMemPool_t pool)) \
	X(hipMemPoolTrimTo, (hipMemPool_t pool, size_t keep)) \
	X(hipDeviceGetDefaultMemPool, (hipMemPool_t *pool, int dev)) \
	X(hipDeviceGetMemPool, (hipMemPool_t *pool, int dev)) \
	X(hipMemCreate, (hipMemGenericAllocationHandle_t *handle, size_t size, \
			 const hipMemAllocationProp *prop, unsigned long long flags)) \
	X(hipMemRelease, (hipMemGenericAllocationHandle_t handle)) \
	X(hipMemMap, (void *ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle, \
		      unsigned long long flags)) \
	X(hipMemUnmap, (void *ptr, size_t size)) \
	X(hipMemSetAccess, (void *ptr, size_t size, const hipMemAccessDesc *desc, size_t count)) \
	X(hipMemAddressReserve, (void **ptr, size_t size, size_t align, void *addr, \
				 unsigned long long flags)) \
	X(hipMemAddressFree, (void *ptr, size_t size)) \
	X(hipMemPoolExportPointer, (hipMemPoolPtrExportData *data, void *ptr)) \
	X(hipIpcOpenMemHandle, (void **ptr, hipIpcMemHandle_t handle, unsigned flags)) \
	X(hipIpcCloseMemHandle, (void *ptr)) \
	X(hipMalloc3D, (hipPitchedPtr *pp, hipExtent extent)) \
	X(hipMemAllocPitch, (void **ptr, size_t *pitch, size_t width, size_t height, unsigned elem)) \
	X(hipMemAllocHost, (void **ptr, size_t size)) \
	X(hipMallocArray, (hipArray **array, const hipChannelFormatDesc *desc, size_t width, \
			   size_t height, unsigned flags)) \
	X(hipMalloc3DArray, (hipArray **array, const hipChannelFormatDesc *desc, hipExtent e, \
			     unsigned flags)) \
	X(hipArrayCreate, (hipArray **array, const HIP_ARRAY_DESCRIPTOR *d)) \
	X(hipArray3DCreate, (hipArray **array, const HIP_ARRAY3D_DESCRIPTOR *d)) \
	X(hipFreeArray, (hipArray *array)) \
	X(hipArrayDestroy, (hipArray *array))

#define HIPSVM_HIP_HOOK_PROTO(name, params) hipError_t name params;
HIPSVM_HIP_HOOKS(HIPSVM_HIP_HOOK_PROTO)
#undef HIPSVM_HIP_HOOK_PROTO

#endif
