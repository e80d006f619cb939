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

#define HIPSVM_EXPORT __attribute__((visibility("default")))

#endif
