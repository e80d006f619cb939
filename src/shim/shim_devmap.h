/* SPDX-License-Identifier: MIT */
/*
 * shim_devmap.h - device-memory allocations by pointer: a lock-free hash
 * table that grows with the number of live entries.
 *
 * Device memory (hipMalloc & co. in a primary context) is never coordinated
 * on unmap, so it does not need the registry's interval tree: the shim only
 * has to find, at hipFree, which context and device an allocation belongs
 * to. This table does that with one compare-and-swap per insert and per
 * removal and no lock, so that allocation pairs stay cheap and threads do
 * not serialise.
 *
 * The table is a list of generations: the first 2^log2cap slots, the second
 * 2^HIPSVM_DEVMAP_JUMP times that, each later one twice the one before
 * (hipsvm_devmap_bits). The first stays small because nearly every program
 * lives in it and pays for its pages (touched where the hash sends an
 * entry); a program past it has tens of thousands of live allocations, and
 * the jump keeps the generations every insert reads few (a million live in
 * 2 from 2^16, where doubling took 6).
 * An entry lives within HIPSVM_DEVMAP_PROBE slots of its home in one
 * generation. A generation takes new entries only while it is at most half
 * full: the search for an absent address, which every insert makes (an
 * entry for the same address is replaced) and which ends at the first
 * empty slot, then looks at about 2.5 slots per generation, where
 * generations filled to their windows' ends made it read whole windows.
 * The fill is counted on a sample of the slots (shim_devmap.c), so that
 * threads seldom write the count. An insert that finds no free slot near
 * its home in a generation that takes entries maps the next one (and
 * counts it in top). Nothing moves once written, so a reader never sees an
 * entry in flight between two tables; an insert looks at every
 * generation's window, a take at the newest generation's first (inline:
 * once the old ones are full, recent entries are there), each stopping
 * early at an empty slot. Generations are mapped on demand (MAP_NORESERVE, touched where used) and
 * kept until destroy: a reader may still hold a pointer into one. -ENOSPC
 * only when every generation is mapped and full near the home: the caller
 * then uses the registry.
 *
 * The home is a multiplicative hash of the page number (address >> 12):
 * allocations are page-aligned or sub-page pieces of one page, so the low
 * 12 bits carry nothing that spreads them; pieces of one page share a home
 * and sit side by side in its window.
 *
 * A slot's key is 0 (empty, never used), 1 (tombstone), 2 (being written) or
 * the allocation's address. An insert claims a free slot (0 or 1 -> 2),
 * writes the fields, then publishes the address (release). A removal reads
 * the fields of the slot that holds the address and turns it into a
 * tombstone with a compare-and-swap (only one remover wins, and it read the
 * fields the key stood for). Empty slots never come back, so a lookup may
 * stop at the first one of a window.
 *
 * Concurrency: insert and take may run in any number of threads at once.
 * Each address is one allocation's at a time (the runtime hands it out
 * again only after its free): an insert of an address that is present
 * replaces that entry (a free the shim never saw), wherever it lives.
 * Async-signal-safe apart from the mapping of a new generation (one mmap).
 */
#ifndef HIPSVM_SHIM_DEVMAP_H
#define HIPSVM_SHIM_DEVMAP_H

#include <errno.h>
#include <stdint.h>

#include "shim/registry.h"

#define HIPSVM_DEVMAP_PROBE 16
#define HIPSVM_DEVMAP_GENS 16
/* the second generation is 2^(1 + this) times the first: 2^21 slots after
 * a first of 2^16, so that a million live fit in two */
#define HIPSVM_DEVMAP_JUMP 4
/* the fill of a generation is counted on one slot in this many */
#define HIPSVM_DEVMAP_SAMPLE 16

struct hipsvm_devmap_slot {
	uint64_t key;
	uint64_t size;
	int32_t ctx;
	int32_t device;
	uint32_t flags;
	uint8_t route, api, kind, pad;
};

