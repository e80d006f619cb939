/* SPDX-License-Identifier: MIT */
/* test_vmm.c - the shim's pool and mapping tables (src/shim/shim_vmm.c). */
#include <criterion/criterion.h>
#include <errno.h>

#include "shim/shim_vmm.h"

static struct hipsvm_vmm v;

static void setup(void)
{
	hipsvm_vmm_init(&v);
}

TestSuite(vmm, .init = setup);

Test(vmm, pools)
{
	cr_assert_eq(hipsvm_vmm_pool_dev(&v, 0x1000), -1, "unknown pool");
	cr_assert_eq(hipsvm_vmm_pool_set(&v, 0x1000, 2), 0);
	cr_assert_eq(hipsvm_vmm_pool_set(&v, 0x2000, 0), 0);
	cr_assert_eq(hipsvm_vmm_pool_dev(&v, 0x1000), 2);
	cr_assert_eq(hipsvm_vmm_pool_set(&v, 0x1000, 3), 0, "set again replaces");
	cr_assert_eq(hipsvm_vmm_pool_dev(&v, 0x1000), 3);
	cr_assert_eq(v.npool, 2);
	hipsvm_vmm_pool_forget(&v, 0x1000);
	cr_assert_eq(hipsvm_vmm_pool_dev(&v, 0x1000), -1);
	cr_assert_eq(hipsvm_vmm_pool_dev(&v, 0x2000), 0);
	for (unsigned i = 0; i < HIPSVM_VMM_POOLS - 1; i++)
		cr_assert_eq(hipsvm_vmm_pool_set(&v, 0x10000 + i, 1), 0);
	cr_assert_eq(hipsvm_vmm_pool_set(&v, 0x90000, 1), -ENOSPC, "full");
	cr_assert_eq(hipsvm_vmm_pool_dev(&v, 0x90000), -1);
}

Test(vmm, mappings_access_and_unmap)
{
	bool known;

	cr_assert_eq(hipsvm_vmm_map(&v, 0x100000, 0, 1), -EINVAL);
	cr_assert_eq(hipsvm_vmm_map(&v, 0x100000, 0x10000, 1 << 0), 0);
	cr_assert_eq(hipsvm_vmm_map(&v, 0x110000, 0x10000, 1 << 1), 0);
	/* hipMemSetAccess over the first: GPU 2 may touch it, GPU 0 not */
	hipsvm_vmm_access(&v, 0x100000, 0x10000, 1 << 2, 1 << 0);
	cr_assert_eq(hipsvm_vmm_gpus(&v, 0x100000, 0x10000, false, &known), 1 << 2);
	cr_assert(known);
	/* a range over both: both mappings' GPUs */
	cr_assert_eq(hipsvm_vmm_gpus(&v, 0x10f000, 0x2000, false, &known), (1 << 2) | (1 << 1));
	/* touching ends do not overlap */
	cr_assert_eq(hipsvm_vmm_gpus(&v, 0x120000, 0x1000, false, &known), 0);
	cr_assert_eq(hipsvm_vmm_gpus(&v, 0xff000, 0x1000, false, &known), 0);
	/* removal takes only the mappings wholly inside */
	cr_assert_eq(hipsvm_vmm_gpus(&v, 0x100000, 0x18000, true, &known), (1 << 2) | (1 << 1));
	cr_assert_eq(v.nmap, 1);
	cr_assert_eq(hipsvm_vmm_gpus(&v, 0x110000, 0x10000, true, &known), 1 << 1);
	cr_assert_eq(v.nmap, 0);
}

Test(vmm, full_table_is_not_known)
{
	bool known;
	unsigned i;

	for (i = 0; i < HIPSVM_VMM_MAPS; i++)
		cr_assert_eq(hipsvm_vmm_map(&v, 0x1000000 + i * 0x1000, 0x1000, 1), 0);
	cr_assert_eq(hipsvm_vmm_map(&v, 0x9000000, 0x1000, 2), -ENOSPC);
	cr_assert_eq(v.untracked, 1);
	cr_assert_eq(hipsvm_vmm_gpus(&v, 0x9000000, 0x1000, false, &known), 0);
	cr_assert_not(known, "a mapping may be there that the table lost");
}
