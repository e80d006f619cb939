/* SPDX-License-Identifier: MIT */
/*
 * shim_devmap.c - the lock-free, growing table of device allocations
 * (shim_devmap.h).
 */
#include "shim/shim_devmap.h"
#include "shim/sysmem.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define EMPTY UINT64_C(0)
#define TOMB UINT64_C(1)
#define BUSY UINT64_C(2)

#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* A generation's 2^hipsvm_devmap_bits(i) slots and HIPSVM_DEVMAP_PROBE - 1 more
 * past the end: the windows of the last homes run on into those instead of
 * wrapping round, so a window is a run of slots with no index arithmetic. */
static size_t gen_bytes(const struct hipsvm_devmap *m, unsigned i)
{
	return sizeof(struct hipsvm_devmap_slot) *
	       ((UINT64_C(1) << hipsvm_devmap_bits(m, i)) + HIPSVM_DEVMAP_PROBE - 1);
}

int hipsvm_devmap_create(struct hipsvm_devmap *m, unsigned log2cap, unsigned ngens)
{
	void *p;

	if (log2cap < 4 || log2cap > 30 || ngens < 1 || ngens > HIPSVM_DEVMAP_GENS ||
	    log2cap + ngens - 1 + (ngens > 1 ? HIPSVM_DEVMAP_JUMP : 0) > 35)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->log2cap = log2cap;
	m->ngens = ngens;
	p = hipsvm_sysmem_map(gen_bytes(m, 0));
	if (!p)
		return -ENOMEM;
	m->gen[0] = p;
	m->top = 1;
	m->open = (1u << ngens) - 1;	/* (ngens <= 16) */
	return 0;
}

void hipsvm_devmap_destroy(struct hipsvm_devmap *m)
{
	unsigned i;

	for (i = 0; i < HIPSVM_DEVMAP_GENS; i++) {
		if (m->gen[i])
			hipsvm_sysmem_unmap(m->gen[i], gen_bytes(m, i));
		m->gen[i] = NULL;
	}
}

unsigned hipsvm_devmap_gens(const struct hipsvm_devmap *m)
{
	return __atomic_load_n(&m->top, __ATOMIC_ACQUIRE);
}

/* The page number times 2^64/phi: its top bits are the home in a table of
 * any power-of-two size, and a page's home in generation i + 1 is one of the
 * two slots below its home in generation i times two. */
static uint64_t page_hash(uintptr_t p)
{
	return hipsvm_devmap_hash(p);
}

static void fill(struct hipsvm_devmap_slot *s, const struct hipsvm_alloc *a)
{
	ST(s->size, a->last - a->start + 1);
	ST(s->ctx, a->ctx);
	ST(s->device, a->device);
	ST(s->flags, a->flags);
	ST(s->route, (uint8_t)a->route);
	ST(s->api, (uint8_t)a->api);
	ST(s->kind, (uint8_t)a->kind);
}

/* The entries of a generation, counted in the slots whose index is a
 * multiple of SAMPLE only: the hash spreads entries evenly, so that is the
 * load to within a few percent, and the shared count is written by one
 * insert or removal in SAMPLE, not by every one (threads that each write
 * it at every pair would pass its cache line between them). */
#define SAMPLE HIPSVM_DEVMAP_SAMPLE

/* Bit i of open says whether generation i is at most half full; it is
 * rewritten here, where the sampled count changes, so that an insert reads
 * one word for every generation. Each writer reads the count again after
 * its write and writes again if it moved, so that the last write matches
 * the count once the count stops moving, whatever the interleaving. */
void hipsvm_devmap_count_sampled(struct hipsvm_devmap *m, unsigned i, int d)
{
	uint64_t c, cap = UINT64_C(1) << hipsvm_devmap_bits(m, i);

	c = __atomic_add_fetch(&m->sampled[i], (uint64_t)(int64_t)d, __ATOMIC_RELAXED);
	for (;;) {
		bool open = c * SAMPLE * 2 < cap;
		uint64_t again;

		/* written only when the bit changes: the word shares its line
		 * with top and log2cap, which every insert and take reads */
		if (((__atomic_load_n(&m->open, __ATOMIC_RELAXED) >> i) & 1) != open) {
			if (open)
				__atomic_fetch_or(&m->open, 1u << i, __ATOMIC_RELAXED);
			else
				__atomic_fetch_and(&m->open, ~(1u << i), __ATOMIC_RELAXED);
		}
		again = __atomic_load_n(&m->sampled[i], __ATOMIC_RELAXED);
		if (again == c)
			return;
		c = again;
	}
}

static inline void count(struct hipsvm_devmap *m, unsigned i, const struct hipsvm_devmap_slot *s,
			 int d)
{
	/* (s - gen) % SAMPLE == 0, read off the address: a generation starts
	 * on a page, and SAMPLE slots are 512 bytes) */
	if (((uintptr_t)s & (SAMPLE * sizeof(*s) - 1)) == 0)
		hipsvm_devmap_count_sampled(m, i, d);
}

/* Generation n mapped (unless another thread did) and counted in top:
 * false when there is none to map. */
