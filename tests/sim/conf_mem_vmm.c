/* SPDX-License-Identifier: MIT */
/* conf_mem_vmm.c - the virtual memory API against ROCm 5.2.3 (hip_vm.cpp):
 * hipMemCreate allocates, the rest checks arguments and does nothing, the
 * shareable handles are not supported. */
#include "conf_mem.h"

TestSuite(mem_vmm, .timeout = 60);

static hipMemAllocationProp dev_prop(int dev)
{
	hipMemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = hipMemAllocationTypePinned;
	p.location.type = hipMemLocationTypeDevice;
	p.location.id = dev;
	return p;
}

/* hipMemGetAllocationGranularity: ROCclr's memBaseAddrAlign_ (1024). */
Test(mem_vmm, hipMemGetAllocationGranularity_1024)
{
	hipMemAllocationProp p = dev_prop(0);
	size_t g = 0;

	cr_expect_eq(hipMemGetAllocationGranularity(&g, &p, hipMemAllocationGranularityMinimum),
		     hipSuccess);
	cr_expect_eq(g, 1024);
	p.location.id = 40;
	cr_expect_eq(hipMemGetAllocationGranularity(&g, &p, hipMemAllocationGranularityMinimum),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemGetAllocationGranularity(NULL, &p, hipMemAllocationGranularityMinimum),
		     hipErrorInvalidValue);
}

/* hipMemCreate: device memory recorded with its properties;
 * hipMemRelease frees it. */
Test(mem_vmm, hipMemCreate_and_release)
{
	hipMemAllocationProp p = dev_prop(1), q;
	hipMemGenericAllocationHandle_t h = NULL;
	size_t f0, f1, t;

	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&f0, &t), hipSuccess);
	cr_assert_eq(hipMemCreate(&h, 64 * 1024, &p, 0), hipSuccess);
	cr_assert_not_null(h);
	cr_assert_eq(hipMemGetInfo(&f1, &t), hipSuccess);
	cr_expect_eq(f0 - f1, 64 * 1024, "charged to device 1");
	memset(&q, 0, sizeof(q));
	cr_assert_eq(hipMemGetAllocationPropertiesFromHandle(&q, h), hipSuccess);
	cr_expect_eq(q.location.id, 1);
	cr_expect_eq(q.type, hipMemAllocationTypePinned);
	cr_expect_eq(hipMemRelease(h), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&f1, &t), hipSuccess);
	cr_expect_eq(f1, f0);
	cr_expect_eq(hipMemRelease(NULL), hipErrorInvalidValue);
}

