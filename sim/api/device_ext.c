/* SPDX-License-Identifier: MIT */
/*
 * device_ext.c - the device queries beyond properties and attributes:
 * hipChooseDevice, compute capability, PCI bus ids, uuids, limits and the
 * cache / shared-memory configurations, each with ROCm 5.2's argument checks
 * in ROCm's order.
 */
#include "api/api.h"
#include "api/device.h"
#include "runtime/visible.h"

#include <stdio.h>

/* ROCm's rule: every nonzero field of *want must be met (>=) by a device;
 * among those, the device meeting the most fields wins, the first on a tie;
 * device 0 when none does. */
SIM_API hipError_t hipChooseDevice(int *device, const hipDeviceProp_t *want)
{
	unsigned best = 0;
	unsigned i;

	SIM_INIT_API();
	if (!device || !want)
		SIM_RETURN(hipErrorInvalidValue);
	*device = 0;
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	for (i = 0; i < sim.ngpu; i++) {
		hipDeviceProp_t p;
		unsigned asked = 0, met = 0;

		sim_fill_props((int)i, &p);
#define FIELD(f) do { if (want->f) { asked++; if (p.f >= want->f) met++; } } while (0)
		FIELD(major);
		FIELD(minor);
		FIELD(totalGlobalMem);
		FIELD(sharedMemPerBlock);
		FIELD(maxThreadsPerBlock);
		FIELD(totalConstMem);
		FIELD(multiProcessorCount);
		FIELD(maxThreadsPerMultiProcessor);
		FIELD(memoryClockRate);
		FIELD(memoryBusWidth);
		FIELD(l2CacheSize);
		FIELD(regsPerBlock);
		FIELD(maxSharedMemoryPerMultiProcessor);
		FIELD(warpSize);
#undef FIELD
		if (asked == met) {
			if (met > best)
				*device = (int)i;
			if (met > best)
				best = met;
		}
	}
	return hipSuccess;
}

SIM_API hipError_t hipDeviceComputeCapability(int *major, int *minor, hipDevice_t dev)
{
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	if (!major || !minor)
		SIM_RETURN(hipErrorInvalidValue);
	*major = 9;
	*minor = 0;
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetPCIBusId(char *bus_id, int len, int dev)
{
	SIM_INIT_API();
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	if (!bus_id || len <= 0)
		SIM_RETURN(hipErrorInvalidValue);
	/* truncated to len as ROCm's snprintf does */
	snprintf(bus_id, (size_t)len, "%04x:%02x:%02x.0", 0, sim_pci_bus(dev), 0);
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetByPCIBusId(int *device, const char *bus_id)
{
	unsigned dom, bus, slot, i;

	SIM_INIT_API();
	if (!device || !bus_id)
		SIM_RETURN(hipErrorInvalidValue);
	if (sscanf(bus_id, "%04x:%02x:%02x", &dom, &bus, &slot) == 3) {
		if (!sim.ngpu)
			SIM_RETURN(hipErrorNoDevice);
		for (i = 0; i < sim.ngpu; i++) {
			if (dom == 0 && slot == 0 && bus == (unsigned)sim_pci_bus((int)i)) {
				*device = (int)i;
				return hipSuccess;
			}
		}
	}
	SIM_RETURN(hipErrorInvalidValue);
}

SIM_API hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t dev)
{
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	if (!uuid)
		SIM_RETURN(hipErrorInvalidValue);
	sim_uuid_of(sim.phys[dev], uuid->bytes);
	return hipSuccess;
}

/* Only the heap size is a limit in ROCm 5.2: the device's memory. */
SIM_API hipError_t hipDeviceGetLimit(size_t *value, enum hipLimit_t limit)
{
	SIM_INIT_API();
	if (!value)
		SIM_RETURN(hipErrorInvalidValue);
	if (limit != hipLimitMallocHeapSize)
		SIM_RETURN(hipErrorUnsupportedLimit);
	if (!sim_gpu(sim_current_device()))
		SIM_RETURN(hipErrorInvalidDevice);
	*value = sim.mem_capacity;
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetCacheConfig(hipFuncCache_t *cfg)
{
	SIM_INIT_API();
	if (!cfg)
		SIM_RETURN(hipErrorInvalidValue);
	*cfg = hipFuncCachePreferNone;
	return hipSuccess;
}

/* Accepted and ignored, as ROCm 5.2 does (no configurable L1/LDS split). */
SIM_API hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cfg)
{
	(void)cfg;
	SIM_INIT_API();
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig *cfg)
{
	SIM_INIT_API();
	if (!cfg)
		SIM_RETURN(hipErrorInvalidValue);
	*cfg = hipSharedMemBankSizeFourByte;
	return hipSuccess;
}

SIM_API hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig cfg)
{
	(void)cfg;
	SIM_INIT_API();
	return hipSuccess;
}
