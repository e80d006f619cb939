/* SPDX-License-Identifier: MIT */
/*
 * testing.h - functions of the shim's core that only tests call: probes of
 * internal state and entry points that nothing in the shim uses. Not for
 * the preload module, the simulator or the tools; grouped by the file that
 * defines them. Each keeps the contract style of its module's header.
 */
#ifndef HIPSVM_TESTING_H
#define HIPSVM_TESTING_H

#include <stdint.h>

#include "shim/hook.h"
#include "shim/registry.h"
#include "shim/stats.h"

/* ---- registry.c (locking and -EDEADLK as in registry.h) ---- */

/* The lowest live piece of the allocation whose origin is origin (found
 * through the origin index, so also when its first bytes were punched
 * away). 0 and *out, -ENOENT, -EDEADLK. Takes the writer lock: not for
 * signal handlers. */
int hipsvm_reg_find_origin(struct hipsvm_registry *r, uintptr_t origin, struct hipsvm_alloc *out);

/* Visits every entry in ascending order, under the writer lock (fn must not
 * call back into the registry); does nothing when called by a writer. */
typedef void (*hipsvm_reg_visit_fn)(void *arg, const struct hipsvm_alloc *a);
void hipsvm_reg_foreach(struct hipsvm_registry *r, hipsvm_reg_visit_fn fn, void *arg);

/* Checks the registry's own consistency (both trees, and that every piece's
 * origin is indexed with the right piece count and a span that covers it):
 * 0, -EUCLEAN or -EDEADLK. O(n log n), under the writer lock. */
int hipsvm_reg_check(struct hipsvm_registry *r);

/* pthread_atfork() prepare/parent handlers: hold the writer lock across
 * fork() so that the child's copy is consistent (with
 * hipsvm_reg_atfork_child in the child). The shim installs only the child
 * handler today. */
void hipsvm_reg_atfork_prepare(struct hipsvm_registry *r);
void hipsvm_reg_atfork_parent(struct hipsvm_registry *r);

#endif
