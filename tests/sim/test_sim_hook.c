/* SPDX-License-Identifier: MIT */
/*
 * test_sim_hook.c - the simulator's hook server (src/shared/proto.h) spoken to over
 * its socket: every command, malformed input, the checkpoint filter seen
 * from outside (faults held in a disabled ring, then released), drain's
 * per-GPU results, the event log, and a clock that wraps at 2^48.
 */
#include <hip/hip_runtime_api.h>
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hipsvm_sim.h"
#include "shared/proto.h"
#include "sim_test_util.h"

#define PAGE 4096u

TestSuite(hook, .timeout = 60);

static uint64_t inject(int fd, unsigned gpu, const void *addr)
{
	char line[96];
	struct hipsvm_reply r;
	char key[8];

	snprintf(line, sizeof(line), "inject %u now 0x%lx w\n", gpu, (unsigned long)(uintptr_t)addr);
	r = parse(req(fd, line));
	cr_assert_eq(r.status, 0);
	snprintf(key, sizeof(key), "%u", gpu);
	return num(&r, key);
}

Test(hook, version_and_gpus)
{
	int fd = hook_connect();

	cr_expect_str_eq(req(fd, "version\n"), "ok version 2 hipsvm-hook\n");
	cr_expect_str_eq(req(fd, "gpus\n"), "ok gpus n=4\n");
	close(fd);
}

Test(hook, malformed_changes_nothing)
{
	static const char *const bad[] = {
		"bogus\n", "set\n", "set 0 0x1000\n", "drain 0 abc\n", "clear 0=\n",
		"inject 0 now\n", "ring 0 ih7 on\n", "set 0-\n", "\n", "version extra\n",
	};
	struct hipsvm_reply r;
	int fd = hook_connect();
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect(strncmp(req(fd, bad[i]), "err EINVAL", 10) == 0, "\"%s\" refused", bad[i]);
	r = parse(req(fd, "stats\n"));
	cr_expect_eq(num(&r, "sets"), 0);
	cr_expect_eq(num(&r, "drains"), 0);
	cr_expect_eq(num(&r, "clears"), 0);
	cr_expect_eq(num(&r, "faults_raised"), 0);
	close(fd);
}

