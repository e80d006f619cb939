/* SPDX-License-Identifier: MIT */
/* conf_stream.c - streams against ROCm 5.2.3's hip_stream.cpp and
 * hip_stream_ops.cpp answers. */
#include "conf.h"

#include <unistd.h>

/* hipStreamSynchronize, hipStreamQuery, hipStreamDestroy, hipStreamGetFlags,
 * hipStreamGetPriority, hipStreamWaitEvent, hipStreamAddCallback on a
 * destroyed stream: hipErrorContextIsDestroyed (hip::isValid fails). */
static void cb_nop(hipStream_t s, hipError_t e, void *arg)
{
	(void)s;
	(void)e;
	(void)arg;
}

Test(conf_stream, destroyed_stream_is_context_destroyed)
{
	hipStream_t s = conf_dead_stream();
	hipEvent_t e;
	unsigned f;
	int p;

	ASSERT_OK(hipEventCreate(&e));
	EXPECT_HIP(hipStreamSynchronize(s), hipErrorContextIsDestroyed);
	EXPECT_HIP(hipStreamQuery(s), hipErrorContextIsDestroyed);
	EXPECT_HIP(hipStreamDestroy(s), hipErrorContextIsDestroyed);
	EXPECT_HIP(hipStreamGetFlags(s, &f), hipErrorContextIsDestroyed);
	EXPECT_HIP(hipStreamGetPriority(s, &p), hipErrorContextIsDestroyed);
	EXPECT_HIP(hipStreamWaitEvent(s, e, 0), hipErrorContextIsDestroyed);
	EXPECT_HIP(hipStreamAddCallback(s, cb_nop, NULL, 0), hipErrorContextIsDestroyed);
	ASSERT_OK(hipEventDestroy(e));
}

/* hipStreamDestroy: NULL and hipStreamPerThread are invalid handles. */
Test(conf_stream, hipStreamDestroy_null_and_per_thread)
{
	EXPECT_HIP(hipStreamDestroy(NULL), hipErrorInvalidHandle);
	EXPECT_HIP(hipStreamDestroy(hipStreamPerThread), hipErrorInvalidResourceHandle);
}

/* hipStreamGetFlags: the null stream (or a NULL out-pointer) is
 * hipErrorInvalidValue; the _spt form takes NULL as the per-thread stream. */
Test(conf_stream, hipStreamGetFlags_null_stream)
{
	unsigned f = 77;
	hipStream_t s;

	EXPECT_HIP(hipStreamGetFlags(NULL, &f), hipErrorInvalidValue);
	cr_expect_eq(f, 77);
	ASSERT_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
	EXPECT_HIP(hipStreamGetFlags(s, NULL), hipErrorInvalidValue);
	ASSERT_OK(hipStreamGetFlags(s, &f));
	cr_expect_eq(f, hipStreamNonBlocking);
	ASSERT_OK(hipStreamGetFlags_spt(NULL, &f));
	cr_expect_eq(f, hipStreamDefault);
	ASSERT_OK(hipStreamGetFlags(hipStreamPerThread, &f));
	ASSERT_OK(hipStreamDestroy(s));
}

