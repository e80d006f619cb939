/* SPDX-License-Identifier: MIT */
/*
 * context.h - contexts as ROCclr's amd::Context models them (docs/design.md, Contexts).
 *
 * A context is a reference-counted set of devices and the ownership domain of
 * what is allocated through it. It does not know whether it is a "device" or a
 * "host" context: that follows from the devices it was built with. A process
 * has one primary context per device and one host_context over every GPU
 * (struct hipsvm_ctxset). The per-API table says which context each HIP
 * allocation call uses; the router and the simulator both read it.
 */
#ifndef HIPSVM_CONTEXT_H
#define HIPSVM_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#define HIPSVM_CTX_MAX_DEV 64
#define HIPSVM_CTX_HOST (-1)	/* context id of host_context; >= 0: primary of device N */

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
void hipsvm_ctx_retain(struct hipsvm_context *c);
/* Returns the count left; at 0 the context is dead (its owner frees it). */
uint32_t hipsvm_ctx_release(struct hipsvm_context *c);
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

/* The device whose null stream getNullStream(ctx) returns: the device of a
 * primary context; the current device for host_context; -1 otherwise. */
int hipsvm_ctx_null_stream_dev(const struct hipsvm_context *c, int current_dev);

struct hipsvm_ctxset {
	unsigned ndev;
	struct hipsvm_devinfo info[HIPSVM_CTX_MAX_DEV];
	struct hipsvm_context primary[HIPSVM_CTX_MAX_DEV];
	struct hipsvm_context host;
};
int hipsvm_ctxset_init(struct hipsvm_ctxset *s, unsigned ndev, const struct hipsvm_devinfo *info);
/* id: HIPSVM_CTX_HOST or a device index; NULL if out of range. */
struct hipsvm_context *hipsvm_ctxset_get(struct hipsvm_ctxset *s, int id);

/* The HIP allocation calls and which context each uses (docs/design.md, Contexts). */
enum hipsvm_api {
	HIPSVM_API_MALLOC,
	HIPSVM_API_MALLOC_PITCH,
	HIPSVM_API_MALLOC_3D,
	HIPSVM_API_MALLOC_ASYNC,
	HIPSVM_API_EXT_MALLOC_WITH_FLAGS,	/* default, fine-grained, uncached, contiguous */
	HIPSVM_API_EXT_MALLOC_SIGNAL,		/* hipExtMallocWithFlags(hipMallocSignalMemory) */
	HIPSVM_API_HOST_MALLOC,
	HIPSVM_API_EXT_HOST_ALLOC,
	HIPSVM_API_MALLOC_HOST,
	HIPSVM_API_HOST_ALLOC,
	HIPSVM_API_MALLOC_MANAGED,
	HIPSVM_API_HOST_REGISTER,
	HIPSVM_API_FREE,
	HIPSVM_API_HOST_FREE,
	HIPSVM_API_FREE_ASYNC,
	HIPSVM_API_HOST_UNREGISTER,
	/* device memory in the primary context of the device the call names
	 * (a pool's, a location) or, failing that, the current one */
	HIPSVM_API_MALLOC_FROM_POOL,
	HIPSVM_API_POOL_IMPORT,
	HIPSVM_API_MEM_CREATE,		/* a physical allocation (its handle is the key) */
	HIPSVM_API_IPC_OPEN,		/* memory of another process, imported here */
	HIPSVM_API_MEM_ALLOC_PITCH,
	HIPSVM_API_MEM_ALLOC_HOST,
	HIPSVM_API_MALLOC_ARRAY,	/* arrays: the hipArray handle is the key */
	HIPSVM_API_MALLOC_3D_ARRAY,
	HIPSVM_API_ARRAY_CREATE,
	HIPSVM_API_ARRAY_3D_CREATE,
	HIPSVM_API_MEM_RELEASE,
	HIPSVM_API_IPC_CLOSE,
	HIPSVM_API_FREE_ARRAY,
	HIPSVM_API_ARRAY_DESTROY,
	HIPSVM_API_COUNT
};

enum hipsvm_ctx_rule {
	HIPSVM_RULE_PRIMARY_CURRENT,	/* the current device's primary context */
	HIPSVM_RULE_HOST,		/* host_context */
	HIPSVM_RULE_BY_POINTER,		/* the context that owns the pointer */
};

/* What an allocation is; SVM kinds are the ones GPUs can fault on through the
 * CPU's address space, and so the ones whose unmap is coordinated. */
enum hipsvm_kind {
	HIPSVM_KIND_DEVICE,
	HIPSVM_KIND_MANAGED,
	HIPSVM_KIND_HOST,
	HIPSVM_KIND_REGISTERED,
	HIPSVM_KIND_SIGNAL,
	HIPSVM_KIND_COUNT
};

struct hipsvm_api_row {
	enum hipsvm_api api;
	const char *name;		/* "hipMalloc" */
	enum hipsvm_ctx_rule rule;
	enum hipsvm_kind kind;		/* for allocating calls */
	bool remembers_device;		/* hipMallocManaged remembers the current device */
};
const struct hipsvm_api_row *hipsvm_api_row(enum hipsvm_api api);
const char *hipsvm_kind_name(enum hipsvm_kind k);
bool hipsvm_kind_is_svm(enum hipsvm_kind k);

/* The context HIP would use for an allocating call; NULL for BY_POINTER rows
 * or a current device out of range. */
struct hipsvm_context *hipsvm_ctxset_for_api(struct hipsvm_ctxset *s, enum hipsvm_api api,
					     int current_dev);

#endif
