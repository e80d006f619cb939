/* SPDX-License-Identifier: MIT */
/* conf_mem_set.c - the fills against ROCm 5.2.3 (hip_memory.cpp:
 * ihipMemset_validate, ihipMemset3D_validate, ihipMemset3DCommand) and the
 * null stream's wait for blocking streams. */
#include "conf_mem.h"

TestSuite(mem_set, .timeout = 60);

/* ihipMemset_validate: memory the runtime does not know is
 * hipErrorInvalidValue, and nothing is written. */
Test(mem_set, hipMemset_not_hip_memory)
{
	char stack[64];
	char *heap = malloc(64);

	memset(stack, 1, sizeof(stack));
	cr_assert(heap);
	cr_expect_eq(hipMemset(stack, 0, sizeof(stack)), hipErrorInvalidValue);
	cr_expect_eq(stack[0], 1, "nothing written");
	cr_expect_eq(hipMemsetAsync(heap, 0, 64, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMemsetD8(heap, 0, 64), hipErrorInvalidValue);
	cr_expect_eq(hipMemsetD16(heap, 0, 32), hipErrorInvalidValue);
	cr_expect_eq(hipMemsetD32(heap, 0, 16), hipErrorInvalidValue);
	cr_expect_eq(hipMemset(NULL, 0, 16), hipErrorInvalidValue);
	cr_expect_eq(hipMemset(NULL, 0, 0), hipSuccess, "size 0 first");
	free(heap);
}

/* ihipMemset_validate: running past the end of the allocation is
 * hipErrorInvalidValue. */
Test(mem_set, hipMemset_past_end)
{
	char *d = dmalloc(100);

	cr_expect_eq(hipMemset(d, 0, 101), hipErrorInvalidValue);
	cr_expect_eq(hipMemset(d + 50, 0, 51), hipErrorInvalidValue);
	cr_expect_eq(hipMemsetD32(d, 0, 26), hipErrorInvalidValue);
	cr_expect_eq(hipMemsetD16Async(d + 2, 0, 50, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMemset(d + 50, 7, 50), hipSuccess);
	cr_expect_eq(d[99], 7);
	hipFree(d);
}

/* Registered and hipHostMalloc'd memory are HIP memory. */
Test(mem_set, hipMemset_host_memory)
{
	char *h, *r = aligned_alloc(4096, 4096);

	cr_assert(r);
	cr_assert_eq(hipHostMalloc((void **)&h, 64, 0), hipSuccess);
	cr_expect_eq(hipMemset(h, 9, 64), hipSuccess);
	cr_expect_eq(h[63], 9);
	cr_assert_eq(hipHostRegister(r, 4096, 0), hipSuccess);
	cr_expect_eq(hipMemsetD32(r, 0x01020304, 1024), hipSuccess);
	cr_expect_eq(((int *)r)[1023], 0x01020304);
	hipHostUnregister(r);
	hipHostFree(h);
	free(r);
}

/* ihipMemset3DCommand: hipMemset2D fills width bytes of each row only. */
Test(mem_set, hipMemset2D_rows)
{
	enum { P = 64, W = 40, H = 5 };
	unsigned char *d = dmalloc(P * H);
	int y, x;

	cr_assert_eq(hipMemset(d, 0, P * H), hipSuccess);
	cr_expect_eq(hipMemset2D(d, P, 0xab, W, H), hipSuccess);
	for (y = 0; y < H; y++)
		for (x = 0; x < P; x++)
			cr_assert_eq(d[y * P + x], x < W ? 0xab : 0, "row %d col %d", y, x);
	hipFree(d);
}

/* ihipMemset3D: a pitch of 0 (not the width) is hipErrorInvalidValue; so is
 * memory that is not HIP's, and a rectangle past the allocation. */
Test(mem_set, hipMemset2D_invalid)
{
	char h[256];
	char *d = dmalloc(64 * 4);

	cr_expect_eq(hipMemset2D(d, 0, 1, 32, 4), hipErrorInvalidValue);
	cr_expect_eq(hipMemset2D(h, 64, 1, 32, 4), hipErrorInvalidValue);
	cr_expect_eq(hipMemset2D(d, 64, 1, 64, 5), hipErrorInvalidValue);
	cr_expect_eq(hipMemset2D(d + 64, 64, 1, 64, 4), hipErrorInvalidValue);
	cr_expect_eq(hipMemset2D(d, 64, 1, 0, 4), hipSuccess, "nothing to do");
	cr_expect_eq(hipMemset2DAsync(d, 64, 1, 64, 4, NULL), hipSuccess);
	cr_expect_eq(hipMemset2D_spt(d, 64, 2, 64, 4), hipSuccess);
	cr_expect_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_eq(d[255], 2);
	hipFree(d);
}

/* hipMemset3D: slices of a hipMalloc3D allocation. */
Test(mem_set, hipMemset3D_slices)
{
	hipPitchedPtr pp;
	unsigned char *b;
	size_t z, y, x;

	cr_assert_eq(hipMalloc3D(&pp, make_hipExtent(10, 3, 4)), hipSuccess);
	b = pp.ptr;
	memset(b, 0, pp.pitch * 3 * 4);
	cr_expect_eq(hipMemset3D(pp, 5, make_hipExtent(10, 3, 2)), hipSuccess);
	for (z = 0; z < 4; z++)
		for (y = 0; y < 3; y++)
			for (x = 0; x < pp.pitch; x++)
				cr_assert_eq(b[(z * 3 + y) * pp.pitch + x], z < 2 && x < 10 ? 5 : 0,
					     "z %zu y %zu x %zu", z, y, x);
	cr_expect_eq(hipMemset3DAsync(pp, 6, make_hipExtent(10, 3, 4), NULL), hipSuccess);
	cr_expect_eq(hipMemset3D_spt(pp, 6, make_hipExtent(10, 3, 5)), hipErrorInvalidValue);
	cr_expect_eq(hipDeviceSynchronize(), hipSuccess);
	cr_expect_eq(b[(3 * 3 + 2) * pp.pitch + 9], 6);
	hipFree(pp.ptr);
}

/* A synchronous fill on the null stream waits for the blocking streams of
 * the device first, as ROCm's null stream does. */
Test(mem_set, hipMemsetD8_waits_for_blocking_streams)
{
	const size_t n = 64 * MIB;
	void *big = dmalloc(n), *small = dmalloc(64), *h = malloc(n);
	hipStream_t s;

	cr_assert(h);
	memset(h, 3, n);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(big, h, n, hipMemcpyHostToDevice, s), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(h, big, n, hipMemcpyDeviceToHost, s), hipSuccess);
	cr_expect_eq(hipMemsetD8(small, 1, 64), hipSuccess);
	cr_expect_eq(hipStreamQuery(s), hipSuccess, "the blocking stream is idle");
	hipStreamDestroy(s);
	hipFree(big);
	hipFree(small);
	free(h);
}

/* hipMemset_spt: on the per-thread stream. */
Test(mem_set, hipMemset_spt)
{
	char *d = dmalloc(32);

	cr_expect_eq(hipMemset_spt(d, 4, 32), hipSuccess);
	cr_expect_eq(d[31], 4);
	cr_expect_eq(hipMemset_spt(d, 4, 33), hipErrorInvalidValue);
	hipFree(d);
}
