/* SPDX-License-Identifier: MIT */
/*
 * loader.c - code objects placed in GPU memory, one copy per device, as
 * ROCr's loader places an executable's segments for each agent.
 *
 * The first launch of one of its kernels, or the first use of one of its
 * variables, on a device loads the code object there: one device allocation
 * (through the allocation map, so the kernel's accesses take that GPU's
 * page-fault path like any device memory, and hipFree refuses it) spanning
 * address 0 to the end of the last PT_LOAD segment, the segments written and
 * relocated for that address (sim/codeobj/codeobj_image.h). A kernel then runs the
 * code at its place in that image, so s_getpc_b64 answers image addresses and
 * the kernel reaches its __device__ and __constant__ variables, and the
 * pointers between them, where hipGetSymbolAddress, hipMemcpyToSymbol and
 * hipModuleGetGlobal find them: the kernel and the host see the same bytes.
 *
 * Records are kept by code object; each holds, per device, the image's base
 * and a copy of every kernel's info pointing at the image's code. A fork
 * child (another pid) loads again: the parent's allocations are not its.
 * Locking: loader_lock, taken with no other simulator lock held; it is held
 * while an image is made (sim_alloc_new takes map_lock inside it).
 */
#include "exec/loader.h"
#include "runtime/map.h"
#include "runtime/state.h"
#include "exec/run.h"

#include <stdlib.h>
#include <unistd.h>

#include "codeobj/codeobj.h"
#include "runtime/step.h"

struct sim_image {
	struct sim_image *next;
	const struct hipsvm_codeobj *co;
	uintptr_t base[HIPSVM_MAX_GPUS];
	pid_t pid[HIPSVM_MAX_GPUS];
	int err[HIPSVM_MAX_GPUS];		/* a load that failed: not tried again */
	struct hipsvm_kernel_info *kinfo[HIPSVM_MAX_GPUS];
	uint64_t gen[HIPSVM_MAX_GPUS];		/* its kernels' generation there */
};

static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_image *images;

void sim_loader_reset(void)
{
	pthread_mutex_init(&loader_lock, NULL);
}
SIM_STEP(loader, .reset = sim_loader_reset);

static struct sim_image *find(const struct hipsvm_codeobj *co)
{
	struct sim_image *r;

	for (r = images; r && r->co != co; r = r->next)
		;
	return r;
}

void sim_loader_add(const struct hipsvm_codeobj *co)
{
	struct sim_image *r;

	if (!co)
		return;
	r = calloc(1, sizeof(*r));
	if (!r)
		return;		/* its kernels run from the file's copy, without variables */
	r->co = co;
	pthread_mutex_lock(&loader_lock);
	r->next = images;
	images = r;
	pthread_mutex_unlock(&loader_lock);
}

static void unload_dev(struct sim_image *r, int dev)
{
	struct sim_alloc *a;

	sim_isa_forget(r->gen[dev]);
	r->gen[dev] = 0;
	free(r->kinfo[dev]);
	r->kinfo[dev] = NULL;
	if (r->base[dev] && r->pid[dev] == sim.pid) {
		a = sim_map_take((void *)r->base[dev], SIM_ROLE_CODE);
		if (a)
			sim_alloc_destroy(a);
	}
	r->base[dev] = 0;
	r->err[dev] = 0;
}

void sim_loader_remove(const struct hipsvm_codeobj *co)
{
	struct sim_image **rp, *r = NULL;

	pthread_mutex_lock(&loader_lock);
	for (rp = &images; *rp; rp = &(*rp)->next) {
		if ((*rp)->co == co) {
			r = *rp;
			*rp = r->next;
			break;
		}
	}
	pthread_mutex_unlock(&loader_lock);
	if (!r)
		return;
	for (int d = 0; d < HIPSVM_MAX_GPUS; d++)
		unload_dev(r, d);
	/* the code object's own copy, freed by the caller next */
	if (hipsvm_codeobj_count(co))
		sim_isa_forget(hipsvm_codeobj_kernel(co, 0)->gen);
	free(r);
}

