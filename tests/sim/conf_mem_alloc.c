/* SPDX-License-Identifier: MIT */
/* conf_mem_alloc.c - allocation calls against ROCm 5.2.3 (hip_memory.cpp,
 * hip_mempool.cpp), the allocation map at scale and the 64 GiB default. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conf_mem.h"

TestSuite(mem_alloc, .timeout = 120);

/* ihipMalloc: size 0 is success and NULL. */
Test(mem_alloc, hipMalloc_zero_is_null)
{
	void *p = (void *)1;

	cr_expect_eq(hipMalloc(&p, 0), hipSuccess);
	cr_expect_null(p);
}

/* hipMemGetInfo: an MI210's 64 GiB per GPU unless HIPSVM_SIM_MEM says. */
Test(mem_alloc, hipMemGetInfo_total_is_64GiB)
{
	size_t f = 0, t = 0;

	cr_assert_eq(hipMemGetInfo(&f, &t), hipSuccess);
	cr_expect_eq(t, 64 * GIB);
	cr_expect_eq(f, 64 * GIB);
}

/* hipMalloc: the 262,145th page-rounded allocation (past 1 GiB) succeeds. */
Test(mem_alloc, hipMalloc_262145_pages_fit)
{
	const size_t n = 262145;
	void **v = calloc(n, sizeof(*v));
	size_t i, f, t;

	cr_assert(v);
	for (i = 0; i < n; i++)
		cr_assert_eq(hipMalloc(&v[i], 4096), hipSuccess, "allocation #%zu", i + 1);
	cr_assert_eq(hipMemGetInfo(&f, &t), hipSuccess);
	cr_expect_eq(t - f, n * 4096);
	for (i = 0; i < n; i++)
		cr_assert_eq(hipFree(v[i]), hipSuccess);
	free(v);
}

/* ihipMalloc: beyond the device's memory is hipErrorOutOfMemory. */
Test(mem_alloc, hipMalloc_beyond_device_fails)
{
	void *p;

	cr_expect_eq(hipMalloc(&p, 65 * GIB), hipErrorOutOfMemory);
}

/* HIPSVM_SIM_MEM still sets the size. */
Test(mem_alloc, hipMemGetInfo_follows_HIPSVM_SIM_MEM)
{
	size_t f, t;
	void *p;

	setenv("HIPSVM_SIM_MEM", "64M", 1);
	cr_assert_eq(hipMemGetInfo(&f, &t), hipSuccess);
	cr_expect_eq(t, 64 * MIB);
	cr_expect_eq(hipMalloc(&p, 65 * MIB), hipErrorOutOfMemory);
}

/* ROCclr's maxMemAllocSize_, 85 % of the device aligned down to 8 bytes
 * (rocdevice.cpp:1228-1260): one device, pitched, pool or managed
 * allocation larger than it is refused before free memory is looked at
 * (hip_memory.cpp:281, :681, hip_mempool_impl.cpp:139, hip_hmm.cpp:221), so
 * an idle GPU's whole free memory is not one allocation (5.2.3's own
 * Unit_hipMallocManaged_OverSubscription); hipDeviceProp_t.memPitch is the
 * limit when it is under INT32_MAX (hip_device.cpp:326). */
Test(mem_alloc, one_allocation_is_at_most_85_percent_of_the_device)
{
	const size_t max = (size_t)((uint64_t)64 * MIB * 85 / 100) & ~(size_t)7;
	hipDeviceProp_t prop;
	hipPitchedPtr pp;
	size_t f, t, pitch;
	void *p;

	setenv("HIPSVM_SIM_MEM", "64M", 1);
	cr_assert_eq(hipMemGetInfo(&f, &t), hipSuccess);
	cr_assert_eq(f, 64 * MIB);
	cr_expect_eq(hipMalloc(&p, max + 1), hipErrorOutOfMemory);
	cr_expect_eq(hipMallocManaged(&p, f + 1, hipMemAttachGlobal), hipErrorMemoryAllocation);
	cr_expect_eq(hipMallocManaged(&p, max + 1, hipMemAttachGlobal), hipErrorMemoryAllocation);
	cr_expect_eq(hipMallocPitch(&p, &pitch, 4096, max / 4096 + 1), hipErrorOutOfMemory);
	cr_expect_eq(hipMalloc3D(&pp, make_hipExtent(4096, max / 4096 / 2 + 1, 2)),
		     hipErrorOutOfMemory);
	/* hipMallocAsync answers hipSuccess and NULL (hip_mempool.cpp:68-69) */
	p = (void *)1;
	cr_expect_eq(hipMallocAsync(&p, max + 8, NULL), hipSuccess);
	cr_expect_null(p);
	cr_assert_eq(hipGetDeviceProperties(&prop, 0), hipSuccess);
	cr_expect_eq(prop.memPitch, max);
	cr_assert_eq(hipMallocManaged(&p, max, hipMemAttachGlobal), hipSuccess);
	cr_expect_eq(hipFree(p), hipSuccess);
	cr_assert_eq(hipMalloc(&p, max), hipSuccess, "exactly the limit");
	cr_expect_eq(hipFree(p), hipSuccess);
}

