/* SPDX-License-Identifier: MIT */
/*
 * test_sim_race.c - the race the checkpoint exists for, and the kernel's SVM
 * unmap scenarios, driven from outside as the shim drives them: GPU agents
 * keep faulting on a managed range while the test sends "set" over the hook
 * socket, munmaps the range, then "drain" and "clear".
 *
 * Afterwards no stale fault (at or before the checkpoint) was handled, no
 * page of the range is still mapped on a GPU (a stale fault handled between
 * the GPU unmap and the CPU unmap would have left one), every fault raised
 * was accounted for (handled, real or dropped: none lost), and a fresh
 * access is a real fault.
 *
 * Random pauses use a fixed seed, printed, overridable by HIPSVM_TEST_SEED.
 */
#include <hip/hip_runtime_api.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim_test_util.h"

#define PAGE 4096u

TestSuite(race, .timeout = 120);

static unsigned seed(void)
{
	const char *s = getenv("HIPSVM_TEST_SEED");
	unsigned v = s ? (unsigned)strtoul(s, NULL, 0) : 20261129u;

	cr_log_info("seed %u (HIPSVM_TEST_SEED)", v);
	return v;
}

static struct hipsvm_sim_stats stats(int dev)
{
	struct hipsvm_sim_stats s;

	cr_assert_eq(hipsvmSimGetStats(dev, &s), 0);
	return s;
}

/* set <gpus> addr len; returns the "ok set ..." reply parsed */
static struct hipsvm_reply do_set(int fd, const char *gpus, void *addr, size_t len)
{
	char line[128];

	snprintf(line, sizeof(line), "set %s 0x%lx 0x%lx\n", gpus, (unsigned long)(uintptr_t)addr,
		 (unsigned long)len);
	return parse(req(fd, line));
}

/* clear with N=TS for each GPU that got a checkpoint in the set reply */
static void do_clear(int fd, const struct hipsvm_reply *set, unsigned ngpu)
{
	char line[256];
	size_t n = (size_t)snprintf(line, sizeof(line), "clear ");
	unsigned k, items = 0;

	for (k = 0; k < set->ntok; k++) {
		if (strcmp(set->tok[k].val, "none") == 0)
			continue;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s=%s", items++ ? "," : "",
				      set->tok[k].key, set->tok[k].val);
	}
	if (!items) {
		for (k = 0; k < ngpu; k++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%u", k ? "," : "", k);
	}
	snprintf(line + n, sizeof(line) - n, "\n");
	cr_expect(strncmp(req(fd, line), "ok clear", 8) == 0, "%s", line);
}

static void expect_accounted(int dev)
{
	struct hipsvm_sim_stats s = stats(dev);

	cr_expect_eq(s.faults_stale_handled, 0, "GPU %d: no stale fault handled", dev);
	cr_expect_eq(s.faults_raised, s.faults_handled + s.faults_dropped,
		     "GPU %d: every fault accounted for (raised %llu handled %llu dropped %llu)", dev,
		     (unsigned long long)s.faults_raised, (unsigned long long)s.faults_handled,
		     (unsigned long long)s.faults_dropped);
	cr_expect_eq(s.drain_timeouts, 0);
}

/* Has another mapping taken the address since the test unmapped it? Any
 * thread may mmap into the hole (under ASan its own bookkeeping does, within
 * a few calls). The simulator forgets the pages the unmap took at the drain
 * that follows it, but a page reused before that drain is a new mapping
 * that a fault newer than the checkpoint restores normally (docs/kernel.md),
 * not a stale one: such pages are left out of the checks below. */
/* Under ASan a page of the hole may also have been taken and given back
 * again (its allocator maps and unmaps bookkeeping of its own) between the
 * unmap and this check, and a GPU fault in that window legitimately mapped
 * it: mincore now cannot tell. There, a GPU mapping after the unmap is left
 * to the invariant that matters and that stays checked in every build: no
 * fault at or before a checkpoint was handled (expect_accounted). */
#if defined(__SANITIZE_ADDRESS__)
#define HOLES_REUSED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOLES_REUSED 1
#endif
#endif
#ifndef HOLES_REUSED
#define HOLES_REUSED 0
#endif

static bool cpu_mapped_again(const char *p)
{
	unsigned char v;

	return mincore((void *)((uintptr_t)p & ~(uintptr_t)(PAGE - 1)), PAGE, &v) == 0;
}

static size_t reused_pages(const char *m, size_t len)
{
	size_t off, n = 0;

	for (off = 0; off < len; off += PAGE)
		n += cpu_mapped_again(m + off);
	if (n)
		cr_log_info("%zu pages of the unmapped range were mapped again by someone", n);
	return n;
}