/* Loads r on dev (loader_lock held); 0 or -errno. */
static int load(struct sim_image *r, int dev)
{
	uint64_t span;
	unsigned n;
	struct hipsvm_context *c;
	struct sim_alloc *a;
	uint64_t gen;
	uint8_t *p;
	int err;

	if (r->base[dev] && r->pid[dev] == sim.pid)
		return 0;
	if (r->err[dev] && r->pid[dev] == sim.pid)
		return r->err[dev];
	if (r->pid[dev] != sim.pid) {	/* a fork child: the parent's are gone */
		sim_isa_forget(r->gen[dev]);
		r->gen[dev] = 0;
		free(r->kinfo[dev]);
		r->kinfo[dev] = NULL;
		r->base[dev] = 0;
	}
	r->pid[dev] = sim.pid;
	r->err[dev] = -ENOENT;
	/* read here, not on every launch: the size walks the program headers */
	span = hipsvm_codeobj_image_size(r->co);
	n = hipsvm_codeobj_count(r->co);
	if (!span || span > SIZE_MAX)
		return r->err[dev];
	c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_MALLOC, dev);
	r->err[dev] = -ENOMEM;
	r->kinfo[dev] = calloc(n ? n : 1, sizeof(*r->kinfo[dev]));
	if (!c || !r->kinfo[dev] ||
	    sim_alloc_new((size_t)span, HIPSVM_KIND_DEVICE, c->id, dev, 0, NULL, &a) != hipSuccess) {
		free(r->kinfo[dev]);
		r->kinfo[dev] = NULL;
		return r->err[dev];
	}
	/* ROCr's loader places the segments (hsa_executable_load_agent_code_object),
	 * out of ROCclr's sight: only its own device buffers move the free memory
	 * hipMemGetInfo answers (ROCclr rocmemory.cpp:807, rocdevice.cpp:2076),
	 * so a loaded kernel leaves it where it was */
	sim_uncharge(dev, a->charged);
	a->charged = 0;
	p = (uint8_t *)a->base;
	/* fresh anonymous memory is zero: bss and the gaps need nothing */
	err = hipsvm_codeobj_image_write(r->co, p, (uint64_t)a->base);
	if (err) {
		a = sim_map_take(p, SIM_ROLE_PLAIN);
		if (a)
			sim_alloc_destroy(a);
		free(r->kinfo[dev]);
		r->kinfo[dev] = NULL;
		r->err[dev] = err;
		return err;
	}
	sim_alloc_set_role(p, SIM_ROLE_CODE, r);
	/* a new placement: an image unloaded before may have had this address */
	gen = hipsvm_codeobj_generation();
	for (unsigned i = 0; i < n; i++) {
		struct hipsvm_kernel_info *k = &r->kinfo[dev][i];

		*k = *hipsvm_codeobj_kernel(r->co, i);
		if (k->has_code && k->code_vaddr < span && k->code_size <= span - k->code_vaddr &&
		    k->text_vaddr < span && k->text_size <= span - k->text_vaddr) {
			k->code = p + k->code_vaddr;
			k->code_vaddr += (uint64_t)a->base;
			k->text = p + k->text_vaddr;
			k->text_vaddr += (uint64_t)a->base;
			k->gen = gen;
		}
	}
	r->gen[dev] = gen;
	r->base[dev] = a->base;
	r->err[dev] = 0;
	return 0;
}

const struct hipsvm_kernel_info *sim_loader_kernel(const struct hipsvm_kernel_info *info, int dev)
{
	const struct hipsvm_kernel_info *out = info;
	struct sim_image *r;

	if (!info || !info->co || dev < 0 || dev >= HIPSVM_MAX_GPUS)
		return info;
	pthread_mutex_lock(&loader_lock);
	r = find(info->co);
	if (r && load(r, dev) == 0 && info->index < hipsvm_codeobj_count(r->co))
		out = &r->kinfo[dev][info->index];
	pthread_mutex_unlock(&loader_lock);
	return out;
}

int sim_loader_symbol(const struct hipsvm_codeobj *co, const char *name, int dev, void **addr,
		      size_t *size)
{
	uint64_t off = 0, n = 0;
	struct sim_image *r;
	int err = -ENOENT;

	if (!co || !name || dev < 0 || dev >= HIPSVM_MAX_GPUS)
		return -ENOENT;
	/* co is read under the lock: a record found is one not yet removed,
	 * and its code object is freed only after its removal */
	pthread_mutex_lock(&loader_lock);
	r = find(co);
	if (r) {
		err = hipsvm_codeobj_symbol(co, name, &off, &n);
		if (!err)
			err = load(r, dev);
	}
	if (!err) {
		*addr = (void *)(r->base[dev] + (uintptr_t)off);
		*size = (size_t)n;
	}
	pthread_mutex_unlock(&loader_lock);
	return err;
}