/* hipHostRegister: no "already registered" check; ROCm's map keeps the
 * first registration, one hipHostUnregister removes it. */
Test(mem_alloc, hipHostRegister_twice_succeeds)
{
	char *buf = aligned_alloc(4096, 8192);

	cr_assert(buf);
	cr_expect_eq(hipHostRegister(buf, 8192, 0), hipSuccess);
	cr_expect_eq(hipHostRegister(buf, 8192, 0), hipSuccess);
	cr_expect_eq(hipHostRegister(buf + 4096, 4096, 0), hipSuccess, "an overlapping range");
	cr_expect_eq(hipHostUnregister(buf + 4096), hipSuccess);
	cr_expect_eq(hipHostUnregister(buf), hipSuccess);
	cr_expect_eq(hipHostUnregister(buf), hipErrorHostMemoryNotRegistered);
	free(buf);
}

/* ihipHostRegister: pinning more than the machine has fails. */
Test(mem_alloc, hipHostRegister_beyond_memory_fails)
{
	char *buf = aligned_alloc(4096, 8192);
	size_t huge = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE) * 2;

	cr_assert(buf);
	cr_expect_eq(hipHostRegister(buf, huge, 0), hipErrorOutOfMemory);
	free(buf);
}

/* ihipHostRegister: pages that are not mapped cannot be pinned. The hole
 * can be filled by another thread's mapping before the call looks (under
 * ASan its allocator's, which takes small holes first): an attempt counts
 * only if the hole was still one after the call. */
static bool is_hole(void *p)
{
	return msync(p, 4096, MS_ASYNC) == -1 && errno == ENOMEM;
}

Test(mem_alloc, hipHostRegister_unmapped_fails)
{
	hipError_t e = hipSuccess;
	char *p = NULL;
	int tries;

	for (tries = 0; tries < 50; tries++) {
		p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		cr_assert(p != MAP_FAILED);
		munmap(p + 4096, 4096);
		e = hipHostRegister(p, 3 * 4096, 0);
		if (is_hole(p + 4096))
			break;
		if (e == hipSuccess)
			hipHostUnregister(p);
		/* only the pages still ours: the hole holds someone else's now */
		munmap(p, 4096);
		munmap(p + 2 * 4096, 4096);
	}
	cr_assert_lt(tries, 50, "the hole was filled by another mapping in every attempt");
	cr_expect_eq(e, hipErrorOutOfMemory);
	cr_expect_eq(hipHostRegister(p, 4096, 0), hipSuccess);
	cr_expect_eq(hipHostUnregister(p), hipSuccess);
	munmap(p, 4096);
	munmap(p + 2 * 4096, 4096);
}

/* hipMemGetAddressRange: the allocation holding the pointer. */
Test(mem_alloc, hipMemGetAddressRange_interior)
{
	char *d = dmalloc(1000), x;
	void *base = NULL;
	size_t size = 0;

	cr_assert_eq(hipMemGetAddressRange(&base, &size, d + 999), hipSuccess);
	cr_expect_eq(base, d);
	cr_expect_eq(size, 1000);
	cr_expect_eq(hipMemGetAddressRange(&base, &size, &x), hipErrorInvalidDevicePointer);
	hipFree(d);
	cr_expect_eq(hipMemGetAddressRange(&base, &size, d), hipErrorInvalidDevicePointer);
}

