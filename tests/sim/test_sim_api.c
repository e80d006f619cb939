/* SPDX-License-Identifier: MIT */
/*
 * test_sim_api.c - the simulator's host API against ROCm's answers (one
 * test per behaviour of the basic subset). Criterion forks each test, so each one starts a fresh runtime
 * and may set HIPSVM_SIM_* before its first HIP call.
 */
#include <hip/hip_runtime_api.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hipsvm_sim.h"
#include "../unit/test_rand.h"

TestSuite(api, .timeout = 60);

Test(api, free_null)
{
	cr_expect_eq(hipFree(NULL), hipSuccess);
	cr_expect_eq(hipHostFree(NULL), hipSuccess);
}

Test(api, free_stack)
{
	int a;

	cr_expect_eq(hipFree(&a), hipErrorInvalidValue);
	cr_expect_eq(hipHostFree(&a), hipErrorInvalidValue);
}

Test(api, free_twice)
{
	void *p, *h;

	cr_assert_eq(hipMalloc(&p, 100), hipSuccess);
	cr_expect_eq(hipFree(p), hipSuccess);
	cr_expect_eq(hipFree(p), hipErrorInvalidValue);
	cr_assert_eq(hipHostMalloc(&h, 100, 0), hipSuccess);
	cr_expect_eq(hipHostFree(h), hipSuccess);
	cr_expect_eq(hipHostFree(h), hipErrorInvalidValue);
}

Test(api, free_synchronises)
{
	void *d, *h;
	size_t n = 32u << 20;

	/* queue a large copy on the null stream; hipFree must wait for it */
	cr_assert_eq(hipMalloc(&d, n), hipSuccess);
	h = malloc(n);
	cr_assert(h);
	memset(h, 7, n);
	cr_assert_eq(hipMemcpyAsync(d, h, n, hipMemcpyHostToDevice, NULL), hipSuccess);
	cr_expect_eq(hipFree(d), hipSuccess);
	cr_expect_eq(hipStreamQuery(NULL), hipSuccess, "null stream idle after hipFree");
	free(h);
}

Test(api, malloc_zero_and_null)
{
	void *p = (void *)1;

	cr_expect_eq(hipMalloc(&p, 0), hipSuccess);
	cr_expect_null(p);
	cr_expect_eq(hipMalloc(NULL, 16), hipErrorInvalidValue);
	cr_expect_eq(hipMalloc(&p, SIZE_MAX), hipErrorOutOfMemory);
}

Test(api, malloc_alignment)
{
	void *p[16];
	int i;

	for (i = 0; i < 16; i++) {
		cr_assert_eq(hipMalloc(&p[i], (size_t)i * 37 + 1), hipSuccess);
		cr_expect_eq((uintptr_t)p[i] % 256, 0);
	}
	for (i = 0; i < 16; i++)
		cr_expect_eq(hipFree(p[i]), hipSuccess);
}

