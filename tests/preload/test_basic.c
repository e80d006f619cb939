/* SPDX-License-Identifier: MIT */
/* test_basic.c - the real runtime, the hipcc programs, programs without HIP,
 * -lhipsvm, the trace. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hipsvm_config.h"
#include "pl_run.h"

/* ---- the real runtime (ROCm 5.2, no GPU): the shim changes nothing ---- */

Test(rocm, same_results_with_and_without_shim)
{
	static const char *modes[] = { "basic", "edge", "errno", "plain" };
	unsigned i;

	for (i = 0; i < 4; i++) {
		const char *argv[] = { prog("pl_target"), modes[i], NULL };

		same_run(RT_ROCM, argv, NULL);
	}
}

Test(rocm, errors_pass_through_and_record_nothing)
{
	const char *argv[] = { prog("pl_target"), "basic", NULL };

	run(&R, RT_ROCM, true, argv, NULL);
	cr_assert_str_neq(R.report, "", "no report");
	cr_expect(strstr(R.out, "hipMalloc 101\n"), "%s", R.out);
	cr_expect(strstr(R.report, "\"runtime\":\"rocm\""), "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 0);
	cr_expect_gt(jnum(R.report, SEC("errors"), "runtime_errors"), 0);
	cr_expect_eq(jnum(R.report, SEC("routing"), "as_hip"), 0);
}

/* ---- the hipcc programs of tests/hip (hip_test_progs) ---- */

static const char *hip_prog(const char *name)
{
	char var[96];

	snprintf(var, sizeof(var), "HIPSVM_TEST_HIP_%s", name);
	return getenv(var);
}

static void hip_progs_same(enum rt rt)
{
	static const char *const progs[][2] = {
		{ "edge_cases", NULL }, { "host_only", NULL }, { "vector_add", "--verify" },
		{ "managed_saxpy", "--verify" }, { "multi_gpu", NULL },
	};
	unsigned i, ran = 0;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		const char *path = hip_prog(progs[i][0]);
		const char *argv[] = { path, progs[i][1], NULL };

		/* multi_gpu prints addresses: compare its exit code only */
		if (!path)
			continue;
		ran++;
		if (!strcmp(progs[i][0], "multi_gpu")) {
			static struct res a;

			run(&a, rt, false, argv, NULL);
			run(&R, rt, true, argv, NULL);
			cr_expect_eq(a.code, R.code, "multi_gpu: %d vs %d", a.code, R.code);
			cr_expect_str_eq(a.err, R.err);
		} else {
			same_run(rt, argv, NULL);
			run(&R, rt, true, argv, NULL);
		}
		cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s: %s",
			     progs[i][0], R.report);
		cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 0, "%s: %s",
			     progs[i][0], R.report);
	}
	cr_log_info("%u hipcc programs run", ran);
	if (!ran)
		cr_skip_test("tests/hip programs not built (no hipcc)");
}

Test(rocm, hip_test_progs_same_with_and_without_shim)
{
	hip_progs_same(RT_ROCM);
}

Test(sim, hip_test_progs_same_with_and_without_shim)
{
	hip_progs_same(RT_SIM);
	cr_expect_gt(jnum(R.report, CTX("host_context"), "allocations"), 0, "%s", R.report);
}

/* ---- programs that do not use HIP run as if the shim were absent ---- */

Test(nohip, runs_as_without_the_shim)
{
	const char *t[] = { "/bin/true", NULL };
	const char *f[] = { "/bin/false", NULL };
	const char *ls[] = { "/bin/ls", "-l", "/usr", NULL };
	const char *sh[] = { "/bin/sh", "-c", "echo hello; exit 7", NULL };
	const char *plain[] = { prog("pl_target"), "plain", NULL };

	same_run(RT_NONE, t, NULL);
	same_run(RT_NONE, f, NULL);
	same_run(RT_NONE, ls, NULL);
	same_run(RT_NONE, sh, NULL);
	same_run(RT_NONE, plain, NULL);
	run(&R, RT_NONE, true, plain, NULL);
	cr_expect_eq(R.code, 3);
	cr_expect_str_eq(R.err, "");
}

Test(linked, lhipsvm_behaves_as_preloaded)
{
	const char *argv[] = { prog("pl_linked"), NULL };

	run(&R, RT_SIM, false, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "active 1 version " HIPSVM_VERSION "\n"), "%s", R.out);
	cr_expect(strstr(R.out, "report_json 1\n"), "%s", R.out);
	cr_expect(strstr(R.out, "small buffer -28\n"), "%s", R.out);	/* -ENOSPC */
	cr_expect_eq(jnum(R.out, CTX("host_context"), "allocations"), 1, "%s", R.out);
	cr_expect_eq(jnum(R.out, SEC("unmaps"), "live_svm_unmapped"), 1, "%s", R.out);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "frees"), 1, "%s", R.report);
	cr_expect(strstr(R.out, "report_write 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "report_write(bad) -2\n"), "%s", R.out);
	{
		char path[300], doc[OUT_MAX];

		snprintf(path, sizeof(path), "%s/linked.%d.json", R.dir, R.pid);
		read_file(path, doc, sizeof(doc));
		cr_expect_eq(jnum(doc, CTX("device:0"), "allocations"), 1, "%s", doc);
	}
}

/* ---- trace ---- */

Test(trace, events_one_json_object_per_line)
{
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { "HIPSVM_TRACE=trace.jsonl", NULL };
	static char tr[OUT_MAX];
	char path[300], *line, *save = NULL;
	const char *d, *c, *u;

	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	snprintf(path, sizeof(path), "%s/trace.jsonl", R.dir);
	read_file(path, tr, sizeof(tr));
	cr_assert_str_neq(tr, "");
	d = strstr(tr, "\"ev\":\"drain\"");
	c = strstr(tr, "\"ev\":\"cp_clear\"");
	u = strstr(tr, "\"ev\":\"unmap\"");
	cr_expect(strstr(tr, "\"ev\":\"alloc\",\"api\":\"hipMallocManaged\""), "%s", tr);
	/* drain, then the unmap event; a clear (only of checkpoints that were
	 * recorded) comes between them */
	cr_expect(d && u && d < u && (!c || (d < c && c < u)), "%s", tr);
	cr_expect(strstr(tr, "\"ev\":\"free\""), "%s", tr);
	cr_expect(strstr(tr, "\"ev\":\"faults\",\"dev\":0,\"raised\":"), "%s", tr);
	for (line = strtok_r(tr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cr_expect(!strncmp(line, "{\"ts_ns\":", 9), "%s", line);
		cr_expect_eq(line[strlen(line) - 1], '}', "%s", line);
	}
}
