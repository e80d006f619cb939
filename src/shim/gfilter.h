/* SPDX-License-Identifier: MIT */
/*
 * gfilter.h - the registry's granule filter: for every 2 MiB granule of the
 * 48-bit address space, how many live pieces touch it, once for all kinds
 * and once for the kinds other than device memory (so that a query for the
 * SVM kinds is not sent to the tree because device allocations sit nearby).
 *
 * A two-level table: a fixed top level of 32 GiB leaves, leaves mapped by
 * writers on demand and never unmapped while the filter lives (readers may
 * hold a pointer). A piece that covers a whole leaf is counted once in
 * full[] instead of 16384 times; pieces at or above 2^48 (no user mapping
 * lives there today) only in hi[]. Each granule also keeps a hint: the tree
 * leaf that last received a piece there.
 *
 * Writers (serialised by the registry) change counts with relaxed atomic
 * stores; readers only load. The registry adds a piece's counts before the
 * piece enters the tree and takes them away after it has left, so the
 * counts over-approximate at every instant: "all zero" proves that nothing
 * is tracked there.
 */
#ifndef HIPSVM_GFILTER_H
#define HIPSVM_GFILTER_H

#include <stdbool.h>
#include <stdint.h>

#define HIPSVM_GF_GRAN_SHIFT	21
#define HIPSVM_GF_VA_BITS	48
#define HIPSVM_GF_LEAF_SHIFT	14	/* granules per leaf: 32 GiB */
#define HIPSVM_GF_TOP_N		(1u << (HIPSVM_GF_VA_BITS - HIPSVM_GF_GRAN_SHIFT - \
					HIPSVM_GF_LEAF_SHIFT))

enum { HIPSVM_GF_ALL, HIPSVM_GF_NONDEV, HIPSVM_GF_NCLS };

struct hipsvm_gleaf;

struct hipsvm_gfilter {
	uint32_t hi[HIPSVM_GF_NCLS];
	uint32_t full[HIPSVM_GF_NCLS][HIPSVM_GF_TOP_N];
	struct hipsvm_gleaf *top[HIPSVM_GF_TOP_N];
};

/* Writers. prepare maps the leaves that a piece [s, l] will count in (the
 * only step that can fail: 0 or -ENOMEM); adj adds d to its counts (device:
 * counted in HIPSVM_GF_ALL only); set_hint points its first granules at the
 * tree leaf handle leaf. */
int hipsvm_gf_prepare(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l);
void hipsvm_gf_adj(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, bool device, int32_t d);
void hipsvm_gf_set_hint(struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, uint32_t leaf);
void hipsvm_gf_destroy(struct hipsvm_gfilter *f);

/* Readers (no lock, no allocation, async-signal-safe). hit: may a piece of
 * class cls lie in [s, l]? hint: the hint of addr's granule, 0 if none. */
bool hipsvm_gf_hit(const struct hipsvm_gfilter *f, uintptr_t s, uintptr_t l, unsigned cls);
uint32_t hipsvm_gf_hint(const struct hipsvm_gfilter *f, uintptr_t addr);

#endif