Test(hook, long_line_refused_connection_survives)
{
	char line[600];
	int fd = hook_connect();

	memset(line, 'x', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	cr_expect(strncmp(req(fd, line), "err EINVAL", 10) == 0);
	cr_expect_str_eq(req(fd, "version\n"), "ok version 2 hipsvm-hook\n");
	close(fd);
}

Test(hook, set_on_empty_rings_records_nothing)
{
	int fd = hook_connect();

	cr_expect_str_eq(req(fd, "set 0,2\n"), "ok set 0=none 2=none\n");
	cr_expect_str_eq(req(fd, "drain all\n"), "ok drain 0=ok 1=ok 2=ok 3=ok\n");
	cr_expect_str_eq(req(fd, "clear 0\n"), "ok clear 0=kept\n");
	close(fd);
}

Test(hook, filter_drops_stale_handles_fresh)
{
	struct hipsvm_sim_stats s;
	char *m, line[64];
	uint64_t t[4];
	int fd = hook_connect(), i;

	cr_assert_eq(hipMallocManaged((void **)&m, 4 * PAGE, hipMemAttachGlobal), hipSuccess);
	/* hold three faults in ih1, set the checkpoint on them, then raise a
	 * fourth after it and let the handler run */
	cr_expect_str_eq(req(fd, "ring 1 ih1 off\n"), "ok ring\n");
	for (i = 0; i < 3; i++)
		t[i] = inject(fd, 1, m + i * PAGE);
	snprintf(line, sizeof(line), "ok set 1=0x%llx\n", (unsigned long long)t[2]);
	cr_expect_str_eq(req(fd, "set 1\n"), line);
	cr_expect_eq(hipsvmSimGetStats(1, &s), 0);
	cr_expect_eq(s.checkpoint_ts, t[2]);
	t[3] = inject(fd, 1, m + 3 * PAGE);
	cr_expect_gt(t[3], t[2]);
	cr_expect_str_eq(req(fd, "ring 1 ih1 on\n"), "ok ring\n");
	cr_expect_str_eq(req(fd, "drain 1\n"), "ok drain 1=ok\n");
	cr_assert_eq(hipsvmSimGetStats(1, &s), 0);
	cr_expect_eq(s.faults_dropped, 3, "faults at or before the checkpoint are dropped");
	cr_expect_eq(s.faults_handled, 1);
	cr_expect_eq(s.faults_stale_handled, 0);
	cr_expect_eq(s.checkpoint_ts, 0, "the first newer fault clears the checkpoint");
	cr_expect_eq(hipsvmSimIsMapped(1, m), 0);
	cr_expect_eq(hipsvmSimIsMapped(1, m + 3 * PAGE), 1);
	/* a dropped fault is retried by the GPU and then served */
	cr_expect_eq(hipsvmSimAccess(1, m, 4 * PAGE, 0), hipSuccess);
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

Test(hook, clear_only_the_expected_value)
{
	char line[64];
	uint64_t t;
	int fd = hook_connect();

	cr_expect_str_eq(req(fd, "ring 0 ih1 off\n"), "ok ring\n");
	t = inject(fd, 0, (void *)0x10000);
	snprintf(line, sizeof(line), "ok set 0=0x%llx\n", (unsigned long long)t);
	cr_expect_str_eq(req(fd, "set 0\n"), line);
	snprintf(line, sizeof(line), "clear 0=0x%llx\n", (unsigned long long)t + 1);
	cr_expect_str_eq(req(fd, line), "ok clear 0=kept\n");
	snprintf(line, sizeof(line), "clear 0=0x%llx\n", (unsigned long long)t);
	cr_expect_str_eq(req(fd, line), "ok clear 0=cleared\n");
	cr_expect_str_eq(req(fd, "ring 0 ih1 on\n"), "ok ring\n");
	close(fd);
}

/* One server semantics for the simulator and the module (src/shared/hooksrv.c): a
 * GPU that does not exist answers nodev to set too (it used to be left out
 * of the reply silently here, while the module said nodev). */
Test(hook, absent_gpu_is_nodev_for_set_clear_drainclear)
{
	int fd = hook_connect();

	cr_expect_str_eq(req(fd, "set 0,9\n"), "ok set 0=none 9=nodev\n");
	cr_expect_str_eq(req(fd, "clear 1,12\n"), "ok clear 1=kept 12=nodev\n");
	cr_expect_str_eq(req(fd, "drainclear 2,9=5\n"), "ok drainclear 2=ok 9=nodev\n");
	cr_expect(strncmp(req(fd, "inject 9 now 0x1000\n"), "err ENODEV", 10) == 0);
	cr_expect(strncmp(req(fd, "drain 0 600001\n"), "err EINVAL", 10) == 0,
		  "one maximum for the drain timeout");
	close(fd);
}

/* drainclear: drain, then clear the GPUs given a value whose drain passed,
 * each only if its checkpoint is still that value; a timed-out GPU keeps it. */
Test(hook, drainclear_clears_what_its_drain_passed)
{
	char line[128], want[128];
	uint64_t t1, t2;
	int fd = hook_connect();

	cr_expect_str_eq(req(fd, "ring 1 ih1 off\n"), "ok ring\n");
	cr_expect_str_eq(req(fd, "ring 2 ih1 off\n"), "ok ring\n");
	t1 = inject(fd, 1, (void *)0x10000);
	t2 = inject(fd, 2, (void *)0x20000);
	snprintf(want, sizeof(want), "ok set 1=0x%llx 2=0x%llx\n", (unsigned long long)t1,
		 (unsigned long long)t2);
	cr_expect_str_eq(req(fd, "set 1-2\n"), want);
	cr_expect_str_eq(req(fd, "ring 1 ih1 on\n"), "ok ring\n");
	/* GPU 2's ring stays off: its drain answers nodev, and it is kept */
	snprintf(line, sizeof(line), "drainclear 0,1=0x%llx,2=0x%llx 200\n", (unsigned long long)t1,
		 (unsigned long long)t2);
	cr_expect_str_eq(req(fd, line), "ok drainclear 0=ok 1=ok/cleared 2=nodev\n");
	cr_expect_str_eq(req(fd, "ring 2 ih1 on\n"), "ok ring\n");
	snprintf(line, sizeof(line), "drainclear 2=0x%llx\n", (unsigned long long)(t2 + 1));
	cr_expect_str_eq(req(fd, line), "ok drainclear 2=ok/kept\n", "not its value: kept");
	snprintf(line, sizeof(line), "drainclear 2=0x%llx\n", (unsigned long long)t2);
	cr_expect_str_eq(req(fd, line), "ok drainclear 2=ok/cleared\n");
	close(fd);
}

Test(hook, drain_nodev_and_timeout)
{
	int fd = hook_connect();

	cr_expect_str_eq(req(fd, "ring 2 ih1 off\n"), "ok ring\n");
	cr_expect_str_eq(req(fd, "drain 1-2\n"), "ok drain 1=ok 2=nodev\n");
	cr_expect_str_eq(req(fd, "ring 2 ih1 on\n"), "ok ring\n");
	cr_expect_str_eq(req(fd, "drain 2 50\n"), "ok drain 2=ok\n");
	cr_expect_str_eq(req(fd, "drain 9\n"), "ok drain 9=nodev\n");
	close(fd);
}

/* A reply holds 96 tokens, 8 keys per GPU: a plain "stats" lists the
 * first 11 GPUs, "stats <gpus>" the ones asked for (the shim asks 8 at a
 * time), at most 11 again. */
Test(hook, stats_of_chosen_gpus)
{
	struct hipsvm_reply r;
	void *m;
	int fd;

	setenv("HIPSVM_SIM_GPUS", "16", 1);
	fd = hook_connect();
	cr_assert_eq(hipMallocManaged(&m, PAGE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipsvmSimAccess(13, m, PAGE, 1), hipSuccess);
	r = parse(req(fd, "stats\n"));
	cr_expect(hipsvm_reply_get(&r, "g10.faults_raised") && !hipsvm_reply_get(&r, "g11.sets"),
		  "default: GPUs 0-10");
	r = parse(req(fd, "stats 8-15\n"));
	cr_expect_eq(r.status, 0);
	cr_expect_eq(num(&r, "faults_raised"), 1);
	cr_expect_eq(num(&r, "g13.faults_raised"), 1);
	cr_expect(hipsvm_reply_get(&r, "g15.sets") && !hipsvm_reply_get(&r, "g7.sets"),
		  "GPUs 8-15 alone");
	r = parse(req(fd, "stats all\n"));
	cr_expect(hipsvm_reply_get(&r, "g10.sets") && !hipsvm_reply_get(&r, "g11.sets"),
		  "more than a reply holds: the first 11 asked for");
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

Test(hook, apu_has_no_ih1)
{
	int fd;

	setenv("HIPSVM_SIM_APU", "1", 1);
	fd = hook_connect();
	cr_expect(strncmp(req(fd, "ring 0 ih1 off\n"), "err ENODEV", 10) == 0);
	cr_expect_str_eq(req(fd, "drain 0\n"), "ok drain 0=nodev\n",
			 "an APU without the CAM has no ring to drain");
	close(fd);
}

Test(hook, retry_cam_drains_ih0_and_soft)
{
	int fd;

	setenv("HIPSVM_SIM_RETRY_CAM", "1", 1);
	fd = hook_connect();
	cr_expect_str_eq(req(fd, "drain 0\n"), "ok drain 0=ok\n");
	cr_expect_str_eq(req(fd, "ring 0 soft off\n"), "ok ring\n");
	cr_expect_str_eq(req(fd, "drain 0\n"), "ok drain 0=nodev\n");
	close(fd);
}

/* With the retry CAM a drain covers the faults still in ih0 when it starts:
 * ih0 first, then a fresh checkpoint of ih_soft, which by then holds what
 * ih0 passed on. (Both checkpoints used to be taken at the start: with
 * ih_soft empty then, the drain was over after the first pass over it.) */
Test(hook, retry_cam_drain_covers_what_ih0_held)
{
	struct hipsvm_sim_stats s;
	unsigned i, n = 6000, round;
	int fd;

	/* Enough faults that working them off takes longer than the drain's
	 * reply takes to arrive: an early answer is then seen in the counters. */
	setenv("HIPSVM_SIM_RETRY_CAM", "1", 1);
	setenv("HIPSVM_SIM_RING_SIZE", "1M", 1);
	fd = hook_connect();
	for (round = 0; round < 15; round++) {
		uint64_t before;

		cr_assert_eq(hipsvmSimGetStats(1, &s), 0);
		before = s.faults_handled + s.faults_dropped;
		cr_expect_str_eq(req(fd, "ring 1 ih0 off\n"), "ok ring\n");
		for (i = 0; i < n; i++)
			inject(fd, 1, (void *)(uintptr_t)(0x7e0000000000ull + (uint64_t)i * PAGE));
		cr_expect_str_eq(req(fd, "ring 1 ih0 on\n"), "ok ring\n");
		cr_expect_str_eq(req(fd, "drain 1 10000\n"), "ok drain 1=ok\n");
		cr_assert_eq(hipsvmSimGetStats(1, &s), 0);
		cr_expect_geq(s.faults_handled + s.faults_dropped, before + n,
			      "round %u: the drain answered with %llu of %u faults filtered", round,
			      (unsigned long long)(s.faults_handled + s.faults_dropped - before), n);
	}
	close(fd);
}

static bool log_has(const char *log, const char *what, unsigned long *seq)
{
	const char *p = log;
	size_t n = strlen(what);

	while ((p = strchr(p, ' ')) != NULL) {
		unsigned long s;
		int off = 0;

		p++;
		if (sscanf(p, "%lu:%n", &s, &off) == 1 && off > 0 && strncmp(p + off, what, n) == 0 &&
		    (p[off + n] == ' ' || p[off + n] == '\n')) {
			*seq = s;
			return true;
		}
	}
	return false;
}

Test(hook, log_orders_set_unmap_drain_clear)
{
	unsigned long s_set = 0, s_drain = 0, s_clear = 0;
	const char *log;
	char line[96];
	char *m;
	int fd = hook_connect();

	cr_assert_eq(hipMallocManaged((void **)&m, 8 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipsvmSimAccess(3, m, 8 * PAGE, 1), hipSuccess);
	snprintf(line, sizeof(line), "set 3 0x%lx 0x%x\n", (unsigned long)(uintptr_t)(m + 2 * PAGE),
		 2 * PAGE);
	cr_expect_str_eq(req(fd, line), "ok set 3=none\n");
	cr_expect_eq(hipsvmSimIsMapped(3, m + 2 * PAGE), 0, "set unmaps the range from the GPU");
	cr_expect_eq(hipsvmSimIsMapped(3, m + 3 * PAGE), 0);
	cr_expect_eq(hipsvmSimIsMapped(3, m + 4 * PAGE), 1);
	cr_assert_eq(munmap(m + 2 * PAGE, 2 * PAGE), 0);
	cr_expect_str_eq(req(fd, "drain 3\n"), "ok drain 3=ok\n");
	cr_expect_str_eq(req(fd, "clear 3\n"), "ok clear 3=kept\n");
	log = req(fd, "log\n");
	cr_expect(log_has(log, "set:3:none", &s_set), "%s", log);
	cr_expect(log_has(log, "drain:3:unmapped", &s_drain), "%s", log);
	cr_expect(log_has(log, "clear:3:kept", &s_clear), "%s", log);
	cr_expect(s_set < s_drain && s_drain < s_clear, "%s", log);
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

/* The word of the last "drain" event of GPU g in a log reply, into out
 * ("" when there is none). */
static void last_drain_word(const char *log, unsigned g, char *out, size_t cap)
{
	char what[32];
	const char *p = log;
	size_t n;

	snprintf(what, sizeof(what), ":drain:%u:", g);
	n = strlen(what);
	out[0] = '\0';
	while ((p = strstr(p, what)) != NULL) {
		size_t k = strcspn(p + n, " \n");

		snprintf(out, cap, "%.*s", (int)k, p + n);
		p += n;
	}
}

/* A client that goes away between its set and its drain (killed, say):
 * the server finishes its unmap for it, as its drainclear would have. Its
 * checkpoint would otherwise stay until a newer fault came, and its range
 * be re-invalidated by every later drain of the GPU. */
Test(hook, gone_before_its_drain_is_finished_by_the_server)
{
	struct hipsvm_sim_stats s;
	char *m, line[96], want[64], word[32];
	const char *log;
	uint64_t t;
	int fd = hook_connect(), i;

	cr_assert_eq(hipMallocManaged((void **)&m, 4 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipsvmSimAccess(1, m, 4 * PAGE, 1), hipSuccess);
	/* a fault held in ih1 gives the set a checkpoint (a handler pass
	 * that began before the ring went off may still take the first IV:
	 * then the set finds the ring empty, and the next IV stays) */
	cr_expect_str_eq(req(fd, "ring 1 ih1 off\n"), "ok ring\n");
	snprintf(line, sizeof(line), "set 1 0x%lx 0x%x\n", (unsigned long)(uintptr_t)(m + PAGE), PAGE);
	for (i = 0; i < 10; i++) {
		t = inject(fd, 1, m);
		snprintf(want, sizeof(want), "ok set 1=0x%llx\n", (unsigned long long)t);
		if (!strcmp(req(fd, line), want))
			break;
	}
	cr_assert_lt(i, 10, "a set with a fault held in the ring records its timestamp");
	cr_expect_eq(hipsvmSimIsMapped(1, m + PAGE), 0, "set unmaps the range from the GPU");
	cr_expect_str_eq(req(fd, "ring 1 ih1 on\n"), "ok ring\n");
	cr_assert_eq(hipsvmSimGetStats(1, &s), 0);
	cr_expect_eq(s.checkpoint_ts, t, "the held fault is not newer: the checkpoint stays");
	close(fd);	/* no drain, no clear */
	for (i = 0; i < 500; i++) {
		cr_assert_eq(hipsvmSimGetStats(1, &s), 0);
		if (!s.checkpoint_ts)
			break;
		usleep(10000);
	}
	cr_expect_eq(s.checkpoint_ts, 0, "the server cleared the checkpoint of the client gone");
	fd = hook_connect();
	cr_expect_str_eq(req(fd, "drain 1\n"), "ok drain 1=ok\n");
	log = req(fd, "log\n");
	last_drain_word(log, 1, word, sizeof(word));
	cr_expect_str_eq(word, "ok", "no range of the client gone is left to invalidate: %s", log);
	cr_expect(strstr(log, ":clear:1:cleared") != NULL, "%s", log);
	cr_expect_eq(hipsvmSimIsMapped(1, m + PAGE), 0);
	cr_expect_eq(hipsvmSimIsMapped(1, m + 2 * PAGE), 1, "the rest stays mapped");
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

Test(hook, stats_totals_and_per_gpu)
{
	struct hipsvm_reply r;
	void *m;
	int fd = hook_connect();

	cr_assert_eq(hipMallocManaged(&m, 3 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipsvmSimAccess(2, m, 3 * PAGE, 1), hipSuccess);
	req(fd, "drain all\n");
	r = parse(req(fd, "stats\n"));
	cr_expect_eq(r.status, 0);
	cr_expect_eq(num(&r, "faults_raised"), 3);
	cr_expect_eq(num(&r, "faults_handled"), 3);
	cr_expect_eq(num(&r, "g2.faults_raised"), 3);
	cr_expect_eq(num(&r, "g0.faults_raised"), 0);
	cr_expect_eq(num(&r, "drains"), 4);
	cr_expect_eq(num(&r, "g3.drains"), 1);
	cr_expect_eq(num(&r, "faults_dropped"), 0);
	cr_expect_eq(num(&r, "faults_real"), 0);
	cr_expect_eq(num(&r, "drain_timeouts"), 0);
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

Test(hook, checkpoint_across_the_wrap)
{
	struct hipsvm_sim_stats s;
	uint64_t t[24];
	char *m;
	int fd, i;

	setenv("HIPSVM_SIM_TS_START", "0xFFFFFFFFFFF4", 1);
	fd = hook_connect();
	cr_assert_eq(hipMallocManaged((void **)&m, 24 * PAGE, hipMemAttachGlobal), hipSuccess);
	req(fd, "ring 0 ih1 off\n");
	for (i = 0; i < 23; i++)
		t[i] = inject(fd, 0, m + i * PAGE);
	cr_expect_gt(t[0], t[22], "the clock wrapped: 0x%llx then 0x%llx",
		     (unsigned long long)t[0], (unsigned long long)t[22]);
	req(fd, "set 0\n");
	t[23] = inject(fd, 0, m + 23 * PAGE);
	req(fd, "ring 0 ih1 on\n");
	cr_expect_str_eq(req(fd, "drain 0\n"), "ok drain 0=ok\n");
	cr_assert_eq(hipsvmSimGetStats(0, &s), 0);
	cr_expect_eq(s.faults_dropped, 23, "every fault before the checkpoint, across the wrap");
	cr_expect_eq(s.faults_handled, 1);
	cr_expect_eq(hipsvmSimIsMapped(0, m + 23 * PAGE), 1);
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

Test(hook, filesystem_socket_path)
{
	char want[64];
	int fd;

	setenv("HIPSVM_SIM_SOCKET", "/tmp/hipsvm-sim-test.%p.sock", 1);
	snprintf(want, sizeof(want), "/tmp/hipsvm-sim-test.%d.sock", (int)getpid());
	cr_expect_str_eq(hipsvmSimSocketPath(), want);
	fd = hook_connect();
	cr_expect_str_eq(req(fd, "gpus\n"), "ok gpus n=4\n");
	close(fd);
	unlink(want);
}

Test(hook, server_off)
{
	int n = 0;

	setenv("HIPSVM_SIM_SERVE", "0", 1);
	cr_expect_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_expect_str_eq(hipsvmSimSocketPath(), "");
}
