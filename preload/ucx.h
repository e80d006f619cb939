/* SPDX-License-Identifier: MIT */
/*
 * ucx.h - the unmap hooks beside UCX's (ucx_wrap.c).
 */
#ifndef HIPSVM_PRELOAD_UCX_H
#define HIPSVM_PRELOAD_UCX_H

/* Once UCX's libucm is loaded, adds the shim's handler of its memory
 * events, so that unmaps UCX's hooks take first are still coordinated.
 * Cheap until then (a look at the count of loaded objects); nothing after.
 * Keeps errno. */
void hipsvm_ucx_join_slow(void);
/* 0 until the handler is in (1) or UCX cannot come (2); atomic */
extern int hipsvm_ucx_joined;

static inline void hipsvm_ucx_join(void)
{
	if (__builtin_expect(!__atomic_load_n(&hipsvm_ucx_joined, __ATOMIC_ACQUIRE), 0))
		hipsvm_ucx_join_slow();
}

#endif
