/* SPDX-License-Identifier: MIT */
/*
 * test_preload.c - integration tests of libhipsvm.so: small target programs
 * (target.c, nohip.c, linked.c, early.c) run under a pinned environment, with
 * and without the shim, on the simulator (build/sim), on Debian's ROCm 5.2
 * runtime (no GPU here) and on a fake runtime (fake_hip.c). The Criterion
 * runner itself never runs under LD_PRELOAD.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OUT_MAX (256 * 1024)

enum rt { RT_SIM, RT_ROCM, RT_FAKE, RT_NONE };

struct res {
	int code;		/* exit code, or 128 + signal */
	int pid;
	char dir[128];		/* per-run temporary directory */
	char out[OUT_MAX];
	char err[OUT_MAX];
	char report[OUT_MAX];	/* the report of pid, "" if none */
};

static const char *bdir(void)
{
	const char *b = getenv("HIPSVM_TEST_BUILDDIR");

	cr_assert(b, "HIPSVM_TEST_BUILDDIR not set (run through meson test)");
	return b;
}

static void read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	while (got < (ssize_t)cap - 1 && (n = read(fd, buf + got, cap - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
}

static char *prog(const char *name)
{
	static char path[8][512];
	static int k;
	char *p = path[k++ % 8];

	snprintf(p, 512, "%s/tests/preload/%s", bdir(), name);
	return p;
}

static char *shim(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/preload/libhipsvm.so", bdir());
	return path;
}

/* Runs argv with only the environment given here (plus extra), stdout and
 * stderr to files, at most 120 s. */
static void run(struct res *r, enum rt rt, bool preload, const char *const *argv,
		const char *const *extra)
{
	char ldlib[512], ldpre[1024], report[256], *envp[32];
	int n = 0, i, st = 0, waited = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/hipsvm-preload-XXXXXX");
	cr_assert(mkdtemp(r->dir), "mkdtemp");
	envp[n++] = "PATH=/usr/bin:/bin";
	envp[n++] = "LC_ALL=C";
	envp[n++] = "HIPSVM_SIM_QUIET=1";
	if (rt == RT_SIM)
		snprintf(ldlib, sizeof(ldlib), "LD_LIBRARY_PATH=%s/sim:%s/tests/preload", bdir(),
			 bdir());
	else if (rt == RT_FAKE)
		snprintf(ldlib, sizeof(ldlib), "LD_LIBRARY_PATH=%s/tests/preload/fake:%s/tests/preload",
			 bdir(), bdir());
	else
		snprintf(ldlib, sizeof(ldlib), "LD_LIBRARY_PATH=%s/tests/preload", bdir());
	envp[n++] = ldlib;
	snprintf(report, sizeof(report), "HIPSVM_REPORT=%s/report.%%p.json", r->dir);
	envp[n++] = report;
	if (preload) {
		snprintf(ldpre, sizeof(ldpre), "LD_PRELOAD=%s", shim());
		envp[n++] = ldpre;
	}
	for (i = 0; extra && extra[i] && n < 30; i++) {
		if (!strncmp(extra[i], "LD_PRELOAD=", 11)) {
			/* "LD_PRELOAD=+lib": after the shim */
			if (extra[i][11] == '+' && preload) {
				snprintf(ldpre, sizeof(ldpre), "LD_PRELOAD=%s %s", shim(),
					 extra[i] + 12);
				continue;
			}
		}
		envp[n++] = (char *)extra[i];
	}
	envp[n] = NULL;
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		char path[256];
		int fd;

		snprintf(path, sizeof(path), "%s/out", r->dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		snprintf(path, sizeof(path), "%s/err", r->dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		if (chdir(r->dir))
			_exit(126);
		execve(argv[0], (char *const *)argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (++waited > 12000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("%s timed out", argv[0]);
		}
		nanosleep(&ts, NULL);
	}
	r->pid = pid;
	r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/out", r->dir);
		read_file(path, r->out, sizeof(r->out));
		snprintf(path, sizeof(path), "%s/err", r->dir);
		read_file(path, r->err, sizeof(r->err));
		snprintf(path, sizeof(path), "%s/report.%d.json", r->dir, pid);
		read_file(path, r->report, sizeof(r->report));
	}
}

/* The number after "key": that follows anchor in doc; UINT64_MAX if absent. */
static uint64_t jnum(const char *doc, const char *anchor, const char *key)
{
	char k[96];
	const char *a = anchor ? strstr(doc, anchor) : doc, *p;

	if (!a)
		return UINT64_MAX;
	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(a, k);
	if (!p)
		return UINT64_MAX;
	return strtoull(p + strlen(k), NULL, 10);
}

#define DEV(n) "{\"index\":" #n ","
#define CTX(id) "\"id\":\"" id "\""
#define SEC(s) "\"" s "\":{"

static unsigned count_lines(const char *s, const char *needle)
{
	unsigned n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static void same_run(enum rt rt, const char *const *argv, const char *const *extra)
{
	static struct res a, b;

	run(&a, rt, false, argv, extra);
	run(&b, rt, true, argv, extra);
	cr_expect_eq(a.code, b.code, "%s %s: exit %d without the shim, %d with", argv[0],
		     argv[1] ? argv[1] : "", a.code, b.code);
	cr_expect_str_eq(a.out, b.out, "%s %s: stdout differs", argv[0], argv[1] ? argv[1] : "");
	cr_expect_str_eq(a.err, b.err, "%s %s: stderr differs", argv[0], argv[1] ? argv[1] : "");
}

static struct res R;

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

/* set -> CPU unmap -> drain -> clear, per GPU, as the hook server saw it. */
Test(sim, partial_unmap_order_and_split)
{
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *log;
	unsigned g;

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "munmap(middle) 0\n") && strstr(R.out, "hipFree 0\n"), "%s", R.out);
	log = strstr(R.out, "LOG ok log");
	cr_assert(log, "%s", R.out);
	for (g = 0; g < 4; g++) {
		char set[32], drain[48], clear[32];
		const char *s, *d, *c;

		/* the first unmap: set, drain (the CPU unmap had happened), clear */
		snprintf(set, sizeof(set), ":set:%u", g);
		snprintf(drain, sizeof(drain), ":drain:%u:unmapped", g);
		snprintf(clear, sizeof(clear), ":clear:%u", g);
		s = strstr(log, set);
		d = strstr(log, drain);
		c = strstr(log, clear);
		cr_expect(s && d && c && s < d && d < c, "GPU %u order: %s", g, log);
	}
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

Test(sim, exec_child_loses_preload)
{
	const char *argv[] = { prog("pl_target"), "exec", NULL };
	const char *inherit[] = { "HIPSVM_INHERIT=1", NULL };
	char want[700];

	run(&R, RT_SIM, true, argv, NULL);
	cr_expect(strstr(R.out, "LD_PRELOAD=[]\n"), "%s", R.out);
	run(&R, RT_SIM, true, argv, inherit);
	snprintf(want, sizeof(want), "LD_PRELOAD=[%s]\n", shim());
	cr_expect(strstr(R.out, want), "%s", R.out);
}

Test(sim, posix_spawn_child_loses_preload)
{
	const char *argv[] = { prog("pl_target"), "spawn", NULL };

	run(&R, RT_SIM, true, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "spawned LD_PRELOAD=[]\n"), "%s", R.out);
}

Test(sim, exit_while_threads_allocate)
{
	const char *argv[] = { prog("pl_target"), "exitrace", NULL };
	int i;

	for (i = 0; i < 3; i++) {
		run(&R, RT_SIM, true, argv, NULL);
		cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
		cr_expect(strstr(R.report, "\"schema\":\"hipsvm-report/1\""), "%s", R.err);
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

/* ---- routing ---- */

static void policy_run(const char *policy)
{
	static char env0[128];
	const char *argv[] = { prog("pl_target"), "policy", NULL };
	const char *env[] = { env0, NULL };

	snprintf(env0, sizeof(env0), "HIPSVM_POLICY=%s", policy);
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_assert_str_neq(R.report, "", "%s", R.err);
}

Test(routing, default_mirrors_hip)
{
	policy_run("default");
	cr_expect(strstr(R.out, "hipMalloc(c) 0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "hipMalloc(big) 2\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "allocations"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:1"), "allocations"), 4, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("routing"), "as_hip"), 6);
}

Test(routing, managed_local)
{
	policy_run("managed-local");
	cr_expect(strstr(R.report, "\"policy\":\"managed-local\""), "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("routing"), "managed_local"), 1, "%s", R.report);
	cr_expect_eq(jnum(R.report, CTX("device:1"), "allocations"), 5, "%s", R.report);
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
	cr_expect(strstr(R.out, "hipMalloc(big) 2\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("routing"), "quota_denied"), 2, "%s", R.report);
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
	cr_expect(strstr(R.out, "hipMalloc(big) 0\n"), "%s", R.out);
	cr_expect_eq(jnum(R.report, SEC("routing"), "oversubscribed"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("routing"), "quota_denied"), 2, "%s", R.report);
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

Test(linked, lhipsvm_behaves_as_preloaded)
{
	const char *argv[] = { prog("pl_linked"), NULL };

	run(&R, RT_SIM, false, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "active 1 version 0.1.0\n"), "%s", R.out);
	cr_expect(strstr(R.out, "report_json 1\n"), "%s", R.out);
	cr_expect(strstr(R.out, "small buffer -28\n"), "%s", R.out);	/* -ENOSPC */
	cr_expect_eq(jnum(R.out, CTX("host_context"), "allocations"), 1, "%s", R.out);
	cr_expect_eq(jnum(R.out, SEC("unmaps"), "live_svm_unmapped"), 1, "%s", R.out);
	cr_expect_eq(jnum(R.report, CTX("host_context"), "frees"), 1, "%s", R.report);
}

/* ---- a hook server of our own: drain timeouts, a hook that stops answering ---- */

enum fake_mode { FAKE_TIMEOUT, FAKE_SILENT };
static enum fake_mode fake_mode;
static int fake_listen = -1;
static char fake_path[108];

static void fake_answer(int fd, const char *line)
{
	const char *rep = "err EINVAL unknown\n";

	if (!strncmp(line, "version", 7))
		rep = "ok version 1 hipsvm-hook\n";
	else if (!strncmp(line, "set", 3))
		rep = "ok set 0=0x10 1=0x10 2=0x10 3=0x10\n";
	else if (!strncmp(line, "drain", 5))
		rep = fake_mode == FAKE_SILENT ? NULL :
		      "ok drain 0=timeout 1=ok 2=ok 3=ok\n";
	else if (!strncmp(line, "clear", 5))
		rep = "ok clear 0=cleared 1=cleared 2=cleared 3=cleared\n";
	else if (!strncmp(line, "stats", 5))
		rep = "ok stats g0.faults_raised=7 g0.faults_dropped=2\n";
	if (rep && write(fd, rep, strlen(rep)) < 0)
		return;
}

static void *fake_server(void *arg)
{
	struct pollfd p[32];
	int n = 1, i;

	(void)arg;
	p[0].fd = fake_listen;
	p[0].events = POLLIN;
	for (;;) {
		if (poll(p, (nfds_t)n, -1) < 0)
			continue;
		if ((p[0].revents & POLLIN) && n < 32) {
			p[n].fd = accept(fake_listen, NULL, NULL);
			p[n].events = POLLIN;
			if (p[n].fd >= 0)
				n++;
		}
		for (i = 1; i < n; i++) {
			char buf[512];
			ssize_t k;

			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			k = read(p[i].fd, buf, sizeof(buf) - 1);
			if (k <= 0) {
				close(p[i].fd);
				p[i] = p[--n];
				i--;
				continue;
			}
			buf[k] = '\0';
			fake_answer(p[i].fd, buf);	/* one request at a time per connection */
		}
	}
	return NULL;
}

static void fake_start(enum fake_mode mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pthread_t t;

	fake_mode = mode;
	snprintf(fake_path, sizeof(fake_path), "/tmp/hipsvm-fakehook.%d.sock", getpid());
	unlink(fake_path);
	strcpy(sa.sun_path, fake_path);
	fake_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(fake_listen >= 0);
	cr_assert_eq(bind(fake_listen, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(fake_listen, 16), 0);
	pthread_create(&t, NULL, fake_server, NULL);
	pthread_detach(t);
}

Test(hook, drain_timeout_is_reported)
{
	static char hookenv[160];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { hookenv, NULL };

	fake_start(FAKE_TIMEOUT);
	snprintf(hookenv, sizeof(hookenv), "HIPSVM_HOOK=unix:%s", fake_path);
	run(&R, RT_SIM, true, argv, env);
	unlink(fake_path);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.err, "drain of GPU 0 timed out"), "%s", R.err);
	cr_expect(strstr(R.report, "\"state\":\"connected\""), "%s", R.report);
	cr_expect(strstr(R.report, fake_path), "%s", R.report);
	cr_expect_geq(jnum(R.report, DEV(0), "drain_timeouts"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(1), "drain_timeouts"), 0, "%s", R.report);
	cr_expect_geq(jnum(R.report, DEV(0), "checkpoints_set"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(0), "raised"), 7, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(0), "dropped"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
}

Test(hook, silent_hook_never_hangs)
{
	static char hookenv[160];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { hookenv, "HIPSVM_DRAIN_TIMEOUT_MS=1", NULL };
	time_t t0 = time(NULL);

	fake_start(FAKE_SILENT);
	snprintf(hookenv, sizeof(hookenv), "HIPSVM_HOOK=unix:%s", fake_path);
	run(&R, RT_SIM, true, argv, env);
	unlink(fake_path);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_lt(time(NULL) - t0, 60);
	cr_expect(strstr(R.err, "checkpoint hook request failed"), "%s", R.err);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "coordinated"), 0, "%s", R.report);
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 3, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 2, "%s", R.report);
}

Test(hook, verbose_prints_the_option_table)
{
	const char *argv[] = { prog("pl_target"), "internal", NULL };
	const char *env[] = { "HIPSVM_VERBOSE=yes", "HIPSVM_POLICY=map-all", NULL };

	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.err, "HIPSVM_DRAIN_TIMEOUT_MS="), "%s", R.err);
	cr_expect(strstr(R.err, "policy map-all"), "%s", R.err);
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
	cr_expect(d && c && u && d < c && c < u, "%s", tr);
	cr_expect(strstr(tr, "\"ev\":\"free\""), "%s", tr);
	cr_expect(strstr(tr, "\"ev\":\"faults\",\"dev\":0,\"raised\":"), "%s", tr);
	for (line = strtok_r(tr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cr_expect(!strncmp(line, "{\"ts_ns\":", 9), "%s", line);
		cr_expect_eq(line[strlen(line) - 1], '}', "%s", line);
	}
}
