/* SPDX-License-Identifier: MIT */
/*
 * launch.c - what hipcc's generated host code calls: fat binary and kernel
 * registration, the <<<...>>> call configuration, and hipLaunchKernel. A
 * launch is handed to sim/exec/ (exec.h), which runs the kernel's code on
 * the interpreter or touches its buffers.
 */
#include "api/api.h"
#include "api/kernels.h"
#include "exec/loader.h"
#include "api/exports.h"
#include "runtime/step.h"
#include "api/graph.h"

#include <stdlib.h>

#include "codeobj/codeobj.h"
#include "exec/exec.h"

#define CALL_STACK 8

/*
 * A registered fat binary. Its code object is chosen at first use, as ROCm
 * defers it to the first call that needs a device: registration runs in the
 * program's constructors, before the simulator knows the devices' XNACK mode
 * (HSA_XNACK), which decides between xnack+ and xnack- code objects.
 */
struct sim_module {
	struct sim_module *next;
	struct sim_func *funcs;		/* its kernels, by sim_func.mnext */
	const void *wrapper;
	bool loaded;
	struct hipsvm_codeobj *co;
	int load_err;
};

struct sim_func {
	struct sim_func *next;
	struct sim_func **pprev;	/* what points at it in funcs: unlinked in O(1) */
	struct sim_func *hnext;		/* in its fhash bucket */
	struct sim_func *mnext;		/* in its module's list */
	struct sim_module *mod;
	const void *host_fn;
	char name[256];
	char *dev_name;		/* untruncated, for the code object lookup */
	const struct hipsvm_kernel_info *info;
};

