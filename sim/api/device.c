/* SPDX-License-Identifier: MIT */
/*
 * device.c - device management. The simulated GPUs describe themselves as
 * MI210-like gfx90a parts (values from its public specification); what the
 * simulator changes is memory size, XNACK, APU mode and the PCI location.
 */
#include "api/api.h"
#include "api/device.h"
#include "runtime/map.h"
#include "runtime/stream.h"
#include "exec/exec.h"
#include "isa/dispatch.h"
#include "isa/isa.h"

#include <stdio.h>

#define SIM_HIP_VERSION 50221153	/* what Debian's libamdhip64.so.5 answers */

/* Stand-ins for the HDP flush registers whose addresses ROCm reports. */
static unsigned int hdp_regs[HIPSVM_MAX_GPUS][2];

int sim_pci_bus(int dev)
{
	return 0x10 + sim.phys[dev];
}

void sim_fill_props(int dev, hipDeviceProp_t *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "hipsvm simulated GPU %d", dev);
	snprintf(p->gcnArchName, sizeof(p->gcnArchName), "%s", sim.target);
	p->totalGlobalMem = sim.mem_capacity;
	p->sharedMemPerBlock = SIM_LDS_BYTES;
	p->regsPerBlock = 65536;
	p->warpSize = 64;
	p->maxThreadsPerBlock = SIM_BLOCK_MAX;
	p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = SIM_BLOCK_MAX;
	p->maxGridSize[0] = p->maxGridSize[1] = p->maxGridSize[2] = 2147483647;
	p->clockRate = ISA_SHADER_CLOCK_KHZ;	/* s_memtime's rate (isa/isa.h) */
	p->memoryClockRate = 1600000;
	p->memoryBusWidth = 4096;
	p->totalConstMem = 2147483647;
	p->major = 9;
	p->minor = 0;
	p->multiProcessorCount = ISA_CUS;	/* what residency is limited by (isa/dispatch.c) */
	p->l2CacheSize = 8388608;
	p->maxThreadsPerMultiProcessor = ISA_CU_WAVES * ISA_LANES;
	p->computeMode = 0;
	p->clockInstructionRate = 1000000;
	p->concurrentKernels = 1;
	p->pciDomainID = 0;
	p->pciBusID = sim_pci_bus(dev);
	p->pciDeviceID = 0;
	p->maxSharedMemoryPerMultiProcessor = 65536;
	p->isMultiGpuBoard = 0;		/* ROCm 5.2 leaves it 0 */
	p->canMapHostMemory = 1;
	p->gcnArch = 910;
	p->integrated = sim.apu;
	p->cooperativeLaunch = 1;
	p->cooperativeMultiDeviceLaunch = 1;
	p->cooperativeMultiDeviceUnmatchedFunc = 1;
	p->cooperativeMultiDeviceUnmatchedGridDim = 1;
	p->cooperativeMultiDeviceUnmatchedBlockDim = 1;
	p->cooperativeMultiDeviceUnmatchedSharedMem = 1;
	p->kernelExecTimeoutEnabled = 0;
	p->hdpMemFlushCntl = &hdp_regs[dev][0];
	p->hdpRegFlushCntl = &hdp_regs[dev][1];
	p->arch.hasGlobalInt32Atomics = 1;
	p->arch.hasGlobalFloatAtomicExch = 1;
	p->arch.hasSharedInt32Atomics = 1;
	p->arch.hasSharedFloatAtomicExch = 1;
	p->arch.hasFloatAtomicAdd = 1;
	p->arch.hasGlobalInt64Atomics = 1;
	p->arch.hasSharedInt64Atomics = 1;
	p->arch.hasDoubles = 1;
	p->arch.hasWarpVote = 1;
	p->arch.hasWarpBallot = 1;
	p->arch.hasWarpShuffle = 1;
	p->arch.hasThreadFenceSystem = 1;
	p->arch.has3dGrid = 1;
	p->maxTexture1DLinear = 1 << 27;
	p->maxTexture1D = 16384;
	p->maxTexture2D[0] = p->maxTexture2D[1] = 16384;
	/* hip_device.cpp:320-322 from ROCr's 3D image limits (sim/api/array.c) */
	p->maxTexture3D[0] = p->maxTexture3D[1] = 16384;
	p->maxTexture3D[2] = 8192;
	/* min(maxMemAllocSize_, INT32_MAX), hip_device.cpp:326 */
	p->memPitch = sim_max_alloc() < INT32_MAX ? sim_max_alloc() : INT32_MAX;
	p->textureAlignment = 256;
	p->texturePitchAlignment = 256;
	p->ECCEnabled = 0;
	p->isLargeBar = !sim.apu;
	p->managedMemory = 1;
	p->directManagedMemAccessFromHost = sim.apu;
	p->concurrentManagedAccess = sim.xnack;
	p->pageableMemoryAccess = sim.xnack;
	p->pageableMemoryAccessUsesHostPageTables = sim.xnack && sim.apu;
}

