/* SPDX-License-Identifier: MIT */
/* abi_real.c - the layouts of the HIP types the shim declares itself
 * (preload/hip_abi.h), as ROCm's own headers give them; test_abi.c puts the
 * shim's beside them. Same order in both files. */
#include <hip/hip_runtime_api.h>
#include <stddef.h>

#include "abi_layout.h"

const size_t hipsvm_abi_real[] = { ABI_LAYOUT };
const size_t hipsvm_abi_real_n = sizeof(hipsvm_abi_real) / sizeof(hipsvm_abi_real[0]);
