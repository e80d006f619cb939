/* SPDX-License-Identifier: MIT */
/*
 * conf_hostreg.c - registered host memory and the copies behind kernels,
 * with real kernels (conf_kernels.hip): after hipHostRegister the host and
 * every GPU see the same bytes (ROCm 5.2.3's hipHostRegister pins the pages
 * and maps them on every device; hipHostGetDevicePointer answers the
 * device address of the same pages, hip_memory.cpp), and a hipMemcpyAsync
 * queued behind a kernel copies what the kernel wrote.
 */
#include "conf.h"

#define LEN (1u << 20)

static hipModule_t mod;
static hipFunction_t f_inc8, f_set32;

static void setup(void)
{
	const char *path = getenv("CONF_KERNELS");

	cr_assert(path, "CONF_KERNELS names the code object (meson sets it)");
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipModuleLoad(&mod, path));
	ASSERT_OK(hipModuleGetFunction(&f_inc8, mod, "inc8"));
	ASSERT_OK(hipModuleGetFunction(&f_set32, mod, "set32"));
}

static void teardown(void)
{
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipModuleUnload(mod));
}

TestSuite(conf_hostreg, .init = setup, .fini = teardown);

static void inc8(int dev, unsigned char *p, unsigned n)
{
	void *params[] = { &p, &n };

	ASSERT_OK(hipSetDevice(dev));
	ASSERT_OK(hipModuleLaunchKernel(f_inc8, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params,
					NULL));
	ASSERT_OK(hipDeviceSynchronize());
}

static size_t count_not(const unsigned char *p, size_t n, unsigned char v)
{
	size_t bad = 0, i;

	for (i = 0; i < n; i++)
		bad += p[i] != v;
	return bad;
}

/* malloc'd memory (not page aligned), registered: each GPU's kernel adds
 * one through hipHostGetDevicePointer's pointer, and the host sees all. */
Test(conf_hostreg, kernels_on_every_gpu_write_the_hosts_bytes)
{
	unsigned char *a = malloc(LEN), *d;
	int n = conf_ngpu(), dev;

	cr_assert(a);
	memset(a, 1, LEN);
	ASSERT_OK(hipHostRegister(a, LEN, 0));
	for (dev = 0; dev < n; dev++) {
		ASSERT_OK(hipSetDevice(dev));
		ASSERT_OK(hipHostGetDevicePointer((void **)&d, a, 0));
		inc8(dev, d, LEN);
	}
	cr_expect_eq(count_not(a, LEN, (unsigned char)(1 + n)), 0, "a[0] = %d, want %d", a[0],
		     1 + n);
	ASSERT_OK(hipHostUnregister(a));
	free(a);
}

/* The same range registered, used and unregistered again and again (hip-tests'
 * SameChunkRepeat), and a hipMemset of registered memory before a kernel. */
Test(conf_hostreg, register_again_and_memset)
{
	unsigned char *a = malloc(LEN);
	int i;

	cr_assert(a);
	for (i = 0; i < 3; i++) {
		memset(a, 1, LEN);
		ASSERT_OK(hipHostRegister(a, LEN, 0));
		inc8(0, a, LEN);
		cr_expect_eq(count_not(a, LEN, 2), 0, "round %d: a[0] = %d", i, a[0]);
		ASSERT_OK(hipHostUnregister(a));
	}
	ASSERT_OK(hipHostRegister(a, LEN, 0));
	ASSERT_OK(hipMemset(a, 1, LEN));
	inc8(0, a, LEN);
	cr_expect_eq(count_not(a, LEN, 2), 0, "after hipMemset: a[0] = %d", a[0]);
	ASSERT_OK(hipHostUnregister(a));
	free(a);
}

/* hipMemcpyAsync behind a kernel on the null stream, from the null stream,
 * hipStreamPerThread and a created stream (all blocking: the copy waits). */
Test(conf_hostreg, memcpy_async_copies_what_the_kernel_wrote)
{
	hipStream_t created, streams[3];
	unsigned long n = 3000;
	int *d, *h, v = 42, i;
	void *params[] = { &d, &v, &n };

	ASSERT_OK(hipStreamCreate(&created));
	streams[0] = NULL;
	streams[1] = hipStreamPerThread;
	streams[2] = created;
	ASSERT_OK(hipMalloc((void **)&d, n * sizeof(int)));
	ASSERT_OK(hipHostMalloc((void **)&h, n * sizeof(int), 0));
	for (i = 0; i < 3; i++) {
		memset(h, 0, n * sizeof(int));
		ASSERT_OK(hipMemset(d, 0, n * sizeof(int)));
		v = 42 + i;
		ASSERT_OK(hipModuleLaunchKernel(f_set32, 3, 1, 1, 1024, 1, 1, 0, NULL, params, NULL));
		ASSERT_OK(hipMemcpyAsync(h, d, n * sizeof(int), hipMemcpyDeviceToHost, streams[i]));
		ASSERT_OK(hipStreamSynchronize(streams[i]));
		cr_expect_eq(h[0], 42 + i, "stream %d: h[0] = %d", i, h[0]);
		cr_expect_eq(h[n - 1], 42 + i, "stream %d: h[n-1] = %d", i, h[n - 1]);
	}
	ASSERT_OK(hipHostFree(h));
	ASSERT_OK(hipFree(d));
	ASSERT_OK(hipStreamDestroy(created));
}