/* cpu_unmapped: the test has unmapped the range from the CPU (otherwise
 * only the set has unmapped it from the GPUs, and every page counts). */
static void expect_unmapped(const char *m, size_t len, int ngpu, bool cpu_unmapped)
{
	size_t off, reused = 0;
	int d;

	for (d = 0; d < ngpu; d++)
		for (off = 0; off < len; off += PAGE) {
			int mapped = hipsvmSimIsMapped(d, m + off);

			if (mapped && cpu_unmapped && (HOLES_REUSED || cpu_mapped_again(m + off))) {
				reused++;
				continue;
			}
			cr_expect_eq(mapped, 0, "GPU %d still maps page %zu after the unmap", d,
				     off / PAGE);
		}
	if (reused)
		cr_log_info("%zu GPU mappings of pages that another mapping reused", reused);
}

static void agents_race(void)
{
	unsigned s = seed(), iter;
	uint64_t dropped = 0;
	int fd = hook_connect();

	for (iter = 0; iter < 12; iter++) {
		struct hipsvm_sim_agent *a[2];
		struct hipsvm_sim_agent_result r[2];
		struct hipsvm_reply set;
		size_t len = 128 * PAGE;
		char *m;
		int d;

		cr_assert_eq(hipMallocManaged((void **)&m, len, hipMemAttachGlobal), hipSuccess);
		for (d = 0; d < 2; d++)
			cr_assert_eq(hipsvmSimAgentStart(d, m, len, 1, &a[d]), 0);
		/* let the agents get into their first round of faults */
		usleep((useconds_t)(rand_r(&s) % 3000));
		set = do_set(fd, "0,1", m, len);
		cr_assert_eq(set.status, 0);
		cr_assert_eq(munmap(m, len), 0);
		cr_expect_str_eq(req(fd, "drain 0,1\n"), "ok drain 0=ok 1=ok\n");
		do_clear(fd, &set, 2);
		usleep((useconds_t)(rand_r(&s) % 2000));
		for (d = 0; d < 2; d++)
			cr_assert_eq(hipsvmSimAgentStop(a[d], &r[d]), 0);
		hipsvmSimQuiesce();
		expect_unmapped(m, len, 2, true);
		for (d = 0; d < 2; d++) {
			expect_accounted(d);
			if (!HOLES_REUSED && !cpu_mapped_again(m + (size_t)d * PAGE))
				cr_expect_eq(hipsvmSimAccess(d, m + (size_t)d * PAGE, PAGE, 0),
					     hipErrorIllegalAddress, "a fresh fault sees the unmap");
		}
		dropped = stats(0).faults_dropped + stats(1).faults_dropped;
		/* the simulator unmaps only the pages that it still owns */
		cr_expect_eq(hipFree(m), hipSuccess);
	}
	cr_log_info("faults dropped by checkpoints over all rounds: %llu", (unsigned long long)dropped);
	close(fd);
}

Test(race, agents_fault_while_range_is_unmapped)
{
	agents_race();
}

Test(race, agents_race_across_the_clock_wrap)
{
	/* 12 rounds of 2 x 128 pages: the clocks pass 2^48 early on */
	setenv("HIPSVM_SIM_TS_START", "0xFFFFFFFFFE00", 1);
	agents_race();
	cr_expect_lt(stats(0).clock, 0x100000, "the clock wrapped");
}

Test(race, agents_race_with_the_retry_cam)
{
	/* retry faults on ih0, delegated to ih_soft; drain waits on both */
	setenv("HIPSVM_SIM_RETRY_CAM", "1", 1);
	agents_race();
}

