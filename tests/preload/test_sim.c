/* SPDX-License-Identifier: MIT */
/* test_sim.c - attribution and unmap coordination on the simulator, and the
 * process-life cases (threads, signals, fork, exec, exit). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pl_run.h"

/* ---- the simulator ---- */

Test(sim, same_results_with_and_without_shim)
{
	/* (partial prints the hook server's log, which the shim fills) */
	static const char *modes[] = { "basic", "edge", "errno", "unmaps", "internal", "signal",
				       "threads" };
	unsigned i;

	for (i = 0; i < 7; i++) {
		const char *argv[] = { prog("pl_target"), modes[i], NULL };

		same_run(RT_SIM, argv, NULL);
	}
}

Test(sim, attribution)
{
	const char *argv[] = { prog("pl_target"), "basic", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_assert_str_neq(R.report, "", "no report: %s", R.err);
	cr_expect(strstr(R.report, "\"runtime\":\"sim\""));
	cr_expect(strstr(R.report, "\"state\":\"connected\""), "%s", R.report);
	/* managed, host, mallochost, hostalloc, signal, registered */
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 6, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "frees"), 6, "%s", R.report);
	/* malloc, ext, pitch, async on device 0; one on device 1, freed while
	 * device 0 was current: found by pointer */
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 4, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "frees"), 4, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:1"), "allocations"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:1"), "frees"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:1"), "peak_bytes"), 2 << 20);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "live_bytes"), 0);
	cr_expect_eq(jnum(R.report, SEC("routing"), "as_hip"), 11, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("errors"), "runtime_errors"), 0, "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("errors"), "unknown_pointer_frees"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "tracked"),
		     jnum(R.report, SEC("unmaps"), "coordinated"), "%s", R.report);
}

/* The first unmap in the hook server's log (the target prints it), per GPU
 * of 4: set, drain (the CPU unmap had happened), and a clear after the
 * drain if the set recorded a checkpoint (rings with no fault in flight
 * record none: nothing to clear). */
static void expect_unmap_order(const char *out)
{
	const char *log = strstr(out, "LOG ok log");
	unsigned g;

	cr_assert(log, "%s", out);
	for (g = 0; g < 4; g++) {
		char set[32], drain[48], clear[32];
		const char *s, *d, *c;

		snprintf(set, sizeof(set), ":set:%u", g);
		snprintf(drain, sizeof(drain), ":drain:%u:unmapped", g);
		snprintf(clear, sizeof(clear), ":clear:%u", g);
		s = strstr(log, set);
		d = strstr(log, drain);
		c = strstr(log, clear);
		cr_expect(s && d && s < d && (!c || d < c), "GPU %u order: %s", g, log);
	}
}

/* set -> CPU unmap -> drain -> clear, per GPU, as the hook server saw it. */
Test(sim, partial_unmap_order_and_split)
{
	const char *argv[] = { prog("pl_target"), "partial", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "munmap(middle) 0\n") && strstr(R.out, "hipFree 0\n"), "%s", R.out);
	expect_unmap_order(R.out);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped_bytes"), (1 << 20) + 4096);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "partial"), 2);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "live_bytes"), 0);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "frees"), 1);
	cr_expect_geq(jnum(R.report, CTX("host_context"), "unmaps_coordinated"), 2);
	cr_expect_geq(jnum(R.report, DEV(3), "drains"), 2);
}

Test(sim, madvise_mmap_fixed_mremap)
{
	const char *argv[] = { prog("pl_target"), "unmaps", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.err, "");
	/* mmap(MAP_FIXED) took 1 MiB, mremap 2 MiB; madvise took nothing */
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped_bytes"), 3 << 20);
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "tracked"), 3);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "live_bytes"), 0, "%s", R.report);
}

/* shmdt of a segment whose middle half is registered: one coordinated
 * unmap of 2 MiB of live SVM memory, set before drain before clear; the
 * same output as without the shim. */