struct hipsvm_devmap {
	/* atomic; generation i has 2^hipsvm_devmap_bits(i) slots, NULL until mapped */
	struct hipsvm_devmap_slot *gen[HIPSVM_DEVMAP_GENS];
	uint64_t sampled[HIPSVM_DEVMAP_GENS];	/* atomic: entries in sampled slots */
	unsigned log2cap;
	unsigned ngens;		/* how many generations may be mapped at most */
	/* atomic: the generations mapped, 0 to top - 1, raised (release) after
	 * the one it counts is published; a search reads these only */
	unsigned top;
	uint32_t open;		/* atomic: bit i while generation i is at most half full */
};

/* log2 of generation i's slots */
static inline unsigned hipsvm_devmap_bits(const struct hipsvm_devmap *m, unsigned i)
{
	return m->log2cap + i + (i ? HIPSVM_DEVMAP_JUMP : 0);
}

/* The first generation has 2^log2cap slots (4..30); at most ngens
 * generations (1..HIPSVM_DEVMAP_GENS, and the last at most 2^35 slots: 1 TiB
 * of address space, asked for only past 2^34 live entries).
 * Maps the first one. 0 or -ENOMEM / -EINVAL. */
int hipsvm_devmap_create(struct hipsvm_devmap *m, unsigned log2cap, unsigned ngens);
/* Unmaps every generation; no other thread may use m any more. */
void hipsvm_devmap_destroy(struct hipsvm_devmap *m);

/* Records a whole allocation (start == origin). An entry for the same
 * address is replaced. 0, -EINVAL (not a whole allocation, or a key below
 * 3), or -ENOSPC (every generation full near the home: use the registry;
 * -ENOMEM from a failed mapping is reported as -ENOSPC too). */
int hipsvm_devmap_insert(struct hipsvm_devmap *m, const struct hipsvm_alloc *a);

/* Removes the allocation at p into *out (which may be written also when
 * the answer is -ENOENT). 0, or -ENOENT. */
int hipsvm_devmap_take_any(struct hipsvm_devmap *m, uintptr_t p, struct hipsvm_alloc *out);
void hipsvm_devmap_count_sampled(struct hipsvm_devmap *m, unsigned i, int d);

static inline uint64_t hipsvm_devmap_hash(uintptr_t p)
{
	return (uint64_t)(p >> 12) * UINT64_C(0x9e3779b97f4a7c15);
}

/* The same, inline where the entry usually is (every hipFree comes by):
 * the home slot of the newest generation; anywhere else out of line. */
static inline __attribute__((always_inline)) int hipsvm_devmap_take(struct hipsvm_devmap *m,
	uintptr_t p, struct hipsvm_alloc *out)
{
	unsigned n = __atomic_load_n(&m->top, __ATOMIC_ACQUIRE), i = n - 1;
	struct hipsvm_devmap_slot *s;
	uint64_t k;

	if (__builtin_expect(!n || p <= 2, 0))
		return -ENOENT;
	s = __atomic_load_n(&m->gen[i], __ATOMIC_RELAXED) +
	    (hipsvm_devmap_hash(p) >> (64 - hipsvm_devmap_bits(m, i)));
	k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
	if (__builtin_expect(k == p, 1)) {
		uint64_t size = __atomic_load_n(&s->size, __ATOMIC_RELAXED);

		out->start = out->origin = p;
		out->origin_size = size;
		out->last = p + size - 1;
		out->ctx = __atomic_load_n(&s->ctx, __ATOMIC_RELAXED);
		out->device = __atomic_load_n(&s->device, __ATOMIC_RELAXED);
		out->flags = __atomic_load_n(&s->flags, __ATOMIC_RELAXED);
		out->route = __atomic_load_n(&s->route, __ATOMIC_RELAXED);
		out->api = __atomic_load_n(&s->api, __ATOMIC_RELAXED);
		out->kind = __atomic_load_n(&s->kind, __ATOMIC_RELAXED);
		if (__builtin_expect(__atomic_compare_exchange_n(&s->key, &k, UINT64_C(1), false,
								 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED), 1)) {
			if (((uintptr_t)s & (HIPSVM_DEVMAP_SAMPLE * sizeof(*s) - 1)) == 0)
				hipsvm_devmap_count_sampled(m, i, -1);
			return 0;
		}
	}
	return hipsvm_devmap_take_any(m, p, out);
}

/* How many generations are mapped now (for tests and figures). */
unsigned hipsvm_devmap_gens(const struct hipsvm_devmap *m);

#endif
