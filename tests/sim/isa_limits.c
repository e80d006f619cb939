/* SPDX-License-Identifier: MIT */
/*
 * isa_limits.c - kernels real hardware refuses are refused by the
 * interpreter too, before it allocates anything: more LDS than a workgroup
 * has (a descriptor's group_segment_fixed_size plus the launch's dynamic
 * shared memory over 64 KiB) and more scratch per wave than gfx90a gives
 * (private_segment_fixed_size 0xffffffff), each with its own error and
 * message; a kernel at the limits still runs.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "isa/dispatch.h"
#include "isa/isa.h"

static const uint32_t endpgm[] = { 0xbf810000 };	/* s_endpgm */

static int none(struct isa_mem *m, const uint64_t *addr, unsigned n, unsigned size, bool write,
		void *buf)
{
	(void)m, (void)addr, (void)n, (void)size, (void)write, (void)buf;
	return -ISA_E_FAULT;
}

static int none_atomic(struct isa_mem *m, const uint64_t *addr, unsigned n, unsigned size, int op,
		       const uint64_t *src, const uint64_t *cmp, uint64_t *old)
{
	(void)m, (void)addr, (void)n, (void)size, (void)op, (void)src, (void)cmp, (void)old;
	return -ISA_E_FAULT;
}

static struct isa_mem mem = { .access = none, .atomic = none_atomic };

static int dispatch(uint32_t group_seg, uint32_t private_seg, uint32_t dyn, unsigned groups)
{
	uint8_t kd[64] = { 0 };
	struct isa_kernel k;
	struct isa_dispatch d;
	char why[128];
	int rc;

	memcpy(kd, &group_seg, 4);
	memcpy(kd + 4, &private_seg, 4);
	cr_assert_eq(isa_kernel_prepare(&k, kd, (const uint8_t *)endpgm, sizeof(endpgm), 0x1000, why,
					sizeof(why)), 0, "%s", why);
	memset(&d, 0, sizeof(d));
	d.k = &k;
	d.grid[0] = 256 * groups;
	d.grid[1] = d.grid[2] = 1;
	d.block[0] = 256;
	d.block[1] = d.block[2] = 1;
	d.dyn_lds = dyn;
	d.mem = &mem;
	d.threads = 2;
	rc = isa_dispatch_run(&d);
	isa_kernel_release(&k);
	return rc;
}

/* A cap on the address space: should the interpreter allocate what the
 * descriptor claims, the test fails with -ISA_E_NOMEM instead of taking
 * gigabytes of a shared machine. */
static void cap_memory(void)
{
	struct rlimit r = { (rlim_t)4 << 30, (rlim_t)4 << 30 };

	/* not under ASan: its shadow alone reserves terabytes, and its own
	 * mmap would fail ("Failed to mmap") */
#if defined(__SANITIZE_ADDRESS__)
	(void)r;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	(void)r;
#else
	setrlimit(RLIMIT_AS, &r);
#endif
#else
	setrlimit(RLIMIT_AS, &r);
#endif
}

Test(isa_limits, more_lds_than_a_workgroup_has_is_refused, .init = cap_memory)
{
	cr_expect_eq(dispatch(256u << 20, 0, 0, 64), -ISA_E_LDS, "group_segment_fixed_size 256 MiB");
	cr_expect_eq(dispatch(0, 0, 256u << 20, 64), -ISA_E_LDS, "256 MiB of dynamic shared memory");
	cr_expect_eq(dispatch(32768, 0, 32769, 1), -ISA_E_LDS, "the sum counts");
	cr_expect_eq(dispatch(32768, 0, 32768, 4), 0, "64 KiB in all runs");
	cr_expect_str_eq(isa_strerror(-ISA_E_LDS), "it asks for more LDS than a workgroup has (64 KiB)");
}

Test(isa_limits, scratch_beyond_a_wave_fails_as_a_scratch_allocation, .init = cap_memory)
{
	cr_expect_eq(dispatch(0, 0xffffffffu, 0, 1), -ISA_E_SCRATCH);
	cr_expect_eq(dispatch(0, (uint32_t)(ISA_SCRATCH_WAVE_MAX / ISA_LANES) + 1, 0, 1), -ISA_E_SCRATCH);
	cr_expect_eq(dispatch(0, (uint32_t)(ISA_SCRATCH_WAVE_MAX / ISA_LANES), 0, 1), 0,
		     "the most a wave can have runs");
	cr_expect(strstr(isa_strerror(-ISA_E_SCRATCH), "scratch"), "%s", isa_strerror(-ISA_E_SCRATCH));
}
