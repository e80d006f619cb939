/* SPDX-License-Identifier: MIT */
/* conf_mem_pool.c - stream-ordered pools against ROCm 5.2.3
 * (hip_mempool.cpp, hip_mempool_impl.cpp). */
#include "conf_mem.h"

TestSuite(mem_pool, .timeout = 60);

static hipMemPool_t make_pool(int dev)
{
	hipMemPoolProps props;
	hipMemPool_t p = NULL;

	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = dev;
	cr_assert_eq(hipMemPoolCreate(&p, &props), hipSuccess);
	cr_assert_not_null(p);
	return p;
}

static uint64_t attr64(hipMemPool_t p, hipMemPoolAttr a)
{
	uint64_t v = 0xdead;

	cr_assert_eq(hipMemPoolGetAttribute(p, a, &v), hipSuccess, "attribute %d", (int)a);
	return v;
}

/* hipDeviceGetDefaultMemPool: one pool per device, the current one at
 * first; a device out of range or NULL is hipErrorInvalidValue. */
Test(mem_pool, hipDeviceGetDefaultMemPool_answers)
{
	hipMemPool_t a = NULL, b = NULL, c = NULL;

	cr_assert_eq(hipDeviceGetDefaultMemPool(&a, 0), hipSuccess);
	cr_assert_eq(hipDeviceGetDefaultMemPool(&b, 0), hipSuccess);
	cr_expect_eq(a, b);
	cr_assert_eq(hipDeviceGetDefaultMemPool(&c, 1), hipSuccess);
	cr_expect_neq(a, c);
	cr_assert_eq(hipDeviceGetMemPool(&b, 0), hipSuccess);
	cr_expect_eq(a, b);
	cr_expect_eq(hipDeviceGetDefaultMemPool(&a, 64), hipErrorInvalidValue);
	cr_expect_eq(hipDeviceGetDefaultMemPool(&a, -1), hipErrorInvalidValue);
	cr_expect_eq(hipDeviceGetDefaultMemPool(NULL, 0), hipErrorInvalidValue);
	cr_expect_eq(hipDeviceGetMemPool(NULL, 0), hipErrorInvalidValue);
}

/* hipMemPoolCreate: the location must be a device that exists. */
Test(mem_pool, hipMemPoolCreate_location)
{
	hipMemPoolProps props;
	hipMemPool_t p;

	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeInvalid;
	cr_expect_eq(hipMemPoolCreate(&p, &props), hipErrorInvalidValue);
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 99;
	cr_expect_eq(hipMemPoolCreate(&p, &props), hipErrorInvalidValue);
	props.location.id = 0;
	cr_expect_eq(hipMemPoolCreate(NULL, &props), hipErrorInvalidValue);
	cr_expect_eq(hipMemPoolCreate(&p, &props), hipSuccess);
	cr_expect_eq(hipMemPoolDestroy(p), hipSuccess);
	cr_expect_eq(hipMemPoolDestroy(NULL), hipErrorInvalidValue);
}

/* MemoryPool::GetAttribute: the reuse flags start at 1, the threshold
 * at 0. */
Test(mem_pool, hipMemPoolGetAttribute_defaults)
{
	hipMemPool_t p = make_pool(0);
	int32_t v = -1;

	cr_assert_eq(hipMemPoolGetAttribute(p, hipMemPoolReuseFollowEventDependencies, &v),
		     hipSuccess);
	cr_expect_eq(v, 1);
	cr_assert_eq(hipMemPoolGetAttribute(p, hipMemPoolReuseAllowOpportunistic, &v), hipSuccess);
	cr_expect_eq(v, 1);
	cr_assert_eq(hipMemPoolGetAttribute(p, hipMemPoolReuseAllowInternalDependencies, &v),
		     hipSuccess);
	cr_expect_eq(v, 1);
	cr_expect_eq(attr64(p, hipMemPoolAttrReleaseThreshold), 0);
	cr_expect_eq(attr64(p, hipMemPoolAttrUsedMemCurrent), 0);
	cr_expect_eq(hipMemPoolGetAttribute(p, (hipMemPoolAttr)77, &v), hipErrorInvalidValue);
	cr_expect_eq(hipMemPoolGetAttribute(NULL, hipMemPoolAttrUsedMemCurrent, &v),
		     hipErrorInvalidValue);
}

