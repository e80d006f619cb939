/* SPDX-License-Identifier: MIT */
/* conf_mem_pool.c - stream-ordered pools against ROCm 5.2.3
 * (hip_mempool.cpp, hip_mempool_impl.cpp). */
#include "conf_mem.h"

#include <time.h>

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

/* ---- stream-ordered frees (MemoryPool::FreeMemory): a kernel that runs
 * until the case opens its gate (conf_kernels.hip's `gate`, as in
 * conf_async.c) holds the freeing stream, so no case depends on timing ---- */

#define GATE_LIMIT_S 20
#define REALTIME_HZ 100000000ull	/* MI200's reference clock */

static hipModule_t gate_mod;
static hipFunction_t f_gate;
static volatile int *gate_mem;		/* [0] open, [1] started */
static unsigned long long *gate_stamp;

static void gate_setup(void)
{
	const char *path = getenv("CONF_KERNELS");

	if (!path)	/* built without hipcc: the cases skip */
		return;
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	cr_assert_eq(hipModuleLoad(&gate_mod, path), hipSuccess);
	cr_assert_eq(hipModuleGetFunction(&f_gate, gate_mod, "gate"), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&gate_mem, 2 * sizeof(int), 0), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&gate_stamp, 4 * sizeof(*gate_stamp), 0), hipSuccess);
}

static void gate_teardown(void)
{
	if (!gate_mem)
		return;
	__atomic_store_n(&gate_mem[0], 1, __ATOMIC_RELEASE);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipHostFree((void *)gate_mem), hipSuccess);
	cr_assert_eq(hipHostFree(gate_stamp), hipSuccess);
	cr_assert_eq(hipModuleUnload(gate_mod), hipSuccess);
}

/* Launches the gate kernel on s, closed, and waits (bounded) until it runs. */
static void gate_need(void)
{
	if (!gate_mem)
		cr_skip_test("no conf_kernels code object (hipcc not found)");
}

static void gate_hold(hipStream_t s)
{
	unsigned long long limit = GATE_LIMIT_S * REALTIME_HZ;
	void *g = (void *)gate_mem, *st = gate_stamp;
	void *params[] = { &g, &st, &limit };
	struct timespec ts = { 0, 1000000 };
	int i;

	gate_mem[0] = 0;
	gate_mem[1] = 0;
	cr_assert_eq(hipModuleLaunchKernel(f_gate, 1, 1, 1, 1, 1, 1, 0, s, params, NULL),
		     hipSuccess);
	for (i = 0; i < GATE_LIMIT_S * 1000 && !__atomic_load_n(&gate_mem[1], __ATOMIC_ACQUIRE); i++)
		nanosleep(&ts, NULL);
	cr_assert(gate_mem[1], "the kernel did not start");
}

static void gate_open(void)
{
	__atomic_store_n(&gate_mem[0], 1, __ATOMIC_RELEASE);
}

static void set_opportunistic(hipMemPool_t p, int32_t v)
{
	cr_assert_eq(hipMemPoolSetAttribute(p, hipMemPoolReuseAllowOpportunistic, &v), hipSuccess);
}

/* hipFreeAsync behind a running kernel returns at once (the stream is still
 * busy), the block counts as reserved, and hipMemPoolTrimTo leaves it
 * (IsSafeRelease: its marker has not retired); hipStreamSynchronize gives
 * nothing back (5.2.3 releases at no synchronisation); a trim after it does.
 * hip-tests' Unit_hipMemPoolApi_BasicTrim. */
