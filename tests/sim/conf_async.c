/* SPDX-License-Identifier: MIT */
/*
 * conf_async.c - kernels take time, as on a GPU (ROCm 5.2.3's hip_stream.cpp,
 * hip_event.cpp): a launch returns while the kernel runs, the stream and the
 * events behind the kernel answer hipErrorNotReady until it ends, the null
 * stream's synchronising rules hold against a running kernel, and the two
 * counters a kernel reads tick at the rates the runtime reports.
 *
 * The kernel (conf_kernels.hip, `gate`) runs until the test opens its gate,
 * so no case depends on how fast the machine is: every "not ready" is asked
 * while the kernel provably still runs. The gate also closes by itself
 * after GATE_LIMIT_S (a runtime that never runs the kernel, or a test that
 * deadlocks, fails rather than hangs).
 */
#include "conf.h"

#include <time.h>

#define GATE_LIMIT_S 20
#define REALTIME_HZ 100000000ull	/* MI200's reference clock */

static hipModule_t mod;
static hipFunction_t f_gate;
static volatile int *gate_mem;		/* [0] open, [1] started */
static unsigned long long *stamp;

static void setup(void)
{
	const char *path = getenv("CONF_KERNELS");

	cr_assert(path, "CONF_KERNELS names the code object (meson sets it)");
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipModuleLoad(&mod, path));
	ASSERT_OK(hipModuleGetFunction(&f_gate, mod, "gate"));
	ASSERT_OK(hipHostMalloc((void **)&gate_mem, 2 * sizeof(int), 0));
	ASSERT_OK(hipHostMalloc((void **)&stamp, 4 * sizeof(*stamp), 0));
}