Test(race, faults_held_in_the_ring_are_dropped_not_served)
{
	struct hipsvm_sim_agent *a;
	struct hipsvm_sim_agent_result r;
	struct hipsvm_reply set;
	struct hipsvm_sim_stats st;
	size_t len = 16 * PAGE;
	char *m;
	int fd = hook_connect();

	/* The faults raised on the old mapping are still in ih1 when the
	 * range is unmapped: without the checkpoint the handler would serve
	 * them after the unmap (a spurious real fault, or a stale mapping). */
	cr_assert_eq(hipMallocManaged((void **)&m, len, hipMemAttachGlobal), hipSuccess);
	cr_expect_str_eq(req(fd, "ring 0 ih1 off\n"), "ok ring\n");
	cr_assert_eq(hipsvmSimAgentStart(0, m, len, 0, &a), 0);
	while (stats(0).faults_raised < 1)
		usleep(500);
	set = do_set(fd, "0", m, len);
	cr_assert_eq(set.status, 0);
	cr_expect_neq(strcmp(hipsvm_reply_get(&set, "0"), "none"), 0, "a fault was pending");
	cr_assert_eq(munmap(m, len), 0);
	cr_expect_str_eq(req(fd, "ring 0 ih1 on\n"), "ok ring\n");
	cr_expect_str_eq(req(fd, "drain 0\n"), "ok drain 0=ok\n");
	do_clear(fd, &set, 1);
	while (stats(0).faults_real < 1)
		usleep(500);
	cr_assert_eq(hipsvmSimAgentStop(a, &r), 0);
	hipsvmSimQuiesce();
	st = stats(0);
	cr_expect_geq(st.faults_dropped, 1, "the held faults were dropped");
	/* a page that another mapping took before the drain is restored
	 * normally by a fault newer than the checkpoint: not a stale one */
	if (!HOLES_REUSED && !reused_pages(m, len))
		cr_expect_eq(st.faults_mapped, 0, "nothing was mapped from a stale fault");
	cr_expect_geq(r.real_faults, 1, "the agent's retries see the unmap");
	expect_accounted(0);
	expect_unmapped(m, len, 1, true);
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

Test(race, partial_unmap_of_the_middle)
{
	struct hipsvm_sim_stats before;
	struct hipsvm_reply set;
	size_t len = 16 * PAGE;
	char *m;
	int fd = hook_connect(), d;

	cr_assert_eq(hipMallocManaged((void **)&m, len, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipsvmSimAccess(0, m, len, 1), hipSuccess);
	cr_assert_eq(hipsvmSimAccess(2, m, len, 1), hipSuccess);
	set = do_set(fd, "0,2", m + 4 * PAGE, 8 * PAGE);
	cr_assert_eq(munmap(m + 4 * PAGE, 8 * PAGE), 0);
	cr_expect_str_eq(req(fd, "drain 0,2\n"), "ok drain 0=ok 2=ok\n");
	do_clear(fd, &set, 3);
	for (d = 0; d <= 2; d += 2) {
		before = stats(d);
		cr_expect_eq(hipsvmSimIsMapped(d, m), 1, "head stays mapped");
		cr_expect_eq(hipsvmSimIsMapped(d, m + 12 * PAGE), 1, "tail stays mapped");
		cr_expect_eq(hipsvmSimAccess(d, m, 4 * PAGE, 1), hipSuccess);
		cr_expect_eq(hipsvmSimAccess(d, m + 12 * PAGE, 4 * PAGE, 0), hipSuccess);
		cr_expect_eq(stats(d).faults_raised, before.faults_raised, "no fault on head/tail");
		expect_unmapped(m + 4 * PAGE, 8 * PAGE, 3, true);
		cr_expect_eq(hipsvmSimAccess(d, m + 6 * PAGE, PAGE, 0), hipErrorIllegalAddress);
	}
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

Test(race, unmap_of_a_range_several_gpus_mapped)
{
	struct hipsvm_reply set;
	const char *log;
	size_t len = 8 * PAGE;
	char *m;
	int fd = hook_connect(), d;

	cr_assert_eq(hipMallocManaged((void **)&m, len, hipMemAttachGlobal), hipSuccess);
	for (d = 0; d < 4; d++)
		cr_assert_eq(hipsvmSimAccess(d, m, len, 1), hipSuccess);
	set = do_set(fd, "all", m, len);
	cr_expect_eq(set.status, 0);
	expect_unmapped(m, len, 4, false);
	cr_assert_eq(munmap(m, len), 0);
	cr_expect_str_eq(req(fd, "drain all\n"), "ok drain 0=ok 1=ok 2=ok 3=ok\n");
	do_clear(fd, &set, 4);
	log = req(fd, "log\n");
	for (d = 0; d < 4; d++) {
		char want[32];

		snprintf(want, sizeof(want), ":drain:%d:unmapped", d);
		cr_expect(strstr(log, want) != NULL, "%s in %s", want, log);
		cr_expect_eq(hipsvmSimAccess(d, m, PAGE, 0), hipErrorIllegalAddress);
		expect_accounted(d);
	}
	cr_expect_eq(hipFree(m), hipSuccess);
	close(fd);
}

Test(race, prefetch_of_a_freed_range_fails)
{
	void *m;

	cr_assert_eq(hipMallocManaged(&m, 4 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_expect_eq(hipMemPrefetchAsync(m, 4 * PAGE, 1, NULL), hipSuccess);
	cr_expect_eq(hipDeviceSynchronize(), hipSuccess);
	cr_expect_eq(hipsvmSimIsMapped(1, m), 1);
	cr_assert_eq(hipFree(m), hipSuccess);
	cr_expect_eq(hipMemPrefetchAsync(m, 4 * PAGE, 1, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipsvmSimIsMapped(1, m), 0);
}