SIM_API hipError_t hipInit(unsigned int flags)
{
	/* ROCm 5.2 ignores the flags (reserved) */
	(void)flags;
	SIM_INIT_API();
	SIM_RETURN(sim.ngpu ? hipSuccess : hipErrorNoDevice);
}

SIM_API hipError_t hipDriverGetVersion(int *v)
{
	if (!v)
		SIM_RETURN(hipErrorInvalidValue);
	*v = SIM_HIP_VERSION;
	return hipSuccess;
}

SIM_API hipError_t hipRuntimeGetVersion(int *v)
{
	if (!v)
		SIM_RETURN(hipErrorInvalidValue);
	*v = SIM_HIP_VERSION;
	return hipSuccess;
}

SIM_API hipError_t hipGetDeviceCount(int *count)
{
	SIM_INIT_API();
	if (!count)
		SIM_RETURN(hipErrorInvalidValue);
	*count = (int)sim.ngpu;
	SIM_RETURN(sim.ngpu ? hipSuccess : hipErrorNoDevice);
}

SIM_API hipError_t hipSetDevice(int dev)
{
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	sim_set_current_device(dev);
	return hipSuccess;
}

SIM_API hipError_t hipGetDevice(int *dev)
{
	SIM_INIT_API();
	if (!dev)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	*dev = sim_current_device();
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGet(hipDevice_t *d, int ordinal)
{
	SIM_INIT_API();
	if (!d || !sim_gpu(ordinal))	/* ROCm: both hipErrorInvalidDevice */
		SIM_RETURN(hipErrorInvalidDevice);
	*d = ordinal;
	return hipSuccess;
}

SIM_API hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int dev)
{
	SIM_INIT_API();
	if (!prop)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	sim_fill_props(dev, prop);
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetName(char *name, int len, hipDevice_t dev)
{
	hipDeviceProp_t p;

	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	if (!name || len <= 0)
		SIM_RETURN(hipErrorInvalidValue);
	sim_fill_props(dev, &p);
	if (strlen(p.name) > (size_t)len - 1)	/* no truncation, as ROCm */
		SIM_RETURN(hipErrorInvalidValue);
	memcpy(name, p.name, strlen(p.name) + 1);
	return hipSuccess;
}

SIM_API hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t dev)
{
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	if (!bytes)
		SIM_RETURN(hipErrorInvalidValue);
	*bytes = sim.mem_capacity;
	return hipSuccess;
}

/* The attributes ROCm 5.2's hipDeviceGetAttribute answers, and only those
 * (others, such as hipDeviceAttributeUnifiedAddressing, are
 * hipErrorInvalidValue there too). */
