/* SPDX-License-Identifier: MIT */
/*
 * context.h - contexts as ROCclr's amd::Context models them (docs/design.md, Contexts).
 *
 * A context is a reference-counted set of devices and the ownership domain of
 * what is allocated through it. It does not know whether it is a "device" or a
 * "host" context: that follows from the devices it was built with. A process
 * has one primary context per device and one host_context over every GPU
 * (struct hipsvm_ctxset). Only the simulator builds contexts: the shim needs
 * the per-API table alone (src/shim/api.h).
 */
#ifndef HIPSVM_CONTEXT_H
#define HIPSVM_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "shim/api.h"
#include "shared/proto.h"

#define HIPSVM_CTX_MAX_DEV HIPSVM_MAX_GPUS

struct hipsvm_devinfo {
	bool svm_capable;
	bool fine_grained_system;	/* supports fine-grained system memory */
	bool custom_host_alloc;		/* has a custom host allocator */
	bool atomics;			/* supports SVM atomics */
};

struct hipsvm_context {
	uint32_t refcount;		/* atomic */
	int id;				/* HIPSVM_CTX_HOST or the device index */
	unsigned ndev;
	int dev[HIPSVM_CTX_MAX_DEV];	/* construction order */
	unsigned nsvm;
	int svm_dev[HIPSVM_CTX_MAX_DEV];	/* svmAllocDevice_ after the swap rule */
	int host_alloc_dev;		/* customHostAllocDevice_, -1 if none */
};

/* Builds a context over devs[0..n) (retains each), applies the SVM-device
 * order rule: with more than one SVM device, if the first supports
 * fine-grained system memory it is swapped with the first that does not.
 * info is indexed by device. -EINVAL on bad input, out untouched. */
int hipsvm_ctx_init(struct hipsvm_context *c, int id, const int *devs, unsigned n,
		    const struct hipsvm_devinfo *info);
bool hipsvm_ctx_has_dev(const struct hipsvm_context *c, int dev);

/* svmAlloc's device order: cur_dev first (if given >= 0, in the context, and
 * with atomics when atomics are asked), then every other SVM device in order,
 * skipping devices without atomics when asked. Number of devices written to
 * out (at most HIPSVM_CTX_MAX_DEV), or -ENODEV when none qualifies. */
int hipsvm_ctx_svm_alloc_order(const struct hipsvm_context *c, int cur_dev, bool atomics,
			       const struct hipsvm_devinfo *info, int *out);
/* svmFree's order: every SVM device in order. The caller removes the pointer
 * from its map FIRST (so that a concurrent allocation reusing the address
 * cannot be freed by mistake), then frees per device, then releases. */
int hipsvm_ctx_svm_free_order(const struct hipsvm_context *c, int *out);

struct hipsvm_ctxset {
	unsigned ndev;
	struct hipsvm_devinfo info[HIPSVM_CTX_MAX_DEV];
	struct hipsvm_context primary[HIPSVM_CTX_MAX_DEV];
	struct hipsvm_context host;
};
int hipsvm_ctxset_init(struct hipsvm_ctxset *s, unsigned ndev, const struct hipsvm_devinfo *info);
/* id: HIPSVM_CTX_HOST or a device index; NULL if out of range. */
struct hipsvm_context *hipsvm_ctxset_get(struct hipsvm_ctxset *s, int id);

/* The context HIP would use for an allocating call; NULL for BY_POINTER rows
 * or a current device out of range. */
struct hipsvm_context *hipsvm_ctxset_for_api(struct hipsvm_ctxset *s, enum hipsvm_api api,
					     int current_dev);

#endif
