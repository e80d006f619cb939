/* SPDX-License-Identifier: MIT */
/*
 * conf_module.c - the module API against ROCm 5.2.3's hip_module.cpp, on a
 * synthetic code object (conf_image.h).
 */
#include "conf.h"

#include <stdio.h>
#include <unistd.h>

#include "conf_image.h"

static hipModule_t load(void)
{
	struct wb b = image();
	hipModule_t m;

	ASSERT_OK(hipModuleLoadData(&m, b.p));
	free(b.p);	/* the module keeps what it read */
	return m;
}

/* hipModuleLoadData / hipModuleGetFunction / hipModuleUnload. */
Test(conf_module, load_get_unload)
{
	hipModule_t m = load();
	hipFunction_t f, f2;

	ASSERT_OK(hipModuleGetFunction(&f, m, "basic"));
	ASSERT_OK(hipModuleGetFunction(&f2, m, "basic.kd"));
	cr_expect_eq(f, f2);
	cr_expect_str_eq(hipKernelNameRef(f), "basic");
	EXPECT_HIP(hipModuleGetFunction(&f2, m, "nope"), hipErrorNotFound);
	EXPECT_HIP(hipModuleGetFunction(NULL, m, "basic"), hipErrorInvalidValue);
	EXPECT_HIP(hipModuleGetFunction(&f2, m, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipModuleGetFunction(&f2, m, ""), hipErrorNotFound);
	ASSERT_OK(hipModuleUnload(m));
	EXPECT_HIP(hipModuleGetFunction(&f2, m, "basic"), hipErrorNotFound);
	/* hipModuleUnload: what is not a loaded module is hipErrorNotFound */
	EXPECT_HIP(hipModuleUnload(m), hipErrorNotFound);
	EXPECT_HIP(hipModuleUnload(NULL), hipErrorNotFound);
}

/* hipModuleLoadData: what is no bundle is taken for a code object, and a
 * malformed one is hipErrorInvalidKernelFile; NULLs invalid values. */
Test(conf_module, hipModuleLoadData_bad_image)
{
	static const char junk[64] = "\177ELF but not really";
	hipModule_t m;

	EXPECT_HIP(hipModuleLoadData(&m, junk), hipErrorInvalidKernelFile);
	EXPECT_HIP(hipModuleLoadData(NULL, junk), hipErrorInvalidValue);
	EXPECT_HIP(hipModuleLoadData(&m, NULL), hipErrorInvalidValue);
}

/* hipModuleLoad: a missing file is hipErrorFileNotFound; a file holding the
 * code object loads (hipModuleLoadDataEx too). */
Test(conf_module, hipModuleLoad_file)
{
	char path[] = "/tmp/hipsvm-conf-module-XXXXXX";
	struct wb b = image();
	hipModule_t m;
	hipFunction_t f;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, b.p, b.n), (ssize_t)b.n);
	close(fd);
	ASSERT_OK(hipModuleLoad(&m, path));
	ASSERT_OK(hipModuleGetFunction(&f, m, "basic"));
	ASSERT_OK(hipModuleUnload(m));
	unlink(path);
	EXPECT_HIP(hipModuleLoad(&m, "/nonexistent/hipsvm.co"), hipErrorFileNotFound);
	/* an empty file: hipErrorInvalidKernelFile */
	strcpy(path, "/tmp/hipsvm-conf-module-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	EXPECT_HIP(hipModuleLoad(&m, path), hipErrorInvalidKernelFile);
	unlink(path);
	ASSERT_OK(hipModuleLoadDataEx(&m, b.p, 0, NULL, NULL));
	ASSERT_OK(hipModuleUnload(m));
	free(b.p);
}

/* hipModuleLaunchKernel: kernelParams — the buffers are touched on the
 * stream's GPU, as a <<<>>> launch touches them. */
