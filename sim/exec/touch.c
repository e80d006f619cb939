/* SPDX-License-Identifier: MIT */
/*
 * touch.c - the buffer-touch model: a launch whose code is not interpreted
 * (HIPSVM_SIM_EXEC=touch, no code, an instruction the interpreter lacks;
 * run.c decides) finds which arguments are global buffers (the code
 * object's metadata, sim/codeobj/codeobj.h) and touches every page of the
 * simulator allocations they point into, on the stream's device, from the
 * stream's worker thread: the faults a kernel would raise, in stream order.
 * Pointer-sized, 8-byte aligned arguments that the metadata does not call
 * buffers are touched too when they point into an allocation (a pointer
 * hidden in a by-value argument). Without metadata a launch touches nothing
 * (the argument array's length is unknown); that is said once on stderr.
 */
#include "exec/run.h"
#include "gpu/gpu.h"
#include "runtime/map.h"
#include "runtime/state.h"
#include "runtime/stream.h"

#include <stdlib.h>

#define MAX_TOUCH 64

static uint32_t warned_meta;

static void touch_range(int dev, uintptr_t base, size_t size, bool write, hipError_t *err)
{
	struct sim_gpu *g = sim_gpu(dev);
	uintptr_t p, end = base + size;

	if (!g)
		return;
	for (p = base & ~(uintptr_t)(SIM_PAGE - 1); p < end; p += SIM_PAGE)
		if (sim_gpu_access_page(g, p, write, NULL) == SIM_RES_REAL)
			*err = hipErrorIllegalAddress;
}

struct touch_op {
	struct sim_op op;
	struct sim_stream *s;
	int dev;
	unsigned n;
	struct {
		uintptr_t base;
		size_t size;
		bool write;
	} r[MAX_TOUCH];
	char name[256];
};

static void touch_run(struct sim_op *op)
{
	struct touch_op *t = (struct touch_op *)op;
	hipError_t err = hipSuccess;
	unsigned i;

	for (i = 0; i < t->n; i++)
		touch_range(t->dev, t->r[i].base, t->r[i].size, t->r[i].write, &err);
	if (err != hipSuccess) {
		sim_warn("memory access fault by GPU %d in kernel %s (a real fault)", t->dev, t->name);
		sim_stream_set_error(t->s, err);
	}
}

static void add_range(struct touch_op *t, uintptr_t value, bool write)
{
	struct sim_alloc a;
	unsigned i;

	if (!value || !sim_lookup((const void *)value, &a))
		return;
	for (i = 0; i < t->n; i++) {
		if (t->r[i].base == a.base) {
			t->r[i].write |= write;
			return;
		}
	}
	if (t->n == MAX_TOUCH)
		return;
	t->r[t->n].base = a.base;
	t->r[t->n].size = a.size;
	t->r[t->n].write = write;
	t->n++;
}

/* The buffer arguments of a launch, from the argument array (args[i] points
 * at argument i) or from a packed kernarg buffer (argument i at its
 * metadata offset). */
static void collect(struct touch_op *t, const char *name, const struct hipsvm_kernel_info *info,
		    void **args, const uint8_t *buf, size_t buflen)
{
	unsigned i;

	if (info && (args || buf)) {
		for (i = 0; i < info->nargs; i++) {
			const struct hipsvm_karg *k = &info->args[i];
			uintptr_t v;

			if (k->size != sizeof(void *))
				continue;
			if (!k->global_buffer && k->offset % 8)
				continue;
			if (args) {
				if (!args[i])
					continue;
				memcpy(&v, args[i], sizeof(v));
			} else {
				if ((size_t)k->offset + sizeof(v) > buflen)
					continue;
				memcpy(&v, buf + k->offset, sizeof(v));
			}
			add_range(t, v, !k->read_only);
		}
		return;
	}
	if (!__atomic_exchange_n(&warned_meta, 1, __ATOMIC_RELAXED))
		sim_warn("no argument metadata for kernel %s: its launch touches no memory", name);
}

hipError_t sim_touch_enqueue(const struct sim_launch *l, struct sim_stream *s)
{
	struct touch_op *t = calloc(1, sizeof(*t));

	if (!t)
		return hipErrorOutOfMemory;
	t->op.fn = touch_run;
	t->s = s;
	t->dev = sim_stream_device(s);
	snprintf(t->name, sizeof(t->name), "%s", l->name);
	collect(t, l->name, l->info, l->args, l->kernarg, l->kernarg_size);
	sim_stream_enqueue(s, &t->op);
	return hipSuccess;
}
