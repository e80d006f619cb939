/* SPDX-License-Identifier: MIT */
/* conf_device.c - device queries against ROCm 5.2.3's hip_device*.cpp answers. */
#include "conf.h"

#include <stdio.h>

/* hipDeviceGetAttribute: the attributes ROCm 5.2 answers and harnesses ask
 * first (ImageSupport before any texture or pitch test). */
Test(conf_device, hipDeviceGetAttribute_answers_every_rocm_attribute)
{
	static const hipDeviceAttribute_t attrs[] = {
		hipDeviceAttributeMaxThreadsPerBlock, hipDeviceAttributeMaxBlockDimX,
		hipDeviceAttributeMaxBlockDimY, hipDeviceAttributeMaxBlockDimZ,
		hipDeviceAttributeMaxGridDimX, hipDeviceAttributeMaxGridDimY,
		hipDeviceAttributeMaxGridDimZ, hipDeviceAttributeMaxSharedMemoryPerBlock,
		hipDeviceAttributeTotalConstantMemory, hipDeviceAttributeWarpSize,
		hipDeviceAttributeMaxRegistersPerBlock, hipDeviceAttributeClockRate,
		hipDeviceAttributeMemoryClockRate, hipDeviceAttributeMemoryBusWidth,
		hipDeviceAttributeMultiprocessorCount, hipDeviceAttributeComputeMode,
		hipDeviceAttributeL2CacheSize, hipDeviceAttributeMaxThreadsPerMultiProcessor,
		hipDeviceAttributeComputeCapabilityMajor, hipDeviceAttributeComputeCapabilityMinor,
		hipDeviceAttributePciBusId, hipDeviceAttributeConcurrentKernels,
		hipDeviceAttributePciDeviceId, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
		hipDeviceAttributeIsMultiGpuBoard, hipDeviceAttributeCooperativeLaunch,
		hipDeviceAttributeCooperativeMultiDeviceLaunch, hipDeviceAttributeIntegrated,
		hipDeviceAttributeMaxTexture1DWidth, hipDeviceAttributeMaxTexture2DWidth,
		hipDeviceAttributeMaxTexture2DHeight, hipDeviceAttributeMaxTexture3DWidth,
		hipDeviceAttributeMaxTexture3DHeight, hipDeviceAttributeMaxTexture3DDepth,
		hipDeviceAttributeMaxPitch, hipDeviceAttributeTextureAlignment,
		hipDeviceAttributeTexturePitchAlignment, hipDeviceAttributeKernelExecTimeout,
		hipDeviceAttributeCanMapHostMemory, hipDeviceAttributeEccEnabled,
		hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc,
		hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim,
		hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim,
		hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem,
		hipDeviceAttributeAsicRevision, hipDeviceAttributeManagedMemory,
		hipDeviceAttributeDirectManagedMemAccessFromHost,
		hipDeviceAttributeConcurrentManagedAccess, hipDeviceAttributePageableMemoryAccess,
		hipDeviceAttributePageableMemoryAccessUsesHostPageTables,
		hipDeviceAttributeCanUseStreamWaitValue, hipDeviceAttributeImageSupport,
		hipDeviceAttributePhysicalMultiProcessorCount, hipDeviceAttributeFineGrainSupport,
		hipDeviceAttributeMemoryPoolsSupported,
	};
	unsigned i;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		int v = -12345;

		EXPECT_HIP(hipDeviceGetAttribute(&v, attrs[i], 0), hipSuccess);
		cr_expect_neq(v, -12345, "attribute %d not written", attrs[i]);
	}
}

