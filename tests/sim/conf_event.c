/* SPDX-License-Identifier: MIT */
/* conf_event.c - events against ROCm 5.2.3's hip_event.cpp and
 * hip_event_ipc.cpp answers. */
#include "conf.h"

#include <sys/wait.h>
#include <unistd.h>

/* hipEventCreateWithFlags: both release scopes at once, or an unknown flag,
 * are hipErrorInvalidValue; an interprocess event may keep timing. */
Test(conf_event, hipEventCreateWithFlags_flags)
{
	hipEvent_t e;

	EXPECT_HIP(hipEventCreateWithFlags(&e, hipEventReleaseToDevice | hipEventReleaseToSystem),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipEventCreateWithFlags(&e, 0x1000), hipErrorInvalidValue);
	EXPECT_HIP(hipEventCreateWithFlags(NULL, 0), hipErrorInvalidValue);
	ASSERT_OK(hipEventCreateWithFlags(&e, hipEventInterprocess));
	ASSERT_OK(hipEventDestroy(e));
	ASSERT_OK(hipEventCreateWithFlags(&e, hipEventReleaseToSystem | hipEventBlockingSync));
	ASSERT_OK(hipEventDestroy(e));
}

/* hipEventRecord: an event of device 0 on a stream of device 1 is
 * hipErrorInvalidHandle. */
Test(conf_event, hipEventRecord_other_device_stream)
{
	hipEvent_t e;
	hipStream_t s1;

	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipEventCreate(&e));
	ASSERT_OK(hipSetDevice(1));
	ASSERT_OK(hipStreamCreate(&s1));
	EXPECT_HIP(hipEventRecord(e, s1), hipErrorInvalidHandle);
	EXPECT_HIP(hipEventRecord(e, NULL), hipErrorInvalidHandle);
	/* the event stays unrecorded */
	EXPECT_HIP(hipEventQuery(e), hipSuccess);
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipEventRecord(e, NULL));
	ASSERT_OK(hipEventSynchronize(e));
	ASSERT_OK(hipStreamDestroy(s1));
	ASSERT_OK(hipEventDestroy(e));
}

/* hipEventElapsedTime: events of two devices are hipErrorInvalidHandle. */
Test(conf_event, hipEventElapsedTime_across_devices)
{
	hipEvent_t a, b;
	float ms = -1;

	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipEventCreate(&a));
	ASSERT_OK(hipEventRecord(a, NULL));
	ASSERT_OK(hipSetDevice(1));
	ASSERT_OK(hipEventCreate(&b));
	ASSERT_OK(hipEventRecord(b, NULL));
	ASSERT_OK(hipDeviceSynchronize());
	EXPECT_HIP(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle);
	cr_expect_eq(ms, -1);
	ASSERT_OK(hipEventDestroy(a));
	ASSERT_OK(hipEventDestroy(b));
}

/* hipEventElapsedTime: one recorded event against itself is 0 ms; NULLs. */
Test(conf_event, hipEventElapsedTime_same_event_and_nulls)
{
	hipEvent_t a;
	float ms = -1;

	ASSERT_OK(hipEventCreate(&a));
	EXPECT_HIP(hipEventElapsedTime(&ms, a, a), hipErrorInvalidHandle);	/* unrecorded */
	ASSERT_OK(hipEventRecord(a, NULL));
	ASSERT_OK(hipEventSynchronize(a));
	ASSERT_OK(hipEventElapsedTime(&ms, a, a));
	cr_expect_eq(ms, 0.0f);
	EXPECT_HIP(hipEventElapsedTime(NULL, a, a), hipErrorInvalidValue);
	EXPECT_HIP(hipEventElapsedTime(&ms, NULL, a), hipErrorInvalidHandle);
	ASSERT_OK(hipEventDestroy(a));
}

/* hipStreamWaitEvent: NULL event is hipErrorInvalidHandle before flags are
 * looked at; flags must be 0. */
Test(conf_event, hipStreamWaitEvent_order)
{
	hipEvent_t e;

	EXPECT_HIP(hipStreamWaitEvent(NULL, NULL, 1), hipErrorInvalidHandle);
	ASSERT_OK(hipEventCreate(&e));
	EXPECT_HIP(hipStreamWaitEvent(NULL, e, 1), hipErrorInvalidValue);
	ASSERT_OK(hipStreamWaitEvent(NULL, e, 0));
	ASSERT_OK(hipStreamWaitEvent_spt(NULL, e, 0));
	ASSERT_OK(hipEventDestroy(e));
}

/* hipIpcGetEventHandle: a non-interprocess event is
 * hipErrorInvalidConfiguration; NULLs are hipErrorInvalidValue. */
Test(conf_event, hipIpcGetEventHandle_checks)
{
	hipIpcEventHandle_t h;
	hipEvent_t e;

	ASSERT_OK(hipEventCreate(&e));
	EXPECT_HIP(hipIpcGetEventHandle(&h, e), hipErrorInvalidConfiguration);
	EXPECT_HIP(hipIpcGetEventHandle(NULL, e), hipErrorInvalidValue);
	EXPECT_HIP(hipIpcGetEventHandle(&h, NULL), hipErrorInvalidValue);
	ASSERT_OK(hipEventDestroy(e));
}

/* hipIpcOpenEventHandle: in the creating process, hipErrorInvalidContext;
 * a handle naming nothing, hipErrorInvalidValue. */
Test(conf_event, hipIpcOpenEventHandle_same_process)
{
	hipIpcEventHandle_t h;
	hipEvent_t e, o;

	ASSERT_OK(hipEventCreateWithFlags(&e, hipEventInterprocess | hipEventDisableTiming));
	ASSERT_OK(hipIpcGetEventHandle(&h, e));
	EXPECT_HIP(hipIpcOpenEventHandle(&o, h), hipErrorInvalidContext);
	memset(&h, 0, sizeof(h));
	strcpy(h.reserved, "/hipsvm_event_no_such");
	EXPECT_HIP(hipIpcOpenEventHandle(&o, h), hipErrorInvalidValue);
	EXPECT_HIP(hipIpcOpenEventHandle(NULL, h), hipErrorInvalidValue);
	ASSERT_OK(hipEventDestroy(e));
}

/* hipIpcOpenEventHandle in another process: the child waits on the
 * parent's event through a stream, and sees its record complete. */
Test(conf_event, ipc_event_across_processes)
{
	hipIpcEventHandle_t h;
	hipEvent_t e;
	int go[2], st;
	pid_t pid;
	char c = 0;

	ASSERT_OK(hipEventCreateWithFlags(&e, hipEventInterprocess | hipEventDisableTiming));
	ASSERT_OK(hipIpcGetEventHandle(&h, e));
	cr_assert_eq(pipe(go), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		hipEvent_t o;

		if (hipIpcOpenEventHandle(&o, h) != hipSuccess)
			_exit(2);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		if (hipEventSynchronize(o) != hipSuccess || hipEventQuery(o) != hipSuccess)
			_exit(4);
		if (hipStreamWaitEvent(NULL, o, 0) != hipSuccess ||
		    hipStreamSynchronize(NULL) != hipSuccess)
			_exit(5);
		_exit(hipEventDestroy(o) == hipSuccess ? 0 : 6);
	}
	ASSERT_OK(hipEventRecord(e, NULL));
	cr_assert_eq(write(go[1], &c, 1), 1);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	ASSERT_OK(hipEventDestroy(e));
}
