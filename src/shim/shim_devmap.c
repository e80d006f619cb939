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

static size_t gen_bytes(const struct hipsvm_devmap *m, unsigned i)
{
	return sizeof(struct hipsvm_devmap_slot) << (m->log2cap + i);
}

int hipsvm_devmap_create(struct hipsvm_devmap *m, unsigned log2cap, unsigned ngens)
{
	void *p;

	if (log2cap < 4 || log2cap > 30 || ngens < 1 || ngens > HIPSVM_DEVMAP_GENS ||
	    log2cap + ngens - 1 > 34)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->log2cap = log2cap;
	m->ngens = ngens;
	p = hipsvm_sysmem_map(gen_bytes(m, 0));
	if (!p)
		return -ENOMEM;
	m->gen[0] = p;
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
	unsigned i = 0;

	while (i < m->ngens && __atomic_load_n(&m->gen[i], __ATOMIC_ACQUIRE))
		i++;
	return i;
}

/* The page number times 2^64/phi: its top bits are the home in a table of
 * any power-of-two size, and a page's home in generation i + 1 is one of the
 * two slots below its home in generation i times two. */
static uint64_t page_hash(uintptr_t p)
{
	return (uint64_t)(p >> 12) * UINT64_C(0x9e3779b97f4a7c15);
}

static struct hipsvm_devmap_slot *window(const struct hipsvm_devmap *m, unsigned i,
					 struct hipsvm_devmap_slot *gen, uint64_t h, uint64_t k)
{
	unsigned bits = m->log2cap + i;
	uint64_t mask = (UINT64_C(1) << bits) - 1;

	return &gen[((h >> (64 - bits)) + k) & mask];
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
#define SAMPLE 16

static void count(struct hipsvm_devmap *m, unsigned i, const struct hipsvm_devmap_slot *s, int d)
{
	if (((size_t)(s - m->gen[i]) & (SAMPLE - 1)) == 0)
		__atomic_fetch_add(&m->sampled[i], (uint64_t)(int64_t)d, __ATOMIC_RELAXED);
}

/* Maps generation i unless another thread did: true if it is there now. */
static bool grow(struct hipsvm_devmap *m, unsigned i)
{
	struct hipsvm_devmap_slot *none = NULL, *p;

	if (i >= m->ngens)
		return false;
	p = hipsvm_sysmem_map(gen_bytes(m, i));
	if (!p)
		return false;
	if (!__atomic_compare_exchange_n(&m->gen[i], &none, p, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		hipsvm_sysmem_unmap(p, gen_bytes(m, i));
	return true;
}

int hipsvm_devmap_insert(struct hipsvm_devmap *m, const struct hipsvm_alloc *a)
{
	uint64_t h, key = a->start;

	if (!m->gen[0] || key <= BUSY || a->origin != a->start || a->last < a->start)
		return -EINVAL;
	h = page_hash(a->start);
	for (;;) {
		struct hipsvm_devmap_slot *free_slot = NULL, *s = NULL;
		uint64_t free_key = EMPTY, k = EMPTY;
		unsigned i, j, gi = 0;

		/* Every mapped generation's window: an entry of the same
		 * address is replaced where it is (there is at most one); else
		 * the first free slot of the oldest generation that is at most
		 * half full. */
		for (i = 0; i < m->ngens; i++) {
			struct hipsvm_devmap_slot *g = __atomic_load_n(&m->gen[i], __ATOMIC_ACQUIRE);
			bool open;

			if (!g)
				break;
			open = !free_slot && __atomic_load_n(&m->sampled[i], __ATOMIC_RELAXED) *
							     SAMPLE * 2 < (UINT64_C(1) << (m->log2cap + i));
			for (j = 0; j < HIPSVM_DEVMAP_PROBE; j++) {
				s = window(m, i, g, h, j);
				k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
				if (k == key) {
					gi = ~0u;	/* a replacement: the count stays */
					goto claim;
				}
				if ((k == EMPTY || k == TOMB) && open && !free_slot) {
					free_slot = s;
					free_key = k;
					gi = i;
				}
				if (k == EMPTY)
					break;
			}
		}
		if (!free_slot) {
			if (!grow(m, i))
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

int hipsvm_devmap_take(struct hipsvm_devmap *m, uintptr_t p, struct hipsvm_alloc *out)
{
	uint64_t h, key = p;
	unsigned i, j;

	if (!m->gen[0] || key <= BUSY)
		return -ENOENT;
	h = page_hash(p);
	for (i = 0; i < m->ngens; i++) {
		struct hipsvm_devmap_slot *g = __atomic_load_n(&m->gen[i], __ATOMIC_ACQUIRE);

		if (!g)
			break;
		for (j = 0; j < HIPSVM_DEVMAP_PROBE; j++) {
			struct hipsvm_devmap_slot *s = window(m, i, g, h, j);
			uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
			struct hipsvm_alloc a;

			if (k == EMPTY)
				break;
			if (k != key)
				continue;
			memset(&a, 0, sizeof(a));
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
			j--;
		}
	}
	return -ENOENT;
}
