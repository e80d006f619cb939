/* SPDX-License-Identifier: MIT */
/*
 * conf_launch.c - launches by host function (what hipcc's generated code
 * registers), against ROCm 5.2.3's hip_module.cpp and hip_platform.cpp: the
 * checks of hipLaunchKernel and its other entry points, and the buffers
 * each one touches.
 */
#include "conf.h"

#include "conf_image.h"

void **__hipRegisterFatBinary(const void *data);
void __hipUnregisterFatBinary(void **handle);
void __hipRegisterFunction(void **handle, const void *host_fn, char *dev_fn, const char *dev_name,
			   unsigned int thread_limit, void *tid, void *bid, void *block, void *grid,
			   int *wsize);
void launch_ggl(uintptr_t f, const dim3 *grid, const dim3 *block, uint32_t shmem,
		hipStream_t stream, void **args)
	__asm__("_ZN8hip_impl22hipLaunchKernelGGLImplEmRK4dim3S2_jP12ihipStream_tPPv");

static void host_stub(void)
{
}

static struct {
	uint32_t magic, version;
	const void *bin;
	void *unused;
} wrapper;
static void **fatbin;
static struct wb registered;

static void register_kernel(void)
{
	registered = image();
	wrapper.magic = 0x48495046u;
	wrapper.version = 1;
	wrapper.bin = registered.p;
	fatbin = __hipRegisterFatBinary(&wrapper);
	cr_assert(fatbin);
	__hipRegisterFunction(fatbin, (const void *)host_stub, "basic", "basic", -1u, NULL, NULL,
			      NULL, NULL, NULL);
}

static void unregister_kernel(void)
{
	__hipUnregisterFatBinary(fatbin);
	free(registered.p);
}

static void *buffer_args(void **a, void **b, int *n, void **c, void *params[4])
{
	ASSERT_OK(hipMallocManaged(a, 4096, hipMemAttachGlobal));
	*b = NULL;
	*c = NULL;
	params[0] = a;
	params[1] = b;
	params[2] = n;
	params[3] = c;
	return *a;
}

/* hipLaunchKernel: ROCm's order of checks (ihipLaunchKernel). */
Test(conf_launch, hipLaunchKernel_check_order, .init = register_kernel, .fini = unregister_kernel)
{
	dim3 one = { 1, 1, 1 }, zero = { 0, 1, 1 }, big = { 64, 32, 1 }, huge = { 0x10000, 1, 1 };
	int x = 0;

	EXPECT_HIP(hipLaunchKernel((void *)&x, zero, one, NULL, 0, NULL),
		   hipErrorInvalidDeviceFunction);
	EXPECT_HIP(hipLaunchKernel((void *)host_stub, huge, huge, NULL, 0, NULL),
		   hipErrorInvalidConfiguration);
	EXPECT_HIP(hipLaunchKernel((void *)host_stub, zero, big, NULL, 0, NULL),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipLaunchKernel((void *)host_stub, one, big, NULL, 0, NULL),
		   hipErrorInvalidConfiguration);
}

/* hipLaunchKernel_spt, hipExtLaunchKernel (events around the launch),
 * hipLaunchKernelGGLImpl: each touches the buffer on the stream's GPU. */
Test(conf_launch, launch_entry_points_touch, .init = register_kernel, .fini = unregister_kernel)
{
	dim3 one = { 1, 1, 1 };
	void *a, *b, *c, *params[4];
	hipEvent_t start, stop;
	int n = 0, dev;
	float ms = -1;

	for (dev = 1; dev <= 3; dev++) {
		ASSERT_OK(hipSetDevice(dev));
		buffer_args(&a, &b, &n, &c, params);
		if (dev == 1) {
			ASSERT_OK(hipLaunchKernel_spt((void *)host_stub, one, one, params, 0, NULL));
		} else if (dev == 2) {
			ASSERT_OK(hipEventCreate(&start));
			ASSERT_OK(hipEventCreate(&stop));
			ASSERT_OK(hipExtLaunchKernel((void *)host_stub, one, one, params, 0, NULL,
						     start, stop, 0));
			ASSERT_OK(hipEventSynchronize(stop));
			ASSERT_OK(hipEventElapsedTime(&ms, start, stop));
			cr_expect_geq(ms, 0.0f);
			ASSERT_OK(hipEventDestroy(start));
			ASSERT_OK(hipEventDestroy(stop));
		} else {
			launch_ggl((uintptr_t)host_stub, &one, &one, 0, NULL, params);
		}
		ASSERT_OK(hipDeviceSynchronize());
		cr_expect_eq(hipsvmSimIsMapped(dev, a), 1, "device %d", dev);
		ASSERT_OK(hipFree(a));
	}
	cr_expect_str_eq(hipKernelNameRefByPtr((void *)host_stub, NULL), "basic");
}