Test(sim, shmdt_of_registered_segment)
{
	const char *argv[] = { prog("pl_target"), "shm", NULL };
	static struct res plain;

	run(&plain, RT_SIM, false, argv, NULL);
	run(&R, RT_SIM, true, argv, NULL);
	if (!strncmp(R.out, "SKIP ", 5))
		cr_skip_test("%s", R.out);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.err, "");
	cr_expect(strstr(R.out, "hipHostRegister 0\nshmdt(bad address) 1\nshmdt 0\n") != NULL, "%s",
		  R.out);
	cr_expect(strstr(plain.out, "hipHostRegister 0\nshmdt(bad address) 1\nshmdt 0\n") != NULL,
		  "%s", plain.out);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "coordinated"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 1);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped_bytes"), 2 << 20);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "live_bytes"), 0, "%s", R.report);
	expect_unmap_order(R.out);
}

/* The unmap family through its one path: each call over live managed
 * memory (munmap, madvise DONTNEED and FREE, mmap and mmap64 with
 * MAP_FIXED, mremap shrinking, moving tracked memory out, moving other
 * memory onto it, shmdt of a registered segment) is one coordinated unmap:
 * one set request and one drain of each GPU; madvise(WILLNEED) and a plain
 * mmap ask nothing of the hook; every call returns what it returns without
 * the shim. */
Test(sim, every_unmap_call_is_coordinated_once)
{
	const char *argv[] = { prog("pl_target"), "family", NULL };
	static const char *const calls[] = {
		"munmap 0", "madvise(DONTNEED) 0", "madvise(FREE) 0", "mmap64(FIXED) 1",
		"mmap(FIXED) 1", "mremap(shrink) 1", "mremap(move out) 1", "mremap(move onto) 1",
	};
	static struct res plain;
	char want[96];
	unsigned i;

	run(&plain, RT_SIM, false, argv, NULL);
	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.err, "");
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		snprintf(want, sizeof(want), "\n%s sets +1 drains +1\n", calls[i]);
		cr_expect(strstr(R.out, want) != NULL, "%s: %s", want, R.out);
		snprintf(want, sizeof(want), "\n%s sets +0 drains +0\n", calls[i]);
		cr_expect(strstr(plain.out, want) != NULL, "%s: %s", want, plain.out);
	}
	cr_expect(strstr(R.out, "\nmadvise(WILLNEED) 0 sets +0 drains +0\n"
			 "mmap(no FIXED) 0 sets +0 drains +0\n") != NULL, "%s", R.out);
	if (strstr(R.out, "\nshmdt "))
		cr_expect(strstr(R.out, "\nshmdt 0 sets +1 drains +1\n") != NULL, "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "refused"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "live_bytes"), 0, "%s", R.report);
}

/* Unmap calls over live managed memory that the kernel refuses: with the
 * shim, no checkpoint is set, the GPU keeps its mapping, and the same
 * errnos come back as without it; none counts as an unmap. */
Test(sim, refused_unmaps_touch_nothing)
{
	const char *argv[] = { prog("pl_target"), "refused", NULL };

	same_run(RT_SIM, argv, NULL);
	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "munmap(misaligned) 22\nmunmap(0 bytes) 22\n"
			 "munmap(past the end) 22\n"), "%s", R.out);
	cr_expect(strstr(R.out, "mremap(misaligned) 22\nmremap(overlapping) 22\n"
			 "madvise(misaligned) 22\nmapped 1\ncheckpoints set 0\nhipFree 0\n"),
		  "%s", R.out);
	/* the two zero-length calls touch nothing tracked: not counted */
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "refused"), 6, "%s", R.report);
	/* only the runtime's own unmap inside hipFree */
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "tracked"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 0, "%s", R.report);
}

/* A free of memory the program had unmapped whole is a free of that
 * allocation (its context's frees match its allocations), counted apart,
 * not a free of an unknown pointer. */
Test(sim, free_after_whole_unmap)
{
	const char *argv[] = { prog("pl_target"), "tomb", NULL };

	same_run(RT_SIM, argv, NULL);
	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_eq(jnum(R.report, SEC("errors"), "unknown_pointer_frees"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "freed_after_unmap"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "frees"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "live_bytes"), 0, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 3, "%s", R.report);
}

static uint64_t api_calls(const char *report, const char *api)
{
	char anchor[64];

	snprintf(anchor, sizeof(anchor), "\"%s\":{", api);
	return jnum(report, anchor, "calls");
}

/* Pools, pitch/3-D memory, page-locked host memory, arrays, the virtual
 * memory API and IPC: each attributed to its context and counted by name;
 * hipMemUnmap checkpoints the allocation's GPU and the one given access;
 * closing imported memory is coordinated in the importing process. */
