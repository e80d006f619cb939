/* SPDX-License-Identifier: MIT */
/* conf_mem_attr.c - pointer attributes, advice and range attributes
 * against ROCm 5.2.3 (hip_memory.cpp: ihipPointerGetAttributes,
 * hipDrvPointerGetAttributes; hip_hmm.cpp over ROCclr's Set/GetSvmAttributes
 * and the KFD's SVM). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conf_mem.h"

TestSuite(mem_attr, .timeout = 60);

/* ihipPointerGetAttributes on device memory, attribute by attribute. */
Test(mem_attr, hipPointerGetAttribute_device)
{
	char *d, *e;
	uint32_t type = 0, id1 = 0, id2 = 0, size = 0;
	void *p = NULL;
	int ord = -1;
	bool b = false;

	cr_assert_eq(hipSetDevice(2), hipSuccess);
	d = dmalloc(5000);
	e = dmalloc(10);
	cr_expect_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 7),
		     hipSuccess);
	cr_expect_eq(type, hipMemoryTypeDevice);
	cr_expect_eq(hipPointerGetAttribute(&p, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 7),
		     hipSuccess);
	cr_expect_eq(p, d + 7);
	cr_expect_eq(hipPointerGetAttribute(&p, HIP_POINTER_ATTRIBUTE_HOST_POINTER, d),
		     hipErrorInvalidValue);
	cr_expect_null(p);
	cr_expect_eq(hipPointerGetAttribute(&p, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 4999),
		     hipSuccess);
	cr_expect_eq(p, d);
	cr_expect_eq(hipPointerGetAttribute(&size, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, d), hipSuccess);
	cr_expect_eq(size, 5000);
	cr_expect_eq(hipPointerGetAttribute(&ord, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d),
		     hipSuccess);
	cr_expect_eq(ord, 2);
	cr_expect_eq(hipPointerGetAttribute(&b, HIP_POINTER_ATTRIBUTE_MAPPED, d), hipSuccess);
	cr_expect(b);
	cr_expect_eq(hipPointerGetAttribute(&b, HIP_POINTER_ATTRIBUTE_IS_MANAGED, d), hipSuccess);
	cr_expect_not(b);
	cr_expect_eq(hipPointerGetAttribute(&id1, HIP_POINTER_ATTRIBUTE_BUFFER_ID, d), hipSuccess);
	cr_expect_eq(hipPointerGetAttribute(&id2, HIP_POINTER_ATTRIBUTE_BUFFER_ID, e), hipSuccess);
	cr_expect_neq(id1, id2);
	cr_expect_eq(hipPointerGetAttribute(&p, HIP_POINTER_ATTRIBUTE_CONTEXT, d),
		     hipErrorNotSupported);
	cr_expect_eq(hipPointerGetAttribute(&p, HIP_POINTER_ATTRIBUTE_P2P_TOKENS, d),
		     hipErrorNotSupported);
	cr_expect_eq(hipPointerGetAttribute(&p, HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, d),
		     hipErrorNotSupported);
	cr_expect_eq(hipPointerGetAttribute(&p, (hipPointer_attribute)99, d), hipErrorInvalidValue);
	hipFree(d);
	hipFree(e);
}

/* ihipPointerGetAttributes on managed and host memory. */
Test(mem_attr, hipPointerGetAttribute_managed_and_host)
{
	void *m, *h, *p = NULL;
	uint32_t type = 0;
	bool b = false;

	cr_assert_eq(hipMallocManaged(&m, 4096, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipHostMalloc(&h, 4096, 0), hipSuccess);
	cr_expect_eq(hipPointerGetAttribute(&b, HIP_POINTER_ATTRIBUTE_IS_MANAGED, m), hipSuccess);
	cr_expect(b);
	cr_expect_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, h),
		     hipSuccess);
	cr_expect_eq(type, hipMemoryTypeHost);
	cr_expect_eq(hipPointerGetAttribute(&p, HIP_POINTER_ATTRIBUTE_HOST_POINTER, (char *)h + 5),
		     hipSuccess);
	cr_expect_eq(p, (char *)h + 5);
	hipFree(m);
	hipHostFree(h);
}

/* ihipPointerGetAttributes on memory it does not know: zeros and
 * hipErrorInvalidValue, but SYNC_MEMOPS and ACCESS_FLAGS succeed; the
 * ordinal is -2. */