Test(api, managed_edge_cases)
{
	void *p;

	cr_expect_eq(hipMallocManaged(NULL, 16, hipMemAttachGlobal), hipErrorInvalidValue);
	cr_expect_eq(hipMallocManaged(&p, 0, hipMemAttachGlobal), hipErrorInvalidValue);
	cr_expect_eq(hipMallocManaged(&p, 16, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMallocManaged(&p, 16, hipMemAttachGlobal | hipMemAttachHost),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMallocManaged(&p, 16, 0x100), hipErrorInvalidValue);
	cr_expect_eq(hipMallocManaged(&p, SIZE_MAX, hipMemAttachGlobal), hipErrorOutOfMemory);
	cr_expect_eq(hipMallocManaged(&p, 16, hipMemAttachHost), hipSuccess);
	cr_expect_eq(hipFree(p), hipSuccess);
}

Test(api, host_malloc_flags)
{
	void *p;

	cr_expect_eq(hipHostMalloc(&p, 64, hipHostMallocCoherent | hipHostMallocNonCoherent),
		     hipErrorInvalidValue);
	cr_assert_eq(hipHostMalloc(&p, 64, hipHostMallocMapped | hipHostMallocCoherent), hipSuccess);
	cr_expect_eq(hipHostFree(p), hipSuccess);
	/* the deprecated spellings are still exported and still used */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	cr_assert_eq(hipMallocHost(&p, 64), hipSuccess);
	cr_expect_eq(hipFreeHost(p), hipSuccess);
	cr_assert_eq(hipHostAlloc(&p, 64, 0), hipSuccess);
#pragma GCC diagnostic pop
	cr_expect_eq(hipHostFree(p), hipSuccess);
}

Test(api, signal_memory)
{
	void *p;

	cr_expect_eq(hipExtMallocWithFlags(&p, 16, hipMallocSignalMemory), hipErrorInvalidValue);
	cr_expect_eq(hipExtMallocWithFlags(&p, 64, 0x10000), hipErrorInvalidValue);
	cr_assert_eq(hipExtMallocWithFlags(&p, 8, hipMallocSignalMemory), hipSuccess);
	cr_expect_eq(hipFree(p), hipSuccess);
	cr_assert_eq(hipExtMallocWithFlags(&p, 4096, hipDeviceMallocFinegrained), hipSuccess);
	cr_expect_eq(hipFree(p), hipSuccess);
}

Test(api, device_count_and_set)
{
	int n = -1, d = -1;

	cr_expect_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_expect_eq(n, 4, "default HIPSVM_SIM_GPUS is 4");
	cr_expect_eq(hipGetDeviceCount(NULL), hipErrorInvalidValue);
	cr_expect_eq(hipSetDevice(4), hipErrorInvalidDevice);
	cr_expect_eq(hipSetDevice(-1), hipErrorInvalidDevice);
	cr_expect_eq(hipSetDevice(2), hipSuccess);
	cr_expect_eq(hipGetDevice(&d), hipSuccess);
	cr_expect_eq(d, 2);
}

Test(api, gpu_count_option)
{
	int n = -1;

	setenv("HIPSVM_SIM_GPUS", "7", 1);
	cr_expect_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_expect_eq(n, 7);
}

Test(api, last_error)
{
	cr_expect_eq(hipSetDevice(99), hipErrorInvalidDevice);
	cr_expect_eq(hipPeekAtLastError(), hipErrorInvalidDevice);
	cr_expect_eq(hipGetLastError(), hipErrorInvalidDevice);
	cr_expect_eq(hipGetLastError(), hipSuccess, "reset by the first read");
	cr_expect_eq(hipMalloc(NULL, 1), hipErrorInvalidValue);
	cr_expect_eq(hipGetLastError(), hipErrorInvalidValue);
}

Test(api, error_names)
{
	cr_expect_str_eq(hipGetErrorName(hipSuccess), "hipSuccess");
	cr_expect_str_eq(hipGetErrorName(hipErrorOutOfMemory), "hipErrorOutOfMemory");
	cr_expect_str_eq(hipGetErrorName(hipErrorIllegalAddress), "hipErrorIllegalAddress");
	cr_expect_str_eq(hipGetErrorName((hipError_t)12345), "hipErrorUnknown");
	/* ROCm 5.2 answers the name for the string too */
	cr_expect_str_eq(hipGetErrorString(hipErrorInvalidValue), "hipErrorInvalidValue");
}

Test(api, versions_and_init)
{
	int v = 0;

	cr_expect_eq(hipInit(0), hipSuccess);
	cr_expect_eq(hipInit(1), hipSuccess);	/* ROCm 5.2 ignores the flags */
	cr_expect_eq(hipDriverGetVersion(&v), hipSuccess);
	cr_expect_eq(v, 50221153);
	cr_expect_eq(hipRuntimeGetVersion(&v), hipSuccess);
	cr_expect_eq(hipRuntimeGetVersion(NULL), hipErrorInvalidValue);
}

Test(api, properties)
{
	hipDeviceProp_t p;
	int v = 0;

	setenv("HIPSVM_SIM_MEM", "64M", 1);
	cr_assert_eq(hipGetDeviceProperties(&p, 1), hipSuccess);
	cr_expect_eq(p.totalGlobalMem, 64u << 20);
	cr_expect_eq(p.warpSize, 64);
	cr_expect_eq(p.managedMemory, 1);
	cr_expect(strstr(p.gcnArchName, "gfx90a") != NULL);
	cr_expect_eq(hipGetDeviceProperties(&p, 9), hipErrorInvalidDevice);
	cr_expect_eq(hipGetDeviceProperties(NULL, 0), hipErrorInvalidValue);
	cr_expect_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0), hipSuccess);
	cr_expect_eq(v, 64);
	cr_expect_eq(hipDeviceGetAttribute(&v, hipDeviceAttributePageableMemoryAccess, 0), hipSuccess);
	cr_expect_eq(v, 1, "XNACK on by default");
	cr_expect_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 4), hipErrorInvalidDevice);
	cr_expect_eq(hipDeviceGetAttribute(NULL, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
	cr_expect_eq(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)77777, 0), hipErrorInvalidValue);
}