Test(sim, every_allocation_path)
{
	const char *argv[] = { prog("pl_target"), "hipmem", NULL };
	static char child[sizeof(R.report)];
	const char *log, *ck;
	char path[512];
	int cpid = 0;

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "hipMallocFromPoolAsync 0\n") &&
		  strstr(R.out, "hipMallocFromPoolAsync(default) 0\n") &&
		  strstr(R.out, "hipMemCreate 0\n") && strstr(R.out, "hipMemUnmap 0\n") &&
		  strstr(R.out, "child 1\n"), "%s", R.out);
	cr_expect_eq(api_calls(R.report, "hipMallocFromPoolAsync"), 2, "%s", R.report);
	cr_expect_eq(api_calls(R.report, "hipMalloc3D"), 1, "%s", R.report);
	cr_expect_eq(api_calls(R.report, "hipMemAllocPitch"), 1);
	cr_expect_eq(api_calls(R.report, "hipMemAllocHost"), 1);
	cr_expect_eq(api_calls(R.report, "hipMallocArray"), 1);
	cr_expect_eq(api_calls(R.report, "hipMalloc3DArray"), 1);
	cr_expect_eq(api_calls(R.report, "hipArrayCreate"), 1);
	cr_expect_eq(api_calls(R.report, "hipMemCreate"), 1);
	cr_expect_eq(api_calls(R.report, "hipFreeArray"), 2);
	cr_expect_eq(api_calls(R.report, "hipArrayDestroy"), 1);
	cr_expect_eq(api_calls(R.report, "hipMemRelease"), 1);
	/* the pool of device 1, device 2's default pool */
	cr_expect_eq(jnum(R.report, CTX("device:1"), "allocations"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:2"), "allocations"), 1, "%s", R.report);
	/* 3-D, pitch, three arrays, the physical allocation, the IPC source */
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 7, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "frees"), 7, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("hip_memory"), "pool_trims"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("hip_memory"), "vmm_maps"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("hip_memory"), "vmm_reserves"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("hip_memory"), "vmm_frees"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("hip_memory"), "pool_exports"), 1, "%s", R.report);
	cr_expect(strstr(R.out, "hipMemPoolExportPointer 0\n") &&
		  strstr(R.out, "hipMemAddressFree 0\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "by_hip"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("errors"), "unknown_pointer_frees"), 0, "%s", R.report);
	/* the last unmap before the log is hipMemUnmap's */
	log = strstr(R.out, "LOG ok log");
	cr_assert(log, "%s", R.out);
	for (const char *n = log; (n = strstr(n, ":range:")); n++)
		log = n;
	cr_expect(strstr(log, ":set:0") && strstr(log, ":set:1") && !strstr(log, ":set:2") &&
		  !strstr(log, ":set:3"), "hipMemUnmap checkpoints GPUs 0 and 1: %s", log);
	ck = strstr(R.out, "ipc child ");
	cr_assert(ck && sscanf(ck, "ipc child %d", &cpid) == 1 && cpid > 0, "%s", R.out);
	snprintf(path, sizeof(path), "%s/report.%d.json", R.dir, cpid);
	read_file(path, child, sizeof(child));
	cr_expect(strstr(R.out, "child hipIpcOpenMemHandle 0\n"), "%s", R.out);
	cr_expect_eq(jnum(child, CTX("device:3"), "allocations"), 1, "%s", child);
	cr_expect_eq(jnum(child, CTX("device:3"), "frees"), 1, "%s", child);
	cr_expect_eq(api_calls(child, "hipIpcOpenMemHandle"), 1, "%s", child);
	cr_expect_eq(jnum(child, SEC("unmaps"), "by_hip"), 1, "%s", child);
	cr_expect_eq(jnum(child, SEC("unmaps"), "coordinated"), 1, "%s", child);
}

/* The runtime's own munmap inside hipFree is coordinated, not counted as a
 * program's unmap of live memory. */
Test(sim, internal_unmaps)
{
	const char *argv[] = { prog("pl_target"), "internal", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "tracked"), 3, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "tracked"),
		     jnum(R.report, SEC("unmaps"), "coordinated"));
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 0, "%s", R.report);
}