Test(mem_attr, hipPointerGetAttribute_unknown)
{
	int x, ord = 0;
	uint32_t type = 9, fl = 9;
	bool b = false;

	cr_expect_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, &x),
		     hipErrorInvalidValue);
	cr_expect_eq(type, 0);
	cr_expect_eq(hipPointerGetAttribute(&ord, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, &x),
		     hipErrorInvalidValue);
	cr_expect_eq(ord, -2);
	cr_expect_eq(hipPointerGetAttribute(&b, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, &x), hipSuccess);
	cr_expect(b);
	cr_expect_eq(hipPointerGetAttribute(&fl, HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS, &x), hipSuccess);
	cr_expect_eq(fl, 0);
	cr_expect_eq(hipPointerGetAttribute(NULL, HIP_POINTER_ATTRIBUTE_MAPPED, &x),
		     hipErrorInvalidValue);
	cr_expect_eq(hipPointerGetAttribute(&b, HIP_POINTER_ATTRIBUTE_MAPPED, NULL),
		     hipErrorInvalidValue);
}

/* hipDrvPointerGetAttributes: hipSuccess whatever each attribute gave. */
Test(mem_attr, hipDrvPointerGetAttributes_ignores_failures)
{
	hipPointer_attribute at[3] = { HIP_POINTER_ATTRIBUTE_CONTEXT,
				       HIP_POINTER_ATTRIBUTE_RANGE_SIZE,
				       HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
	uint32_t size = 0;
	int ord = 7;
	void *ctx = NULL, *data[3] = { &ctx, &size, &ord };
	char *d = dmalloc(300);

	cr_expect_eq(hipDrvPointerGetAttributes(3, at, data, d), hipSuccess);
	cr_expect_eq(size, 300);
	cr_expect_eq(ord, 0);
	cr_expect_eq(hipDrvPointerGetAttributes(0, at, data, d), hipErrorInvalidValue);
	cr_expect_eq(hipDrvPointerGetAttributes(3, at, data, NULL), hipErrorInvalidValue);
	hipFree(d);
}

/* hipMemRangeGetAttribute over pages that disagree: read-mostly only if
 * every page is, a location only if every page agrees. */
Test(mem_attr, hipMemRangeGetAttribute_pages_disagree)
{
	const size_t n = 16 * 4096;
	char *m;
	int v = 9;

	cr_assert_eq(hipMallocManaged((void **)&m, n, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipMemAdvise(m, n / 2, hipMemAdviseSetReadMostly, 0), hipSuccess);
	cr_assert_eq(hipMemAdvise(m, n / 2, hipMemAdviseSetPreferredLocation, 1), hipSuccess);
	cr_assert_eq(hipMemAdvise(m + n / 2, n / 2, hipMemAdviseSetPreferredLocation, 2), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, m, n/2),
		     hipSuccess);
	cr_expect_eq(v, 1);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, m, n),
		     hipSuccess);
	cr_expect_eq(v, 0);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, m + n / 2,
					     n / 2), hipSuccess);
	cr_expect_eq(v, 2);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, m, n),
		     hipSuccess);
	cr_expect_eq(v, hipInvalidDeviceId);
	cr_expect_eq(hipMemPrefetchAsync(m, 4096, 3, NULL), hipSuccess);
	cr_expect_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeLastPrefetchLocation, m,
					     4096), hipSuccess);
	cr_expect_eq(v, 3);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeLastPrefetchLocation, m,
					     8192), hipSuccess);
	cr_expect_eq(v, hipInvalidDeviceId);
	hipFree(m);
}

/* hipMemRangeGetAttribute on registered memory: hipamd asks the driver
 * whatever the memory (hip_hmm.cpp:149, ROCclr's tracking off by default),
 * and the KFD reads only the SVM ranges advice made: none, the defaults;
 * half advised, that half's answer. hipHostMalloc and device memory are
 * device mappings the driver refuses. */
Test(mem_attr, hipMemRangeGetAttribute_registered)
{
	const size_t n = 4 * 4096;
	char *r = aligned_alloc(4096, n);
	void *h = NULL, *d = dmalloc(4096);
	int v = 9;

	cr_assert_not_null(r);
	cr_assert_eq(hipHostRegister(r, n, 0), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, r, n),
		     hipSuccess);
	cr_expect_eq(v, 0);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, r, n),
		     hipSuccess);
	cr_expect_eq(v, hipInvalidDeviceId);
	cr_assert_eq(hipMemAdvise(r, n / 2, hipMemAdviseSetReadMostly, 0), hipSuccess);
	cr_assert_eq(hipMemAdvise(r, n / 2, hipMemAdviseSetPreferredLocation, 1), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, r, n),
		     hipSuccess);
	cr_expect_eq(v, 1);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, r, n),
		     hipSuccess);
	cr_expect_eq(v, 1);
	cr_assert_eq(hipMemAdvise(r, n, hipMemAdviseUnsetPreferredLocation, 0), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, r, n),
		     hipSuccess);
	cr_expect_eq(v, hipInvalidDeviceId);
	cr_expect_eq(hipHostUnregister(r), hipSuccess);
	cr_assert_eq(hipHostMalloc(&h, 4096, 0), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, h, 4096),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, d, 4096),
		     hipErrorInvalidValue);
	hipHostFree(h);
	hipFree(d);
	free(r);
}

