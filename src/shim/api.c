/* SPDX-License-Identifier: MIT */
/*
 * api.c - the per-API table (api.h).
 */
#include "shim/api.h"

#include <stddef.h>

/* The rows of HIPSVM_API_ROWS (api.h), each at its own index. */
const struct hipsvm_api_row hipsvm_api_table[HIPSVM_API_COUNT] = {
#define HIPSVM_API_ROW(id, name_, rule_, kind_, remembers)			\
	[HIPSVM_API_##id] = { .api = HIPSVM_API_##id, .name = name_,		\
			      .rule = HIPSVM_RULE_##rule_, .kind = HIPSVM_KIND_##kind_, \
			      .remembers_device = remembers },
	HIPSVM_API_ROWS(HIPSVM_API_ROW)
#undef HIPSVM_API_ROW
};
