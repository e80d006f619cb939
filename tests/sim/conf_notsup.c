/* SPDX-License-Identifier: MIT */
/*
 * conf_notsup.c - what the simulator cannot mean: argument errors first, as
 * ROCm 5.2.3 checks them, then hipErrorNotSupported (and the program goes
 * on). Also the parts of these groups that are plain data. Graphs run:
 * tests/sim/conf_graph.c.
 */
#include "conf.h"

#include <hip/hiprtc.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* hipGraphCreate / hipGraphDestroy / hipGraphGetNodes: empty graphs are
 * simulated; flags must be 0; a destroyed graph is hipErrorIllegalState. */
Test(conf_notsup, hipGraphCreate_empty_graph)
{
	hipGraph_t g;
	size_t n = 9;

	EXPECT_HIP(hipGraphCreate(&g, 1), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphCreate(NULL, 0), hipErrorInvalidValue);
	ASSERT_OK(hipGraphCreate(&g, 0));
	ASSERT_OK(hipGraphGetNodes(g, NULL, &n));
	cr_expect_eq(n, 0);
	n = 9;
	ASSERT_OK(hipGraphGetRootNodes(g, NULL, &n));
	cr_expect_eq(n, 0);
	ASSERT_OK(hipGraphDestroy(g));
	EXPECT_HIP(hipGraphDestroy(g), hipErrorIllegalState);
	EXPECT_HIP(hipGraphDestroy(NULL), hipErrorInvalidValue);
}

/* hipCreateChannelDesc: plain data. */
Test(conf_notsup, hipCreateChannelDesc)
{
	hipChannelFormatDesc d = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);

	cr_expect_eq(d.x, 32);
	cr_expect_eq(d.y, 0);
	cr_expect_eq(d.f, hipChannelFormatKindFloat);
}

/* Textures run (conf_texture.c) but for mipmapped ones, which 5.2.3 does
 * not create either, and module references (hipModuleGetTexRef). */
