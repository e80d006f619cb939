/* SPDX-License-Identifier: MIT */
/*
 * ptrattr.c - one attribute of a pointer at a time (ROCm's
 * ihipPointerGetAttributes), hipDrvPointerGetAttributes and
 * hipMemGetAddressRange. Memory the runtime does not know gets ROCm's
 * answer attribute by attribute: most write a zero and fail with
 * hipErrorInvalidValue, SYNC_MEMOPS and ACCESS_FLAGS succeed, and the
 * attributes ROCm has no implementation for are hipErrorNotSupported.
 * hipDrvPointerGetAttributes, as ROCm's, answers hipSuccess whatever each
 * attribute gave.
 */
#include "api/api.h"
#include "api/memory.h"
#include "runtime/map.h"

/* Host memory by ROCm's flags (fine-grained or the user's pointer). */
static bool host_type(const struct sim_alloc *a)
{
	return a->kind != HIPSVM_KIND_DEVICE;
}

static hipError_t one(void *data, hipPointer_attribute attr, const void *ptr)
{
	struct sim_array_info ai;
	struct sim_alloc a;
	bool known = sim_lookup(ptr, &a);

	switch (attr) {
	case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE:
		if (known) {
			*(uint32_t *)data = host_type(&a) ? hipMemoryTypeHost : hipMemoryTypeDevice;
		} else if (sim_array_get(ptr, &ai)) {
			*(uint32_t *)data = hipMemoryTypeArray;
		} else {
			*(uint32_t *)data = 0;
			return hipErrorInvalidValue;
		}
		return hipSuccess;
	case HIP_POINTER_ATTRIBUTE_DEVICE_POINTER:
		*(void **)data = known ? (void *)ptr : NULL;
		return known ? hipSuccess : hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_HOST_POINTER:
		if (known && host_type(&a)) {
			*(void **)data = (void *)ptr;
			return hipSuccess;
		}
		*(void **)data = NULL;
		return hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		*(bool *)data = true;
		return hipSuccess;
	case HIP_POINTER_ATTRIBUTE_BUFFER_ID:
		*(uint32_t *)data = known ? a.uid : 0;
		return known ? hipSuccess : hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_IS_MANAGED:
		*(bool *)data = known && a.kind == HIPSVM_KIND_MANAGED;
		return known ? hipSuccess : hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = known ? a.device : -2;
		return known ? hipSuccess : hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(void **)data = known ? (void *)a.base : NULL;
		return known ? hipSuccess : hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_RANGE_SIZE:
		/* ROCm writes 32 bits */
		*(uint32_t *)data = known ? (uint32_t)a.size : 0;
		return known ? hipSuccess : hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_MAPPED:
		*(bool *)data = known;
		return known ? hipSuccess : hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		*(uint32_t *)data = known ? a.flags : 0;
		return hipSuccess;
	case HIP_POINTER_ATTRIBUTE_CONTEXT:
	case HIP_POINTER_ATTRIBUTE_P2P_TOKENS:
	case HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE:
	case HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
	case HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		return hipErrorNotSupported;
	default:
		return hipErrorInvalidValue;
	}
}

SIM_API hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute,
					  hipDeviceptr_t ptr)
{
	SIM_INIT_API();
	if (!ptr || !data)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(one(data, attribute, ptr));
}

SIM_API hipError_t hipDrvPointerGetAttributes(unsigned int numAttributes,
					      hipPointer_attribute *attributes, void **data,
					      hipDeviceptr_t ptr)
{
	unsigned i;

	SIM_INIT_API();
	if (numAttributes == 0 || !attributes || !data || !ptr)
		SIM_RETURN(hipErrorInvalidValue);
	for (i = 0; i < numAttributes; i++)
		if (data[i])
			(void)one(data[i], attributes[i], ptr);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr)
{
	struct sim_alloc a;

	SIM_INIT_API();
	if (!sim_lookup(dptr, &a))
		SIM_RETURN(hipErrorInvalidDevicePointer);
	if (!pbase || !psize)
		SIM_RETURN(hipErrorInvalidValue);
	*pbase = (void *)a.base;
	*psize = a.size;
	SIM_RETURN(hipSuccess);
}
