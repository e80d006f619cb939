/* SPDX-License-Identifier: MIT */
/*
 * compat.h - the few primitives that the code shared with the kernel module needs.
 *
 * ts.h, iv.h, ring.c, checkpoint.c and proto.c are compiled both into user space
 * (the shim, the simulator, the tools) and into kernel/hipsvm.ko. They include
 * this file and nothing else from the environment. In the kernel the atomics map
 * onto smp_load_acquire()/smp_store_release()/READ_ONCE()/cmpxchg(); in user space
 * onto the GCC/Clang __atomic builtins, which ThreadSanitizer understands.
 */
#ifndef HIPSVM_COMPAT_H
#define HIPSVM_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/compiler.h>
#include <linux/atomic.h>
#include <asm/barrier.h>

#define HIPSVM_LOAD_ACQ(p)      smp_load_acquire(p)
#define HIPSVM_STORE_REL(p, v)  smp_store_release(p, v)
#define HIPSVM_LOAD(p)          READ_ONCE(*(p))
#define HIPSVM_STORE(p, v)      WRITE_ONCE(*(p), v)
#define HIPSVM_FENCE_ACQ()      smp_rmb()
#define HIPSVM_ADD(p, v)        ((void)__sync_fetch_and_add(p, v))

static inline u64 hipsvm_cmpxchg64(u64 *p, u64 old, u64 new)
{
	return cmpxchg(p, old, new);
}
#ifndef UINT64_C
#define UINT64_C(x) (x##ULL)
#endif
#ifndef ETIME
#define ETIME 62
#endif
#ifndef UINT64_MAX
#define UINT64_MAX U64_MAX
#endif

#else /* user space */
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <string.h>
#include <stdio.h>

#define HIPSVM_LOAD_ACQ(p)      __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define HIPSVM_STORE_REL(p, v)  __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define HIPSVM_LOAD(p)          __atomic_load_n(p, __ATOMIC_RELAXED)
#define HIPSVM_STORE(p, v)      __atomic_store_n(p, v, __ATOMIC_RELAXED)
#define HIPSVM_FENCE_ACQ()      __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define HIPSVM_ADD(p, v)        ((void)__atomic_fetch_add(p, v, __ATOMIC_RELAXED))

/* Returns the value found at *p; the swap happened when that equals old. */
static inline uint64_t hipsvm_cmpxchg64(uint64_t *p, uint64_t old, uint64_t new_)
{
	__atomic_compare_exchange_n(p, &old, new_, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	return old;
}
#endif

#endif