/* hipMemCreate: argument checks in ROCm's order. */
Test(mem_vmm, hipMemCreate_arguments)
{
	hipMemAllocationProp p = dev_prop(0);
	hipMemGenericAllocationHandle_t h;

	cr_expect_eq(hipMemCreate(NULL, 4096, &p, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemCreate(&h, 0, &p, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemCreate(&h, 4096, &p, 1), hipErrorInvalidValue);
	cr_expect_eq(hipMemCreate(&h, 4096, NULL, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemCreate(&h, 1000, &p, 0), hipErrorInvalidValue, "not a granule multiple");
	cr_expect_eq(hipMemCreate(&h, 65 * GIB, &p, 0), hipErrorOutOfMemory);
	p.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
	cr_expect_eq(hipMemCreate(&h, 4096, &p, 0), hipErrorNotSupported);
	p = dev_prop(0);
	p.location.type = hipMemLocationTypeInvalid;
	cr_expect_eq(hipMemCreate(&h, 4096, &p, 0), hipErrorInvalidValue);
}

/* hipMemAddressReserve: checks ptr and flags, reserves nothing, writes
 * nothing; hipMemAddressFree checks its arguments. */
Test(mem_vmm, hipMemAddressReserve_writes_nothing)
{
	void *p = (void *)0x77;

	cr_expect_eq(hipMemAddressReserve(&p, MIB, 0, NULL, 0), hipSuccess);
	cr_expect_eq(p, (void *)0x77);
	cr_expect_eq(hipMemAddressReserve(NULL, MIB, 0, NULL, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemAddressReserve(&p, MIB, 0, NULL, 1), hipErrorInvalidValue);
	cr_expect_eq(hipMemAddressFree(p, MIB), hipSuccess);
	cr_expect_eq(hipMemAddressFree(NULL, MIB), hipErrorInvalidValue);
	cr_expect_eq(hipMemAddressFree(p, 0), hipErrorInvalidValue);
}

/* hipMemMap / hipMemUnmap / hipMemSetAccess / hipMemGetAccess /
 * hipMemRetainAllocationHandle: argument checks, then success. */
Test(mem_vmm, hipMemMap_family_checks_only)
{
	hipMemAllocationProp p = dev_prop(0);
	hipMemGenericAllocationHandle_t h, r = (hipMemGenericAllocationHandle_t)0x99;
	hipMemAccessDesc d = { { hipMemLocationTypeDevice, 0 }, hipMemAccessFlagsProtReadWrite };
	hipMemLocation loc = { hipMemLocationTypeDevice, 0 };
	unsigned long long fl = 5;
	char va[64];

	cr_assert_eq(hipMemCreate(&h, 4096, &p, 0), hipSuccess);
	cr_expect_eq(hipMemMap(va, 4096, 0, h, 0), hipSuccess);
	cr_expect_eq(hipMemMap(va, 4096, 4096, h, 0), hipErrorInvalidValue, "offset must be 0");
	cr_expect_eq(hipMemMap(va, 0, 0, h, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemMap(NULL, 4096, 0, h, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemMap(va, 4096, 0, NULL, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemSetAccess(va, 4096, &d, 1), hipSuccess);
	cr_expect_eq(hipMemSetAccess(va, 4096, &d, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemGetAccess(&fl, &loc, va), hipSuccess);
	cr_expect_eq(fl, 5, "nothing written");
	cr_expect_eq(hipMemGetAccess(NULL, &loc, va), hipErrorInvalidValue);
	cr_expect_eq(hipMemRetainAllocationHandle(&r, va), hipSuccess);
	cr_expect_eq(r, (hipMemGenericAllocationHandle_t)0x99, "nothing written");
	cr_expect_eq(hipMemRetainAllocationHandle(NULL, va), hipErrorInvalidValue);
	cr_expect_eq(hipMemUnmap(va, 4096), hipSuccess);
	cr_expect_eq(hipMemUnmap(NULL, 4096), hipErrorInvalidValue);
	cr_expect_eq(hipMemRelease(h), hipSuccess);
}

/* hipMemExportToShareableHandle / hipMemImportFromShareableHandle:
 * argument checks, then hipErrorNotSupported. */
Test(mem_vmm, shareable_handles_not_supported)
{
	hipMemAllocationProp p = dev_prop(0);
	hipMemGenericAllocationHandle_t h, g;
	int fd = -1;

	cr_assert_eq(hipMemCreate(&h, 4096, &p, 0), hipSuccess);
	cr_expect_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipErrorNotSupported);
	cr_expect_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 1),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemExportToShareableHandle(NULL, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemImportFromShareableHandle(&g, &fd, hipMemHandleTypePosixFileDescriptor),
		     hipErrorNotSupported);
	cr_expect_eq(hipMemImportFromShareableHandle(NULL, &fd, hipMemHandleTypePosixFileDescriptor),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemRelease(h), hipSuccess);
}

/* hipMemMapArrayAsync: sparse arrays are not in ROCm 5.2.3. */
Test(mem_vmm, hipMemMapArrayAsync_not_supported)
{
	hipArrayMapInfo info;

	memset(&info, 0, sizeof(info));
	cr_expect_eq(hipMemMapArrayAsync(&info, 1, NULL), hipErrorNotSupported);
	cr_expect_eq(hipMemMapArrayAsync(NULL, 1, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMemMapArrayAsync(&info, 0, NULL), hipErrorInvalidValue);
}