Test(sim, errno_untouched)
{
	const char *argv[] = { prog("pl_target"), "errno", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_expect_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "errno fails 0"), "%s", R.out);
	run(&R, RT_ROCM, true, argv, NULL);
	cr_expect_eq(R.code, 0, "%s%s", R.out, R.err);
}

Test(sim, munmap_from_signal_handler)
{
	const char *argv[] = { prog("pl_target"), "signal", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "munmap in handler 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "munmap untracked in handler 0\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
}

Test(sim, many_threads_first_call_at_once)
{
	const char *argv[] = { prog("pl_target"), "threads", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 8 * 200, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "frees"), 8 * 200);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 8 * 10);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "frees"), 8 * 10);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "live_bytes"), 0);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "live_bytes"), 0);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 8 * 10);
	cr_expect_eq(jnum(R.report, SEC("errors"), "runtime_errors"), 0);
}

Test(sim, fork_then_hip_in_child)
{
	const char *argv[] = { prog("pl_target"), "fork", NULL };
	char child[OUT_MAX], path[300], pidtxt[40];
	struct dirent *e;
	DIR *d;
	int cpid = 0;

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "child hipFree 0\n") && strstr(R.out, "child status 0\n"), "%s",
		  R.out);
	d = opendir(R.dir);
	cr_assert(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "report.", 7) && atoi(e->d_name + 7) != R.pid)
			cpid = atoi(e->d_name + 7);
	closedir(d);
	cr_assert(cpid > 0, "no child report in %s", R.dir);
	snprintf(path, sizeof(path), "%s/report.%d.json", R.dir, cpid);
	read_file(path, child, sizeof(child));
	/* The child counts only its own allocation... */
	cr_expect_eq(jnum(child, CTX("host_context"), "allocations"), 1, "%s", child);
	cr_expect_eq(jnum(child, CTX("device:0"), "allocations"), 0, "%s", child);
	cr_expect_eq(jnum(child, "\"pid\"", "pid"), (uint64_t)cpid);
	/* ...and never talks on the parent's hook connection. */
	snprintf(pidtxt, sizeof(pidtxt), ".%d\"", R.pid);
	cr_expect(!strstr(child, pidtxt), "child uses the parent's hook: %s", child);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:0"), "allocations"), 1);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 1);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
}

/* The shim takes itself out of LD_PRELOAD for what the program executes
 * (unless HIPSVM_INHERIT=1); every other entry stays, in order: under a
 * sanitizer run the list starts with the sanitizer's runtime. */
static const char *kept(const char *after)
{
	static char want[700];
	const char *rest = preload_rest();
	char *c;

	snprintf(want, sizeof(want), "%s%s%s", rest, rest[0] && after[0] ? ":" : "", after);
	/* the shim joins what it keeps with ':' */
	for (c = want; *c; c++)
		if (*c == ' ')
			*c = ':';
	return want;
}

Test(sim, exec_child_loses_preload)
{
	const char *argv[] = { prog("pl_target"), "exec", NULL };
	const char *inherit[] = { "HIPSVM_INHERIT=1", NULL };
	/* the shim between two entries, ' ' and ':' as separators */
	const char *more[] = { "LD_PRELOAD=+libm.so.6", NULL };
	const char *more_inherit[] = { "LD_PRELOAD=+libm.so.6", "HIPSVM_INHERIT=1", NULL };
	char want[800];

	run(&R, RT_SIM, true, argv, NULL);
	cr_expect_eq(R.code, 0, "%s%s", R.out, R.err);
	snprintf(want, sizeof(want), "LD_PRELOAD=[%s]\n", kept(""));
	cr_expect(strstr(R.out, want), "want %s: %s", want, R.out);
	cr_expect(!strstr(R.out, "libhipsvm"), "%s", R.out);

	run(&R, RT_SIM, true, argv, more);
	cr_expect_eq(R.code, 0, "%s%s", R.out, R.err);
	snprintf(want, sizeof(want), "LD_PRELOAD=[%s]\n", kept("libm.so.6"));
	cr_expect(strstr(R.out, want), "want %s: %s", want, R.out);

	run(&R, RT_SIM, true, argv, inherit);
	cr_expect_eq(R.code, 0, "%s%s", R.out, R.err);
	snprintf(want, sizeof(want), "LD_PRELOAD=[%s%s]\n", preload_prefix(), shim());
	cr_expect(strstr(R.out, want), "want %s: %s", want, R.out);

	run(&R, RT_SIM, true, argv, more_inherit);
	cr_expect_eq(R.code, 0, "%s%s", R.out, R.err);
	snprintf(want, sizeof(want), "LD_PRELOAD=[%s%s libm.so.6]\n", preload_prefix(), shim());
	cr_expect(strstr(R.out, want), "want %s: %s", want, R.out);
}

