/* SPDX-License-Identifier: MIT */
/*
 * wrap.h - how every HIP wrapper (hip_wrap.c, mem_wrap.c, array_wrap.c) is
 * made: one HOOK() line per hooked function states its signature once, and
 * the macro makes from it the real function's type, the exported wrapper
 * and its prototype. The wrapper finds the real function in its row of the
 * hook table (table.h), passes straight through when it is re-entered from
 * inside the real runtime or from inside the shim (the outer call is the one
 * that counts) or when the shim is off, and otherwise runs the body written
 * after the HOOK line inside an HIPSVM_IN_HIP() scope, with the shim s and
 * the real function real.
 *
 * A body has one shape, the seam's (shim.h): ask the core (begin), make the
 * real call, tell the core what happened (end), give back the real call's
 * result with errno as the runtime left it. ALLOC() and FREE() write it for
 * the allocating and the freeing calls (which also join UCX's memory hooks
 * once UCX is loaded: ucx.h).
 */
#ifndef HIPSVM_PRELOAD_WRAP_H
#define HIPSVM_PRELOAD_WRAP_H

#include <errno.h>

#include "boot.h"
#include "hip_abi.h"
#include "shim/shim.h"
#include "table.h"
#include "ucx.h"

#define HIPSVM_UNPAREN(...) __VA_ARGS__

/* The type, the prototype (for -Wmissing-prototypes: made from the same
 * words, it cannot disagree) and the head of an exported function. */
#define HOOK_DECLARE(name, params)						\
	typedef hipError_t (*name##_fn) params;					\
	HIPSVM_EXPORT hipError_t name params;					\
	HIPSVM_EXPORT hipError_t name params

/* HOOK(name, (parameters), (arguments)) { body } */
#define HOOK(name, params, args)						\
	typedef hipError_t (*name##_fn) params;					\
	static inline __attribute__((always_inline)) hipError_t		\
	name##_shim(struct hipsvm_shim *s, name##_fn real, HIPSVM_UNPAREN params); \
	HIPSVM_EXPORT hipError_t name params;					\
	HIPSVM_EXPORT hipError_t name params					\
	{									\
		name##_fn real = (name##_fn)hipsvm_real(HIPSVM_ROW_##name);	\
		struct hipsvm_shim *s;						\
										\
		if (!real)							\
			return hipsvm_missing(HIPSVM_ROW_##name);		\
		s = enter();							\
		if (!s)								\
			return real args;					\
		HIPSVM_IN_HIP();						\
		return name##_shim(s, real, HIPSVM_UNPAREN args);		\
	}									\
	static inline hipError_t name##_shim(struct hipsvm_shim *s, name##_fn real, \
					     HIPSVM_UNPAREN params)

/* The real function of a row that the shim needs but does not hook. */
#define REAL(name, type) ((type)hipsvm_real(HIPSVM_ROW_##name))

/* The shim for a wrapper, or NULL: pass through. */
static inline struct hipsvm_shim *enter(void)
{
	struct hipsvm_shim *s;

	if (hipsvm_tls.in_hip || hipsvm_tls.guard)
		return NULL;
	s = hipsvm_ready();
	return __builtin_expect(s != NULL, 1) ? s : hipsvm_boot();
}

/* begin, with the current device asked here when the core needs it. */
static inline enum hipsvm_verdict alloc_begin(struct hipsvm_shim *s, struct hipsvm_call *c)
{
	enum hipsvm_verdict v;

	/* the common policies decide nothing before the call (as the core's
	 * begin would answer, without the call) */
	if (__builtin_expect(!s->policy.quota_mask && !s->policy.managed_local, 1))
		return HIPSVM_GO;
	v = hipsvm_alloc_begin(s, c);

	if (v == HIPSVM_NEED_DEVICE) {
		int (*get)(int *) = REAL(hipGetDevice, int (*)(int *));
		int dev = -1;

		if (!get || get(&dev) != hipSuccess)
			dev = -1;
		c->dev = dev;
		v = hipsvm_alloc_begin(s, c);
	}
	return v;
}

/* HIPSVM_MANAGED: managed memory in place of what was asked, then end. */
hipError_t hipsvm_wrap_managed(struct hipsvm_shim *s, struct hipsvm_call *c);

/* An allocating call: c described, call the real call, p and size what it
 * gave (evaluated only when it succeeded). */
#define ALLOC(c, call, p, size)							\
	do {									\
		int e_ = errno;							\
		hipError_t rc_;							\
										\
		hipsvm_ucx_join();						\
		switch (alloc_begin(s, &(c))) {					\
		case HIPSVM_REFUSE:						\
			errno = e_;						\
			return (c).rc;						\
		case HIPSVM_MANAGED:						\
			return hipsvm_wrap_managed(s, &(c));			\
		default:							\
			break;							\
		}								\
		rc_ = (call);							\
		e_ = errno;							\
		if (hipsvm_alloc_end(s, &(c), rc_, rc_ == hipSuccess ? (void *)(p) : NULL, \
				     rc_ == hipSuccess ? (size_t)(size) : 0) == HIPSVM_MANAGED) \
			return hipsvm_wrap_managed(s, &(c));			\
		errno = e_;							\
		return (c).rc;							\
	} while (0)

/* A freeing call that takes one pointer or handle: the core finds the
 * owner by it. */
#define FREE(api, p, call)							\
	do {									\
		struct hipsvm_free f_;						\
		hipError_t rc_;							\
		int e_;								\
										\
		hipsvm_ucx_join();						\
		hipsvm_free_begin(s, &f_, (api), (void *)(p));			\
		rc_ = (call);							\
		e_ = errno;							\
		hipsvm_free_end(s, &f_, rc_);					\
		errno = e_;							\
		return rc_;							\
	} while (0)

/* A call that allocates nothing: the real call, then (on success) what
 * it says goes to the core. */
#define PASS(call, on_success)							\
	do {									\
		hipError_t rc_ = (call);					\
		int e_ = errno;							\
										\
		if (rc_ == hipSuccess) {					\
			on_success;						\
		}								\
		errno = e_;							\
		return rc_;							\
	} while (0)

#endif
