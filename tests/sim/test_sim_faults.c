/* SPDX-License-Identifier: MIT */
/*
 * test_sim_faults.c - GPUs, rings and lazy mapping: a GPU access to a page
 * not mapped on that GPU raises a retry fault that the handler serves, once
 * per page per GPU; contexts decide which GPUs map what; the ring variants
 * (ih1, retry CAM, APU) and a clock that starts just below 2^48 all serve
 * every fault.
 */
#include <hip/hip_runtime_api.h>
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hipsvm_sim.h"

#define PAGE 4096u

TestSuite(faults, .timeout = 60);

static struct hipsvm_sim_stats stats(int dev)
{
	struct hipsvm_sim_stats s;

	cr_assert_eq(hipsvmSimGetStats(dev, &s), 0);
	return s;
}

Test(faults, lazy_mapping_once_per_page)
{
	struct hipsvm_sim_stats s;
	char *m;

	cr_assert_eq(hipMallocManaged((void **)&m, 16 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_expect_eq(hipsvmSimIsMapped(0, m), 0, "nothing mapped before a GPU touches it");
	cr_expect_eq(hipsvmSimAccess(0, m, 16 * PAGE, 1), hipSuccess);
	s = stats(0);
	cr_expect_eq(s.faults_raised, 16);
	cr_expect_eq(s.faults_mapped, 16);
	cr_expect_eq(s.pages_mapped, 16);
	cr_expect_eq(s.faults_real, 0);
	cr_expect_eq(hipsvmSimAccess(0, m + 5, 16 * PAGE - 5, 0), hipSuccess);
	cr_expect_eq(stats(0).faults_raised, 16, "no fault on mapped pages");
	cr_expect_eq(hipsvmSimIsMapped(0, m + 15 * PAGE), 1);
	cr_expect_eq(stats(1).faults_raised, 0, "other GPUs untouched");
	cr_expect_eq(hipFree(m), hipSuccess);
	cr_expect_eq(stats(0).pages_mapped, 0, "freed: gone from the page table");
}

Test(faults, host_context_three_gpus)
{
	char *m;
	int d;

	/* managed memory belongs to host_context: every GPU may map it */
	cr_assert_eq(hipMallocManaged((void **)&m, 8 * PAGE, hipMemAttachGlobal), hipSuccess);
	for (d = 0; d < 3; d++) {
		cr_expect_eq(hipsvmSimAccess(d, m, 8 * PAGE, 1), hipSuccess);
		cr_expect_eq(hipsvmSimAccess(d, m, 8 * PAGE, 0), hipSuccess);
	}
	for (d = 0; d < 3; d++) {
		cr_expect_eq(stats(d).faults_mapped, 8, "GPU %d faults once per page", d);
		cr_expect_eq(stats(d).faults_raised, 8);
	}
	cr_expect_eq(stats(3).faults_raised, 0);
	cr_expect_eq(hipFree(m), hipSuccess);
}

Test(faults, device_memory_is_primary_context)
{
	void *d;

	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 4 * PAGE), hipSuccess);
	cr_expect_eq(hipsvmSimAccess(1, d, 4 * PAGE, 1), hipSuccess);
	cr_expect_eq(stats(1).faults_raised, 0, "device memory is mapped on its GPU up front");
	cr_expect_eq(hipsvmSimAccess(0, d, PAGE, 1), hipErrorIllegalAddress,
		     "another GPU's memory is not in GPU 0's context");
	cr_expect_eq(stats(0).faults_real, 1);
	cr_expect_eq(hipFree(d), hipSuccess);
}

Test(faults, host_memory_mapped_everywhere)
{
	void *h;
	int d;

	cr_assert_eq(hipHostMalloc(&h, 4 * PAGE, 0), hipSuccess);
	for (d = 0; d < 4; d++) {
		cr_expect_eq(hipsvmSimAccess(d, h, 4 * PAGE, 1), hipSuccess);
		cr_expect_eq(stats(d).faults_raised, 0);
	}
	cr_expect_eq(hipHostFree(h), hipSuccess);
}