Test(api, memory_capacity)
{
	size_t fr = 0, total = 0;
	void *a, *b;

	setenv("HIPSVM_SIM_MEM", "16M", 1);
	cr_assert_eq(hipMemGetInfo(&fr, &total), hipSuccess);
	cr_expect_eq(total, 16u << 20);
	cr_expect_eq(fr, 16u << 20);
	cr_assert_eq(hipMalloc(&a, 10u << 20), hipSuccess);
	cr_expect_eq(hipMalloc(&b, 10u << 20), hipErrorOutOfMemory, "like a full GPU");
	cr_assert_eq(hipMemGetInfo(&fr, &total), hipSuccess);
	cr_expect_eq(fr, 6u << 20);
	/* another GPU has its own memory */
	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_expect_eq(hipMalloc(&b, 10u << 20), hipSuccess);
	cr_expect_eq(hipFree(b), hipSuccess);
	cr_expect_eq(hipFree(a), hipSuccess);
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&fr, &total), hipSuccess);
	cr_expect_eq(fr, 16u << 20);
	cr_expect_eq(hipMemGetInfo(NULL, &total), hipErrorInvalidValue);
}

Test(api, memcpy_all_kinds)
{
	char *d, *d2, *h, *m, buf[4096];
	int i;

	cr_assert_eq(hipMalloc((void **)&d, 4096), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&d2, 4096), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&h, 4096, 0), hipSuccess);
	cr_assert_eq(hipMallocManaged((void **)&m, 4096, hipMemAttachGlobal), hipSuccess);
	for (i = 0; i < 4096; i++)
		buf[i] = (char)i;
	cr_expect_eq(hipMemcpy(d, buf, 4096, hipMemcpyHostToDevice), hipSuccess);
	cr_expect_eq(hipMemcpy(d2, d, 4096, hipMemcpyDeviceToDevice), hipSuccess);
	cr_expect_eq(hipMemcpy(h, d2, 4096, hipMemcpyDeviceToHost), hipSuccess);
	cr_expect_eq(hipMemcpy(m, h, 4096, hipMemcpyHostToHost), hipSuccess);
	memset(buf, 0, sizeof(buf));
	cr_expect_eq(hipMemcpy(buf, m, 4096, hipMemcpyDefault), hipSuccess);
	for (i = 0; i < 4096; i++)
		cr_assert_eq(buf[i], (char)i);
	cr_expect_eq(hipMemcpy(d, buf, 4096, (hipMemcpyKind)9), hipErrorInvalidMemcpyDirection);
	cr_expect_eq(hipMemcpy(d, buf, 8192, hipMemcpyHostToDevice), hipErrorInvalidValue,
		     "past the end of the allocation");
	cr_expect_eq(hipMemcpy(NULL, buf, 1, hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_expect_eq(hipMemcpy(d, buf, 0, hipMemcpyHostToDevice), hipSuccess);
	hipFree(d);
	hipFree(d2);
	hipHostFree(h);
	hipFree(m);
}

Test(api, memcpy_async_and_memset)
{
	hipStream_t s;
	uint32_t *d, out[1024];
	unsigned char b[64];
	int i;

	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&d, sizeof(out)), hipSuccess);
	cr_expect_eq(hipMemsetAsync(d, 0xab, sizeof(out), s), hipSuccess);
	cr_expect_eq(hipMemcpyAsync(out, d, sizeof(out), hipMemcpyDeviceToHost, s), hipSuccess);
	cr_expect_eq(hipStreamSynchronize(s), hipSuccess);
	for (i = 0; i < 1024; i++)
		cr_assert_eq(out[i], 0xabababab);
	cr_expect_eq(hipMemsetD32(d, 0x12345678, 1024), hipSuccess);
	cr_expect_eq(hipMemcpyDtoH(out, d, sizeof(out)), hipSuccess);
	cr_expect_eq(out[1023], 0x12345678);
	cr_expect_eq(hipMemsetD8Async(d, 3, 64, s), hipSuccess);
	cr_expect_eq(hipMemcpyDtoHAsync(b, d, 64, s), hipSuccess);
	cr_expect_eq(hipStreamSynchronize(s), hipSuccess);
	cr_expect_eq(b[63], 3);
	cr_expect_eq(hipMemset(d, 0, 8192), hipErrorInvalidValue);
	cr_expect_eq(hipStreamDestroy(s), hipSuccess);
	cr_expect_eq(hipFree(d), hipSuccess);
}

