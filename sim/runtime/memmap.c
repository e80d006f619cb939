/* SPDX-License-Identifier: MIT */
/*
 * memmap.c - the allocation map: an AVL tree of the live allocations keyed by
 * base address, under sim.map_lock (runtime/state.h). Insert, remove and lookup are
 * O(log n), so hipMalloc costs the same with a thousand or a million live
 * allocations; a walk over the allocations overlapping a range costs
 * O(k log n). memory.c owns the life of each allocation.
 */
#include "runtime/map.h"
#include "runtime/state.h"
#include "runtime/step.h"

#include <errno.h>
#include <stdlib.h>

uint64_t sim_pt_gen;

static uintptr_t page_down(uintptr_t p)
{
	return p & ~(uintptr_t)(SIM_PAGE - 1);
}

static uintptr_t alloc_end(const struct sim_alloc *a)
{
	return (a->base + a->size + SIM_PAGE - 1) & ~(uintptr_t)(SIM_PAGE - 1);
}

/* The map is an AVL tree of the allocations by base, linked through the
 * allocations themselves (no node to allocate, so an insert cannot fail
 * but on a duplicate base). Like ROCm's MemObjMap (a std::map by start
 * address), a lookup takes the allocation with the greatest base at or
 * below the address and checks that the address falls inside it. */
static int height(const struct sim_alloc *a)
{
	return a ? a->height : 0;
}

static void fix_height(struct sim_alloc *a)
{
	int l = height(a->left), r = height(a->right);

	a->height = (l > r ? l : r) + 1;
}

static struct sim_alloc *rotate_right(struct sim_alloc *a)
{
	struct sim_alloc *b = a->left;

	a->left = b->right;
	b->right = a;
	fix_height(a);
	fix_height(b);
	return b;
}

static struct sim_alloc *rotate_left(struct sim_alloc *a)
{
	struct sim_alloc *b = a->right;

	a->right = b->left;
	b->left = a;
	fix_height(a);
	fix_height(b);
	return b;
}

static struct sim_alloc *balance(struct sim_alloc *a)
{
	int d;

	fix_height(a);
	d = height(a->left) - height(a->right);
	if (d > 1) {
		if (height(a->left->left) < height(a->left->right))
			a->left = rotate_left(a->left);
		return rotate_right(a);
	}
	if (d < -1) {
		if (height(a->right->right) < height(a->right->left))
			a->right = rotate_right(a->right);
		return rotate_left(a);
	}
	return a;
}

/* Recursion depth is the tree's height: at most 1.44 log2(n), under 45. */
static struct sim_alloc *tree_insert(struct sim_alloc *t, struct sim_alloc *a, int *err)
{
	if (!t) {
		a->left = a->right = NULL;
		a->height = 1;
		return a;
	}
	if (a->base < t->base)
		t->left = tree_insert(t->left, a, err);
	else if (a->base > t->base)
		t->right = tree_insert(t->right, a, err);
	else
		*err = -EEXIST;
	return balance(t);
}

static struct sim_alloc *remove_min(struct sim_alloc *t, struct sim_alloc **min)
{
	if (!t->left) {
		*min = t;
		return t->right;
	}
	t->left = remove_min(t->left, min);
	return balance(t);
}

static struct sim_alloc *tree_remove(struct sim_alloc *t, const struct sim_alloc *a, bool *found)
{
	struct sim_alloc *m;

	if (!t)
		return NULL;
	if (a->base < t->base) {
		t->left = tree_remove(t->left, a, found);
	} else if (a->base > t->base) {
		t->right = tree_remove(t->right, a, found);
	} else {
		if (t != a)
			return t;
		*found = true;
		if (!t->right)
			return t->left;
		t->right = remove_min(t->right, &m);
		m->left = t->left;
		m->right = t->right;
		return balance(m);
	}
	return balance(t);
}

struct sim_alloc *sim_map_find(uintptr_t addr)
{
	struct sim_alloc *t = sim.map_root, *best = NULL;

	while (t) {
		if (page_down(t->base) <= addr) {
			best = t;
			t = t->right;
		} else {
			t = t->left;
		}
	}
	return best && addr < alloc_end(best) ? best : NULL;
}

struct sim_alloc *sim_map_ceil(uintptr_t addr)
{
	struct sim_alloc *t = sim.map_root, *best = NULL;

	while (t) {
		if (t->base >= addr) {
			best = t;
			t = t->left;
		} else {
			t = t->right;
		}
	}
	return best;
}

struct sim_alloc *sim_map_next(const struct sim_alloc *a)
{
	return a->base == UINTPTR_MAX ? NULL : sim_map_ceil(a->base + 1);
}

/* Caller holds map_lock for writing. */
int sim_map_insert(struct sim_alloc *a)
{
	int err = 0;

	sim.map_root = tree_insert(sim.map_root, a, &err);
	if (!err)
		sim.nmap++;
	return err;
}

void sim_map_remove(struct sim_alloc *a)
{
	bool found = false;

	sim.map_root = tree_remove(sim.map_root, a, &found);
	if (found)
		sim.nmap--;
	sim_pt_changed();
}

/* What a fork child could not free: the parent's map was being changed by a
 * thread that does not exist here. Kept reachable, not freed. */
struct kept_map {
	struct kept_map *next;
	struct sim_alloc *root;
	size_t n;
};
static struct kept_map *kept;

static void free_tree(struct sim_alloc *a)
{
	unsigned d;

	if (!a)
		return;
	free_tree(a->left);
	free_tree(a->right);
	for (d = 0; d < HIPSVM_MAX_GPUS; d++)
		free(a->bits[d]);
	free(a->released);
	free(a->adv);
	free(a);
}

/* atfork child (before the fresh initialisation drops the parent's state):
 * the parent's allocations are not this process's runtime's any more, but
 * their memory stays mapped for the program. Only a lock that no thread
 * held at the fork says that the tree is whole (a writer may have been in
 * the middle of a rotation): trylock, never wait, since its holder does
 * not exist here. An exported allocation's memfd stays open in the child
 * as fork left it. */
static void map_abandon(void)
{
	struct kept_map *km;

	if (!sim.map_root)
		return;
	if (pthread_rwlock_trywrlock(&sim.map_lock) == 0) {
		free_tree(sim.map_root);
		pthread_rwlock_unlock(&sim.map_lock);
	} else {
		km = malloc(sizeof(*km));
		if (km) {
			*km = (struct kept_map){ kept, sim.map_root, sim.nmap };
			kept = km;
		}
	}
	sim.map_root = NULL;
	sim.nmap = 0;
}
SIM_STEP(map, .abandon = map_abandon);