Test(conf_module, hipModuleLaunchKernel_params_touch_buffers)
{
	hipModule_t m = load();
	hipFunction_t f;
	void *a, *b, *c;
	int n = 3;
	void *params[4];

	ASSERT_OK(hipSetDevice(1));
	ASSERT_OK(hipMallocManaged(&a, 8192, hipMemAttachGlobal));
	ASSERT_OK(hipMallocManaged(&b, 4096, hipMemAttachGlobal));
	ASSERT_OK(hipMallocManaged(&c, 4096, hipMemAttachGlobal));
	ASSERT_OK(hipModuleGetFunction(&f, m, "basic"));
	params[0] = &a;
	params[1] = &b;
	params[2] = &n;
	params[3] = &c;
	ASSERT_OK(hipModuleLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
	ASSERT_OK(hipDeviceSynchronize());
	cr_expect_eq(hipsvmSimIsMapped(1, a), 1);
	cr_expect_eq(hipsvmSimIsMapped(1, (char *)a + 4096), 1);
	cr_expect_eq(hipsvmSimIsMapped(1, c), 1);
	cr_expect_eq(hipsvmSimIsMapped(2, a), 0, "another GPU never touched it");
	ASSERT_OK(hipFree(a));
	ASSERT_OK(hipFree(b));
	ASSERT_OK(hipFree(c));
	ASSERT_OK(hipModuleUnload(m));
}

/* hipModuleLaunchKernel: `extra` with a packed kernarg buffer. */
Test(conf_module, hipModuleLaunchKernel_extra_buffer)
{
	hipModule_t m = load();
	hipFunction_t f;
	void *a;
	uint8_t kernarg[40] = { 0 };
	size_t size = sizeof(kernarg);
	void *extra[] = { HIP_LAUNCH_PARAM_BUFFER_POINTER, kernarg, HIP_LAUNCH_PARAM_BUFFER_SIZE,
			  &size, HIP_LAUNCH_PARAM_END };

	ASSERT_OK(hipSetDevice(2));
	ASSERT_OK(hipMallocManaged(&a, 4096, hipMemAttachGlobal));
	memcpy(kernarg + 32, &a, sizeof(a));
	ASSERT_OK(hipModuleGetFunction(&f, m, "basic"));
	ASSERT_OK(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
	ASSERT_OK(hipDeviceSynchronize());
	cr_expect_eq(hipsvmSimIsMapped(2, a), 1);
	ASSERT_OK(hipFree(a));
	ASSERT_OK(hipModuleUnload(m));
}

hipError_t ext_module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
			     uint32_t bx, uint32_t by, uint32_t bz, size_t shmem,
			     hipStream_t stream, void **params, void **extra,
			     hipEvent_t start, hipEvent_t stop, uint32_t flags)
	__asm__("_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j");

/* hipExtModuleLaunchKernel: global work sizes; the start and stop events
 * are recorded around the launch. */
Test(conf_module, hipExtModuleLaunchKernel_events)
{
	hipModule_t m = load();
	hipFunction_t f;
	hipEvent_t start, stop;
	void *a = NULL, *b = NULL, *c = NULL;
	void *params[4];
	int n = 0;
	float ms = -1;

	ASSERT_OK(hipSetDevice(3));
	ASSERT_OK(hipMallocManaged(&c, 4096, hipMemAttachGlobal));
	ASSERT_OK(hipEventCreate(&start));
	ASSERT_OK(hipEventCreate(&stop));
	ASSERT_OK(hipModuleGetFunction(&f, m, "basic"));
	params[0] = &a;
	params[1] = &b;
	params[2] = &n;
	params[3] = &c;
	ASSERT_OK(ext_module_launch(f, 128, 1, 1, 64, 1, 1, 0, NULL, params, NULL, start, stop, 0));
	ASSERT_OK(hipEventSynchronize(stop));
	ASSERT_OK(hipEventElapsedTime(&ms, start, stop));
	cr_expect_geq(ms, 0.0f);
	cr_expect_eq(hipsvmSimIsMapped(3, c), 1);
	EXPECT_HIP(ext_module_launch(f, 0, 1, 1, 64, 1, 1, 0, NULL, params, NULL, NULL, NULL, 0),
		   hipErrorInvalidValue);
	ASSERT_OK(hipEventDestroy(start));
	ASSERT_OK(hipEventDestroy(stop));
	ASSERT_OK(hipFree(c));
	ASSERT_OK(hipModuleUnload(m));
}

/* ihipLaunchKernel_validate's order: NULL function, both argument forms,
 * zero sizes, a bad `extra`, too many threads. */
Test(conf_module, hipModuleLaunchKernel_checks)
{
	hipModule_t m = load();
	hipFunction_t f;
	void *p[1] = { NULL };
	void *bad_extra[] = { NULL, NULL, NULL, NULL, NULL };
	void *p5[5] = { NULL, NULL, NULL, NULL, NULL };

	ASSERT_OK(hipModuleGetFunction(&f, m, "basic"));
	EXPECT_HIP(hipModuleLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, p, NULL),
		   hipErrorInvalidImage);
	EXPECT_HIP(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, p, bad_extra),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipModuleLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, NULL, p, NULL),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, bad_extra),
		   hipErrorNotInitialized);
	EXPECT_HIP(hipModuleLaunchKernel(f, 1, 1, 1, 64, 32, 1, 0, NULL, p, NULL),
		   hipErrorInvalidConfiguration);
	EXPECT_HIP(hipModuleLaunchKernel(f, 0x10000, 1, 1, 0x10000, 1, 1, 0, NULL, p, NULL),
		   hipErrorInvalidConfiguration);
	/* More dynamic shared memory than the device's LDS (its attribute
	 * says 65536): ROCclr refuses the launch, hipamd says OutOfMemory. */
	EXPECT_HIP(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 65537, NULL, p, NULL),
		   hipErrorOutOfMemory);
	EXPECT_HIP(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 256u << 20, NULL, p, NULL),
		   hipErrorOutOfMemory);
	ASSERT_OK(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 65536, NULL, p5, NULL));
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipModuleUnload(m));
}