Test(faults, gone_address_is_a_real_fault)
{
	void *m;
	int x;

	cr_assert_eq(hipMallocManaged(&m, PAGE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipFree(m), hipSuccess);
	cr_expect_eq(hipsvmSimAccess(2, m, PAGE, 0), hipErrorIllegalAddress);
	cr_expect_eq(hipsvmSimAccess(2, &x, sizeof(x), 0), hipErrorIllegalAddress);
	cr_expect_eq(stats(2).faults_real, 2);
	cr_expect_eq(hipsvmSimAccess(7, &x, 4, 0), hipErrorInvalidDevice);
	cr_expect_eq(hipsvmSimAccess(0, NULL, 4, 0), hipErrorInvalidValue);
}

Test(faults, cpu_unmapped_page_is_real)
{
	char *m;

	/* a program's own munmap of part of a managed range: the GPU can no
	 * longer map those pages (restore_pages finds no VMA) */
	cr_assert_eq(hipMallocManaged((void **)&m, 4 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(munmap(m + PAGE, PAGE), 0);
	cr_expect_eq(hipsvmSimAccess(0, m, PAGE, 1), hipSuccess);
	cr_expect_eq(hipsvmSimAccess(0, m + PAGE, PAGE, 1), hipErrorIllegalAddress);
	cr_expect_eq(hipsvmSimAccess(0, m + 2 * PAGE, 2 * PAGE, 1), hipSuccess);
	cr_expect_eq(hipFree(m), hipSuccess);
}

Test(faults, vma_permission_decides)
{
	struct hipsvm_sim_stats s0;
	char *m;

	/* the kernel serves a fault only where the VMA allows the access
	 * (svm_fault_allowed: read always, write for a write fault);
	 * otherwise the fault is real, and nothing is mapped */
	struct utsname u;
	int maj = 0, min = 0;

	cr_assert_eq(uname(&u), 0);
	sscanf(u.release, "%d.%d", &maj, &min);
	if (maj < 6 || (maj == 6 && min < 11))
		cr_skip_test("kernel %s: no PROCMAP_QUERY, so a VMA's presence alone decides",
			     u.release);
	cr_assert_eq(hipMallocManaged((void **)&m, 4 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(mprotect(m, PAGE, PROT_NONE), 0);
	cr_assert_eq(mprotect(m + PAGE, PAGE, PROT_READ), 0);
	s0 = stats(3);
	cr_expect_eq(hipsvmSimAccess(3, m, PAGE, 0), hipErrorIllegalAddress, "PROT_NONE, read");
	cr_expect_eq(hipsvmSimAccess(3, m + PAGE, PAGE, 1), hipErrorIllegalAddress,
		     "PROT_READ, write");
	cr_expect_eq(stats(3).faults_real - s0.faults_real, 2);
	cr_expect_eq(stats(3).faults_mapped - s0.faults_mapped, 0);
	cr_expect_eq(hipsvmSimIsMapped(3, m), 0);
	cr_expect_eq(hipsvmSimIsMapped(3, m + PAGE), 0);
	cr_expect_eq(hipsvmSimAccess(3, m + PAGE, PAGE, 0), hipSuccess, "PROT_READ, read");
	cr_expect_eq(hipsvmSimAccess(3, m + 2 * PAGE, PAGE, 1), hipSuccess, "read-write, write");
	cr_expect_eq(stats(3).faults_mapped - s0.faults_mapped, 2);
	/* given back, the page faults again and is served */
	cr_assert_eq(mprotect(m, 2 * PAGE, PROT_READ | PROT_WRITE), 0);
	cr_expect_eq(hipsvmSimAccess(3, m, PAGE, 1), hipSuccess);
	cr_expect_eq(stats(3).faults_real - s0.faults_real, 2);
	cr_expect_eq(hipFree(m), hipSuccess);
}

static void run_variant(int gpus)
{
	char *m;
	int d;

	cr_assert_eq(hipMallocManaged((void **)&m, 64 * PAGE, hipMemAttachGlobal), hipSuccess);
	for (d = 0; d < gpus; d++) {
		cr_expect_eq(hipsvmSimAccess(d, m, 64 * PAGE, 1), hipSuccess);
		cr_expect_eq(stats(d).faults_mapped, 64);
		cr_expect_eq(stats(d).faults_dropped, 0);
	}
	cr_expect_eq(hipFree(m), hipSuccess);
}

Test(faults, retry_cam_ih0_to_soft)
{
	setenv("HIPSVM_SIM_RETRY_CAM", "1", 1);
	run_variant(2);
}

Test(faults, apu_without_ih1)
{
	int v = 0;

	setenv("HIPSVM_SIM_APU", "yes", 1);
	cr_expect_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeIntegrated, 0), hipSuccess);
	cr_expect_eq(v, 1);
	run_variant(2);
}

Test(faults, clock_wraps_at_2_48)
{
	struct hipsvm_sim_stats s;

	setenv("HIPSVM_SIM_TS_START", "0xFFFFFFFFFFE0", 1);
	cr_expect_eq(stats(0).clock, 0xFFFFFFFFFFE0ull);
	run_variant(1);
	s = stats(0);
	cr_expect_lt(s.clock, 0x1000, "the clock went past 2^48 and wrapped: 0x%llx",
		     (unsigned long long)s.clock);
}

Test(faults, xnack_off_maps_up_front)
{
	void *m;
	int v = 1;

	setenv("HIPSVM_SIM_XNACK", "off", 1);
	cr_expect_eq(hipDeviceGetAttribute(&v, hipDeviceAttributePageableMemoryAccess, 0), hipSuccess);
	cr_expect_eq(v, 0);
	cr_assert_eq(hipMallocManaged(&m, 4 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_expect_eq(hipsvmSimAccess(3, m, 4 * PAGE, 1), hipSuccess);
	cr_expect_eq(stats(3).faults_raised, 0);
	cr_assert_eq(hipFree(m), hipSuccess);
	cr_expect_eq(hipsvmSimAccess(3, m, PAGE, 1), hipErrorIllegalAddress,
		     "without XNACK a fault is never retried");
	cr_expect_eq(stats(3).faults_handled, 0, "a no-retry fault skips the filter");
}

struct toucher {
	int dev;
	char *base;
	size_t len;
	hipError_t r;
};

static void *touch_thread(void *arg)
{
	struct toucher *t = arg;

	t->r = hipsvmSimAccess(t->dev, t->base, t->len, 1);
	return NULL;
}

Test(faults, small_ring_concurrent_accessors)
{
	struct toucher t[6];
	pthread_t th[6];
	char *m;
	int i;

	/* the smallest ring (4K: 127 usable slots) and concurrent GPU
	 * accessors: a refused fault would be retried until served */
	setenv("HIPSVM_SIM_RING_SIZE", "4K", 1);
	cr_assert_eq(hipMallocManaged((void **)&m, 6 * 32 * PAGE, hipMemAttachGlobal), hipSuccess);
	for (i = 0; i < 6; i++) {
		t[i] = (struct toucher){ 0, m + (size_t)i * 32 * PAGE, 32 * PAGE, hipErrorUnknown };
		cr_assert_eq(pthread_create(&th[i], NULL, touch_thread, &t[i]), 0);
	}
	for (i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		cr_expect_eq(t[i].r, hipSuccess);
	}
	cr_expect_eq(stats(0).faults_mapped, 6 * 32);
	cr_log_info("ring overflows: %llu", (unsigned long long)stats(0).ring_overflows);
	cr_expect_eq(hipFree(m), hipSuccess);
}

Test(faults, agent_keeps_touching)
{
	struct hipsvm_sim_agent *a;
	struct hipsvm_sim_agent_result r;
	void *m;

	cr_assert_eq(hipMallocManaged(&m, 8 * PAGE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipsvmSimAgentStart(1, m, 8 * PAGE, 0, &a), 0);
	while (stats(1).faults_mapped < 8)
		usleep(1000);
	usleep(5000);
	cr_assert_eq(hipsvmSimAgentStop(a, &r), 0);
	cr_expect_geq(r.rounds, 1);
	cr_expect_geq(r.accesses, 8);
	cr_expect_eq(r.real_faults, 0);
	cr_expect_eq(stats(1).faults_raised, 8);
	cr_expect_eq(hipFree(m), hipSuccess);
}

Test(faults, bad_option_values_warn_and_default)
{
	int n = 0;

	setenv("HIPSVM_SIM_GPUS", "lots", 1);
	cr_expect_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_expect_eq(n, 4, "a bad value keeps the default");
}

Test(faults, fgs_mask_orders_host_context)
{
	int o[8], n;

	/* default 0x1: GPU 0 has fine-grained system memory, so it swaps
	 * places with the first GPU that has not (docs/design.md) */
	n = hipsvmSimSvmOrder(o, 8);
	cr_assert_eq(n, 4);
	cr_expect(o[0] == 1 && o[1] == 0 && o[2] == 2 && o[3] == 3, "order %d %d %d %d",
		  o[0], o[1], o[2], o[3]);
}

Test(faults, fgs_mask_none_keeps_order)
{
	int o[8], n;

	setenv("HIPSVM_SIM_FGS_MASK", "0", 1);
	n = hipsvmSimSvmOrder(o, 8);
	cr_assert_eq(n, 4);
	cr_expect(o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 3);
}