static bool extend(struct hipsvm_devmap *m, unsigned n)
{
	struct hipsvm_devmap_slot *none = NULL, *p;
	unsigned t;

	if (n >= m->ngens)
		return false;
	if (!__atomic_load_n(&m->gen[n], __ATOMIC_ACQUIRE)) {
		p = hipsvm_sysmem_map(gen_bytes(m, n));
		if (!p)
			return false;
		if (!__atomic_compare_exchange_n(&m->gen[n], &none, p, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			hipsvm_sysmem_unmap(p, gen_bytes(m, n));
	}
	t = __atomic_load_n(&m->top, __ATOMIC_RELAXED);
	while (t < n + 1 && !__atomic_compare_exchange_n(&m->top, &t, n + 1, true,
							  __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return true;
}

int hipsvm_devmap_insert(struct hipsvm_devmap *m, const struct hipsvm_alloc *a)
{
	uint64_t h, key = a->start;

	if (!m->gen[0] || key <= BUSY || a->origin != a->start || a->last < a->start)
		return -EINVAL;
	h = page_hash(a->start);
	for (;;) {
		struct hipsvm_devmap_slot *free_slot = NULL, *s;
		uint64_t free_key = EMPTY, k;
		unsigned i, gi = 0, n = __atomic_load_n(&m->top, __ATOMIC_ACQUIRE);
		unsigned sh = 64 - m->log2cap;	/* the home's shift in generation i */
		/* bit 0: generation i may take the entry (open, none found yet) */
		uint32_t want = __atomic_load_n(&m->open, __ATOMIC_RELAXED);

		/* Every mapped generation's window: an entry of the same
		 * address is replaced where it is (there is at most one); else
		 * the first free slot of the oldest generation that is at most
		 * half full. The window's index is worked out once per
		 * generation: the loops below are what every insert runs once
		 * per generation. */
		for (i = 0; i < n; sh -= i ? 1 : 1 + HIPSVM_DEVMAP_JUMP, i++, want >>= 1) {
			struct hipsvm_devmap_slot *end;

			s = __atomic_load_n(&m->gen[i], __ATOMIC_RELAXED) + (h >> sh);
			end = s + HIPSVM_DEVMAP_PROBE;
			if (want & 1) {
				/* the first free slot, unless the address is here first */
				for (; s < end; s++) {
					k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
					if (k == key) {
						gi = ~0u;	/* a replacement: the count stays */
						goto claim;
					}
					if (k <= TOMB) {
						free_slot = s;
						free_key = k;
						gi = i;
						want = 0;
						break;
					}
				}
				if (s < end && free_key == EMPTY)
					continue;	/* the window ends there */
				s++;
			}
			/* the rest of the window: the address, if it is here */
			for (; s < end; s++) {
				k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
				if (k == key) {
					gi = ~0u;
					goto claim;
				}
				if (k == EMPTY)
					break;
			}
		}
		if (!free_slot) {
			if (!extend(m, n))
				return -ENOSPC;
			continue;
		}
		s = free_slot;
		k = free_key;
claim:
		if (__atomic_compare_exchange_n(&s->key, &k, BUSY, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			fill(s, a);
			__atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
			if (gi != ~0u)
				count(m, gi, s, 1);
			return 0;
		}
		/* another thread took the slot first: look again */
	}
}

/* Newest generation first: once the old ones are past half full, new
 * entries go to the newest, and most frees are of recent allocations, so a
 * take at a million live usually stops in the first window it reads. (An
 * address is in one generation at most: the order only changes the cost.)
 * top counts the generations: an insert into generation i saw top > i (it
 * raised top itself after mapping one), so a take that comes after it sees
 * that too. */
int hipsvm_devmap_take_any(struct hipsvm_devmap *m, uintptr_t p, struct hipsvm_alloc *out)
{
	uint64_t h, key = p;
	unsigned i, n = __atomic_load_n(&m->top, __ATOMIC_ACQUIRE);

	if (!m->gen[0] || key <= BUSY)
		return -ENOENT;
	h = page_hash(p);
	for (i = n; i-- > 0;) {
		struct hipsvm_devmap_slot *s = __atomic_load_n(&m->gen[i], __ATOMIC_RELAXED) +
					       (h >> (64 - hipsvm_devmap_bits(m, i)));
		struct hipsvm_devmap_slot *end = s + HIPSVM_DEVMAP_PROBE;

		while (s < end) {
			uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
			struct hipsvm_alloc a;

			if (k == EMPTY)
				break;
			if (k != key) {
				s++;
				continue;
			}
			/* every field written: no memset */
			a.start = a.origin = p;
			a.origin_size = LD(s->size);
			a.last = p + a.origin_size - 1;
			a.ctx = LD(s->ctx);
			a.device = LD(s->device);
			a.flags = LD(s->flags);
			a.route = LD(s->route);
			a.api = LD(s->api);
			a.kind = LD(s->kind);
			if (__atomic_compare_exchange_n(&s->key, &k, TOMB, false, __ATOMIC_ACQ_REL,
							__ATOMIC_RELAXED)) {
				count(m, i, s, -1);
				*out = a;
				return 0;
			}
			/* someone else changed the slot under us: look at it again */
		}
	}
	return -ENOENT;
}