/* hipConfigureCall / hipSetupArgument / hipLaunchByPtr: the packed
 * arguments are read at the kernel's offsets. */
Test(conf_launch, hipLaunchByPtr_packed_arguments, .init = register_kernel,
     .fini = unregister_kernel)
{
	dim3 one = { 1, 1, 1 };
	void *a;

	ASSERT_OK(hipSetDevice(2));
	ASSERT_OK(hipMallocManaged(&a, 4096, hipMemAttachGlobal));
	ASSERT_OK(hipConfigureCall(one, one, 0, NULL));
	ASSERT_OK(hipSetupArgument(&a, sizeof(a), 32));
	ASSERT_OK(hipLaunchByPtr((void *)host_stub));
	ASSERT_OK(hipDeviceSynchronize());
	cr_expect_eq(hipsvmSimIsMapped(2, a), 1);
	ASSERT_OK(hipFree(a));
}

/* hipLaunchCooperativeKernel: a grid larger than the device holds at once
 * is hipErrorCooperativeLaunchTooLarge. */
Test(conf_launch, hipLaunchCooperativeKernel_too_large, .init = register_kernel,
     .fini = unregister_kernel)
{
	dim3 block = { 1024, 1, 1 }, fits = { 2 * 104, 1, 1 }, over = { 2 * 104 + 1, 1, 1 };
	void *a, *b, *c, *params[4];
	int n = 0;

	buffer_args(&a, &b, &n, &c, params);
	ASSERT_OK(hipLaunchCooperativeKernel((void *)host_stub, fits, block, params, 0, NULL));
	EXPECT_HIP(hipLaunchCooperativeKernel((void *)host_stub, over, block, params, 0, NULL),
		   hipErrorCooperativeLaunchTooLarge);
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipFree(a));
}

/* hipOccupancyMaxPotentialBlockSize / hipFuncGetAttributes on a
 * registered kernel. */
Test(conf_launch, host_function_queries, .init = register_kernel, .fini = unregister_kernel)
{
	hipFuncAttributes attr;
	int grid = 0, block = 0, num = 0;

	ASSERT_OK(hipOccupancyMaxPotentialBlockSize(&grid, &block, (void *)host_stub, 0, 0));
	cr_expect_eq(block, 1024);
	cr_expect_eq(grid, 2 * 104);
	ASSERT_OK(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&num, (void *)host_stub,
									128, 0, 0));
	cr_expect_eq(num, 16);
	ASSERT_OK(hipFuncGetAttributes(&attr, (void *)host_stub));
	cr_expect_eq(attr.maxThreadsPerBlock, 1024);
	ASSERT_OK(hipFuncSetCacheConfig((void *)host_stub, hipFuncCachePreferL1));
	ASSERT_OK(hipFuncSetAttribute((void *)host_stub, hipFuncAttributeMaxDynamicSharedMemorySize,
				      1024));
}

/* hipLaunchCooperativeKernelMultiDevice / hipExtLaunchMultiKernelMultiDevice:
 * ROCm 5.2's checks (ihipLaunchCooperativeKernelMultiDevice), then one
 * launch per device, each touching its buffer on its own GPU. */