Test(sim, posix_spawn_child_loses_preload)
{
	const char *argv[] = { prog("pl_target"), "spawn", NULL };
	char want[800];

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	snprintf(want, sizeof(want), "spawned LD_PRELOAD=[%s]\n", kept(""));
	cr_expect(strstr(R.out, want), "want %s: %s", want, R.out);
	cr_expect(!strstr(R.out, "libhipsvm"), "%s", R.out);
}

Test(sim, exit_while_threads_allocate)
{
	const char *argv[] = { prog("pl_target"), "exitrace", NULL };
	int i;

	for (i = 0; i < 3; i++) {
		run(&R, RT_SIM, true, argv, NULL);
		cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
		cr_expect(strstr(R.report, "\"schema\":\"hipsvm-report/4\""), "%s", R.err);
		cr_expect_str_eq(R.err, "");
	}
}

/* Eight processes under the shim starting at once (no cross-process lock
 * to wait on), each with its own report. */
Test(sim, many_processes_at_once)
{
	static char script[1200];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	const char *env[] = { "HIPSVM_INHERIT=1", NULL };
	struct dirent *e;
	unsigned reports = 0, good = 0;
	DIR *d;

	snprintf(script, sizeof(script),
		 "for i in 1 2 3 4 5 6 7 8; do %s internal >/dev/null & done; wait",
		 prog("pl_target"));
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	d = opendir(R.dir);
	cr_assert(d);
	while ((e = readdir(d))) {
		char path[400], doc[OUT_MAX];

		if (strncmp(e->d_name, "report.", 7))
			continue;
		snprintf(path, sizeof(path), "%s/%s", R.dir, e->d_name);
		read_file(path, doc, sizeof(doc));
		reports++;
		if (jnum(doc, CTX("host_context"), "allocations") == 3 &&
		    jnum(doc, SEC("unmaps"), "uncoordinated") == 0)
			good++;
	}
	closedir(d);
	cr_expect_geq(reports, 8);
	cr_expect_eq(good, 8, "%u of %u reports as expected", good, reports);
}

Test(sim, no_hook_one_warning)
{
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { "HIPSVM_HOOK=none", NULL };

	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_eq(count_lines(R.err, "hipsvm: "), 1, "%s", R.err);
	cr_expect(strstr(R.err, "without checkpoint coordination"), "%s", R.err);
	cr_expect(strstr(R.report, "\"state\":\"none\""), "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "coordinated"), 0);
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 2);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 2);
}

Test(sim, disabled_is_pass_through)
{
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { "HIPSVM_ENABLE=0", NULL };

	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_str_eq(R.err, "");
	cr_expect_str_eq(R.report, "");
}

Test(sim, signal_unmaps_reentering_the_unmap_path)
{
	const char *argv[] = { prog("pl_target"), "reentry", NULL };
	uint64_t tracked, coord, uncoord, skipped;

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "main munmap fails 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "handler munmap fails 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipFree 0\nhipFree 0\n"), "%s", R.out);
	tracked = jnum(R.report, SEC("unmaps"), "tracked");
	coord = jnum(R.report, SEC("unmaps"), "coordinated");
	uncoord = jnum(R.report, SEC("unmaps"), "uncoordinated");
	skipped = jnum(R.report, SEC("unmaps"), "reentrant_skipped");
	cr_log_info("reentry: tracked %" PRIu64 " coordinated %" PRIu64 " skipped %" PRIu64,
		    tracked, coord, skipped);
	cr_expect_eq(tracked, coord + uncoord, "%s", R.report);
	cr_expect_eq(uncoord, skipped, "%s", R.report);
	cr_expect_geq(tracked, 512 + 2, "%s", R.report);
}
