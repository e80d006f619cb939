/* SPDX-License-Identifier: MIT */
/*
 * device_ext.c - the device queries beyond properties and attributes:
 * hipChooseDevice, compute capability, PCI bus ids, uuids, limits and the
 * cache / shared-memory configurations, each with ROCm 5.2's argument checks
 * in ROCm's order.
 */
#include "sim.h"

#include <stdio.h>

/* ROCm's rule: every nonzero field of *want must be met (>=) by a device;
 * among those, the device meeting the most fields wins, the first on a tie;
 * device 0 when none does. */
SIM_API hipError_t hipChooseDevice(int *device, const hipDeviceProp_t *want)
{
	unsigned best = 0;
	unsigned i;

	sim_init();
	if (!device || !want)
		return sim_ret(hipErrorInvalidValue);
	*device = 0;
	if (!sim.ngpu)
		return sim_ret(hipErrorNoDevice);
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
	sim_init();
	if (!sim_gpu(dev))
		return sim_ret(hipErrorInvalidDevice);
	if (!major || !minor)
		return sim_ret(hipErrorInvalidValue);
	*major = 9;
	*minor = 0;
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetPCIBusId(char *bus_id, int len, int dev)
{
	sim_init();
	if (!sim.ngpu)
		return sim_ret(hipErrorNoDevice);
	if (!sim_gpu(dev))
		return sim_ret(hipErrorInvalidDevice);
	if (!bus_id || len <= 0)
		return sim_ret(hipErrorInvalidValue);
	/* truncated to len as ROCm's snprintf does */
	snprintf(bus_id, (size_t)len, "%04x:%02x:%02x.0", 0, sim_pci_bus(dev), 0);
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetByPCIBusId(int *device, const char *bus_id)
{
	unsigned dom, bus, slot, i;

	sim_init();
	if (!device || !bus_id)
		return sim_ret(hipErrorInvalidValue);
	if (sscanf(bus_id, "%04x:%02x:%02x", &dom, &bus, &slot) == 3) {
		if (!sim.ngpu)
			return sim_ret(hipErrorNoDevice);
		for (i = 0; i < sim.ngpu; i++) {
			if (dom == 0 && slot == 0 && bus == (unsigned)sim_pci_bus((int)i)) {
				*device = (int)i;
				return hipSuccess;
			}
		}
	}
	return sim_ret(hipErrorInvalidValue);
}

SIM_API hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t dev)
{
	sim_init();
	if (!sim_gpu(dev))
		return sim_ret(hipErrorInvalidDevice);
	if (!uuid)
		return sim_ret(hipErrorInvalidValue);
	sim_uuid_of(sim.phys[dev], uuid->bytes);
	return hipSuccess;
}

/* Only the heap size is a limit in ROCm 5.2: the device's memory. */
SIM_API hipError_t hipDeviceGetLimit(size_t *value, enum hipLimit_t limit)
{
	sim_init();
	if (!value)
		return sim_ret(hipErrorInvalidValue);
	if (limit != hipLimitMallocHeapSize)
		return sim_ret(hipErrorUnsupportedLimit);
	if (!sim_gpu(sim_current_device()))
		return sim_ret(hipErrorInvalidDevice);
	*value = sim.gpu[sim_current_device()]->capacity;
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetCacheConfig(hipFuncCache_t *cfg)
{
	sim_init();
	if (!cfg)
		return sim_ret(hipErrorInvalidValue);
	*cfg = hipFuncCachePreferNone;
	return hipSuccess;
}

/* Accepted and ignored, as ROCm 5.2 does (no configurable L1/LDS split). */
SIM_API hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cfg)
{
	(void)cfg;
	sim_init();
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig *cfg)
{
	sim_init();
	if (!cfg)
		return sim_ret(hipErrorInvalidValue);
	*cfg = hipSharedMemBankSizeFourByte;
	return hipSuccess;
}

SIM_API hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig cfg)
{
	(void)cfg;
	sim_init();
	return hipSuccess;
}