struct call_cfg {
	dim3 grid, block;
	size_t shmem;
	hipStream_t stream;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_module *modules;
static struct sim_func *funcs;
/* funcs by host function, for the lookup every launch makes (a library such
 * as rocSPARSE registers thousands); a power of two of buckets, doubled when
 * the chains average 2. NULL (no memory yet): the list is walked. */
static struct sim_func **fhash;
static size_t fhash_n, nfuncs;
static __thread struct call_cfg cfg_stack[CALL_STACK];
static __thread unsigned cfg_depth;

static void launch_reset(void)
{
	/* Registrations are made by constructors before any fork and stay
	 * valid in a child (same memory image); only the lock is renewed. */
	pthread_mutex_init(&reg_lock, NULL);
}
SIM_STEP(launch, .reset = launch_reset);

SIM_API void **__hipRegisterFatBinary(const void *data)
{
	struct sim_module *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->wrapper = data;
	pthread_mutex_lock(&reg_lock);
	m->next = modules;
	modules = m;
	pthread_mutex_unlock(&reg_lock);
	return (void **)m;
}

static size_t fhash_at(const void *host_fn, size_t n)
{
	return (size_t)(((uint64_t)(uintptr_t)host_fn * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (n - 1);
}

/* reg_lock held; f is already at the head of funcs */
static void fhash_add(struct sim_func *f)
{
	nfuncs++;
	if (nfuncs > 2 * fhash_n) {
		size_t n = fhash_n ? 2 * fhash_n : 256;
		struct sim_func **t = calloc(n, sizeof(*t));

		if (t) {
			/* from funcs, newest first, each appended: a bucket keeps
			 * the newest registration of a host function first, as
			 * the list does */
			for (struct sim_func *g = funcs; g; g = g->next) {
				struct sim_func **pp = &t[fhash_at(g->host_fn, n)];

				while (*pp)
					pp = &(*pp)->hnext;
				g->hnext = NULL;
				*pp = g;
			}
			free(fhash);
			fhash = t;
			fhash_n = n;
			return;
		}
	}
	if (fhash) {
		size_t b = fhash_at(f->host_fn, fhash_n);

		f->hnext = fhash[b];
		fhash[b] = f;
	}
}

/* reg_lock held */
static void fhash_remove(struct sim_func *f)
{
	struct sim_func **pp;

	nfuncs--;
	if (!fhash)
		return;
	for (pp = &fhash[fhash_at(f->host_fn, fhash_n)]; *pp && *pp != f; pp = &(*pp)->hnext)
		;
	if (*pp)
		*pp = f->hnext;
}

SIM_API void __hipUnregisterFatBinary(void **handle)
{
	struct sim_module *m = (struct sim_module *)handle, **mp;
	struct sim_func *f, *next;

	if (!m)
		return;
	pthread_mutex_lock(&reg_lock);
	/* its own kernels only: with every registration walked, a library of
	 * hundreds of fat binaries and ~20,000 kernels spent 9.6 M
	 * instructions at exit */
	for (f = m->funcs; f; f = next) {
		next = f->mnext;
		*f->pprev = f->next;
		if (f->next)
			f->next->pprev = f->pprev;
		fhash_remove(f);
		free(f->dev_name);
		free(f);
	}
	m->funcs = NULL;
	for (mp = &modules; *mp && *mp != m; mp = &(*mp)->next)
		;
	if (*mp)
		*mp = m->next;
	pthread_mutex_unlock(&reg_lock);
	if (m->co) {
		sim_loader_remove(m->co);
		hipsvm_codeobj_free(m->co);
	}
	free(m);
}

SIM_API void __hipRegisterFunction(void **handle, const void *host_fn, char *dev_fn,
				   const char *dev_name, unsigned int thread_limit, void *tid,
				   void *bid, void *block, void *grid, int *wsize)
{
	struct sim_module *m = (struct sim_module *)handle;
	struct sim_func *f = calloc(1, sizeof(*f));

	(void)dev_fn;
	if (!f || !m) {
		free(f);
		return;
	}
	f->mod = m;
	f->host_fn = host_fn;
	{
		/* cut as snprintf would, without its format parsing: a library
		 * such as rocSPARSE registers ~20,000 kernels at start-up */
		const char *src = dev_name ? dev_name : "?";
		size_t n = strnlen(src, sizeof(f->name) - 1);

		memcpy(f->name, src, n);
		f->name[n] = 0;
	}
	f->dev_name = strdup(f->name[0] == '?' && !dev_name ? "" : dev_name);
	if (!f->dev_name) {
		free(f);
		return;
	}
	pthread_mutex_lock(&reg_lock);
	f->next = funcs;
	if (funcs)
		funcs->pprev = &f->next;
	f->pprev = &funcs;
	funcs = f;
	f->mnext = m->funcs;
	m->funcs = f;
	fhash_add(f);
	pthread_mutex_unlock(&reg_lock);
}

/* A __managed__ variable: managed memory holding the initial value. */
SIM_API void __hipRegisterManagedVar(void *handle, void **pointer, void *init, const char *name,
				     size_t size, unsigned align)
{
	void *p = NULL;

	if (!pointer || size == 0)
		return;
	if (hipMallocManaged(&p, size, hipMemAttachGlobal) != hipSuccess)
		return;
	if (init)
		memcpy(p, init, size);
	*pointer = p;
}

SIM_API hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shmem,
					      hipStream_t stream)
{
	if (cfg_depth == CALL_STACK)
		SIM_RETURN(hipErrorInvalidConfiguration);
	cfg_stack[cfg_depth++] = (struct call_cfg){ grid, block, shmem, stream };
	return hipSuccess;
}

SIM_API hipError_t __hipPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem,
					     hipStream_t *stream)
{
	struct call_cfg *c;

	if (cfg_depth == 0)
		SIM_RETURN(hipErrorMissingConfiguration);
	c = &cfg_stack[--cfg_depth];
	if (grid)
		*grid = c->grid;
	if (block)
		*block = c->block;
	if (shmem)
		*shmem = c->shmem;
	if (stream)
		*stream = c->stream;
	return hipSuccess;
}

/* The module's code object for the devices' target ID; reg_lock held. */
static struct hipsvm_codeobj *module_co(struct sim_module *m)
{
	if (!m->loaded) {
		m->loaded = true;
		m->load_err = hipsvm_codeobj_load(m->wrapper, sim.target, &m->co);
		sim_loader_add(m->co);
		if (m->load_err == -ENOENT && !sim.quiet)
			sim_warn("a fat binary has no code object for %s: its kernels are not run "
				 "(ROCm ends such a program with hipErrorNoBinaryForGpu)", sim.target);
	}
	return m->co;
}

const struct hipsvm_codeobj *sim_fatbin_codeobj(void **handle)
{
	struct sim_module *m;
	const struct hipsvm_codeobj *co = NULL;

	if (!handle)
		return NULL;
	sim_init();
	pthread_mutex_lock(&reg_lock);
	for (m = modules; m && m != (struct sim_module *)handle; m = m->next)
		;
	if (m)
		co = module_co(m);
	pthread_mutex_unlock(&reg_lock);
	return co;
}

const char *sim_func_lookup(const void *host_fn, const struct hipsvm_kernel_info **info)
{
	struct sim_func *f;
	struct hipsvm_codeobj *co;

	SIM_INIT_API();
	pthread_mutex_lock(&reg_lock);
	if (fhash)
		for (f = fhash[fhash_at(host_fn, fhash_n)]; f && f->host_fn != host_fn; f = f->hnext)
			;
	else
		for (f = funcs; f && f->host_fn != host_fn; f = f->next)
			;
	if (f && !f->info && (co = module_co(f->mod)) != NULL)
		f->info = hipsvm_codeobj_find(co, f->dev_name);
	pthread_mutex_unlock(&reg_lock);
	if (!f)
		return NULL;
	*info = f->info;
	return f->name;
}

/* ROCm 5.2's order (ihipLaunchKernel, then the module launch checks): an
 * unknown kernel, then the sizes (sim_exec_dims_blocks). */
SIM_API hipError_t hipLaunchKernel(const void *fn, dim3 grid, dim3 block, void **args,
				   size_t shmem, hipStream_t stream)
{
	struct sim_launch l = { .args = args };
	hipError_t e;

	SIM_INIT_API();
	if (sim_capture_active(stream))
		return sim_capture_kernel(stream, fn, grid, block, args, shmem);
	l.name = sim_func_lookup(fn, &l.info);
	if (!l.name)
		SIM_RETURN(hipErrorInvalidDeviceFunction);
	e = sim_exec_dims_blocks(grid, block, shmem, &l.dims);
	if (e != hipSuccess)
		SIM_RETURN(e);
	SIM_RETURN(sim_exec_launch(&l, stream));
}