static int attribute(int dev, const hipDeviceProp_t *p, hipDeviceAttribute_t attr, int *v)
{
	switch (attr) {
	case hipDeviceAttributeMaxThreadsPerBlock: *v = p->maxThreadsPerBlock; break;
	case hipDeviceAttributeMaxBlockDimX: *v = p->maxThreadsDim[0]; break;
	case hipDeviceAttributeMaxBlockDimY: *v = p->maxThreadsDim[1]; break;
	case hipDeviceAttributeMaxBlockDimZ: *v = p->maxThreadsDim[2]; break;
	case hipDeviceAttributeMaxGridDimX: *v = p->maxGridSize[0]; break;
	case hipDeviceAttributeMaxGridDimY: *v = p->maxGridSize[1]; break;
	case hipDeviceAttributeMaxGridDimZ: *v = p->maxGridSize[2]; break;
	case hipDeviceAttributeMaxSharedMemoryPerBlock: *v = (int)p->sharedMemPerBlock; break;
	case hipDeviceAttributeTotalConstantMemory:
		*v = p->totalConstMem > INT32_MAX ? INT32_MAX : (int)p->totalConstMem; break;
	case hipDeviceAttributeWarpSize: *v = p->warpSize; break;
	case hipDeviceAttributeMaxRegistersPerBlock: *v = p->regsPerBlock; break;
	case hipDeviceAttributeClockRate: *v = p->clockRate; break;
	case hipDeviceAttributeMemoryClockRate: *v = p->memoryClockRate; break;
	case hipDeviceAttributeMemoryBusWidth: *v = p->memoryBusWidth; break;
	case hipDeviceAttributeMultiprocessorCount: *v = p->multiProcessorCount; break;
	case hipDeviceAttributeComputeMode: *v = p->computeMode; break;
	case hipDeviceAttributeL2CacheSize: *v = p->l2CacheSize; break;
	case hipDeviceAttributeMaxThreadsPerMultiProcessor: *v = p->maxThreadsPerMultiProcessor; break;
	case hipDeviceAttributeComputeCapabilityMajor: *v = p->major; break;
	case hipDeviceAttributeComputeCapabilityMinor: *v = p->minor; break;
	case hipDeviceAttributePciBusId: *v = p->pciBusID; break;
	case hipDeviceAttributeConcurrentKernels: *v = p->concurrentKernels; break;
	case hipDeviceAttributePciDeviceId: *v = p->pciDeviceID; break;
	case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
		*v = (int)p->maxSharedMemoryPerMultiProcessor; break;
	case hipDeviceAttributeIsMultiGpuBoard: *v = p->isMultiGpuBoard; break;
	case hipDeviceAttributeCooperativeLaunch: *v = p->cooperativeLaunch; break;
	case hipDeviceAttributeCooperativeMultiDeviceLaunch: *v = p->cooperativeMultiDeviceLaunch; break;
	case hipDeviceAttributeIntegrated: *v = p->integrated; break;
	case hipDeviceAttributeMaxTexture1DWidth: *v = p->maxTexture1D; break;
	case hipDeviceAttributeMaxTexture2DWidth: *v = p->maxTexture2D[0]; break;
	case hipDeviceAttributeMaxTexture2DHeight: *v = p->maxTexture2D[1]; break;
	case hipDeviceAttributeMaxTexture3DWidth: *v = p->maxTexture3D[0]; break;
	case hipDeviceAttributeMaxTexture3DHeight: *v = p->maxTexture3D[1]; break;
	case hipDeviceAttributeMaxTexture3DDepth: *v = p->maxTexture3D[2]; break;
	/* ROCm stores the register's address through the int pointer: the
	 * caller passes room for a pointer. */
	case hipDeviceAttributeHdpMemFlushCntl:
		memcpy(v, &p->hdpMemFlushCntl, sizeof(p->hdpMemFlushCntl)); break;
	case hipDeviceAttributeHdpRegFlushCntl:
		memcpy(v, &p->hdpRegFlushCntl, sizeof(p->hdpRegFlushCntl)); break;
	case hipDeviceAttributeMaxPitch:
		*v = p->memPitch > INT32_MAX ? INT32_MAX : (int)p->memPitch; break;
	case hipDeviceAttributeTextureAlignment: *v = (int)p->textureAlignment; break;
	case hipDeviceAttributeTexturePitchAlignment: *v = (int)p->texturePitchAlignment; break;
	case hipDeviceAttributeKernelExecTimeout: *v = p->kernelExecTimeoutEnabled; break;
	case hipDeviceAttributeCanMapHostMemory: *v = p->canMapHostMemory; break;
	case hipDeviceAttributeEccEnabled: *v = p->ECCEnabled; break;
	case hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc:
		*v = p->cooperativeMultiDeviceUnmatchedFunc; break;
	case hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim:
		*v = p->cooperativeMultiDeviceUnmatchedGridDim; break;
	case hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim:
		*v = p->cooperativeMultiDeviceUnmatchedBlockDim; break;
	case hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem:
		*v = p->cooperativeMultiDeviceUnmatchedSharedMem; break;
	case hipDeviceAttributeAsicRevision: *v = p->asicRevision; break;
	case hipDeviceAttributeManagedMemory: *v = p->managedMemory; break;
	case hipDeviceAttributeDirectManagedMemAccessFromHost: *v = p->directManagedMemAccessFromHost; break;
	case hipDeviceAttributeConcurrentManagedAccess: *v = p->concurrentManagedAccess; break;
	case hipDeviceAttributePageableMemoryAccess: *v = p->pageableMemoryAccess; break;
	case hipDeviceAttributePageableMemoryAccessUsesHostPageTables:
		*v = p->pageableMemoryAccessUsesHostPageTables; break;
	/* the GPU's own info, not in the properties */
	case hipDeviceAttributeCanUseStreamWaitValue: *v = 1; break;
	case hipDeviceAttributeImageSupport: *v = 1; break;
	case hipDeviceAttributePhysicalMultiProcessorCount: *v = 104; break;
	case hipDeviceAttributeFineGrainSupport: *v = 1; break;
	case hipDeviceAttributeMemoryPoolsSupported: *v = 1; break;
	default:
		(void)dev;
		return -EINVAL;
	}
	return 0;
}