Test(api, streams_and_events)
{
	hipStream_t s;
	hipEvent_t a, b, nt;
	unsigned flags = 9;
	float ms = -1;

	cr_assert_eq(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
	cr_expect_eq(hipStreamGetFlags(s, &flags), hipSuccess);
	cr_expect_eq(flags, hipStreamNonBlocking);
	cr_expect_eq(hipStreamCreateWithFlags(&s, 0x80), hipErrorInvalidValue);
	cr_assert_eq(hipEventCreate(&a), hipSuccess);
	cr_assert_eq(hipEventCreateWithFlags(&b, hipEventDefault), hipSuccess);
	cr_assert_eq(hipEventCreateWithFlags(&nt, hipEventDisableTiming), hipSuccess);
	cr_expect_eq(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle, "not recorded");
	cr_expect_eq(hipEventRecord(a, s), hipSuccess);
	cr_expect_eq(hipEventRecord(b, s), hipSuccess);
	cr_expect_eq(hipEventRecord(nt, s), hipSuccess);
	cr_expect_eq(hipEventSynchronize(b), hipSuccess);
	cr_expect_eq(hipEventQuery(b), hipSuccess);
	cr_expect_eq(hipEventElapsedTime(&ms, a, b), hipSuccess);
	cr_expect(ms >= 0.0f);
	cr_expect_eq(hipEventElapsedTime(&ms, a, nt), hipErrorInvalidHandle);
	cr_expect_eq(hipEventElapsedTime(NULL, a, b), hipErrorInvalidValue);
	cr_expect_eq(hipStreamWaitEvent(s, a, 0), hipSuccess);
	cr_expect_eq(hipStreamSynchronize(s), hipSuccess);
	cr_expect_eq(hipStreamQuery(s), hipSuccess);
	cr_expect_eq(hipDeviceSynchronize(), hipSuccess);
	cr_expect_eq(hipEventDestroy(a), hipSuccess);
	cr_expect_eq(hipEventDestroy(a), hipErrorInvalidHandle);
	cr_expect_eq(hipEventDestroy(b), hipSuccess);
	cr_expect_eq(hipEventDestroy(nt), hipSuccess);
	cr_expect_eq(hipStreamDestroy(s), hipSuccess);
	cr_expect_eq(hipStreamDestroy(s), hipErrorContextIsDestroyed);
	cr_expect_eq(hipStreamSynchronize((hipStream_t)&ms), hipErrorContextIsDestroyed);
}

Test(api, pitch_and_async_alloc)
{
	void *p;
	size_t pitch = 0;

	cr_assert_eq(hipMallocPitch(&p, &pitch, 100, 10), hipSuccess);
	cr_expect_eq(pitch % 256, 0);
	cr_expect_geq(pitch, 100);
	cr_expect_eq(hipFree(p), hipSuccess);
	cr_expect_eq(hipMallocPitch(NULL, &pitch, 100, 10), hipErrorInvalidValue);
	cr_assert_eq(hipMallocAsync(&p, 4096, NULL), hipSuccess);
	cr_expect_eq(hipFreeAsync(p, NULL), hipSuccess);
	/* ROCm: the block waits in the default pool; freeing it again frees
	 * it for good (ihipFree), and only a third time fails */
	cr_expect_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_expect_eq(hipFreeAsync(p, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMallocAsync(NULL, 16, NULL), hipErrorInvalidValue);
}

Test(api, host_register)
{
	char *buf = aligned_alloc(4096, 8192);
	unsigned flags = 7;
	void *dp = NULL;

	cr_assert(buf);
	cr_expect_eq(hipHostRegister(buf, 8192, hipHostRegisterDefault), hipSuccess);
	/* ROCm has no "already registered" check: its map keeps the first */
	cr_expect_eq(hipHostRegister(buf, 8192, 0), hipSuccess);
	cr_expect_eq(hipHostGetDevicePointer(&dp, buf, 0), hipSuccess);
	cr_expect_eq(dp, buf);
	cr_expect_eq(hipHostGetFlags(&flags, buf), hipSuccess);
	cr_expect_eq(hipsvmSimAccess(2, buf, 8192, 1), hipSuccess, "mapped on every GPU");
	cr_expect_eq(hipFree(buf), hipErrorInvalidValue, "registered memory is not hipFree'd");
	cr_expect_eq(hipHostUnregister(buf), hipSuccess);
	cr_expect_eq(hipHostUnregister(buf), hipErrorHostMemoryNotRegistered);
	free(buf);
}

Test(api, pointer_attributes)
{
	hipPointerAttribute_t at;
	void *d, *m, *h;
	int x;

	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
	cr_assert_eq(hipMallocManaged(&m, 64, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipHostMalloc(&h, 64, 0), hipSuccess);
	cr_assert_eq(hipPointerGetAttributes(&at, (char *)d + 8), hipSuccess);
	cr_expect_eq(at.memoryType, hipMemoryTypeDevice);
	cr_expect_eq(at.device, 1);
	cr_expect_eq(at.isManaged, 0);
	cr_assert_eq(hipPointerGetAttributes(&at, m), hipSuccess);
	cr_expect_eq(at.isManaged, 1);
	cr_assert_eq(hipPointerGetAttributes(&at, h), hipSuccess);
	cr_expect_eq(at.memoryType, hipMemoryTypeHost);
	cr_expect_eq(at.hostPointer, h);
	cr_expect_eq(hipPointerGetAttributes(&at, &x), hipErrorInvalidValue);
	cr_expect_eq(hipPointerGetAttributes(NULL, d), hipErrorInvalidValue);
	hipFree(d);
	hipFree(m);
	hipHostFree(h);
}

Test(api, advise_and_range_attributes)
{
	int v = 5, by[4];
	void *m, *d;

	cr_assert_eq(hipMallocManaged(&m, 1 << 16, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
	cr_expect_eq(hipMemAdvise(m, 1 << 16, hipMemAdviseSetReadMostly, 0), hipSuccess);
	cr_expect_eq(hipMemAdvise(m, 1 << 16, hipMemAdviseSetPreferredLocation, 2), hipSuccess);
	cr_expect_eq(hipMemAdvise(m, 1 << 16, hipMemAdviseSetAccessedBy, 1), hipSuccess);
	cr_expect_eq(hipMemAdvise(m, 1 << 16, hipMemAdviseSetAccessedBy, 3), hipSuccess);
	cr_expect_eq(hipMemAdvise(m, 1 << 16, hipMemAdviseSetAccessedBy, 9), hipErrorInvalidValue);
	cr_expect_eq(hipMemAdvise(m, 1 << 16, (hipMemoryAdvise)50, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemAdvise(d, 64, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, m, 1 << 16),
		     hipSuccess);
	cr_expect_eq(v, 1);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, m, 64),
		     hipSuccess);
	cr_expect_eq(v, 2);
	cr_expect_eq(hipMemRangeGetAttribute(by, sizeof(by), hipMemRangeAttributeAccessedBy, m, 64),
		     hipSuccess);
	cr_expect_eq(by[0], 1);
	cr_expect_eq(by[1], 3);
	cr_expect_eq(by[2], hipInvalidDeviceId);
	cr_expect_eq(hipMemPrefetchAsync(m, 1 << 16, 3, NULL), hipSuccess);
	cr_expect_eq(hipDeviceSynchronize(), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeLastPrefetchLocation, m, 64),
		     hipSuccess);
	cr_expect_eq(v, 3);
	cr_expect_eq(hipsvmSimIsMapped(3, (char *)m + 40000), 1, "prefetch maps the range");
	cr_expect_eq(hipsvmSimIsMapped(2, m), 0);
	hipFree(m);
	hipFree(d);
}

static void *first_call(void *arg)
{
	int n = 0;

	(void)arg;
	return (void *)(intptr_t)(hipGetDeviceCount(&n) == hipSuccess && n == 4);
}

Test(api, concurrent_first_calls)
{
	pthread_t t[16];
	void *r;
	int i;

	for (i = 0; i < 16; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, first_call, NULL), 0);
	for (i = 0; i < 16; i++) {
		pthread_join(t[i], &r);
		cr_expect_eq((intptr_t)r, 1);
	}
}

Test(api, fork_child_works)
{
	struct hipsvm_sim_stats st;
	void *m;
	pid_t pid;
	int status;
	char parent_sock[128];

	cr_assert_eq(hipMallocManaged(&m, 8192, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipsvmSimAccess(0, m, 8192, 1), hipSuccess);
	snprintf(parent_sock, sizeof(parent_sock), "%s", hipsvmSimSocketPath());
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		void *c;
		int ok = 1;

		/* fresh state: the parent's allocation is unknown, faults and
		 * the hook server work again under the child's own name */
		ok &= hipFree(m) == hipErrorInvalidValue;
		ok &= hipMallocManaged(&c, 8192, hipMemAttachGlobal) == hipSuccess;
		ok &= hipsvmSimAccess(1, c, 8192, 1) == hipSuccess;
		ok &= hipsvmSimGetStats(1, &st) == 0 && st.faults_mapped == 2;
		ok &= strcmp(hipsvmSimSocketPath(), parent_sock) != 0;
		ok &= hipFree(c) == hipSuccess;
		_exit(ok ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "HIP in the fork child");
	cr_expect_eq(hipFree(m), hipSuccess);
}

/* The drain's two ways of finding what the CPU maps (PROCMAP_QUERY, and the
 * bisection older kernels get) against mincore page by page, over ranges
 * cut into random pieces: kept, munmapped, PROT_NONE over (still a mapping),
 * read-only (a VMA of its own). A kernel of 6.11 or later must answer the
 * query: the ioctl's number carries the struct's size, and one field short
 * it said ENOTTY, so every drain bisected. */
Test(api, cpu_mapped_pieces_match_mincore)
{
	enum { PAGES = 64, ROUNDS = 200 };
	const size_t page = 4096, len = PAGES * page;
	uint64_t seed = test_seed(0x5f3a7c11), s = seed;
	struct utsname u;
	int maj = 0, min = 0, queried = 0, rounds = 0;
	bool must_query;

	cr_assert_eq(uname(&u), 0);
	sscanf(u.release, "%d.%d", &maj, &min);
	must_query = maj > 6 || (maj == 6 && min >= 11);
	cr_log_info("cpu_mapped seed %#llx (HIPSVM_TEST_SEED), kernel %s",
		    (unsigned long long)seed, u.release);
	for (int r = 0; r < ROUNDS; r++) {
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned char v[PAGES];
		bool want[PAGES], again[PAGES], same = true;

		cr_assert_neq(m, MAP_FAILED);
		for (int i = 0; i < PAGES; i++) {
			char *p = m + (size_t)i * page;

			switch (rnd(&s) % 4) {
			case 1: cr_assert_eq(munmap(p, page), 0); break;
			case 2: cr_assert_eq(mmap(p, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
						  -1, 0), (void *)p); break;
			case 3: cr_assert_eq(mprotect(p, page, PROT_READ), 0); break;
			default: break;
			}
		}
		for (int i = 0; i < PAGES; i++)
			want[i] = mincore(m + (size_t)i * page, page, v) == 0;
		for (int query = 0; query < 2; query++) {
			uintptr_t out[2 * PAGES];
			bool got[PAGES] = { false };
			int n = hipsvmSimCpuMapped(m, len, query, out, PAGES);

			if (query && n == -ENOSYS) {
				cr_assert(!must_query, "kernel %s: PROCMAP_QUERY refused", u.release);
				continue;
			}
			cr_assert(n >= 0 && n <= PAGES, "seed %#llx round %d query %d: %d pieces",
				  (unsigned long long)seed, r, query, n);
			queried += query;
			for (int k = 0; k < n; k++) {
				uintptr_t lo = out[2 * k], hi = out[2 * k + 1];

				cr_assert(lo < hi && lo >= (uintptr_t)m && hi <= (uintptr_t)m + len &&
					  lo % page == 0 && hi % page == 0 &&
					  (k == 0 || lo >= out[2 * k - 1]),
					  "seed %#llx round %d query %d: piece %d out of order or range",
					  (unsigned long long)seed, r, query, k);
				for (uintptr_t p = lo; p < hi; p += page)
					got[(p - (uintptr_t)m) / page] = true;
			}
			/* a hole the simulator's own threads filled meanwhile: the
			 * round says nothing */
			for (int i = 0; i < PAGES; i++)
				again[i] = mincore(m + (size_t)i * page, page, v) == 0;
			if (memcmp(want, again, sizeof(want)))
				continue;
			for (int i = 0; i < PAGES; i++)
				same &= got[i] == want[i];
			cr_assert(same, "seed %#llx round %d query %d: the pieces are not what mincore says",
				  (unsigned long long)seed, r, query);
		}
		rounds++;
		munmap(m, len);
	}
	cr_log_info("cpu_mapped: %d rounds, %d answered by PROCMAP_QUERY", rounds, queried);
	if (must_query)
		cr_expect_eq(queried, ROUNDS, "every round answered by the query on kernel %s", u.release);
}
