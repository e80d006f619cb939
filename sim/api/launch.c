/* SPDX-License-Identifier: MIT */
/*
 * launch.c - what hipcc's generated host code calls: fat binary and kernel
 * registration, the <<<...>>> call configuration, and hipLaunchKernel.
 *
 * A launch runs the kernel's machine code on the interpreter (sim/isa/)
 * when it can. Otherwise (HIPSVM_SIM_EXEC=touch, no code, an instruction
 * the interpreter lacks) it takes the buffer-touch model: it finds which
 * arguments are global buffers (the code object's metadata, sim/codeobj/codeobj.h)
 * and touches every page of the simulator allocations they point into, on
 * the stream's device, from the stream's worker thread: the faults a kernel
 * would raise, in stream order. Pointer-sized, 8-byte aligned arguments
 * that the metadata does not call buffers are touched too when they point
 * into an allocation (a pointer hidden in a by-value argument). Without
 * metadata a launch touches nothing (the argument array's length is
 * unknown); that is said once on stderr.
 */
#include "sim.h"

#include <stdlib.h>

#include "codeobj/codeobj.h"
#include "exec/run.h"

#define CALL_STACK 8
#define MAX_TOUCH 64

/*
 * A registered fat binary. Its code object is chosen at first use, as ROCm
 * defers it to the first call that needs a device: registration runs in the
 * program's constructors, before the simulator knows the devices' XNACK mode
 * (HSA_XNACK), which decides between xnack+ and xnack- code objects.
 */
struct sim_module {
	struct sim_module *next;
	const void *wrapper;
	bool loaded;
	struct hipsvm_codeobj *co;
	int load_err;
};

struct sim_func {
	struct sim_func *next;
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
static __thread struct call_cfg cfg_stack[CALL_STACK];
static __thread unsigned cfg_depth;
static uint32_t warned_meta;

void sim_launch_reset(void)
{
	/* Registrations are made by constructors before any fork and stay
	 * valid in a child (same memory image); only the lock is renewed. */
	pthread_mutex_init(&reg_lock, NULL);
	sim_isa_reset();
}

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

SIM_API void __hipUnregisterFatBinary(void **handle)
{
	struct sim_module *m = (struct sim_module *)handle, **mp;
	struct sim_func **fp, *f;

	if (!m)
		return;
	pthread_mutex_lock(&reg_lock);
	for (fp = &funcs; *fp;) {
		f = *fp;
		if (f->mod == m) {
			*fp = f->next;
			free(f->dev_name);
			free(f);
		} else {
			fp = &f->next;
		}
	}
	for (mp = &modules; *mp && *mp != m; mp = &(*mp)->next)
		;
	if (*mp)
		*mp = m->next;
	pthread_mutex_unlock(&reg_lock);
	if (m->co)
		hipsvm_codeobj_free(m->co);
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
	snprintf(f->name, sizeof(f->name), "%s", dev_name ? dev_name : "?");
	f->dev_name = strdup(f->name[0] == '?' && !dev_name ? "" : dev_name);
	if (!f->dev_name) {
		free(f);
		return;
	}
	pthread_mutex_lock(&reg_lock);
	f->next = funcs;
	funcs = f;
	pthread_mutex_unlock(&reg_lock);
}

/* Device variables get device memory of their own on first use (symbol.c). */
SIM_API void __hipRegisterVar(void **handle, void *var, char *host_var, char *dev_var, int ext,
			      size_t size, int constant, int global)
{
	sim_symbol_register(var, dev_var, size);
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
		return sim_ret(hipErrorInvalidConfiguration);
	cfg_stack[cfg_depth++] = (struct call_cfg){ grid, block, shmem, stream };
	return hipSuccess;
}

SIM_API hipError_t __hipPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem,
					     hipStream_t *stream)
{
	struct call_cfg *c;

	if (cfg_depth == 0)
		return sim_ret(hipErrorMissingConfiguration);
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

void sim_touch_range(int dev, uintptr_t base, size_t size, bool write, hipError_t *err)
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
		sim_touch_range(t->dev, t->r[i].base, t->r[i].size, t->r[i].write, &err);
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
	(void)args;
	if (!__atomic_exchange_n(&warned_meta, 1, __ATOMIC_RELAXED))
		sim_warn("no argument metadata for kernel %s: its launch touches no memory", name);
}