/* hipMallocAsync: size 0 and a NULL pointer are hipErrorInvalidValue. */
Test(mem_alloc, hipMallocAsync_zero_is_invalid)
{
	void *p;

	cr_expect_eq(hipMallocAsync(&p, 0, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMallocAsync(NULL, 16, NULL), hipErrorInvalidValue);
}

/* hipFreeAsync: the block goes back to the pool; a second free frees it
 * for good (ihipFree); a third fails. */
Test(mem_alloc, hipFreeAsync_twice)
{
	void *p;

	cr_assert_eq(hipMallocAsync(&p, 4096, NULL), hipSuccess);
	cr_expect_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_expect_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_expect_eq(hipFreeAsync(p, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipFreeAsync(NULL, NULL), hipErrorInvalidValue);
}

/* hipMemAllocPitch: hipMallocPitch's answers, rows 256-aligned. */
Test(mem_alloc, hipMemAllocPitch_aligned)
{
	void *p = (void *)1;
	size_t pitch = 0;

	cr_assert_eq(hipMemAllocPitch(&p, &pitch, 300, 7, 4), hipSuccess);
	cr_expect_eq(pitch, 512);
	cr_expect_eq(hipsvmSimIsMapped(0, p), 1, "device memory in GPU 0's page table");
	cr_expect_eq(hipFree(p), hipSuccess);
	cr_expect_eq(hipMemAllocPitch(&p, &pitch, 0, 7, 4), hipSuccess);
	cr_expect_null(p);
	cr_expect_eq(hipMemAllocPitch(NULL, &pitch, 1, 1, 4), hipErrorInvalidValue);
}

/* hipMalloc3D: pitch, xsize, ysize; a zero extent is NULL and success. */
Test(mem_alloc, hipMalloc3D_fields)
{
	hipPitchedPtr pp;
	void *base;
	size_t size;

	cr_assert_eq(hipMalloc3D(&pp, make_hipExtent(100, 5, 3)), hipSuccess);
	cr_expect_eq(pp.pitch, 256);
	cr_expect_eq(pp.xsize, 100);
	cr_expect_eq(pp.ysize, 5);
	cr_assert_eq(hipMemGetAddressRange(&base, &size, pp.ptr), hipSuccess);
	cr_expect_eq(size, 256 * 5 * 3);
	cr_expect_eq(hipFree(pp.ptr), hipSuccess);
	cr_expect_eq(hipMalloc3D(&pp, make_hipExtent(0, 5, 3)), hipSuccess);
	cr_expect_null(pp.ptr);
	cr_expect_eq(hipMalloc3D(NULL, make_hipExtent(1, 1, 1)), hipErrorInvalidValue);
}

/* The map against a brute-force list: random allocations and frees, then
 * hipMemGetAddressRange at random addresses inside and around them
 * (MemObjMap::FindMemObj's answers). */
Test(mem_alloc, map_matches_brute_force)
{
	enum { N = 3000, OPS = 20000 };
	static char *base[N];
	static size_t len[N];
	uint64_t seed = 0x5eed0010u, s;
	unsigned i, k, live = 0;

	s = seed;
	printf("map_matches_brute_force: seed %#llx\n", (unsigned long long)seed);
	for (k = 0; k < OPS; k++) {
		i = (unsigned)(conf_rand(&s) % N);
		if (base[i]) {
			cr_assert_eq(hipFree(base[i]), hipSuccess);
			base[i] = NULL;
			live--;
		} else {
			len[i] = 1 + conf_rand(&s) % (3 * 4096);
			cr_assert_eq(hipMalloc((void **)&base[i], len[i]), hipSuccess);
			live++;
		}
		if (k % 7 == 0) {
			unsigned j = (unsigned)(conf_rand(&s) % N), m, hit = N;
			char *probe;
			void *b = NULL;
			size_t sz = 0;
			hipError_t e;

			if (!base[j])
				continue;
			probe = base[j] + conf_rand(&s) % (len[j] + 4096);
			for (m = 0; m < N; m++)
				if (base[m] && probe >= base[m] && probe < base[m] + len[m])
					hit = m;
			e = hipMemGetAddressRange(&b, &sz, probe);
			if (hit == N) {
				cr_expect_eq(e, hipErrorInvalidDevicePointer, "probe %p (seed %#llx)",
					     (void *)probe, (unsigned long long)seed);
			} else {
				cr_expect_eq(e, hipSuccess);
				cr_expect_eq(b, base[hit]);
				cr_expect_eq(sz, len[hit]);
			}
		}
	}
	for (i = 0; i < N; i++)
		if (base[i])
			cr_assert_eq(hipFree(base[i]), hipSuccess);
	(void)live;
}

/* hipHostMalloc: only coherent with non-coherent is refused (and *ptr is
 * NULL then); other bits are kept in the allocation's flags. */
Test(mem_alloc, hipHostMalloc_flags)
{
	unsigned fl = 0;
	void *p = (void *)1;

	cr_expect_eq(hipHostMalloc(&p, 64, hipHostMallocCoherent | hipHostMallocNonCoherent),
		     hipErrorInvalidValue);
	cr_expect_null(p);
	cr_assert_eq(hipHostMalloc(&p, 64, 0x100), hipSuccess);
	cr_assert_eq(hipHostGetFlags(&fl, p), hipSuccess);
	cr_expect_eq(fl, 0x100);
	hipHostFree(p);
}

/* hipHostGetDevicePointer / hipHostGetFlags: any HIP memory; the flags
 * argument is not looked at; unknown memory is hipErrorInvalidValue. */
Test(mem_alloc, hipHostGetDevicePointer_any_memory)
{
	void *d = dmalloc(64), *dp = NULL;
	unsigned fl = 9;
	int x;

	cr_expect_eq(hipHostGetDevicePointer(&dp, (char *)d + 8, 5), hipSuccess);
	cr_expect_eq(dp, (char *)d + 8);
	cr_expect_eq(hipHostGetFlags(&fl, d), hipSuccess);
	cr_expect_eq(fl, 0);
	cr_expect_eq(hipHostGetDevicePointer(&dp, &x, 0), hipErrorInvalidValue);
	cr_expect_eq(hipHostGetDevicePointer(NULL, d, 0), hipErrorInvalidValue);
	cr_expect_eq(hipHostGetFlags(&fl, &x), hipErrorInvalidValue);
	hipFree(d);
}

/* hipHostAlloc is ihipMalloc with the caller's flags (hip_memory.cpp:1083):
 * coherent with non-coherent, refused by hipHostMalloc, is taken; NULL is
 * still hipErrorInvalidValue and size 0 success with NULL. */
Test(mem_alloc, hipHostAlloc_checks_no_flags)
{
	void *p = (void *)1;

	cr_expect_eq(hipHostAlloc(&p, 64, hipHostMallocCoherent | hipHostMallocNonCoherent),
		     hipSuccess);
	cr_expect_not_null(p);
	cr_expect_eq(hipHostFree(p), hipSuccess);
	cr_expect_eq(hipHostAlloc(NULL, 64, 0), hipErrorInvalidValue);
	p = (void *)1;
	cr_expect_eq(hipHostAlloc(&p, 0, 0), hipSuccess);
	cr_expect_null(p);
}

/* ihipHostRegister reads no flag (hip_memory.cpp:1001-1033): unknown bits
 * are taken, and the registered memory's flags are its memory object's,
 * which carry none of the caller's (getMemFlags() >> 16 is 0). */
Test(mem_alloc, hipHostRegister_reads_no_flags)
{
	char *buf = aligned_alloc(4096, 4096);
	unsigned fl = 9;

	cr_assert_not_null(buf);
	cr_expect_eq(hipHostRegister(buf, 4096, 0xF0), hipSuccess);
	cr_expect_eq(hipHostGetFlags(&fl, buf), hipSuccess);
	cr_expect_eq(fl, 0);
	cr_expect_eq(hipHostUnregister(buf), hipSuccess);
	cr_expect_eq(hipHostRegister(buf, 4096, 0xFFFFFFFFu), hipSuccess);
	cr_expect_eq(hipHostUnregister(buf), hipSuccess);
	free(buf);
}

/* hipExtMallocWithFlags takes the default, fine-grained and signal flags
 * alone (hip_memory.cpp:472-490): 0x3, hipDeviceMallocUncached in the
 * headers of ROCm 5.3 and later, is hipErrorInvalidValue, and nothing is
 * allocated. */
Test(mem_alloc, hipExtMallocWithFlags_refuses_uncached)
{
	size_t f0, f1, t;
	void *p = NULL;

	cr_assert_eq(hipMemGetInfo(&f0, &t), hipSuccess);
	cr_expect_eq(hipExtMallocWithFlags(&p, 4096, 0x3), hipErrorInvalidValue);
	cr_expect_null(p);
	cr_assert_eq(hipMemGetInfo(&f1, &t), hipSuccess);
	cr_expect_eq(f1, f0);
	cr_expect_eq(hipExtMallocWithFlags(&p, 4096, hipDeviceMallocFinegrained), hipSuccess);
	cr_expect_eq(hipFree(p), hipSuccess);
}
