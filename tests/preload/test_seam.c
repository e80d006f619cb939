/* SPDX-License-Identifier: MIT */
/* test_seam.c - reaching the real functions (preload/seam.c): RTLD_LOCAL, no
 * runtime, hipGetProcAddress, hooks before the constructor, re-entry. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pl_run.h"

/* ---- reaching the real functions ---- */

Test(seam, no_runtime_clear_message)
{
	const char *argv[] = { prog("pl_nohip"), "none", NULL };

	run(&R, RT_NONE, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.out, "hipMalloc 3\nhipMalloc again 3\n");
	cr_expect_eq(count_lines(R.err, "hipsvm: "), 1, "%s", R.err);
	cr_expect(strstr(R.err, "hipMalloc: no real function found"), "%s", R.err);
}

Test(seam, runtime_behind_rtld_local_dlopen)
{
	char lib[512];
	const char *argv[] = { prog("pl_nohip"), "local", lib, NULL };

	snprintf(lib, sizeof(lib), "%s/tests/preload/libpl_local.so", bdir());
	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.err, "");
	cr_expect(strstr(R.out, "local hipMalloc 0\n") && strstr(R.out, "local hipFree(managed) 0\n"),
		  "%s", R.out);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "frees"), 1, "%s", R.report);
	/* the real runtime: its answer, not hipErrorNotInitialized */
	run(&R, RT_ROCM, true, argv, NULL);
	cr_expect(strstr(R.out, "local hipMalloc 101\n"), "%s", R.out);
	cr_expect_str_eq(R.err, "");
}

/* A copy of the runtime under a name of its own, loaded RTLD_LOCAL: neither
 * RTLD_NEXT nor the dlopen(RTLD_NOLOAD) guesses find it; dl_iterate_phdr
 * does. */
Test(seam, bundled_runtime_found_by_dl_iterate_phdr)
{
	char lib[512];
	const char *argv[] = { prog("pl_nohip"), "bundled", lib, NULL };

	snprintf(lib, sizeof(lib), "%s/tests/preload/bundled/libamdhip64.so.7", bdir());
	run(&R, RT_NONE, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.out, "hipMalloc 0\nhipFree 0\n");
	cr_expect_str_eq(R.err, "");
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "frees"), 1, "%s", R.report);
}

/* Two runtimes at once: the calls work (they go to the first copy), and
 * the shim says so once, naming both; without the shim nothing is said. */
Test(seam, two_runtimes_said_once)
{
	char lib[512];
	const char *argv[] = { prog("pl_nohip"), "two", lib, NULL };

	snprintf(lib, sizeof(lib), "%s/tests/preload/bundled/libamdhip64.so.7", bdir());
	run(&R, RT_FAKE, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.out, "hipMalloc 0\nhipFree 0\n");
	cr_expect(strstr(R.err, "two HIP runtimes are loaded") && strstr(R.err, "libamdhip64.so.7") &&
		  strstr(R.err, "libamdhip64.so.5"), "%s", R.err);
	cr_expect_eq(count_lines(R.err, "hipsvm: "), 1, "said once: %s", R.err);
	run(&R, RT_FAKE, false, argv, NULL);
	cr_expect_str_eq(R.out, "hipMalloc 0\nhipFree 0\n");
	cr_expect_str_eq(R.err, "");
}

Test(seam, get_proc_address_hands_out_wrappers)
{
	const char *argv[] = { prog("pl_nohip"), "procaddr", NULL };

	run(&R, RT_FAKE, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "hipGetProcAddress(hipMalloc) 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipGetProcAddress(nosuch) 500\n"), "%s", R.out);
	cr_expect(strstr(R.out, "is the shim's 1\n"), "%s", R.out);
	cr_expect(strstr(R.out, "(*hipMalloc) 0\n") && strstr(R.out, "(*hipFree) 0\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "frees"), 1, "%s", R.report);
	/* without the shim: the runtime's own function */
	run(&R, RT_FAKE, false, argv, NULL);
	cr_expect(strstr(R.out, "is the runtime's 1\n"), "%s", R.out);
}

/* A call that allocates nothing (a pool's trim, a mapping's access, ...)
 * is a real call like any other: what the runtime allocates inside it,
 * through its own PLT, is the runtime's, not the program's. (Before the
 * seam had one shape, these calls ran without the HIPSVM_IN_HIP() scope and
 * the inner hipMalloc and hipFree were counted as the program's.) */
Test(seam, allocation_inside_a_passing_call_is_the_runtimes)
{
	const char *argv[] = { prog("pl_nohip"), "inner", NULL };

	run(&R, RT_FAKE, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.out, "hipMemPoolTrimTo 0\nhipMalloc 0\n");
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "frees"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("hip_memory"), "pool_trims"), 1, "%s", R.report);
}

/* ROCm 5.2 and the simulator have no hipGetProcAddress: the shim's export
 * says so once and answers hipErrorNotInitialized. */
Test(seam, get_proc_address_missing_in_runtime)
{
	const char *argv[] = { prog("pl_target"), "procaddr", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "hipGetProcAddress(hipMalloc) 3\n"), "%s", R.out);
	cr_expect_eq(count_lines(R.err, "hipsvm: "), 1, "%s", R.err);
	cr_expect(strstr(R.err, "hipGetProcAddress: the HIP runtime of this process"), "%s", R.err);
	run(&R, RT_SIM, false, argv, NULL);
	cr_expect_str_eq(R.out, "no hipGetProcAddress\n");
}

Test(seam, hooks_before_constructor_and_reentry)
{
	char early[600];
	const char *argv[] = { prog("pl_target"), "internal", NULL };
	const char *env[] = { early, NULL };

	snprintf(early, sizeof(early), "LD_PRELOAD=+%s/tests/preload/libpl_early.so", bdir());
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "early munmap 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "early hipMalloc 0 hipFree 0\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 1, "%s", R.report);
}

/* An allocator that unmaps on every free, preloaded after the shim: dlsym's
 * allocations during start-up and every free of the runtime re-enter the
 * shim's munmap. */
Test(seam, allocator_reentering_munmap)
{
	char lib[600];
	const char *env[] = { lib, NULL };
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *basic[] = { prog("pl_target"), "basic", NULL };

	snprintf(lib, sizeof(lib), "LD_PRELOAD=+%s/tests/preload/libpl_malloc.so", bdir());
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "hipFree 0\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 2, "%s", R.report);
	run(&R, RT_SIM, true, basic, env);
	cr_expect_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 6, "%s", R.report);
}