/* hipDeviceGetAttribute: MI210 values. */
Test(conf_device, hipDeviceGetAttribute_mi210_values)
{
	int v;

	ASSERT_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeImageSupport, 0));
	cr_expect_eq(v, 1);
	ASSERT_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeKernelExecTimeout, 0));
	cr_expect_eq(v, 0);
	ASSERT_OK(hipDeviceGetAttribute(&v, hipDeviceAttributePhysicalMultiProcessorCount, 0));
	cr_expect_eq(v, 104);
	ASSERT_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, 0));
	cr_expect_eq(v, 104);
	ASSERT_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeCanUseStreamWaitValue, 0));
	cr_expect_eq(v, 1);
	ASSERT_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0));
	cr_expect_eq(v, 64);
	ASSERT_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxTexture2DWidth, 0));
	cr_expect_eq(v, 16384);
	ASSERT_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc, 0));
	cr_expect_eq(v, 1);
}

/* hipDeviceGetAttribute: the HDP registers come back as addresses (ROCm
 * stores a pointer through the int pointer), the same as the properties'. */
Test(conf_device, hipDeviceGetAttribute_hdp_flush_is_an_address)
{
	unsigned int *mem = NULL, *reg = NULL;
	hipDeviceProp_t p;

	ASSERT_OK(hipDeviceGetAttribute((int *)&mem, hipDeviceAttributeHdpMemFlushCntl, 1));
	ASSERT_OK(hipDeviceGetAttribute((int *)&reg, hipDeviceAttributeHdpRegFlushCntl, 1));
	ASSERT_OK(hipGetDeviceProperties(&p, 1));
	cr_expect(mem && reg && mem != reg);
	cr_expect_eq(mem, p.hdpMemFlushCntl);
	cr_expect_eq(reg, p.hdpRegFlushCntl);
}

/* hipDeviceGetAttribute: attributes ROCm 5.2 does not answer, bad device,
 * NULL. */
Test(conf_device, hipDeviceGetAttribute_errors)
{
	int v;

	EXPECT_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeUnifiedAddressing, 0),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeIsLargeBar, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)99999, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 4), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, -1), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceGetAttribute(NULL, hipDeviceAttributeWarpSize, 9), hipErrorInvalidValue);
}