/* MemoryPool::SetAttribute: current values are read-only; the high marks
 * only reset to 0, and ReservedMemHigh fails even then (ROCm 5.2.3 falls
 * through into the UsedMemCurrent case). */
Test(mem_pool, hipMemPoolSetAttribute_answers)
{
	hipMemPool_t p = make_pool(0);
	uint64_t zero = 0, one = 1, big = 1 << 20;
	int32_t off = 0;

	cr_expect_eq(hipMemPoolSetAttribute(p, hipMemPoolAttrReservedMemHigh, &zero),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemPoolSetAttribute(p, hipMemPoolAttrReservedMemHigh, &one),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemPoolSetAttribute(p, hipMemPoolAttrUsedMemHigh, &one),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemPoolSetAttribute(p, hipMemPoolAttrUsedMemHigh, &zero), hipSuccess);
	cr_expect_eq(hipMemPoolSetAttribute(p, hipMemPoolAttrUsedMemCurrent, &zero),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemPoolSetAttribute(p, hipMemPoolAttrReservedMemCurrent, &zero),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemPoolSetAttribute(p, hipMemPoolAttrReleaseThreshold, &big), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrReleaseThreshold), big);
	cr_expect_eq(hipMemPoolSetAttribute(p, hipMemPoolReuseAllowOpportunistic, &off), hipSuccess);
	off = 5;
	cr_assert_eq(hipMemPoolGetAttribute(p, hipMemPoolReuseAllowOpportunistic, &off), hipSuccess);
	cr_expect_eq(off, 0);
}

/* MemoryPool::AllocateMemory / FreeMemory: the counters, and a freed
 * block is reused for a request it can hold. */
Test(mem_pool, hipMallocFromPoolAsync_reuse_and_counters)
{
	hipMemPool_t p = make_pool(1);
	void *a, *b, *c;

	cr_assert_eq(hipMallocFromPoolAsync(&a, MIB, p, NULL), hipSuccess);
	cr_assert_not_null(a);
	cr_expect_eq(attr64(p, hipMemPoolAttrUsedMemCurrent), MIB);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), MIB);
	cr_expect_eq(hipFreeAsync(a, NULL), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrUsedMemCurrent), 0);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), MIB);
	cr_expect_eq(attr64(p, hipMemPoolAttrUsedMemHigh), MIB);
	cr_assert_eq(hipMallocFromPoolAsync(&b, MIB / 2, p, NULL), hipSuccess);
	cr_expect_eq(b, a, "the free block is reused");
	cr_assert_eq(hipMallocFromPoolAsync(&c, 2 * MIB, p, NULL), hipSuccess);
	cr_expect_neq(c, a);
	cr_expect_eq(attr64(p, hipMemPoolAttrUsedMemCurrent), 3 * MIB);
	cr_expect_eq(hipsvmSimIsMapped(1, c), 1, "pool memory is in GPU 1's page table");
	cr_expect_eq(hipFreeAsync(b, NULL), hipSuccess);
	cr_expect_eq(hipFreeAsync(c, NULL), hipSuccess);
	cr_expect_eq(hipMemPoolDestroy(p), hipSuccess);
}