/* CoherencyMode alone of memory ROCr allocated: ROCclr answers it from the
 * pointer's pool (rocdevice.cpp:2391-2410) and the driver is not asked:
 * hipMalloc coarse, fine-grained device memory and default hipHostMalloc
 * fine, non-coherent hipHostMalloc coarse. Other attributes of such
 * memory stay refused. */
Test(mem_attr, hipMemRangeGetAttribute_coherency_of_runtime_memory)
{
	void *d = dmalloc(4096), *f = NULL, *h = NULL, *n = NULL;
	uint32_t v = 9;

	cr_assert_eq(hipExtMallocWithFlags(&f, 4096, hipDeviceMallocFinegrained), hipSuccess);
	cr_assert_eq(hipHostMalloc(&h, 4096, 0), hipSuccess);
	cr_assert_eq(hipHostMalloc(&n, 4096, hipHostMallocNonCoherent), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeCoherencyMode, d, 4096),
		     hipSuccess);
	cr_expect_eq(v, hipMemRangeCoherencyModeCoarseGrain);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeCoherencyMode, f, 4096),
		     hipSuccess);
	cr_expect_eq(v, hipMemRangeCoherencyModeFineGrain);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeCoherencyMode, h, 4096),
		     hipSuccess);
	cr_expect_eq(v, hipMemRangeCoherencyModeFineGrain);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeCoherencyMode, n, 4096),
		     hipSuccess);
	cr_expect_eq(v, hipMemRangeCoherencyModeCoarseGrain);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 8, hipMemRangeAttributeCoherencyMode, d, 4096),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, d, 4096),
		     hipErrorInvalidValue);
	hipFree(d);
	hipFree(f);
	hipHostFree(h);
	hipHostFree(n);
}

/* ROCr rounds advice, prefetches and queries out to whole pages
 * (runtime.cpp:1795, 1880, 1964, 2103): advice on a quarter of a page holds
 * for the page, a prefetch of half a page across a border for both pages. */
Test(mem_attr, advice_and_prefetch_in_whole_pages)
{
	char *m;
	int v = 9;

	cr_assert_eq(hipMallocManaged((void **)&m, 3 * 4096, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipMemAdvise(m + 1024, 1024, hipMemAdviseSetPreferredLocation, 1),
		     hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, m, 4096),
		     hipSuccess);
	cr_expect_eq(v, 1);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, m + 3000,
					     10), hipSuccess);
	cr_expect_eq(v, 1);
	cr_assert_eq(hipMemPrefetchAsync(m + 2048, 4096, 2, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeLastPrefetchLocation, m,
					     2 * 4096), hipSuccess);
	cr_expect_eq(v, 2);
	cr_expect_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeLastPrefetchLocation, m,
					     3 * 4096), hipSuccess);
	cr_expect_eq(v, hipInvalidDeviceId);
	hipFree(m);
}

/* ROCclr's GetSvmAttributes: exactly 4 bytes for one value, a multiple of
 * 4 for AccessedBy; 0 bytes or NULL fail in hipMemRangeGetAttribute. */
Test(mem_attr, hipMemRangeGetAttribute_data_size)
{
	void *m;
	int v[4], *data[2] = { &v[0], &v[1] };
	size_t sizes[2] = { 4, 8 };
	hipMemRangeAttribute at[2] = { hipMemRangeAttributeReadMostly,
				       hipMemRangeAttributePreferredLocation };

	cr_assert_eq(hipMallocManaged(&m, 4096, hipMemAttachGlobal), hipSuccess);
	cr_expect_eq(hipMemRangeGetAttribute(v, 8, hipMemRangeAttributeReadMostly, m, 4096),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemRangeGetAttribute(v, 2, hipMemRangeAttributePreferredLocation, m, 4096),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemRangeGetAttribute(v, 6, hipMemRangeAttributeAccessedBy, m, 4096),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemRangeGetAttribute(v, 0, hipMemRangeAttributeReadMostly, m, 4096),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemRangeGetAttribute(v, 16, hipMemRangeAttributeAccessedBy, m, 4096),
		     hipSuccess);
	cr_expect_eq(hipMemRangeGetAttributes((void **)data, sizes, at, 2, m, 4096),
		     hipErrorInvalidValue);
	sizes[1] = 4;
	cr_expect_eq(hipMemRangeGetAttributes((void **)data, sizes, at, 2, m, 4096), hipSuccess);
	hipFree(m);
}