Test(conf_launch, multi_device_launches, .init = register_kernel, .fini = unregister_kernel)
{
	hipLaunchParams p[3];
	hipStream_t s[3];
	void *a[3], *b = NULL, *c = NULL;
	void *args[3][4];
	int n = 0, i;

	for (i = 0; i < 3; i++) {
		ASSERT_OK(hipSetDevice(i + 1));
		ASSERT_OK(hipStreamCreate(&s[i]));
		ASSERT_OK(hipMallocManaged(&a[i], 4096, hipMemAttachGlobal));
		args[i][0] = &a[i];
		args[i][1] = &b;
		args[i][2] = &n;
		args[i][3] = &c;
		p[i] = (hipLaunchParams){ (void *)host_stub, { 1, 1, 1 }, { 64, 1, 1 }, args[i], 0,
					  s[i] };
	}
	ASSERT_OK(hipSetDevice(0));
	EXPECT_HIP(hipExtLaunchMultiKernelMultiDevice(p, 5, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipExtLaunchMultiKernelMultiDevice(NULL, 1, 0), hipErrorInvalidValue);
	p[1].blockDim.x = 0;
	EXPECT_HIP(hipExtLaunchMultiKernelMultiDevice(p, 3, 0), hipErrorInvalidConfiguration);
	p[1].blockDim.x = 64;
	p[2].stream = s[0];
	EXPECT_HIP(hipLaunchCooperativeKernelMultiDevice(p, 3, 0), hipErrorInvalidDevice);
	p[2].stream = s[2];
	ASSERT_OK(hipExtLaunchMultiKernelMultiDevice(p, 2, 0));
	ASSERT_OK(hipLaunchCooperativeKernelMultiDevice(p + 2, 1, 0));
	for (i = 0; i < 3; i++) {
		ASSERT_OK(hipStreamSynchronize(s[i]));
		cr_expect_eq(hipsvmSimIsMapped(i + 1, a[i]), 1, "entry %d", i);
		cr_expect_eq(hipsvmSimIsMapped(0, a[i]), 0);
		ASSERT_OK(hipFree(a[i]));
		ASSERT_OK(hipStreamDestroy(s[i]));
	}
}

/* ---- __launch_bounds__: a block larger than the kernel's maximum flat
 * work-group size (.max_flat_workgroup_size in its metadata) is
 * hipErrorLaunchFailure, after the device's own limit
 * (hipErrorInvalidConfiguration), in every launch path: hipamd 5.2.3's
 * ihipLaunchKernel_validate (hip_module.cpp:244-251), which
 * hipLaunchKernel, the module launches and the cooperative ones all
 * reach. hip-tests' Unit_hipLaunchBounds_*. ---- */

static void bounded_stub(void)
{
}

static struct {
	uint32_t magic, version;
	const void *bin;
	void *unused;
} bounded_wrapper;
static void **bounded_fatbin;
static void *bounded_co;
static hipModule_t bounded_mod;

/* conf_kernels.hip's code object, registered as hipcc's host code would
 * (bounded64 under bounded_stub) and loaded as a module. */
static void register_bounded(void)
{
	const char *path = getenv("CONF_KERNELS");
	FILE *f;
	long n;

	if (!path)	/* built without hipcc: the case skips */
		return;
	f = fopen(path, "rb");
	cr_assert(f, "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	cr_assert_gt(n, 0);
	rewind(f);
	bounded_co = malloc((size_t)n);
	cr_assert(bounded_co);
	cr_assert_eq(fread(bounded_co, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	bounded_wrapper.magic = 0x48495046u;
	bounded_wrapper.version = 1;
	bounded_wrapper.bin = bounded_co;
	bounded_fatbin = __hipRegisterFatBinary(&bounded_wrapper);
	cr_assert(bounded_fatbin);
	__hipRegisterFunction(bounded_fatbin, (const void *)bounded_stub, "bounded64",
			      "bounded64", -1u, NULL, NULL, NULL, NULL, NULL);
	ASSERT_OK(hipModuleLoad(&bounded_mod, path));
}

static void unregister_bounded(void)
{
	if (!bounded_fatbin)
		return;
	ASSERT_OK(hipModuleUnload(bounded_mod));
	__hipUnregisterFatBinary(bounded_fatbin);
	free(bounded_co);
}

Test(conf_launch, launch_bounds_exceeded_is_launch_failure, .init = register_bounded,
     .fini = unregister_bounded)
{
	dim3 one = { 1, 1, 1 }, b64 = { 64, 1, 1 }, b65 = { 65, 1, 1 }, b2d = { 8, 16, 1 };
	dim3 huge = { 2048, 1, 1 };
	hipFunction_t fn;
	hipEvent_t start;
	int *a, host[64], i;
	void *args[] = { &a };

	if (!getenv("CONF_KERNELS"))
		cr_skip_test("no conf_kernels code object (hipcc not found)");
	ASSERT_OK(hipModuleGetFunction(&fn, bounded_mod, "bounded64"));
	ASSERT_OK(hipMalloc((void **)&a, 256 * sizeof(int)));
	ASSERT_OK(hipMemset(a, 0xff, 256 * sizeof(int)));
	EXPECT_HIP(hipLaunchKernel((void *)bounded_stub, one, b65, args, 0, NULL),
		   hipErrorLaunchFailure);
	EXPECT_HIP(hipLaunchKernel((void *)bounded_stub, one, b2d, args, 0, NULL),
		   hipErrorLaunchFailure);
	EXPECT_HIP(hipLaunchKernel((void *)bounded_stub, one, huge, args, 0, NULL),
		   hipErrorInvalidConfiguration);
	EXPECT_HIP(hipModuleLaunchKernel(fn, 1, 1, 1, 65, 1, 1, 0, NULL, args, NULL),
		   hipErrorLaunchFailure);
	EXPECT_HIP(hipLaunchCooperativeKernel((void *)bounded_stub, one, b65, args, 0, NULL),
		   hipErrorLaunchFailure);
	ASSERT_OK(hipEventCreate(&start));
	EXPECT_HIP(hipExtLaunchKernel((void *)bounded_stub, one, b65, args, 0, NULL, start, NULL,
				      0), hipErrorLaunchFailure);
	ASSERT_OK(hipEventDestroy(start));
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipMemcpy(host, a, sizeof(host), hipMemcpyDeviceToHost));
	cr_expect_eq(host[0], -1, "a refused launch ran");
	/* within the bounds the kernel runs */
	ASSERT_OK(hipLaunchKernel((void *)bounded_stub, one, b64, args, 0, NULL));
	ASSERT_OK(hipModuleLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipMemcpy(host, a, sizeof(host), hipMemcpyDeviceToHost));
	for (i = 0; i < 64; i++)
		cr_expect_eq(host[i], i, "a[%d]", i);
	ASSERT_OK(hipFree(a));
}

/* ROCclr counts only its own device buffers against hipMemGetInfo's free
 * memory (rocmemory.cpp:807, rocdevice.cpp:2076); a kernel's code object is
 * placed by ROCr's loader, so loading it at the first launch moves nothing:
 * hip-tests' validateMemoryOnGPU compares the free memory around a launch. */
Test(conf_launch, a_loaded_kernel_charges_no_free_memory, .init = register_bounded,
     .fini = unregister_bounded)
{
	dim3 one = { 1, 1, 1 }, b64 = { 64, 1, 1 };
	size_t f0, f1, f2, f3, t;
	hipFunction_t fn;
	int *a;
	void *args[] = { &a };

	if (!getenv("CONF_KERNELS"))
		cr_skip_test("no conf_kernels code object (hipcc not found)");
	ASSERT_OK(hipSetDevice(1));	/* a device no other case has loaded on */
	ASSERT_OK(hipMemGetInfo(&f0, &t));
	ASSERT_OK(hipMalloc((void **)&a, 64 * sizeof(int)));
	ASSERT_OK(hipMemGetInfo(&f1, &t));
	cr_expect_lt(f1, f0, "the allocation is charged");
	ASSERT_OK(hipModuleGetFunction(&fn, bounded_mod, "bounded64"));
	ASSERT_OK(hipModuleLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipMemGetInfo(&f2, &t));
	cr_expect_eq(f2, f1, "a module's kernel charged %zu bytes", f1 - f2);
	ASSERT_OK(hipLaunchKernel((void *)bounded_stub, one, b64, args, 0, NULL));
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipMemGetInfo(&f2, &t));
	cr_expect_eq(f2, f1, "a registered kernel charged %zu bytes", f1 - f2);
	ASSERT_OK(hipFree(a));
	ASSERT_OK(hipMemGetInfo(&f3, &t));
	cr_expect_eq(f3, f0, "%zu bytes left charged", f0 - f3);
	ASSERT_OK(hipSetDevice(0));
}