SIM_API hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attr, int dev)
{
	hipDeviceProp_t p;

	SIM_INIT_API();
	if (!value)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	sim_fill_props(dev, &p);
	if (attribute(dev, &p, attr, value))
		SIM_RETURN(hipErrorInvalidValue);
	return hipSuccess;
}

SIM_API hipError_t hipDeviceSynchronize(void)
{
	SIM_INIT_API();
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	SIM_RETURN(sim_device_sync(sim_current_device()));
}

/* ROCm 5.2 destroys every stream created on the current device (their
 * handles become unknown: hipErrorContextIsDestroyed after), once their
 * work is done. */
SIM_API hipError_t hipDeviceReset(void)
{
	int dev;

	SIM_INIT_API();
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	dev = sim_current_device();
	sim_device_sync(dev);
	sim_streams_destroy_device(dev);
	return hipSuccess;
}

static unsigned dev_flags[HIPSVM_MAX_GPUS];

SIM_API hipError_t hipSetDeviceFlags(unsigned flags)
{
	const unsigned known = hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax;

	SIM_INIT_API();
	if (flags & ~known)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	/* ROCm keeps the scheduling bits only */
	__atomic_store_n(&dev_flags[sim_current_device()], flags & hipDeviceScheduleMask,
			 __ATOMIC_RELAXED);
	return hipSuccess;
}

SIM_API hipError_t hipGetDeviceFlags(unsigned int *flags)
{
	SIM_INIT_API();
	if (!flags)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	*flags = __atomic_load_n(&dev_flags[sim_current_device()], __ATOMIC_RELAXED);
	return hipSuccess;
}