static void teardown(void)
{
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipHostFree((void *)gate_mem));
	ASSERT_OK(hipHostFree(stamp));
	ASSERT_OK(hipModuleUnload(mod));
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Launches the gate kernel on s, closed. */
static void launch_gate(hipStream_t s)
{
	unsigned long long limit = GATE_LIMIT_S * REALTIME_HZ;
	void *g = (void *)gate_mem, *st = stamp;
	void *params[] = { &g, &st, &limit };

	gate_mem[0] = 0;
	gate_mem[1] = 0;
	memset(stamp, 0, 4 * sizeof(*stamp));
	ASSERT_OK(hipModuleLaunchKernel(f_gate, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
}

/* Waits (bounded) until the kernel has started. */
static void wait_started(void)
{
	struct timespec ts = { 0, 1000000 };
	uint64_t end = now_ns() + GATE_LIMIT_S * 1000000000ull;

	while (!__atomic_load_n(&gate_mem[1], __ATOMIC_ACQUIRE) && now_ns() < end)
		nanosleep(&ts, NULL);
	cr_assert(gate_mem[1], "the kernel did not start");
}

static void open_gate(void)
{
	__atomic_store_n(&gate_mem[0], 1, __ATOMIC_RELEASE);
}

TestSuite(conf_async, .init = setup, .fini = teardown);

/* The launch returns while the kernel runs: the stream and an event recorded
 * behind it are not ready; once it ends both are. */
Test(conf_async, launch_returns_while_kernel_runs)
{
	hipStream_t s;
	hipEvent_t ev;

	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipEventCreate(&ev));
	launch_gate(s);
	ASSERT_OK(hipEventRecord(ev, s));
	wait_started();
	EXPECT_HIP(hipStreamQuery(s), hipErrorNotReady);
	EXPECT_HIP(hipEventQuery(ev), hipErrorNotReady);
	open_gate();
	ASSERT_OK(hipEventSynchronize(ev));
	EXPECT_HIP(hipEventQuery(ev), hipSuccess);
	ASSERT_OK(hipStreamSynchronize(s));
	EXPECT_HIP(hipStreamQuery(s), hipSuccess);
	ASSERT_OK(hipEventDestroy(ev));
	ASSERT_OK(hipStreamDestroy(s));
}

/* s_memrealtime ticks at 100 MHz and s_memtime at clockRate kHz, in wall
 * time: the kernel's interval holds the host's gap between seeing it start
 * and opening the gate, and lies inside launch .. synchronised. */
Test(conf_async, counters_tick_at_the_reported_rates)
{
	struct timespec gap = { 0, 30000000 };
	uint64_t outer0, inner0, inner1, outer1;
	double real_ns, mem_ns;
	int khz = 0;

	ASSERT_OK(hipDeviceGetAttribute(&khz, hipDeviceAttributeClockRate, 0));
	cr_assert_gt(khz, 0);
	outer0 = now_ns();
	launch_gate(NULL);
	wait_started();
	inner0 = now_ns();
	nanosleep(&gap, NULL);
	inner1 = now_ns();
	open_gate();
	ASSERT_OK(hipDeviceSynchronize());
	outer1 = now_ns();
	real_ns = (double)(stamp[3] - stamp[1]) * 1e9 / (double)REALTIME_HZ;
	mem_ns = (double)(stamp[2] - stamp[0]) * 1e6 / (double)khz;
	cr_expect_geq(real_ns, (double)(inner1 - inner0), "realtime: %.0f ns", real_ns);
	cr_expect_leq(real_ns, (double)(outer1 - outer0), "realtime: %.0f ns", real_ns);
	cr_expect_geq(mem_ns, (double)(inner1 - inner0), "memtime at %d kHz: %.0f ns", khz, mem_ns);
	cr_expect_leq(mem_ns, (double)(outer1 - outer0), "memtime at %d kHz: %.0f ns", khz, mem_ns);
}

/* hipStreamCreateWithFlags: a blocking stream waits for the null stream and
 * the null stream for it; a non-blocking stream for neither. */
Test(conf_async, null_stream_rules_with_a_running_kernel)
{
	hipStream_t blocking, nonblocking;

	ASSERT_OK(hipStreamCreateWithFlags(&blocking, hipStreamDefault));
	ASSERT_OK(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
	launch_gate(blocking);
	wait_started();
	EXPECT_HIP(hipStreamQuery(NULL), hipErrorNotReady);
	EXPECT_HIP(hipStreamQuery(nonblocking), hipSuccess);
	open_gate();
	ASSERT_OK(hipDeviceSynchronize());

	launch_gate(NULL);
	wait_started();
	EXPECT_HIP(hipStreamQuery(blocking), hipErrorNotReady);
	EXPECT_HIP(hipStreamQuery(nonblocking), hipSuccess);
	open_gate();
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipStreamDestroy(blocking));
	ASSERT_OK(hipStreamDestroy(nonblocking));
}

/* hipStreamPerThread is a blocking stream of the thread's own (5.2.3's
 * stream_per_thread::get creates it with hipStreamDefault), not the null
 * stream: another blocking stream's kernel does not hold it, the null
 * stream's does. */
Test(conf_async, per_thread_stream_is_a_blocking_stream)
{
	hipStream_t s;

	ASSERT_OK(hipStreamCreate(&s));
	launch_gate(s);
	wait_started();
	EXPECT_HIP(hipStreamQuery(hipStreamPerThread), hipSuccess);
	open_gate();
	ASSERT_OK(hipDeviceSynchronize());

	launch_gate(NULL);
	wait_started();
	EXPECT_HIP(hipStreamQuery(hipStreamPerThread), hipErrorNotReady);
	open_gate();
	ASSERT_OK(hipDeviceSynchronize());

	launch_gate(hipStreamPerThread);
	wait_started();
	EXPECT_HIP(hipStreamQuery(hipStreamPerThread), hipErrorNotReady);
	EXPECT_HIP(hipStreamQuery(NULL), hipErrorNotReady);
	open_gate();
	ASSERT_OK(hipStreamSynchronize(hipStreamPerThread));
	EXPECT_HIP(hipStreamQuery(hipStreamPerThread), hipSuccess);
	ASSERT_OK(hipStreamDestroy(s));
}

/* hipStreamWaitEvent: a stream waiting for an event recorded behind the
 * kernel is held until the kernel ends; hipEventDestroy (5.2.3: `delete e`)
 * returns at once, and the wait still holds. */
Test(conf_async, wait_event_holds_and_destroy_does_not_wait)
{
	hipStream_t s1, s2;
	hipEvent_t ev;

	ASSERT_OK(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
	ASSERT_OK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
	ASSERT_OK(hipEventCreate(&ev));
	launch_gate(s1);
	ASSERT_OK(hipEventRecord(ev, s1));
	ASSERT_OK(hipStreamWaitEvent(s2, ev, 0));
	wait_started();
	EXPECT_HIP(hipStreamQuery(s2), hipErrorNotReady);
	EXPECT_HIP(hipEventQuery(ev), hipErrorNotReady);
	ASSERT_OK(hipEventDestroy(ev));
	EXPECT_HIP(hipStreamQuery(s1), hipErrorNotReady);
	EXPECT_HIP(hipStreamQuery(s2), hipErrorNotReady);
	open_gate();
	ASSERT_OK(hipStreamSynchronize(s2));
	ASSERT_OK(hipStreamSynchronize(s1));
	ASSERT_OK(hipStreamDestroy(s1));
	ASSERT_OK(hipStreamDestroy(s2));
}

/* A copy of one device's memory on another device's stream (the stream made
 * while that device was current, as hip-tests' Unit_hipMemcpyAsync_Positive_
 * Basic does after a case left GPU 1 current) runs, in hipamd 5.2.3, on the
 * memory's device's null stream (hip_memory.cpp ihipMemcpyCommand), so it
 * follows the kernel queued there, and the given stream waits for it. The
 * gate kernel writes its stamps into the device memory copied. */
Test(conf_async, copy_on_another_gpus_stream_follows_the_null_stream_kernel)
{
	unsigned long long limit = GATE_LIMIT_S * REALTIME_HZ, want[4], got[4];
	void *a = NULL, *b = NULL, *g = (void *)gate_mem;
	void *params[] = { &g, &a, &limit };
	hipStream_t other;
	int n = 0;

	ASSERT_OK(hipGetDeviceCount(&n));
	if (n < 2)
		cr_skip_test("one GPU");
	ASSERT_OK(hipSetDevice(1));
	ASSERT_OK(hipStreamCreate(&other));
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipMalloc(&a, sizeof(want)));
	ASSERT_OK(hipMalloc(&b, sizeof(want)));
	ASSERT_OK(hipMemset(a, 0, sizeof(want)));
	ASSERT_OK(hipMemset(b, 0, sizeof(want)));
	gate_mem[0] = 0;
	gate_mem[1] = 0;
	ASSERT_OK(hipModuleLaunchKernel(f_gate, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
	ASSERT_OK(hipMemcpyAsync(b, a, sizeof(want), hipMemcpyDeviceToDevice, other));
	wait_started();
	EXPECT_HIP(hipStreamQuery(other), hipErrorNotReady);
	open_gate();
	ASSERT_OK(hipStreamSynchronize(other));
	ASSERT_OK(hipMemcpy(want, a, sizeof(want), hipMemcpyDeviceToHost));
	ASSERT_OK(hipMemcpy(got, b, sizeof(got), hipMemcpyDeviceToHost));
	cr_expect_neq(want[3], 0ull, "the kernel stamped a");
	for (unsigned i = 0; i < 4; i++)
		cr_expect_eq(got[i], want[i], "b[%u] = %llu, the kernel wrote %llu", i, got[i],
			     want[i]);
	ASSERT_OK(hipStreamDestroy(other));
	ASSERT_OK(hipFree(a));
	ASSERT_OK(hipFree(b));
}

/*
 * Queue priority: ROCm 5.2.3 gives a stream of high or low priority an HSA
 * queue of that priority, and the hardware places a higher queue's
 * workgroups first. Two streams, the low one launched first with half the
 * high one's work (two launches of inc over 8M ints against four): the high
 * one's work ends first (events at each stream's end), the low one's
 * waiting for it. Without priorities both share the device and the low
 * one, ahead and with less to do, ends long before.
 */
Test(conf_async, high_priority_stream_is_placed_first)
{
	enum { N = 1 << 23 };
	static const int launches[2] = { 2, 4 };	/* low, high */
	hipFunction_t f_inc;
	hipStream_t s[2];
	hipEvent_t start[2], end[2];
	int *a[2], least, greatest, *h;
	float t[2], gap;
	unsigned n = N;

	ASSERT_OK(hipModuleGetFunction(&f_inc, mod, "inc"));
	ASSERT_OK(hipDeviceGetStreamPriorityRange(&least, &greatest));
	cr_assert_lt(greatest, least, "a priority range");
	ASSERT_OK(hipStreamCreateWithPriority(&s[0], 0, least));
	ASSERT_OK(hipStreamCreateWithPriority(&s[1], 0, greatest));
	for (int i = 0; i < 2; i++) {
		ASSERT_OK(hipMalloc((void **)&a[i], N * sizeof(int)));
		ASSERT_OK(hipMemset(a[i], 0, N * sizeof(int)));
		ASSERT_OK(hipEventCreate(&start[i]));
		ASSERT_OK(hipEventCreate(&end[i]));
	}
	ASSERT_OK(hipDeviceSynchronize());
	for (int i = 0; i < 2; i++) {	/* low first */
		void *params[] = { &a[i], &n };

		ASSERT_OK(hipEventRecord(start[i], s[i]));
		for (int k = 0; k < launches[i]; k++)
			ASSERT_OK(hipModuleLaunchKernel(f_inc, N / 256, 1, 1, 256, 1, 1, 0, s[i], params,
							NULL));
		ASSERT_OK(hipEventRecord(end[i], s[i]));
	}
	ASSERT_OK(hipDeviceSynchronize());
	h = malloc(N * sizeof(int));
	cr_assert(h);
	for (int i = 0; i < 2; i++) {
		ASSERT_OK(hipEventElapsedTime(&t[i], start[i], end[i]));
		ASSERT_OK(hipMemcpy(h, a[i], N * sizeof(int), hipMemcpyDeviceToHost));
		for (unsigned j = 0; j < N; j++)
			if (h[j] != launches[i])
				cr_assert_fail("stream %d: a[%u] = %d, want %d", i, j, h[j], launches[i]);
	}
	ASSERT_OK(hipEventElapsedTime(&gap, end[1], end[0]));
	cr_log_info("low priority %.1f ms, high priority %.1f ms, high ended %.1f ms before low",
		    t[0], t[1], gap);
	/* the low one's work left when the high one's ends (about a third of
	 * its time); without priorities about minus half */
	cr_expect_gt(gap, 0.05f * t[0], "the high-priority stream ended %.1f ms before the low (%.1f ms)",
		     gap, t[0]);
	free(h);
	for (int i = 0; i < 2; i++) {
		ASSERT_OK(hipEventDestroy(start[i]));
		ASSERT_OK(hipEventDestroy(end[i]));
		ASSERT_OK(hipFree(a[i]));
		ASSERT_OK(hipStreamDestroy(s[i]));
	}
}