/* hipModuleGetGlobal: NULL outputs are ignored (success); a name the
 * module lacks is hipErrorNotFound. */
Test(conf_module, hipModuleGetGlobal)
{
	hipModule_t m = load();
	hipDeviceptr_t p;
	size_t n;

	ASSERT_OK(hipModuleGetGlobal(NULL, &n, m, "x"));
	EXPECT_HIP(hipModuleGetGlobal(&p, &n, m, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipModuleGetGlobal(&p, &n, m, "x"), hipErrorNotFound);
	ASSERT_OK(hipModuleUnload(m));
}

/* hipFuncGetAttribute: module functions; NULLs are hipErrorInvalidValue. */
Test(conf_module, hipFuncGetAttribute)
{
	hipModule_t m = load();
	hipFunction_t f;
	int v = 0;

	ASSERT_OK(hipModuleGetFunction(&f, m, "basic"));
	ASSERT_OK(hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
	cr_expect_eq(v, 1024);
	EXPECT_HIP(hipFuncGetAttribute(NULL, HIP_FUNC_ATTRIBUTE_NUM_REGS, f), hipErrorInvalidValue);
	EXPECT_HIP(hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_NUM_REGS, NULL), hipErrorInvalidValue);
	ASSERT_OK(hipModuleUnload(m));
}

/* hipModuleOccupancy*: the CU's 2048 work-items and 64 KiB of LDS. */
Test(conf_module, module_occupancy)
{
	hipModule_t m = load();
	hipFunction_t f;
	int n = 0, grid = 0, block = 0;

	ASSERT_OK(hipModuleGetFunction(&f, m, "basic"));
	ASSERT_OK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 256, 0));
	cr_expect_eq(n, 8);
	ASSERT_OK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 100, 0, 0));
	cr_expect_eq(n, 16, "a block rounds up to whole waves");
	ASSERT_OK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 64, 16384));
	cr_expect_eq(n, 4, "LDS-bound");
	ASSERT_OK(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, f, 0, 256));
	cr_expect_eq(block, 256);
	cr_expect_eq(grid, 8 * 104);
	ASSERT_OK(hipModuleOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, f, 0, 0, 0));
	cr_expect_eq(block, 1024);
	EXPECT_HIP(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(NULL, f, 64, 0),
		   hipErrorInvalidValue);
	ASSERT_OK(hipModuleUnload(m));
}

/* hipOccupancy* and hipFuncGetAttributes on a host pointer that is no
 * kernel: hipErrorInvalidValue / hipErrorInvalidDeviceFunction. */
Test(conf_module, host_function_queries_unknown)
{
	hipFuncAttributes a = { 0 };
	int n, g, b;

	EXPECT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, (void *)&a, 64, 0),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipOccupancyMaxPotentialBlockSize(&g, &b, (void *)&a, 0, 0),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipFuncGetAttributes(&a, (void *)&a), hipErrorInvalidDeviceFunction);
	EXPECT_HIP(hipLaunchCooperativeKernel((void *)&a, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 },
					      NULL, 0, NULL),
		   hipErrorInvalidDeviceFunction);
	cr_expect_null(hipKernelNameRefByPtr((void *)&a, NULL));
	cr_expect_null(hipKernelNameRefByPtr(NULL, NULL));
}

/* hipLaunchByPtr without hipConfigureCall: hipErrorMissingConfiguration. */
Test(conf_module, hipLaunchByPtr_unconfigured)
{
	int x = 0;

	EXPECT_HIP(hipLaunchByPtr(&x), hipErrorMissingConfiguration);
	ASSERT_OK(hipConfigureCall((dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, 0, NULL));
	ASSERT_OK(hipSetupArgument(&x, sizeof(x), 0));
	EXPECT_HIP(hipSetupArgument(NULL, 4, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipLaunchByPtr(&x), hipErrorInvalidDeviceFunction);
}
