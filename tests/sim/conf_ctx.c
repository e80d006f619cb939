/* SPDX-License-Identifier: MIT */
/* conf_ctx.c - the context API against ROCm 5.2.3's hip_context.cpp. */
#include "conf.h"

/* hipCtxCreate pushes the device's primary context and makes it current;
 * hipCtxPopCurrent gives it back; an empty stack is hipErrorInvalidContext. */
Test(conf_ctx, hipCtxCreate_push_pop)
{
	hipCtx_t c, p, cur;
	hipDevice_t d;

	ASSERT_OK(hipCtxCreate(&c, 0, 2));
	ASSERT_OK(hipCtxGetDevice(&d));
	cr_expect_eq(d, 2);
	ASSERT_OK(hipCtxGetCurrent(&cur));
	cr_expect_eq(cur, c);
	ASSERT_OK(hipDevicePrimaryCtxRetain(&p, 2));
	cr_expect_eq(p, c, "a context is the device's primary context");
	ASSERT_OK(hipCtxPopCurrent(&p));
	cr_expect_eq(p, c);
	EXPECT_HIP(hipCtxPopCurrent(&p), hipErrorInvalidContext);
	EXPECT_HIP(hipCtxCreate(&c, 0, 4), hipErrorInvalidValue);
}

/* hipCtxPushCurrent / hipCtxSetCurrent switch the current device. */
Test(conf_ctx, hipCtxPushCurrent_sets_device)
{
	hipCtx_t c1, c3;
	int d;

	ASSERT_OK(hipDevicePrimaryCtxRetain(&c1, 1));
	ASSERT_OK(hipDevicePrimaryCtxRetain(&c3, 3));
	ASSERT_OK(hipCtxPushCurrent(c3));
	ASSERT_OK(hipGetDevice(&d));
	cr_expect_eq(d, 3);
	ASSERT_OK(hipCtxSetCurrent(c1));
	ASSERT_OK(hipGetDevice(&d));
	cr_expect_eq(d, 1);
	EXPECT_HIP(hipCtxPushCurrent(NULL), hipErrorInvalidContext);
	ASSERT_OK(hipCtxSetCurrent(NULL));
}

/* hipCtxDestroy: NULL is hipErrorInvalidValue. */
Test(conf_ctx, hipCtxDestroy)
{
	hipCtx_t c;

	ASSERT_OK(hipCtxCreate(&c, 0, 0));
	ASSERT_OK(hipCtxDestroy(c));
	EXPECT_HIP(hipCtxDestroy(NULL), hipErrorInvalidValue);
}

/* Unimplemented in ROCm 5.2: hipErrorNotSupported. */
Test(conf_ctx, rocm_unimplemented_calls)
{
	hipFuncCache_t fc;
	unsigned f;
	int v;

	EXPECT_HIP(hipCtxGetApiVersion(NULL, &v), hipErrorNotSupported);
	EXPECT_HIP(hipCtxGetCacheConfig(&fc), hipErrorNotSupported);
	EXPECT_HIP(hipCtxSetCacheConfig(hipFuncCachePreferL1), hipErrorNotSupported);
	EXPECT_HIP(hipCtxSetSharedMemConfig(hipSharedMemBankSizeFourByte), hipErrorNotSupported);
	EXPECT_HIP(hipCtxSynchronize(), hipErrorNotSupported);
	EXPECT_HIP(hipCtxGetFlags(&f), hipErrorNotSupported);
}

/* hipCtxGetSharedMemConfig: four-byte banks. */
Test(conf_ctx, hipCtxGetSharedMemConfig)
{
	hipSharedMemConfig c;

	ASSERT_OK(hipCtxGetSharedMemConfig(&c));
	cr_expect_eq(c, hipSharedMemBankSizeFourByte);
}

/* hipDevicePrimaryCtxGetState: flags 0; active once the device has a stream. */
Test(conf_ctx, hipDevicePrimaryCtxGetState)
{
	unsigned f = 9;
	int active = 9;
	hipStream_t s;

	ASSERT_OK(hipDevicePrimaryCtxGetState(3, &f, &active));
	cr_expect_eq(f, 0);
	cr_expect_eq(active, 0);
	ASSERT_OK(hipSetDevice(3));
	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipDevicePrimaryCtxGetState(3, NULL, &active));
	cr_expect_eq(active, 1);
	ASSERT_OK(hipStreamDestroy(s));
	EXPECT_HIP(hipDevicePrimaryCtxGetState(4, &f, &active), hipErrorInvalidDevice);
}

/* hipDevicePrimaryCtxSetFlags: hipErrorContextAlreadyInUse; Release/Reset. */
Test(conf_ctx, primary_ctx_flags_release_reset)
{
	hipCtx_t c;

	EXPECT_HIP(hipDevicePrimaryCtxSetFlags(0, 0), hipErrorContextAlreadyInUse);
	EXPECT_HIP(hipDevicePrimaryCtxSetFlags(4, 0), hipErrorInvalidDevice);
	ASSERT_OK(hipDevicePrimaryCtxRelease(0));
	EXPECT_HIP(hipDevicePrimaryCtxRelease(4), hipErrorInvalidDevice);
	ASSERT_OK(hipDevicePrimaryCtxReset(0));
	EXPECT_HIP(hipDevicePrimaryCtxRetain(NULL, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipDevicePrimaryCtxRetain(&c, 4), hipErrorInvalidDevice);
}

/* hipCtxEnablePeerAccess / hipCtxDisablePeerAccess: accepted (ROCm 5.2). */
Test(conf_ctx, ctx_peer_access)
{
	hipCtx_t c;

	ASSERT_OK(hipDevicePrimaryCtxRetain(&c, 1));
	ASSERT_OK(hipCtxEnablePeerAccess(c, 0));
	ASSERT_OK(hipCtxDisablePeerAccess(c));
}
