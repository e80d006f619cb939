/* SPDX-License-Identifier: MIT */
/* test_routing.c - the routing policies (docs/routing.md) on the simulator. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pl_run.h"

/* ---- routing ---- */

static void policy_run(const char *policy)
{
	static char env0[128];
	const char *argv[] = { prog("pl_target"), "policy", NULL };
	/* 1 GiB GPUs: after "fill", "big" is beyond the free memory */
	const char *env[] = { env0, "HIPSVM_SIM_MEM=1G", NULL };

	snprintf(env0, sizeof(env0), "HIPSVM_POLICY=%s", policy);
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_assert_str_neq(R.report, "", "%s", R.err);
}

Test(routing, default_mirrors_hip)
{
	policy_run("default");
	cr_expect(strstr(R.out, "hipMalloc(c) 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipMalloc(fill) 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipMalloc(big) 2\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:1"), "allocations"), 5, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("routing"), "as_hip"), 7);
	/* made while device 1 was current: hipMallocManaged remembers it */
	cr_expect_eq(jnum(R.report, DEV(1), "allocations"), 7, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(0), "allocations"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("errors"), "runtime_errors"), 1, "%s", R.report);
}

Test(routing, managed_local)
{
	policy_run("managed-local");
	cr_expect(strstr(R.report, "\"policy\":\"managed-local\""), "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("routing"), "managed_local"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:1"), "allocations"), 6, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 1);
	/* the partial munmap of the managed memory: GPU 1 only */
	cr_expect_geq(jnum(R.report, CTX("device:1"), "unmaps_coordinated"), 1, "%s", R.report);
	cr_expect_gt(jnum(R.report, DEV(1), "drains"), jnum(R.report, DEV(0), "drains"), "%s",
		     R.report);
}

Test(routing, quota)
{
	policy_run("quota=1:1M");
	cr_expect(strstr(R.out, "hipMalloc(a) 0\n") && strstr(R.out, "hipMalloc(b) 0\n"), "%s",
		  R.out);
	cr_expect(strstr(R.out, "hipMalloc(c) 2\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipMalloc(b again) 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipMalloc(fill) 2\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipMalloc(big) 2\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("routing"), "quota_denied"), 3, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(1), "quota_bytes"), 1 << 20, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(0), "quota_bytes"), 0);
}

Test(routing, oversubscribe)
{
	policy_run("oversubscribe");
	cr_expect(strstr(R.out, "hipMalloc(big) 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipFree(big) 0\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("routing"), "oversubscribed"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 3, "%s", R.report);
}

Test(routing, quota_and_oversubscribe)
{
	policy_run("quota=1:1M,oversubscribe");
	cr_expect(strstr(R.out, "hipMalloc(c) 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipMalloc(fill) 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipMalloc(big) 0\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("routing"), "oversubscribed"), 3, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("routing"), "quota_denied"), 3, "%s", R.report);
}

Test(routing, map_all)
{
	policy_run("map-all");
	cr_expect_geq(jnum(R.report, SEC("routing"), "mapped_all"), 1, "%s", R.report);
}

Test(routing, malformed_policy_warns_once)
{
	policy_run("managed-local,bogus");
	cr_expect_eq(count_lines(R.err, "hipsvm: "), 1, "%s", R.err);
	cr_expect(strstr(R.err, "bogus"), "%s", R.err);
	cr_expect(strstr(R.report, "\"policy\":\"default\""), "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("routing"), "managed_local"), 0);
}
