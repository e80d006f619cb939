/* SPDX-License-Identifier: MIT */
/* test_abi.c - the shim declares the HIP types it hooks itself, to build
 * without HIP headers: each size, offset and value must be ROCm's. */
#include <criterion/criterion.h>
#include <stddef.h>

#include "abi_layout.h"
#include "hip_abi.h"

extern const size_t hipsvm_abi_real[];
extern const size_t hipsvm_abi_real_n;
static const size_t shim[] = { ABI_LAYOUT };

Test(abi, layouts_match_rocm)
{
	size_t i;

	cr_assert_eq(hipsvm_abi_real_n, sizeof(shim) / sizeof(shim[0]));
	for (i = 0; i < hipsvm_abi_real_n; i++)
		cr_expect_eq(shim[i], hipsvm_abi_real[i], "entry %zu of ABI_LAYOUT: shim %zu, ROCm %zu",
			     i, shim[i], hipsvm_abi_real[i]);
}