hipError_t sim_launch_enqueue(const char *name, const void *info, void **args,
			      const void *kernarg, size_t kernarg_size, hipStream_t stream)
{
	return sim_launch_enqueue_dims(name, info, args, kernarg, kernarg_size, stream, NULL);
}

struct sim_launch_dims sim_dims_blocks(dim3 grid, dim3 block, size_t shmem)
{
	struct sim_launch_dims d = {
		.grid = { grid.x * block.x, grid.y * block.y, grid.z * block.z },
		.block = { block.x, block.y, block.z },
		.shmem = shmem > UINT32_MAX ? UINT32_MAX : (uint32_t)shmem,
	};

	return d;
}

hipError_t sim_launch_enqueue_dims(const char *name, const void *info, void **args,
				   const void *kernarg, size_t kernarg_size, hipStream_t stream,
				   const struct sim_launch_dims *dims)
{
	struct sim_stream *s;
	struct touch_op *t;

	s = sim_stream_get(stream);
	if (!s)
		return hipErrorInvalidHandle;
	if (dims && sim_isa_enqueue(name, info, args, kernarg, kernarg_size, s, dims))
		return hipSuccess;
	sim_launch_notice();
	t = calloc(1, sizeof(*t));
	if (!t)
		return hipErrorOutOfMemory;
	t->op.fn = touch_run;
	t->s = s;
	t->dev = sim_stream_device(s);
	snprintf(t->name, sizeof(t->name), "%s", name);
	collect(t, name, info, args, kernarg, kernarg_size);
	sim_stream_enqueue(s, &t->op);
	return hipSuccess;
}

void sim_launch_notice(void)
{
	static uint32_t notice;

	if (!sim.quiet && !strcmp(sim.opt.str[HIPSVM_SIM_O_EXEC], "touch") &&
	    !__atomic_exchange_n(&notice, 1, __ATOMIC_RELAXED))
		sim_warn("HIPSVM_SIM_EXEC=touch: kernel code is not run; a launch only touches "
			 "the memory its buffer arguments point to");
}

/* The module's code object for the devices' target ID; reg_lock held. */
static struct hipsvm_codeobj *module_co(struct sim_module *m)
{
	if (!m->loaded) {
		m->loaded = true;
		m->load_err = hipsvm_codeobj_load(m->wrapper, sim.target, &m->co);
		if (m->load_err == -ENOENT && !sim.quiet)
			sim_warn("a fat binary has no code object for %s: its kernels are not run "
				 "(ROCm ends such a program with hipErrorNoBinaryForGpu)", sim.target);
	}
	return m->co;
}

const char *sim_func_lookup(const void *host_fn, const void **info)
{
	struct sim_func *f;
	struct hipsvm_codeobj *co;

	sim_init();
	pthread_mutex_lock(&reg_lock);
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
 * unknown kernel, a grid of more than 2^32-1 work-items in a dimension, a
 * zero size, too many threads in a block. */
SIM_API hipError_t hipLaunchKernel(const void *fn, dim3 grid, dim3 block, void **args,
				   size_t shmem, hipStream_t stream)
{
	const void *info;
	const char *name;
	struct sim_launch_dims dims;

	sim_init();
	name = sim_func_lookup(fn, &info);
	if (!name)
		return sim_ret(hipErrorInvalidDeviceFunction);
	if ((uint64_t)grid.x * block.x > UINT32_MAX || (uint64_t)grid.y * block.y > UINT32_MAX ||
	    (uint64_t)grid.z * block.z > UINT32_MAX)
		return sim_ret(hipErrorInvalidConfiguration);
	if (!block.x || !block.y || !block.z || !grid.x || !grid.y || !grid.z)
		return sim_ret(hipErrorInvalidValue);
	if ((uint64_t)block.x * block.y * block.z > 1024)
		return sim_ret(hipErrorInvalidConfiguration);
	dims = sim_dims_blocks(grid, block, shmem);
	return sim_ret(sim_launch_enqueue_dims(name, info, args, NULL, 0, stream, &dims));
}
