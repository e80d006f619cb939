/* SPDX-License-Identifier: MIT */
/* conf_mem_copy.c - the copies against ROCm 5.2.3 (hip_memory.cpp:
 * ihipMemcpy2D, ihipMemcpyParam3D, ihipMemcpy3D_validate, the array and
 * symbol copies, ihipMemcpy_validate). */
#include "conf_mem.h"

#include <stdatomic.h>
#include <time.h>

extern void __hipRegisterVar(void **handle, void *var, char *host_var, char *dev_var, int ext,
			     size_t size, int constant, int global);

TestSuite(mem_copy, .timeout = 60);

/* hipMemcpy2D: rows between pitches, there and back. */
Test(mem_copy, hipMemcpy2D_round_trip)
{
	enum { W = 100, H = 9, SP = 128, DP = 256 };
	unsigned char src[SP * H], back[W * H], want[W * H];
	unsigned char *d = dmalloc(DP * H);
	int y;

	pattern(src, sizeof(src), 3);
	cr_assert_eq(hipMemcpy2D(d, DP, src, SP, W, H, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy2D(back, W, d, DP, W, H, hipMemcpyDeviceToHost), hipSuccess);
	for (y = 0; y < H; y++)
		memcpy(want + y * W, src + y * SP, W);
	cr_expect_eq(memcmp(back, want, sizeof(want)), 0);
	hipFree(d);
}

/* ihipMemcpy2D: a width past either pitch is hipErrorInvalidPitchValue; a
 * zero width or height is success. */
Test(mem_copy, hipMemcpy2D_pitch)
{
	unsigned char h[1024];
	void *d = dmalloc(1024);

	cr_expect_eq(hipMemcpy2D(d, 64, h, 32, 48, 2, hipMemcpyHostToDevice),
		     hipErrorInvalidPitchValue);
	cr_expect_eq(hipMemcpy2D(d, 32, h, 64, 48, 2, hipMemcpyHostToDevice),
		     hipErrorInvalidPitchValue);
	cr_expect_eq(hipMemcpy2D(d, 64, h, 64, 0, 2, hipMemcpyHostToDevice), hipSuccess);
	cr_expect_eq(hipMemcpy2D(d, 64, h, 64, 64, 0, hipMemcpyHostToDevice), hipSuccess);
	hipFree(d);
}

/* ihipGetMemcpyParam3DCommand: a rectangle past the end of the device
 * buffer is hipErrorInvalidValue. */
Test(mem_copy, hipMemcpy2D_past_end)
{
	static unsigned char h[64 * 17];
	void *d = dmalloc(64 * 16);

	cr_expect_eq(hipMemcpy2D(d, 64, h, 64, 64, 17, hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_expect_eq(hipMemcpy2D(d, 64, h, 64, 64, 16, hipMemcpyHostToDevice), hipSuccess);
	hipFree(d);
}

/* hipMemcpy2DAsync: in stream order. */
Test(mem_copy, hipMemcpy2DAsync_stream)
{
	unsigned char src[32 * 4], back[32 * 4];
	void *d = dmalloc(64 * 4);
	hipStream_t s;

	pattern(src, sizeof(src), 9);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_expect_eq(hipMemcpy2DAsync(d, 64, src, 32, 32, 4, hipMemcpyHostToDevice, s), hipSuccess);
	cr_expect_eq(hipMemcpy2DAsync(back, 32, d, 64, 32, 4, hipMemcpyDeviceToHost, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_expect_eq(memcmp(src, back, sizeof(src)), 0);
	hipStreamDestroy(s);
	hipFree(d);
}

static hipArray *int_array(size_t w, size_t h)
{
	hipChannelFormatDesc d = chan(32, 0, 0, 0, hipChannelFormatKindSigned);
	hipArray *a = NULL;

	cr_assert_eq(hipMallocArray(&a, &d, w, h, 0), hipSuccess);
	return a;
}

/* hipMemcpy2DToArray / hipMemcpy2DFromArray: a sub-rectangle at an offset
 * (x in bytes), there and back. */
Test(mem_copy, hipMemcpy2DToArray_round_trip)
{
	hipArray *a = int_array(16, 8);
	int src[4 * 3], back[4 * 3], all[16 * 8];
	int i;

	for (i = 0; i < 12; i++)
		src[i] = i * 11 + 1;
	memset(all, 0, sizeof(all));
	cr_assert_eq(hipMemcpy2DToArray(a, 0, 0, all, 64, 64, 8, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy2DToArray(a, 8, 2, src, 16, 16, 3, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy2DFromArray(back, 16, a, 8, 2, 16, 3, hipMemcpyDeviceToHost),
		     hipSuccess);
	cr_expect_eq(memcmp(src, back, sizeof(src)), 0);
	cr_assert_eq(hipMemcpy2DFromArray(all, 64, a, 0, 0, 64, 8, hipMemcpyDeviceToHost),
		     hipSuccess);
	cr_expect_eq(all[2 * 16 + 2], 1);
	cr_expect_eq(all[2 * 16 + 1], 0);
	cr_expect_eq(all[4 * 16 + 5], 11 * 11 + 1);
	hipFreeArray(a);
}

/* Image rectangles: past the array is hipErrorInvalidValue; a NULL array
 * is hipErrorInvalidResourceHandle; a source pitch of 0 is
 * hipErrorInvalidPitchValue. */
Test(mem_copy, hipMemcpy2DToArray_bounds)
{
	hipArray *a = int_array(16, 8);
	static int h[64 * 9];

	cr_expect_eq(hipMemcpy2DToArray(a, 4, 0, h, 64, 64, 1, hipMemcpyHostToDevice),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemcpy2DToArray(a, 0, 0, h, 64, 64, 9, hipMemcpyHostToDevice),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemcpy2DToArray(NULL, 0, 0, h, 64, 64, 1, hipMemcpyHostToDevice),
		     hipErrorInvalidResourceHandle);
	cr_expect_eq(hipMemcpy2DToArray(a, 0, 0, h, 0, 64, 1, hipMemcpyHostToDevice),
		     hipErrorInvalidPitchValue);
	cr_expect_eq(hipMemcpy2DFromArray(h, 64, NULL, 0, 0, 64, 1, hipMemcpyDeviceToHost),
		     hipErrorInvalidResourceHandle);
	hipFreeArray(a);
}

/* hipMemcpy2DFromArray(Async) with a destination pitch of 0:
 * hipErrorInvalidPitchValue before the array is looked at
 * (hip_memory.cpp:3098, :3120), nothing copied; hipMemcpyFromArray, which
 * passes a pitch of 0 itself, still copies. */
Test(mem_copy, hipMemcpy2DFromArray_zero_pitch)
{
	hipArray *a = int_array(16, 8);
	static int h[16 * 8], all[16 * 8];
	hipStream_t s;
	int i;

	for (i = 0; i < 16 * 8; i++)
		all[i] = i + 1;
	cr_assert_eq(hipMemcpy2DToArray(a, 0, 0, all, 64, 64, 8, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_expect_eq(hipMemcpy2DFromArray(h, 0, a, 0, 0, 64, 8, hipMemcpyDeviceToHost),
		     hipErrorInvalidPitchValue);
	cr_expect_eq(hipMemcpy2DFromArrayAsync(h, 0, a, 0, 0, 64, 8, hipMemcpyDeviceToHost, s),
		     hipErrorInvalidPitchValue);
	cr_expect_eq(hipMemcpy2DFromArray(h, 0, NULL, 0, 0, 64, 8, hipMemcpyDeviceToHost),
		     hipErrorInvalidPitchValue);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_expect_eq(h[5], 0, "a refused copy copied");
	cr_expect_eq(hipMemcpyFromArray(h, a, 0, 0, sizeof(h), hipMemcpyDeviceToHost), hipSuccess);
	cr_expect_eq(h[5], 6);
	cr_expect_eq(h[16 * 8 - 1], 16 * 8);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	hipFreeArray(a);
}

/* hipMemcpyToArray / hipMemcpyFromArray: a whole array from a count. */
Test(mem_copy, hipMemcpyToArray_whole)
{
	hipArray *a = int_array(8, 4);
	int src[32], back[32], i;

	for (i = 0; i < 32; i++)
		src[i] = 1000 + i;
	cr_expect_eq(hipMemcpyToArray(a, 0, 0, src, sizeof(src), hipMemcpyHostToDevice), hipSuccess);
	cr_expect_eq(hipMemcpyFromArray(back, a, 0, 0, sizeof(back), hipMemcpyDeviceToHost),
		     hipSuccess);
	cr_expect_eq(memcmp(src, back, sizeof(src)), 0);
	cr_expect_eq(hipMemcpyToArray(NULL, 0, 0, src, 4, hipMemcpyHostToDevice),
		     hipErrorInvalidValue);
	hipFreeArray(a);
}

/* hipMemcpyHtoA / hipMemcpyAtoH: bytes of the first row, at an offset;
 * past the row is hipErrorInvalidValue. */
Test(mem_copy, hipMemcpyHtoA_row)
{
	hipArray *a = int_array(8, 2);
	int v[3] = { 7, 8, 9 }, w[3] = { 0 };

	cr_expect_eq(hipMemcpyHtoA(a, 8, v, sizeof(v)), hipSuccess);
	cr_expect_eq(hipMemcpyAtoH(w, a, 8, sizeof(w)), hipSuccess);
	cr_expect_eq(memcmp(v, w, sizeof(v)), 0);
	cr_expect_eq(hipMemcpyHtoA(a, 24, v, sizeof(v)), hipErrorInvalidValue);
	hipFreeArray(a);
}

/* ihipMemcpy3D_validate: an array and a pointer on one side, or neither,
 * is hipErrorInvalidValue; a pitched 3D copy there and back. */
Test(mem_copy, hipMemcpy3D_pitched)
{
	enum { W = 20, H = 5, D = 3 };
	unsigned char src[W * H * D], back[W * H * D];
	hipArray *a = int_array(8, 2);
	struct hipMemcpy3DParms p;
	hipPitchedPtr dp;

	pattern(src, sizeof(src), 4);
	cr_assert_eq(hipMalloc3D(&dp, make_hipExtent(W, H, D)), hipSuccess);
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_hipPitchedPtr(src, W, W, H);
	p.dstPtr = dp;
	p.extent = make_hipExtent(W, H, D);
	p.kind = hipMemcpyHostToDevice;
	cr_expect_eq(hipMemcpy3D(&p), hipSuccess);
	p.srcPtr = dp;
	p.dstPtr = make_hipPitchedPtr(back, W, W, H);
	p.kind = hipMemcpyDeviceToHost;
	cr_expect_eq(hipMemcpy3D(&p), hipSuccess);
	cr_expect_eq(memcmp(src, back, sizeof(src)), 0);
	p.dstArray = a;
	cr_expect_eq(hipMemcpy3D(&p), hipErrorInvalidValue, "array and pointer");
	memset(&p, 0, sizeof(p));
	p.extent = make_hipExtent(1, 1, 1);
	cr_expect_eq(hipMemcpy3D(&p), hipErrorInvalidValue, "neither");
	cr_expect_eq(hipMemcpy3D(NULL), hipErrorInvalidValue);
	hipFree(dp.ptr);
	hipFreeArray(a);
}

/* hip::getDrvMemcpy3DDesc: with an array, the extent counts elements. */
Test(mem_copy, hipMemcpy3DAsync_array_elements)
{
	hipArray *a = int_array(8, 2);
	int src[16], back[16], i;
	struct hipMemcpy3DParms p;

	for (i = 0; i < 16; i++)
		src[i] = -i;
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_hipPitchedPtr(src, 32, 8, 2);
	p.dstArray = a;
	p.extent = make_hipExtent(8, 2, 1);
	p.kind = hipMemcpyHostToDevice;
	cr_expect_eq(hipMemcpy3DAsync(&p, NULL), hipSuccess);
	cr_assert_eq(hipMemcpyFromArray(back, a, 0, 0, sizeof(back), hipMemcpyDeviceToHost),
		     hipSuccess);
	cr_expect_eq(memcmp(src, back, sizeof(src)), 0);
	hipFreeArray(a);
}

/* hipMemcpyParam2D / hipDrvMemcpy3D: the driver descriptors. */
Test(mem_copy, hipMemcpyParam2D_and_hipDrvMemcpy3D)
{
	unsigned char src[16 * 4], back[16 * 4];
	void *d = dmalloc(32 * 4);
	hip_Memcpy2D c;
	HIP_MEMCPY3D c3;

	pattern(src, sizeof(src), 5);
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeHost;
	c.srcHost = src;
	c.srcPitch = 16;
	c.dstMemoryType = hipMemoryTypeDevice;
	c.dstDevice = d;
	c.dstPitch = 32;
	c.WidthInBytes = 16;
	c.Height = 4;
	cr_expect_eq(hipMemcpyParam2D(&c), hipSuccess);
	memset(&c3, 0, sizeof(c3));
	c3.srcMemoryType = hipMemoryTypeUnified;
	c3.srcDevice = d;
	c3.srcPitch = 32;
	c3.srcHeight = 4;
	c3.dstMemoryType = hipMemoryTypeHost;
	c3.dstHost = back;
	c3.dstPitch = 16;
	c3.dstHeight = 4;
	c3.WidthInBytes = 16;
	c3.Height = 4;
	c3.Depth = 1;
	cr_expect_eq(hipDrvMemcpy3D(&c3), hipSuccess);
	cr_expect_eq(memcmp(src, back, sizeof(src)), 0);
	cr_expect_eq(hipMemcpyParam2D(NULL), hipErrorInvalidValue);
	cr_expect_eq(hipDrvMemcpy3D(NULL), hipErrorInvalidValue);
	cr_expect_eq(hipMemcpyParam2DAsync(&c, NULL), hipSuccess);
	cr_expect_eq(hipDrvMemcpy2DUnaligned(&c), hipSuccess);
	cr_expect_eq(hipDrvMemcpy3DAsync(&c3, NULL), hipSuccess);
	cr_expect_eq(hipDeviceSynchronize(), hipSuccess);
	hipFree(d);
}

static int dev_var[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static void register_var(void)
{
	__hipRegisterVar(NULL, dev_var, "dev_var", "dev_var", 0, sizeof(dev_var), 0, 0);
}

/* hipGetSymbolAddress / hipGetSymbolSize: device storage with the initial
 * value; an unregistered symbol is hipErrorInvalidSymbol. */
Test(mem_copy, hipGetSymbolAddress_registered)
{
	int *d = NULL, x;
	size_t n = 0;

	register_var();
	cr_assert_eq(hipGetSymbolAddress((void **)&d, dev_var), hipSuccess);
	cr_expect_neq(d, dev_var);
	cr_expect_eq(hipsvmSimIsMapped(0, d), 1);
	cr_expect_eq(d[7], 8);
	cr_assert_eq(hipGetSymbolSize(&n, dev_var), hipSuccess);
	cr_expect_eq(n, sizeof(dev_var));
	cr_expect_eq(hipGetSymbolAddress((void **)&d, &x), hipErrorInvalidSymbol);
	cr_expect_eq(hipGetSymbolSize(&n, &x), hipErrorInvalidSymbol);
}

/* hipMemcpyToSymbol / FromSymbol: at an offset; past the symbol is
 * hipErrorInvalidValue (ihipMemcpySymbol_validate). */
Test(mem_copy, hipMemcpyToSymbol_offset)
{
	int v[2] = { 40, 41 }, w[8];

	register_var();
	cr_expect_eq(hipMemcpyToSymbol(dev_var, v, sizeof(v), 8, hipMemcpyHostToDevice), hipSuccess);
	cr_expect_eq(hipMemcpyFromSymbol(w, dev_var, sizeof(w), 0, hipMemcpyDeviceToHost),
		     hipSuccess);
	cr_expect_eq(w[1], 2);
	cr_expect_eq(w[2], 40);
	cr_expect_eq(w[3], 41);
	cr_expect_eq(dev_var[2], 3, "the host shadow is not the device copy");
	cr_expect_eq(hipMemcpyToSymbol(dev_var, v, sizeof(v), 28, hipMemcpyHostToDevice),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemcpyToSymbolAsync(dev_var, v, 4, 0, hipMemcpyHostToDevice, NULL),
		     hipSuccess);
	cr_expect_eq(hipMemcpyFromSymbolAsync(w, dev_var, 4, 0, hipMemcpyDeviceToHost, NULL),
		     hipSuccess);
	cr_expect_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_eq(w[0], 40);
	cr_expect_eq(hipMemcpyToSymbol_spt(dev_var, v, 4, 4, hipMemcpyHostToDevice), hipSuccess);
	cr_expect_eq(hipMemcpyFromSymbol_spt(w, dev_var, 8, 0, hipMemcpyDeviceToHost), hipSuccess);
	cr_expect_eq(w[1], 40);
}

/* ihipMemcpy: neither side HIP memory takes only host-to-host or
 * default. */
Test(mem_copy, hipMemcpy_host_to_host_kind)
{
	char a[16] = "abc", b[16];

	cr_expect_eq(hipMemcpy(b, a, 16, hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_expect_eq(hipMemcpy(b, a, 16, hipMemcpyHostToHost), hipSuccess);
	cr_expect_eq(hipMemcpy(b, a, 16, hipMemcpyDefault), hipSuccess);
	cr_expect_str_eq(b, "abc");
}

/* hipMemcpy_spt / hipMemcpyAsync_spt / hipMemcpy2D_spt / hipMemcpy3D_spt:
 * the same copies on the per-thread stream. */
Test(mem_copy, spt_forms)
{
	char a[64], b[64];
	void *d = dmalloc(64);
	struct hipMemcpy3DParms p;

	pattern(a, 64, 2);
	cr_expect_eq(hipMemcpy_spt(d, a, 64, hipMemcpyHostToDevice), hipSuccess);
	cr_expect_eq(hipMemcpyAsync_spt(b, d, 64, hipMemcpyDeviceToHost, NULL), hipSuccess);
	cr_expect_eq(hipStreamSynchronize(hipStreamPerThread), hipSuccess);
	cr_expect_eq(memcmp(a, b, 64), 0);
	cr_expect_eq(hipMemcpy2D_spt(b, 8, d, 8, 8, 8, hipMemcpyDeviceToHost), hipSuccess);
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_hipPitchedPtr(d, 8, 8, 8);
	p.dstPtr = make_hipPitchedPtr(b, 8, 8, 8);
	p.extent = make_hipExtent(8, 8, 1);
	p.kind = hipMemcpyDeviceToHost;
	cr_expect_eq(hipMemcpy3D_spt(&p), hipSuccess);
	cr_expect_eq(memcmp(a, b, 64), 0);
	hipFree(d);
}

static atomic_int held_done;

/* ihipMemcpy (hip_memory.cpp:438-450): an asynchronous device-to-host copy
 * into pageable memory is awaited before the call returns (hip-tests
 * Unit_hipMemcpy_HalfMemCopy reads the halves back with no
 * synchronisation), behind its stream's earlier work. */
Test(mem_copy, hipMemcpyAsync_pageable_dst_awaited)
{
	enum { N = 1 << 20 };
	unsigned char *src = malloc(N), *back = calloc(1, N);
	void *d = dmalloc(N);
	hipStream_t s;

	cr_assert(src && back);
	pattern(src, N, 5);
	cr_assert_eq(hipMemcpy(d, src, N, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	atomic_store(&held_done, 0);
	cr_assert_eq(hipStreamAddCallback(s, conf_hold_stream, &held_done, 0), hipSuccess);
	cr_expect_eq(hipMemcpyAsync(back, d, N / 2, hipMemcpyDeviceToHost, s), hipSuccess);
	cr_expect_eq(atomic_load(&held_done), 1, "the copy did not wait for its stream");
	cr_expect_eq(memcmp(back, src, N / 2), 0, "the half was not copied on return");
	cr_expect_eq(back[N / 2], 0, "copied past the half");
	cr_expect_eq(hipStreamAddCallback(s, conf_hold_stream, &held_done, 0), hipSuccess);
	memset(back, 0, N);
	cr_expect_eq(hipMemcpyDtoHAsync(back, d, N, s), hipSuccess);
	cr_expect_eq(memcmp(back, src, N), 0, "hipMemcpyDtoHAsync not copied on return");
	hipStreamDestroy(s);
	hipFree(d);
	free(src);
	free(back);
}

/* ihipMemcpy: a host-to-device copy from pageable memory has read its
 * source when the call returns: the buffer may be reused at once. */
Test(mem_copy, hipMemcpyAsync_pageable_src_awaited)
{
	enum { N = 4096 };
	unsigned char *src = malloc(N), *want = malloc(N), *back = malloc(N);
	void *d = dmalloc(N);
	hipStream_t s;

	cr_assert(src && want && back);
	pattern(src, N, 8);
	memcpy(want, src, N);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamAddCallback(s, conf_hold_stream, &held_done, 0), hipSuccess);
	cr_expect_eq(hipMemcpyHtoDAsync(d, src, N, s), hipSuccess);
	memset(src, 0xee, N);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipMemcpy(back, d, N, hipMemcpyDeviceToHost), hipSuccess);
	cr_expect_eq(memcmp(back, want, N), 0, "the copy read the source after the call");
	hipStreamDestroy(s);
	hipFree(d);
	free(src);
	free(want);
	free(back);
}

/* ihipMemcpy: with both sides HIP memory (pinned host memory from
 * hipHostMalloc is) the copy stays queued: the call returns while the
 * stream still holds it. */
Test(mem_copy, hipMemcpyAsync_pinned_stays_async)
{
	enum { N = 4096 };
	unsigned char *h = NULL;
	void *d = dmalloc(N);
	hipStream_t s;

	cr_assert_eq(hipHostMalloc((void **)&h, N, 0), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	atomic_store(&held_done, 0);
	cr_assert_eq(hipStreamAddCallback(s, conf_hold_stream, &held_done, 0), hipSuccess);
	cr_expect_eq(hipMemcpyAsync(h, d, N, hipMemcpyDeviceToHost, s), hipSuccess);
	cr_expect_eq(hipStreamQuery(s), hipErrorNotReady);
	cr_expect_eq(atomic_load(&held_done), 0, "a copy between HIP memory was awaited");
	cr_expect_eq(hipStreamSynchronize(s), hipSuccess);
	cr_expect_eq(atomic_load(&held_done), 1);
	hipStreamDestroy(s);
	hipHostFree(h);
	hipFree(d);
}

/* hipMemcpyFromSymbolAsync / ToSymbolAsync are hipMemcpyAsync on the
 * symbol's storage (hip_memory.cpp:1170, 1188): into or out of pageable
 * memory, awaited. */
Test(mem_copy, hipMemcpySymbolAsync_pageable_awaited)
{
	int w[8] = { 0 }, v = 77;
	hipStream_t s;

	register_var();
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	atomic_store(&held_done, 0);
	cr_assert_eq(hipStreamAddCallback(s, conf_hold_stream, &held_done, 0), hipSuccess);
	cr_expect_eq(hipMemcpyFromSymbolAsync(w, dev_var, sizeof(w), 0, hipMemcpyDeviceToHost, s),
		     hipSuccess);
	cr_expect_eq(atomic_load(&held_done), 1, "the copy did not wait for its stream");
	cr_expect_eq(w[7], 8);
	cr_assert_eq(hipStreamAddCallback(s, conf_hold_stream, &held_done, 0), hipSuccess);
	cr_expect_eq(hipMemcpyToSymbolAsync(dev_var, &v, sizeof(v), 0, hipMemcpyHostToDevice, s),
		     hipSuccess);
	v = 0;
	cr_assert_eq(hipMemcpyFromSymbol(w, dev_var, sizeof(w), 0, hipMemcpyDeviceToHost),
		     hipSuccess);
	cr_expect_eq(w[0], 77, "the copy read its source after the call");
	hipStreamDestroy(s);
}