Test(mem_pool, hipFreeAsync_trim_waits_for_the_stream, .init = gate_setup,
     .fini = gate_teardown)
{
	hipMemPool_t p;
	hipStream_t s;
	void *b, *c;

	gate_need();
	p = make_pool(0);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&b, MIB, p, s), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&c, 4 * KIB, p, s), hipSuccess);
	gate_hold(s);
	cr_expect_eq(hipFreeAsync(b, s), hipSuccess);
	cr_expect_eq(hipStreamQuery(s), hipErrorNotReady, "the free did not wait for the kernel");
	cr_expect_eq(attr64(p, hipMemPoolAttrUsedMemCurrent), 4 * KIB);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), MIB + 4 * KIB);
	cr_expect_eq(hipMemPoolTrimTo(p, 4 * KIB), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), MIB + 4 * KIB,
		     "a block whose free the stream has not reached stays");
	gate_open();
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), MIB + 4 * KIB);
	cr_expect_eq(hipMemPoolTrimTo(p, 4 * KIB), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), 4 * KIB);
	cr_expect_eq(attr64(p, hipMemPoolAttrUsedMemCurrent), 4 * KIB);
	cr_expect_eq(hipFreeAsync(c, s), hipSuccess);
	cr_expect_eq(hipMemPoolDestroy(p), hipSuccess);
	cr_expect_eq(hipStreamDestroy(s), hipSuccess);
}

/* MemoryPool::AllocateMemory on another stream (IsSafeFind): a block whose
 * free is not reached is not taken, opportunistic or not; a reached one is
 * taken only while hipMemPoolReuseAllowOpportunistic is set. The stream it
 * was allocated on takes it at once (its safe stream). hip-tests'
 * Unit_hipMemPoolApi_Opportunistic, its three sections. */
Test(mem_pool, hipMallocFromPoolAsync_reuse_follows_the_attributes, .init = gate_setup,
     .fini = gate_teardown)
{
	hipMemPool_t p;
	hipStream_t s, s2;
	void *a, *b, *c;

	gate_need();
	p = make_pool(0);
	cr_assert_eq(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking), hipSuccess);

	/* opportunistic, not reached: a new block for s2; s itself reuses */
	set_opportunistic(p, 1);
	cr_assert_eq(hipMallocFromPoolAsync(&a, MIB, p, s), hipSuccess);
	gate_hold(s);
	cr_expect_eq(hipFreeAsync(a, s), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&b, MIB, p, s2), hipSuccess);
	cr_expect_neq(b, a, "a block still in use by the kernel was handed out");
	cr_assert_eq(hipMallocFromPoolAsync(&c, MIB, p, s), hipSuccess);
	cr_expect_eq(c, a, "the allocating stream reuses its own block");
	gate_open();
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_expect_eq(hipFreeAsync(b, s2), hipSuccess);
	cr_expect_eq(hipFreeAsync(c, s), hipSuccess);
	cr_expect_eq(hipMemPoolTrimTo(p, 0), hipSuccess);
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), 0);

	/* not opportunistic, reached: still a new block for s2 */
	set_opportunistic(p, 0);
	cr_assert_eq(hipMallocFromPoolAsync(&a, MIB, p, s), hipSuccess);
	gate_hold(s);
	cr_expect_eq(hipFreeAsync(a, s), hipSuccess);
	gate_open();
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&b, MIB, p, s2), hipSuccess);
	cr_expect_neq(b, a, "reuse on another stream without hipMemPoolReuseAllowOpportunistic");

	/* opportunistic, reached: s2 takes s's block */
	set_opportunistic(p, 1);
	cr_assert_eq(hipMallocFromPoolAsync(&c, MIB, p, s2), hipSuccess);
	cr_expect_eq(c, a, "a reached free block is reused");
	cr_expect_eq(attr64(p, hipMemPoolAttrReservedMemCurrent), 2 * MIB);
	cr_expect_eq(hipFreeAsync(b, s2), hipSuccess);
	cr_expect_eq(hipFreeAsync(c, s2), hipSuccess);
	cr_expect_eq(hipMemPoolDestroy(p), hipSuccess);
	cr_expect_eq(hipStreamDestroy(s), hipSuccess);
	cr_expect_eq(hipStreamDestroy(s2), hipSuccess);
}