Test(conf_notsup, mipmapped_textures_not_supported)
{
	hipChannelFormatDesc d = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
	textureReference ref, *pref = NULL;
	hipMipmappedArray m;

	memset(&ref, 0, sizeof(ref));
	memset(&m, 0, sizeof(m));
	EXPECT_HIP(hipBindTextureToMipmappedArray(NULL, &m, &d), hipErrorInvalidValue);
	EXPECT_HIP(hipBindTextureToMipmappedArray(&ref, &m, &d), hipErrorNotSupported);
	EXPECT_HIP(hipTexRefSetMipmappedArray(&ref, NULL, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipTexRefSetMipmappedArray(&ref, &m, 0), hipErrorNotSupported);
	EXPECT_HIP(hipModuleGetTexRef(&pref, NULL, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipModuleGetTexRef(&pref, NULL, "tex"), hipErrorNotSupported);
}

/* External memory and semaphores, GL interop, surfaces. */
Test(conf_notsup, interop_not_supported)
{
	hipExternalMemoryHandleDesc md;
	hipExternalMemory_t em;
	unsigned int count;
	int devs[4];

	memset(&md, 0, sizeof(md));
	EXPECT_HIP(hipImportExternalMemory(NULL, &md), hipErrorInvalidValue);
	EXPECT_HIP(hipImportExternalMemory(&em, &md), hipErrorNotSupported);
	EXPECT_HIP(hipDestroyExternalMemory(NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipDestroyExternalSemaphore(NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipGLGetDevices(&count, devs, 0, hipGLDeviceListAll), hipErrorInvalidValue);
	EXPECT_HIP(hipGLGetDevices(&count, devs, 4, hipGLDeviceListAll), hipErrorNotSupported);
	EXPECT_HIP(hipGraphicsUnregisterResource(NULL), hipErrorInvalidValue);
}

/* hipProfilerStart / hipProfilerStop: not supported in ROCm 5.2 itself. */
Test(conf_notsup, profiler)
{
	EXPECT_HIP(hipProfilerStart(), hipErrorNotSupported);
	EXPECT_HIP(hipProfilerStop(), hipErrorNotSupported);
}

/* hiprtc's answers without compiling (hiprtc.cpp, hiprtcInternal.cpp of ROCm
 * 5.2.3; compilation itself: sim / isa_hiprtc, which takes seconds). */
Test(conf_notsup, hiprtc_program_lifecycle)
{
	hiprtcProgram p = NULL;
	const char *lowered = NULL;
	const char *hdr[] = { "" }, *hdr_name[] = { "h.h" };
	size_t n = 7;
	char log[16] = "unchanged";

	cr_expect_eq(hiprtcCreateProgram(NULL, "x", "x", 0, NULL, NULL),
		     HIPRTC_ERROR_INVALID_PROGRAM);
	cr_expect_eq(hiprtcCreateProgram(&p, "x", "x", -1, NULL, NULL), HIPRTC_ERROR_INVALID_INPUT);
	cr_expect_eq(hiprtcCreateProgram(&p, "x", "x", 1, NULL, NULL), HIPRTC_ERROR_INVALID_INPUT);
	/* addSource and addHeader refuse empty text */
	cr_expect_eq(hiprtcCreateProgram(&p, "", "x", 0, NULL, NULL), HIPRTC_ERROR_INVALID_INPUT);
	cr_expect_eq(hiprtcCreateProgram(&p, "x", "x", 1, hdr, hdr_name), HIPRTC_ERROR_INVALID_INPUT);
	cr_assert_eq(hiprtcCreateProgram(&p, "__global__ void k() {}", NULL, 0, NULL, NULL),
		     HIPRTC_SUCCESS);
	cr_expect_eq(hiprtcAddNameExpression(p, NULL), HIPRTC_ERROR_INVALID_INPUT);
	cr_expect_eq(hiprtcAddNameExpression(p, ""), HIPRTC_ERROR_INVALID_INPUT);
	cr_expect_eq(hiprtcAddNameExpression(p, "&k"), HIPRTC_SUCCESS);
	/* before compilation a name has no lowered form yet */
	cr_expect_eq(hiprtcGetLoweredName(p, "k", &lowered), HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID);
	cr_expect_eq(hiprtcGetLoweredName(p, "k", NULL), HIPRTC_ERROR_INVALID_INPUT);
	cr_expect_null(lowered);
	cr_expect_eq(hiprtcCompileProgram(p, -1, NULL), HIPRTC_ERROR_INVALID_INPUT);
	/* the log's size counts no NUL: nothing logged is 0, and nothing copied */
	cr_expect_eq(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
	cr_expect_eq(n, 0);
	cr_expect_eq(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
	cr_expect_str_eq(log, "unchanged");
	cr_expect_eq(hiprtcGetProgramLog(p, NULL), HIPRTC_ERROR_INVALID_INPUT);
	cr_expect_eq(hiprtcGetCodeSize(p, &n), HIPRTC_SUCCESS);
	cr_expect_eq(n, 0);
	cr_expect_eq(hiprtcGetCode(p, NULL), HIPRTC_ERROR_INVALID_INPUT);
	cr_expect_eq(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
	cr_expect_null(p);
	cr_expect_eq(hiprtcDestroyProgram(NULL), HIPRTC_ERROR_INVALID_INPUT);
}

/* The notice: said once per function on stderr without HIPSVM_SIM_QUIET
 * (a child process with its own environment; the runtime initialises there
 * afresh). */
Test(conf_notsup, notice_once_per_function)
{
	int fds[2], st;
	char buf[4096];
	ssize_t n, len = 0;
	pid_t pid;
	const char *p;
	int count = 0;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int i;

		dup2(fds[1], 2);
		unsetenv("HIPSVM_SIM_QUIET");
		for (i = 0; i < 3; i++)
			(void)hipProfilerStart,
				(void)hipDestroyExternalMemory((hipExternalMemory_t)&fds);
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	buf[len] = '\0';
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (p = buf; (p = strstr(p, "hipDestroyExternalMemory")); p++)
		count++;
	cr_expect_eq(count, 1, "stderr: %s", buf);
}