/* hipMallocFromPoolAsync: size 0 or no pool is hipErrorInvalidValue. */
Test(mem_pool, hipMallocFromPoolAsync_arguments)
{
	hipMemPool_t p = make_pool(0);
	void *a;

	cr_expect_eq(hipMallocFromPoolAsync(&a, 0, p, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMallocFromPoolAsync(&a, 16, NULL, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMallocFromPoolAsync(NULL, 16, p, NULL), hipErrorInvalidValue);
}

/* MemoryPool::AllocateMemory: what the device cannot hold is NULL, and
 * hipMallocFromPoolAsync still answers hipSuccess. */
Test(mem_pool, hipMallocFromPoolAsync_beyond_device_is_null)
{
	hipMemPool_t p = make_pool(0);
	void *a = (void *)1;

	cr_expect_eq(hipMallocFromPoolAsync(&a, 65 * GIB, p, NULL), hipSuccess);
	cr_expect_null(a);
}

/* hipDeviceSetMemPool: hipMallocAsync takes from the device's current
 * pool; destroying it points the device back at its default pool. */
Test(mem_pool, hipDeviceSetMemPool_current)
{
	hipMemPool_t p = make_pool(0), q = NULL, def = NULL;
	void *a;

	cr_assert_eq(hipDeviceSetMemPool(0, p), hipSuccess);
	cr_assert_eq(hipDeviceGetMemPool(&q, 0), hipSuccess);
	cr_expect_eq(q, p);
	cr_assert_eq(hipMallocAsync(&a, 4096, NULL), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrUsedMemCurrent), 4096);
	cr_expect_eq(hipFreeAsync(a, NULL), hipSuccess);
	cr_expect_eq(hipMemPoolDestroy(p), hipSuccess);
	cr_assert_eq(hipDeviceGetMemPool(&q, 0), hipSuccess);
	cr_assert_eq(hipDeviceGetDefaultMemPool(&def, 0), hipSuccess);
	cr_expect_eq(q, def);
	cr_expect_eq(hipDeviceSetMemPool(0, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipDeviceSetMemPool(77, def), hipErrorInvalidValue);
}

/* MemoryPool::TrimTo: free blocks go back until at most the given bytes
 * are held; blocks in use stay. */
Test(mem_pool, hipMemPoolTrimTo_releases)
{
	hipMemPool_t p = make_pool(0);
	void *a, *b, *c;
	size_t f0, f1, t;

	cr_assert_eq(hipMallocFromPoolAsync(&a, MIB, p, NULL), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&b, MIB, p, NULL), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&c, MIB, p, NULL), hipSuccess);
	cr_assert_eq(hipFreeAsync(a, NULL), hipSuccess);
	cr_assert_eq(hipFreeAsync(b, NULL), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&f0, &t), hipSuccess);
	cr_expect_eq(hipMemPoolTrimTo(p, MIB), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), 2 * MIB);
	cr_expect_eq(hipMemPoolTrimTo(p, 0), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), MIB);
	cr_assert_eq(hipMemGetInfo(&f1, &t), hipSuccess);
	cr_expect_eq(f1 - f0, 2 * MIB, "the device got the trimmed blocks back");
	cr_expect_eq(hipMemPoolTrimTo(NULL, 0), hipErrorInvalidValue);
	cr_expect_eq(hipFreeAsync(c, NULL), hipSuccess);
}

/* ROCm 5.2.3 has no implementation of the pool's access, export and import
 * calls: they succeed and write nothing. */
Test(mem_pool, hipMemPool_export_import_are_empty)
{
	hipMemPool_t p = make_pool(0), q = (hipMemPool_t)0x1234;
	hipMemPoolPtrExportData data;
	hipMemAccessFlags fl = (hipMemAccessFlags)77;
	hipMemLocation loc = { hipMemLocationTypeDevice, 0 };
	void *d = (void *)0x5678;
	int h = 42;

	memset(&data, 0x5a, sizeof(data));
	cr_expect_eq(hipMemPoolExportToShareableHandle(&h, p, hipMemHandleTypePosixFileDescriptor, 0),
		     hipSuccess);
	cr_expect_eq(h, 42);
	cr_expect_eq(hipMemPoolImportFromShareableHandle(&q, &h, hipMemHandleTypePosixFileDescriptor,
							 0), hipSuccess);
	cr_expect_eq(q, (hipMemPool_t)0x1234);
	cr_expect_eq(hipMemPoolExportPointer(&data, d), hipSuccess);
	cr_expect_eq(hipMemPoolImportPointer(&d, p, &data), hipSuccess);
	cr_expect_eq(d, (void *)0x5678);
	cr_expect_eq(hipMemPoolGetAccess(&fl, p, &loc), hipSuccess);
	cr_expect_eq(fl, (hipMemAccessFlags)77);
	cr_expect_eq(hipMemPoolSetAccess(p, NULL, 0), hipSuccess);
}