/* hipGetDeviceProperties: the fields ROCm fills beyond the basics. */
Test(conf_device, hipGetDeviceProperties_rocm_fields)
{
	hipDeviceProp_t p;

	ASSERT_OK(hipGetDeviceProperties(&p, 0));
	cr_expect_eq(p.kernelExecTimeoutEnabled, 0);
	cr_expect_eq(p.cooperativeMultiDeviceUnmatchedSharedMem, 1);
	cr_expect_eq(p.arch.hasDoubles, 1);
	cr_expect_eq(p.arch.hasFunnelShift, 0);
	cr_expect_eq(p.isMultiGpuBoard, 0);
	cr_expect_eq(p.gcnArch, 910);
	EXPECT_HIP(hipGetDeviceProperties(NULL, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipGetDeviceProperties(&p, 4), hipErrorInvalidDevice);
}

/* hipDeviceGet: a NULL out-pointer is hipErrorInvalidDevice in ROCm. */
Test(conf_device, hipDeviceGet_null_is_invalid_device)
{
	hipDevice_t d;

	EXPECT_HIP(hipDeviceGet(NULL, 0), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceGet(&d, 4), hipErrorInvalidDevice);
	ASSERT_OK(hipDeviceGet(&d, 3));
	cr_expect_eq(d, 3);
}

/* hipDeviceGetName: device checked first; a buffer too short for the whole
 * name is refused, not truncated. */
Test(conf_device, hipDeviceGetName_checks)
{
	char name[256], tiny[4] = "xyz";

	EXPECT_HIP(hipDeviceGetName(NULL, 0, 7), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceGetName(NULL, 10, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetName(tiny, sizeof(tiny), 0), hipErrorInvalidValue);
	cr_expect_str_eq(tiny, "xyz");
	ASSERT_OK(hipDeviceGetName(name, sizeof(name), 0));
	cr_expect_gt(strlen(name), 3);
}

/* hipDeviceTotalMem: device before pointer. */
Test(conf_device, hipDeviceTotalMem_order)
{
	size_t b = 0;

	EXPECT_HIP(hipDeviceTotalMem(NULL, 9), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceTotalMem(NULL, 0), hipErrorInvalidValue);
	ASSERT_OK(hipDeviceTotalMem(&b, 0));
	cr_expect_gt(b, 0);
}

/* hipDeviceComputeCapability: 9.0 for gfx90a; device checked first. */
Test(conf_device, hipDeviceComputeCapability)
{
	int ma = 0, mi = -1;

	ASSERT_OK(hipDeviceComputeCapability(&ma, &mi, 2));
	cr_expect_eq(ma, 9);
	cr_expect_eq(mi, 0);
	EXPECT_HIP(hipDeviceComputeCapability(NULL, NULL, 4), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceComputeCapability(NULL, &mi, 0), hipErrorInvalidValue);
}

/* hipDeviceGetPCIBusId / hipDeviceGetByPCIBusId: "%04x:%02x:%02x.0", a
 * distinct bus per GPU, and the round trip. */
Test(conf_device, hipDeviceGetPCIBusId_round_trip)
{
	char id[32], seen[4][32];
	int n = conf_ngpu(), d, i, j;

	for (i = 0; i < n; i++) {
		int bus;

		ASSERT_OK(hipDeviceGetPCIBusId(id, sizeof(id), i));
		cr_expect_eq(strlen(id), 12, "%s", id);
		ASSERT_OK(hipDeviceGetAttribute(&bus, hipDeviceAttributePciBusId, i));
		cr_expect_eq((int)strtol(id + 5, NULL, 16), bus);
		ASSERT_OK(hipDeviceGetByPCIBusId(&d, id));
		cr_expect_eq(d, i);
		strcpy(seen[i], id);
		for (j = 0; j < i; j++)
			cr_expect_str_neq(seen[j], id);
	}
}

Test(conf_device, hipDeviceGetPCIBusId_errors)
{
	char id[32];
	int d = -7;

	EXPECT_HIP(hipDeviceGetPCIBusId(id, sizeof(id), 4), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceGetPCIBusId(NULL, 32, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetPCIBusId(id, 0, 0), hipErrorInvalidValue);
	/* truncated to len, as snprintf */
	ASSERT_OK(hipDeviceGetPCIBusId(id, 5, 0));
	cr_expect_str_eq(id, "0000");
	EXPECT_HIP(hipDeviceGetByPCIBusId(&d, "garbage"), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetByPCIBusId(&d, "0000:ff:00.0"), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetByPCIBusId(NULL, "0000:10:00.0"), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetByPCIBusId(&d, NULL), hipErrorInvalidValue);
	cr_expect_eq(d, -7);
}

/* hipDeviceGetUuid: distinct per GPU, stable; device checked first. */
Test(conf_device, hipDeviceGetUuid)
{
	hipUUID a, b, a2;

	ASSERT_OK(hipDeviceGetUuid(&a, 0));
	ASSERT_OK(hipDeviceGetUuid(&b, 1));
	ASSERT_OK(hipDeviceGetUuid(&a2, 0));
	cr_expect(memcmp(a.bytes, b.bytes, 16) != 0);
	cr_expect(memcmp(a.bytes, a2.bytes, 16) == 0);
	EXPECT_HIP(hipDeviceGetUuid(NULL, 9), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceGetUuid(NULL, 0), hipErrorInvalidValue);
}

/* hipChooseDevice: a property no device meets gives device 0; met ones give
 * the first best device. */
Test(conf_device, hipChooseDevice)
{
	hipDeviceProp_t want;
	int d = -1;

	memset(&want, 0, sizeof(want));
	want.major = 9;
	ASSERT_OK(hipChooseDevice(&d, &want));
	cr_expect_eq(d, 0);
	want.major = 11;
	ASSERT_OK(hipChooseDevice(&d, &want));
	cr_expect_eq(d, 0);
	EXPECT_HIP(hipChooseDevice(NULL, &want), hipErrorInvalidValue);
	EXPECT_HIP(hipChooseDevice(&d, NULL), hipErrorInvalidValue);
}

/* hipDeviceGetLimit: the heap is the device's memory; other limits are
 * hipErrorUnsupportedLimit. */
Test(conf_device, hipDeviceGetLimit)
{
	size_t v = 0, total = 0;

	ASSERT_OK(hipDeviceGetLimit(&v, hipLimitMallocHeapSize));
	ASSERT_OK(hipDeviceTotalMem(&total, 0));
	cr_expect_eq(v, total);
	EXPECT_HIP(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize), hipErrorUnsupportedLimit);
	EXPECT_HIP(hipDeviceGetLimit(NULL, hipLimitMallocHeapSize), hipErrorInvalidValue);
}

/* hipDeviceGet/SetCacheConfig, hipDeviceGet/SetSharedMemConfig. */
Test(conf_device, cache_and_shared_mem_configs)
{
	hipFuncCache_t c = hipFuncCachePreferL1;
	hipSharedMemConfig s = hipSharedMemBankSizeEightByte;

	ASSERT_OK(hipDeviceSetCacheConfig(hipFuncCachePreferShared));
	ASSERT_OK(hipDeviceGetCacheConfig(&c));
	cr_expect_eq(c, hipFuncCachePreferNone, "ROCm 5.2 answers PreferNone always");
	ASSERT_OK(hipDeviceSetSharedMemConfig(hipSharedMemBankSizeEightByte));
	ASSERT_OK(hipDeviceGetSharedMemConfig(&s));
	cr_expect_eq(s, hipSharedMemBankSizeFourByte);
	EXPECT_HIP(hipDeviceGetCacheConfig(NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetSharedMemConfig(NULL), hipErrorInvalidValue);
}

/* hipSetDeviceFlags / hipGetDeviceFlags: the scheduling bits are kept, per
 * device; unknown bits are refused. */
Test(conf_device, hipSetDeviceFlags_hipGetDeviceFlags)
{
	unsigned f = 99;

	ASSERT_OK(hipSetDevice(1));
	ASSERT_OK(hipSetDeviceFlags(hipDeviceScheduleBlockingSync | hipDeviceMapHost));
	ASSERT_OK(hipGetDeviceFlags(&f));
	cr_expect_eq(f, hipDeviceScheduleBlockingSync);
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipGetDeviceFlags(&f));
	cr_expect_eq(f, 0);
	EXPECT_HIP(hipSetDeviceFlags(0x100), hipErrorInvalidValue);
	EXPECT_HIP(hipGetDeviceFlags(NULL), hipErrorInvalidValue);
}

/* hipDeviceGetStreamPriorityRange: least 1, greatest -1 in ROCm 5.2. */
Test(conf_device, hipDeviceGetStreamPriorityRange)
{
	int lo = 7, hi = 7;

	ASSERT_OK(hipDeviceGetStreamPriorityRange(&lo, &hi));
	cr_expect_eq(lo, 1);
	cr_expect_eq(hi, -1);
	ASSERT_OK(hipDeviceGetStreamPriorityRange(NULL, NULL));
}

/* hipInit: the flags are reserved and ignored in ROCm 5.2. */
Test(conf_device, hipInit_ignores_flags)
{
	EXPECT_HIP(hipInit(0), hipSuccess);
	EXPECT_HIP(hipInit(7), hipSuccess);
}

/* hipDeviceReset: the current device's streams are destroyed (their work
 * done first); other devices' streams live on. */
Test(conf_device, hipDeviceReset_destroys_streams)
{
	hipStream_t s0, s1;

	ASSERT_OK(hipSetDevice(1));
	ASSERT_OK(hipStreamCreate(&s1));
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipStreamCreate(&s0));
	ASSERT_OK(hipDeviceReset());
	EXPECT_HIP(hipStreamQuery(s0), hipErrorContextIsDestroyed);
	EXPECT_HIP(hipStreamQuery(s1), hipSuccess);
	ASSERT_OK(hipStreamSynchronize(NULL));
	ASSERT_OK(hipStreamDestroy(s1));
}
