/* SPDX-License-Identifier: MIT */
/*
 * hip_values.h - the HIP constants the shim needs, defined once: the core
 * uses these names, and preload/hip_abi.h spells them as HIP does. The shim
 * builds without HIP headers; the values are those of hip_runtime_api.h in
 * ROCm 5.2 and 6.x (they have not changed), and tests/preload/test_abi.c
 * checks each against the real headers.
 */
#ifndef HIPSVM_HIP_VALUES_H
#define HIPSVM_HIP_VALUES_H

/* hipError_t */
#define HIPSVM_HIP_SUCCESS			0
#define HIPSVM_HIP_ERROR_INVALID_VALUE		1
#define HIPSVM_HIP_ERROR_OUT_OF_MEMORY		2
#define HIPSVM_HIP_ERROR_NOT_INITIALIZED	3

/* allocation flags */
#define HIPSVM_HIP_MEM_ATTACH_GLOBAL		0x01	/* hipMallocManaged */
#define HIPSVM_HIP_MALLOC_SIGNAL_MEMORY		0x2	/* hipExtMallocWithFlags */

/* hipMemoryAdvise */
#define HIPSVM_HIP_ADVISE_PREFERRED_LOCATION	3
#define HIPSVM_HIP_ADVISE_ACCESSED_BY		5

/* hipMemLocationType, hipMemAccessFlags */
#define HIPSVM_HIP_MEM_LOCATION_DEVICE		1
#define HIPSVM_HIP_MEM_ACCESS_PROT_NONE		0

#endif