/* hipStreamCreateWithFlags: only Default and NonBlocking. */
Test(conf_stream, hipStreamCreateWithFlags_flags)
{
	hipStream_t s;

	EXPECT_HIP(hipStreamCreateWithFlags(&s, 2), hipErrorInvalidValue);
	EXPECT_HIP(hipStreamCreateWithFlags(NULL, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipStreamCreate(NULL), hipErrorInvalidValue);
}

/* hipStreamCreateWithPriority / hipStreamGetPriority: clamped to -1..1;
 * the null stream is 0. */
Test(conf_stream, priorities)
{
	static const int ask[] = { -100, -1, 0, 1, 5 }, want[] = { -1, -1, 0, 1, 1 };
	unsigned i;
	int p;

	for (i = 0; i < 5; i++) {
		hipStream_t s;

		ASSERT_OK(hipStreamCreateWithPriority(&s, 0, ask[i]));
		ASSERT_OK(hipStreamGetPriority(s, &p));
		cr_expect_eq(p, want[i], "asked %d", ask[i]);
		ASSERT_OK(hipStreamDestroy(s));
	}
	p = 9;
	ASSERT_OK(hipStreamGetPriority(NULL, &p));
	cr_expect_eq(p, 0);
	EXPECT_HIP(hipStreamGetPriority(NULL, NULL), hipErrorInvalidValue);
	ASSERT_OK(hipStreamGetPriority_spt(NULL, &p));
}

/* hipStreamAddCallback: callbacks run in stream order, with the handle
 * given, hipSuccess and the user's pointer; NULL callback or flags refused. */
static int order[8], norder;
static hipStream_t seen_stream;

static void cb_record(hipStream_t s, hipError_t e, void *arg)
{
	seen_stream = s;
	cr_expect_eq(e, hipSuccess);
	order[__atomic_fetch_add(&norder, 1, __ATOMIC_SEQ_CST)] = (int)(intptr_t)arg;
	usleep(1000);
}

Test(conf_stream, hipStreamAddCallback_order)
{
	hipStream_t s;
	int i;

	ASSERT_OK(hipStreamCreate(&s));
	for (i = 0; i < 5; i++)
		ASSERT_OK(hipStreamAddCallback(s, cb_record, (void *)(intptr_t)i, 0));
	ASSERT_OK(hipStreamSynchronize(s));
	cr_expect_eq(norder, 5);
	for (i = 0; i < 5; i++)
		cr_expect_eq(order[i], i);
	cr_expect_eq(seen_stream, s);
	EXPECT_HIP(hipStreamAddCallback(s, NULL, NULL, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipStreamAddCallback(s, cb_record, NULL, 1), hipErrorInvalidValue);
	ASSERT_OK(hipStreamAddCallback(NULL, cb_record, (void *)5, 0));
	ASSERT_OK(hipDeviceSynchronize());
	cr_expect_eq(norder, 6);
	ASSERT_OK(hipStreamDestroy(s));
}

/* hipStreamWaitValue32 / hipStreamWriteValue32: a write releases a wait
 * queued before it on another stream; the work behind the wait waits. */
static void cb_flag(hipStream_t s, hipError_t e, void *arg)
{
	(void)s;
	(void)e;
	__atomic_store_n((int *)arg, 1, __ATOMIC_SEQ_CST);
}

Test(conf_stream, hipStreamWaitValue32_and_WriteValue32)
{
	hipStream_t a, b;
	uint32_t *word;
	int after = 0;

	ASSERT_OK(hipHostMalloc((void **)&word, 64, 0));
	*word = 0;
	ASSERT_OK(hipStreamCreate(&a));
	ASSERT_OK(hipStreamCreate(&b));
	ASSERT_OK(hipStreamWaitValue32(a, word, 5, hipStreamWaitValueGte, 0xffffffffu));
	ASSERT_OK(hipStreamAddCallback(a, cb_flag, &after, 0));
	usleep(20000);
	cr_expect_eq(__atomic_load_n(&after, __ATOMIC_SEQ_CST), 0, "ran past the wait");
	EXPECT_HIP(hipStreamQuery(a), hipErrorNotReady);
	ASSERT_OK(hipStreamWriteValue32(b, word, 7, 0));
	ASSERT_OK(hipStreamSynchronize(a));
	cr_expect_eq(after, 1);
	cr_expect_eq(*word, 7);
	ASSERT_OK(hipStreamDestroy(a));
	ASSERT_OK(hipStreamDestroy(b));
	ASSERT_OK(hipHostFree(word));
}

/* hipStreamWaitValue64: Eq, And and Nor on a masked word. */
Test(conf_stream, hipStreamWaitValue64_conditions)
{
	uint64_t *w;

	ASSERT_OK(hipHostMalloc((void **)&w, 64, 0));
	*w = 0xf0;
	ASSERT_OK(hipStreamWaitValue64(NULL, w, 0x30, hipStreamWaitValueEq, 0x30));
	ASSERT_OK(hipStreamWaitValue64(NULL, w, 0x10, hipStreamWaitValueAnd, ~0ull));
	ASSERT_OK(hipStreamWaitValue64(NULL, w, 0x0f, hipStreamWaitValueNor, 0xff));
	ASSERT_OK(hipStreamSynchronize(NULL));
	ASSERT_OK(hipStreamWriteValue64(NULL, w, 0x123456789ull, 0));
	ASSERT_OK(hipStreamSynchronize(NULL));
	cr_expect_eq(*w, 0x123456789ull);
	ASSERT_OK(hipHostFree(w));
}

/* hipStreamWaitValue32 / hipStreamWriteValue64: memory the runtime does not
 * know is hipErrorInvalidValue. */
Test(conf_stream, stream_value_ops_need_hip_memory)
{
	static uint64_t plain;

	EXPECT_HIP(hipStreamWaitValue32(NULL, &plain, 0, 0, ~0u), hipErrorInvalidValue);
	EXPECT_HIP(hipStreamWriteValue64(NULL, &plain, 1, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipStreamWriteValue32(NULL, NULL, 1, 0), hipErrorInvalidValue);
}

/* hipExtStreamCreateWithCUMask / hipExtStreamGetCUMask: the mask comes back
 * ANDed with the device's 104 CUs; the null stream reads all CUs. */
Test(conf_stream, cu_masks)
{
	uint32_t mask[4] = { 0x0000ffff, 0, 0, 0xffffffff }, out[4];
	hipStream_t s;

	ASSERT_OK(hipExtStreamCreateWithCUMask(&s, 4, mask));
	ASSERT_OK(hipExtStreamGetCUMask(s, 4, out));
	cr_expect_eq(out[0], 0x0000ffff);
	cr_expect_eq(out[3], 0xff, "only CUs 96..103 exist in word 3");
	ASSERT_OK(hipExtStreamGetCUMask(NULL, 4, out));
	cr_expect_eq(out[0], 0xffffffff);
	cr_expect_eq(out[3], 0xff);
	EXPECT_HIP(hipExtStreamGetCUMask(s, 3, out), hipErrorInvalidValue);
	EXPECT_HIP(hipExtStreamGetCUMask(s, 4, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipExtStreamCreateWithCUMask(NULL, 4, mask), hipErrorInvalidHandle);
	EXPECT_HIP(hipExtStreamCreateWithCUMask(&s, 0, mask), hipErrorInvalidValue);
	ASSERT_OK(hipStreamDestroy(s));
}

/* hipGetStreamDeviceId: the stream's device; -1 for what is no stream. */
Test(conf_stream, hipGetStreamDeviceId)
{
	hipStream_t s;

	ASSERT_OK(hipSetDevice(2));
	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipSetDevice(0));
	cr_expect_eq(hipGetStreamDeviceId(s), 2);
	cr_expect_eq(hipGetStreamDeviceId(NULL), 0);
	ASSERT_OK(hipStreamDestroy(s));
	cr_expect_eq(hipGetStreamDeviceId(s), -1);
}

/* hipStreamIsCapturing / hipStreamGetCaptureInfo(_v2) / hipStreamEndCapture:
 * no stream captures; the null stream's answers. */
Test(conf_stream, capture_queries)
{
	hipStreamCaptureStatus st = hipStreamCaptureStatusActive;
	hipStream_t s;
	hipGraph_t g;

	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipStreamIsCapturing(s, &st));
	cr_expect_eq(st, hipStreamCaptureStatusNone);
	ASSERT_OK(hipStreamIsCapturing(NULL, &st));
	EXPECT_HIP(hipStreamIsCapturing(s, NULL), hipErrorInvalidValue);
	ASSERT_OK(hipStreamGetCaptureInfo(s, &st, NULL));
	EXPECT_HIP(hipStreamGetCaptureInfo(NULL, &st, NULL), hipErrorUnknown);
	EXPECT_HIP(hipStreamGetCaptureInfo_v2(NULL, &st, NULL, NULL, NULL, NULL), hipErrorUnknown);
	EXPECT_HIP(hipStreamEndCapture(s, &g), hipErrorStreamCaptureUnmatched);
	EXPECT_HIP(hipStreamEndCapture(NULL, &g), hipErrorInvalidValue);
	EXPECT_HIP(hipStreamBeginCapture(NULL, hipStreamCaptureModeGlobal),
		   hipErrorStreamCaptureUnsupported);
	EXPECT_HIP(hipStreamUpdateCaptureDependencies(s, NULL, 0, 0), hipErrorIllegalState);
	ASSERT_OK(hipStreamDestroy(s));
	EXPECT_HIP(hipStreamIsCapturing(s, &st), hipErrorInvalidValue);
}

/* hipThreadExchangeStreamCaptureMode: per thread, exchanged. */
Test(conf_stream, hipThreadExchangeStreamCaptureMode)
{
	hipStreamCaptureMode m = hipStreamCaptureModeRelaxed;

	ASSERT_OK(hipThreadExchangeStreamCaptureMode(&m));
	cr_expect_eq(m, hipStreamCaptureModeGlobal);
	m = hipStreamCaptureModeThreadLocal;
	ASSERT_OK(hipThreadExchangeStreamCaptureMode(&m));
	cr_expect_eq(m, hipStreamCaptureModeRelaxed);
	m = (hipStreamCaptureMode)7;
	EXPECT_HIP(hipThreadExchangeStreamCaptureMode(&m), hipErrorInvalidValue);
	EXPECT_HIP(hipThreadExchangeStreamCaptureMode(NULL), hipErrorInvalidValue);
}

/* The null stream and blocking streams (ROCm 5.2's getQueue /
 * iHipWaitActiveStreams): work on the null stream waits for what a
 * blocking stream had queued; a non-blocking stream is not waited for. */
Test(conf_stream, null_stream_waits_for_blocking_streams)
{
	hipStream_t blocking, nonblocking;
	uint32_t *word;
	int ran = 0;

	ASSERT_OK(hipHostMalloc((void **)&word, 64, 0));
	word[0] = word[1] = 0;
	ASSERT_OK(hipStreamCreate(&blocking));
	ASSERT_OK(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
	/* a non-blocking stream held up does not hold the null stream */
	ASSERT_OK(hipStreamWaitValue32(nonblocking, &word[1], 1, hipStreamWaitValueEq, ~0u));
	ASSERT_OK(hipStreamAddCallback(NULL, cb_flag, &ran, 0));
	ASSERT_OK(hipStreamSynchronize(NULL));
	cr_expect_eq(ran, 1);
	/* a blocking stream held up does */
	ran = 0;
	ASSERT_OK(hipStreamWaitValue32(blocking, &word[0], 1, hipStreamWaitValueEq, ~0u));
	ASSERT_OK(hipStreamAddCallback(NULL, cb_flag, &ran, 0));
	usleep(20000);
	cr_expect_eq(__atomic_load_n(&ran, __ATOMIC_SEQ_CST), 0, "the null stream ran ahead");
	EXPECT_HIP(hipStreamQuery(NULL), hipErrorNotReady);
	__atomic_store_n(&word[0], 1, __ATOMIC_SEQ_CST);
	ASSERT_OK(hipStreamSynchronize(NULL));
	cr_expect_eq(ran, 1);
	__atomic_store_n(&word[1], 1, __ATOMIC_SEQ_CST);
	ASSERT_OK(hipStreamDestroy(nonblocking));
	ASSERT_OK(hipStreamDestroy(blocking));
	ASSERT_OK(hipHostFree(word));
}

/* ... and work on a blocking stream waits for what the null stream had
 * queued. */
Test(conf_stream, blocking_stream_waits_for_null_stream)
{
	hipStream_t blocking, nonblocking;
	uint32_t *word;
	int ran = 0, ran_nb = 0;

	ASSERT_OK(hipHostMalloc((void **)&word, 64, 0));
	*word = 0;
	ASSERT_OK(hipStreamCreate(&blocking));
	ASSERT_OK(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
	ASSERT_OK(hipStreamWaitValue32(NULL, word, 1, hipStreamWaitValueEq, ~0u));
	ASSERT_OK(hipStreamAddCallback(blocking, cb_flag, &ran, 0));
	ASSERT_OK(hipStreamAddCallback(nonblocking, cb_flag, &ran_nb, 0));
	ASSERT_OK(hipStreamSynchronize(nonblocking));
	cr_expect_eq(ran_nb, 1);
	usleep(20000);
	cr_expect_eq(__atomic_load_n(&ran, __ATOMIC_SEQ_CST), 0, "the blocking stream ran ahead");
	__atomic_store_n(word, 1, __ATOMIC_SEQ_CST);
	ASSERT_OK(hipStreamSynchronize(blocking));
	cr_expect_eq(ran, 1);
	ASSERT_OK(hipStreamDestroy(nonblocking));
	ASSERT_OK(hipStreamDestroy(blocking));
	ASSERT_OK(hipHostFree(word));
}

/* hipStreamSynchronize(NULL) waits for the device's blocking streams. */
static void cb_slow_flag(hipStream_t s, hipError_t e, void *arg)
{
	(void)s;
	(void)e;
	usleep(30000);
	__atomic_store_n((int *)arg, 1, __ATOMIC_SEQ_CST);
}

Test(conf_stream, null_stream_sync_waits_blocking_streams)
{
	hipStream_t b;
	int done = 0;

	ASSERT_OK(hipStreamCreate(&b));
	ASSERT_OK(hipStreamAddCallback(b, cb_slow_flag, &done, 0));
	ASSERT_OK(hipStreamSynchronize(NULL));
	cr_expect_eq(__atomic_load_n(&done, __ATOMIC_SEQ_CST), 1);
	ASSERT_OK(hipStreamDestroy(b));
}