/* AccessedBy: the GPUs first, then the CPU, hipInvalidDeviceId after. */
Test(mem_attr, hipMemRangeGetAttribute_accessed_by_order)
{
	void *m;
	int v[4];

	cr_assert_eq(hipMallocManaged(&m, 4096, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipMemAdvise(m, 4096, hipMemAdviseSetAccessedBy, hipCpuDeviceId), hipSuccess);
	cr_assert_eq(hipMemAdvise(m, 4096, hipMemAdviseSetAccessedBy, 2), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(v, sizeof(v), hipMemRangeAttributeAccessedBy, m, 4096),
		     hipSuccess);
	cr_expect_eq(v[0], 2);
	cr_expect_eq(v[1], hipCpuDeviceId);
	cr_expect_eq(v[2], hipInvalidDeviceId);
	hipFree(m);
}

/* hipMemAdvise: any mapped host range goes to the SVM (registered memory,
 * an mmapped file, aligned_alloc memory); unmapped pages, device memory, a
 * bad device or advice are hipErrorInvalidValue. */
Test(mem_attr, hipMemAdvise_host_ranges)
{
	char path[] = "/tmp/conf_mem_attr_XXXXXX";
	char *a = aligned_alloc(4096, 8192), *f, *u;
	int fd = mkstemp(path);
	void *d = dmalloc(4096);

	cr_assert(a && fd >= 0);
	cr_assert_eq(ftruncate(fd, 8192), 0);
	f = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert(f != MAP_FAILED);
	cr_expect_eq(hipMemAdvise(a, 8192, hipMemAdviseSetReadMostly, 0), hipSuccess);
	cr_expect_eq(hipMemAdvise(f, 8192, hipMemAdviseSetPreferredLocation, hipCpuDeviceId),
		     hipSuccess);
	cr_assert_eq(hipHostRegister(a, 8192, 0), hipSuccess);
	cr_expect_eq(hipMemAdvise(a, 8192, hipMemAdviseSetAccessedBy, 1), hipSuccess);
	u = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(u, 8192);
	cr_expect_eq(hipMemAdvise(u, 8192, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemAdvise(d, 4096, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemAdvise(a, 8192, hipMemAdviseSetReadMostly, 17), hipErrorInvalidValue);
	cr_expect_eq(hipMemAdvise(a, 8192, (hipMemoryAdvise)50, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMemAdvise(a, 0, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	hipHostUnregister(a);
	munmap(f, 8192);
	close(fd);
	unlink(path);
	free(a);
	hipFree(d);
}

/* hipMemPrefetchAsync: any HIP memory (the range inside it); a destroyed
 * stream is hipErrorContextIsDestroyed; a bad device hipErrorInvalidDevice. */
Test(mem_attr, hipMemPrefetchAsync_answers)
{
	void *d = dmalloc(8192);
	hipStream_t s;
	int x;

	cr_expect_eq(hipMemPrefetchAsync(d, 8192, 1, NULL), hipSuccess);
	cr_expect_eq(hipMemPrefetchAsync(d, 8193, 1, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMemPrefetchAsync(&x, 4, 1, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMemPrefetchAsync(d, 8192, 40, NULL), hipErrorInvalidDevice);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_expect_eq(hipMemPrefetchAsync(d, 8192, 1, s), hipErrorContextIsDestroyed);
	cr_expect_eq(hipDeviceSynchronize(), hipSuccess);
	hipFree(d);
}

/* hipStreamAttachMemAsync: the null stream, a NULL pointer or length 0 are
 * hipErrorInvalidValue; otherwise success and nothing else. */
Test(mem_attr, hipStreamAttachMemAsync_checks_only)
{
	hipStream_t s;
	void *m;

	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMallocManaged(&m, 4096, hipMemAttachGlobal), hipSuccess);
	cr_expect_eq(hipStreamAttachMemAsync(s, m, 4096, hipMemAttachSingle), hipSuccess);
	cr_expect_eq(hipStreamAttachMemAsync(NULL, m, 4096, hipMemAttachSingle),
		     hipErrorInvalidValue);
	cr_expect_eq(hipStreamAttachMemAsync(s, NULL, 4096, hipMemAttachSingle),
		     hipErrorInvalidValue);
	cr_expect_eq(hipStreamAttachMemAsync(s, m, 0, hipMemAttachSingle), hipErrorInvalidValue);
	hipStreamDestroy(s);
	hipFree(m);
}
