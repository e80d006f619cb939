/* SPDX-License-Identifier: MIT */
/*
 * shim_devmap.h - device-memory allocations by pointer: a lock-free open
 * addressing table.
 *
 * Device memory (hipMalloc & co. in a primary context) is never coordinated
 * on unmap, so it does not need the registry's interval tree: the shim only
 * has to find, at hipFree, which context and device an allocation belongs
 * to. This table does that with one compare-and-swap per insert and per
 * removal and no lock, so that allocation pairs stay cheap and threads do
 * not serialise. When it cannot place an entry (its probe window is full),
 * the caller falls back to the registry.
 *
 * A slot's key is 0 (empty, never used), 1 (tombstone), 2 (being written) or
 * the allocation's address. An insert claims the first empty or tombstone
 * slot of the window (0 or 1 -> 2), writes the fields, then publishes the
 * address (release). A removal reads the fields of the slot that holds the
 * address and turns it into a tombstone with a compare-and-swap (only one
 * remover wins, and it read the fields the key stood for). Empty slots never
 * come back, so a lookup may stop at the first one.
 */
#ifndef HIPSVM_SHIM_DEVMAP_H
#define HIPSVM_SHIM_DEVMAP_H

#include <stdint.h>

#include "shim/registry.h"

#define HIPSVM_DEVMAP_PROBE 64

struct hipsvm_devmap_slot {
	uint64_t key;
	uint64_t size;
	int32_t ctx;
	int32_t device;
	uint32_t flags;
	uint8_t route, api, kind, pad;
};

struct hipsvm_devmap {
	struct hipsvm_devmap_slot *slot;
	uint64_t mask;
	unsigned shift;
};

/* 2^log2cap slots, reserved (MAP_NORESERVE) and touched only where used.
 * 0 or -ENOMEM / -EINVAL. */
int hipsvm_devmap_create(struct hipsvm_devmap *m, unsigned log2cap);
void hipsvm_devmap_destroy(struct hipsvm_devmap *m);

/* Records a whole allocation (start == origin). A stale entry for the same
 * address is replaced. 0, or -ENOSPC (window full: use the registry). */
int hipsvm_devmap_insert(struct hipsvm_devmap *m, const struct hipsvm_alloc *a);

/* Removes the allocation at p into *out. 0, or -ENOENT. */
int hipsvm_devmap_take(struct hipsvm_devmap *m, uintptr_t p, struct hipsvm_alloc *out);

#endif
