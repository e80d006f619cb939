/* SPDX-License-Identifier: MIT */
/*
 * module.c - the module API (hipModuleLoad*, hipModuleGetFunction,
 * hipModuleLaunchKernel and its extended forms), function attributes, and the
 * other launch entry points (cooperative, multi-device, hipExtLaunchKernel,
 * the old hipConfigureCall / hipSetupArgument / hipLaunchByPtr triple).
 *
 * A module is a code object read by sim/codeobj/codeobj.c, as the fat binaries of
 * hipcc programs are; a launch through it touches the allocations its buffer
 * arguments point to, exactly as a <<<>>> launch does (launch.c), whether
 * the arguments come as kernelParams or packed in `extra`. The module's
 * code object is loaded into each device's memory at first use (loader.c):
 * hipModuleGetGlobal answers a variable's address in that image, and
 * hipErrorNotFound for a name the module lacks, as ROCm does.
 */
#include "api/api.h"
#include "api/kernels.h"
#include "exec/loader.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codeobj/codeobj.h"
#include "exec/exec.h"
#include "api/graph.h"

#define MOD_MAGIC 0x4d4f444cu	/* "MODL" */
#define FN_MAGIC 0x46554e43u	/* "FUNC" */
#define MAX_IMAGE (256u << 20)

struct ihipModule_t {
	uint32_t magic;
	struct hipsvm_codeobj *co;
	void *image;		/* hipModuleLoad's file contents */
	struct ihipModule_t *next;
};

struct ihipModuleSymbol_t {
	uint32_t magic;
	struct ihipModule_t *mod;
	const struct hipsvm_kernel_info *info;
	char name[256];
	struct ihipModuleSymbol_t *next;
};

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ihipModule_t *mods;
static struct ihipModuleSymbol_t *fns;

static bool mod_live(hipModule_t m)
{
	struct ihipModule_t *it;

	for (it = mods; it && it != m; it = it->next)
		;
	return it != NULL;
}

static bool fn_live(hipFunction_t f)
{
	struct ihipModuleSymbol_t *it;

	for (it = fns; it && it != f; it = it->next)
		;
	return it != NULL;
}

/* ROCm 5.2 takes what is not an offload bundle for a code object and
 * fails to load a malformed one with hipErrorInvalidKernelFile; a bundle
 * without a code object for the GPU is hipErrorNoBinaryForGpu (on which
 * ROCm aborts the program; the simulator only answers it). */
static hipError_t load_err(int err)
{
	return err == -ENOENT ? hipErrorNoBinaryForGpu :
	       err == -ENOMEM ? hipErrorOutOfMemory : hipErrorInvalidKernelFile;
}

static hipError_t add_module(hipModule_t *out, struct hipsvm_codeobj *co, void *image)
{
	struct ihipModule_t *m = calloc(1, sizeof(*m));

	if (!m) {
		hipsvm_codeobj_free(co);
		free(image);
		return hipErrorOutOfMemory;
	}
	m->magic = MOD_MAGIC;
	m->co = co;
	sim_loader_add(co);
	m->image = image;
	pthread_mutex_lock(&mod_lock);
	m->next = mods;
	mods = m;
	pthread_mutex_unlock(&mod_lock);
	*out = m;
	return hipSuccess;
}

static hipError_t load_image(hipModule_t *out, const void *image)
{
	struct hipsvm_codeobj *co = NULL;
	int err;

	SIM_INIT_API();
	if (!out || !image)
		return hipErrorInvalidValue;
	/* An image is what a fat binary wrapper points at: an offload bundle
	 * or an ELF code object, sized by its own headers. */
	{
		struct { uint32_t magic, version; const void *bin; void *unused; } w = {
			0x48495046u, 1, image, NULL
		};

		err = hipsvm_codeobj_load(&w, sim.target, &co);
	}
	if (err)
		return load_err(err);
	return add_module(out, co, NULL);
}

SIM_API hipError_t hipModuleLoadData(hipModule_t *out, const void *image)
{
	SIM_RETURN(load_image(out, image));
}

/* JIT options do not apply to a finished code object; ROCm ignores them. */
SIM_API hipError_t hipModuleLoadDataEx(hipModule_t *out, const void *image, unsigned int n,
				       hipJitOption *opts, void **values)
{
	(void)n;
	(void)opts;
	(void)values;
	SIM_RETURN(load_image(out, image));
}

SIM_API hipError_t hipModuleLoad(hipModule_t *out, const char *fname)
{
	struct hipsvm_codeobj *co = NULL;
	struct stat st;
	void *buf;
	ssize_t got;
	int fd, err;

	SIM_INIT_API();
	if (!out || !fname)
		SIM_RETURN(hipErrorInvalidValue);
	fd = open(fname, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		SIM_RETURN(hipErrorFileNotFound);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > MAX_IMAGE) {
		close(fd);
		SIM_RETURN(hipErrorInvalidKernelFile);
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		close(fd);
		SIM_RETURN(hipErrorOutOfMemory);
	}
	got = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (got != st.st_size) {
		free(buf);
		SIM_RETURN(hipErrorInvalidKernelFile);
	}
	err = hipsvm_codeobj_load_blob(buf, (size_t)st.st_size, sim.target, &co);
	if (err) {
		free(buf);
		SIM_RETURN(load_err(err));
	}
	SIM_RETURN(add_module(out, co, buf));
}

SIM_API hipError_t hipModuleUnload(hipModule_t m)
{
	struct ihipModule_t **mp;
	struct ihipModuleSymbol_t **fp, *f;
	bool found = false;

	SIM_INIT_API();
	pthread_mutex_lock(&mod_lock);
	for (mp = &mods; m && *mp; mp = &(*mp)->next) {
		if (*mp == m) {
			*mp = m->next;
			found = true;
			break;
		}
	}
	if (found) {
		for (fp = &fns; *fp;) {
			f = *fp;
			if (f->mod == m) {
				*fp = f->next;
				f->magic = 0;
				free(f);
			} else {
				fp = &f->next;
			}
		}
	}
	pthread_mutex_unlock(&mod_lock);
	if (!found)	/* ROCm: not a loaded module */
		SIM_RETURN(hipErrorNotFound);
	/* Launches already queued hold the kernel's name and the ranges to
	 * touch, not the module. */
	sim_loader_remove(m->co);
	hipsvm_codeobj_free(m->co);
	free(m->image);
	m->magic = 0;
	free(m);
	return hipSuccess;
}

SIM_API hipError_t hipModuleGetFunction(hipFunction_t *out, hipModule_t m, const char *name)
{
	const struct hipsvm_kernel_info *info;
	struct ihipModuleSymbol_t *f;
	hipError_t r = hipSuccess;

	SIM_INIT_API();
	if (!out || !name)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&mod_lock);
	if (!m || !mod_live(m) || !*name) {
		r = hipErrorNotFound;
		goto out;
	}
	info = hipsvm_codeobj_find(m->co, name);
	if (!info) {
		r = hipErrorNotFound;
		goto out;
	}
	for (f = fns; f && !(f->mod == m && f->info == info); f = f->next)
		;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f) {
			r = hipErrorOutOfMemory;
			goto out;
		}
		f->magic = FN_MAGIC;
		f->mod = m;
		f->info = info;
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->next = fns;
		fns = f;
	}
	*out = f;
out:
	pthread_mutex_unlock(&mod_lock);
	SIM_RETURN(r);
}

/* The variable in the module's image on the current device (loader.c). */
SIM_API hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t m,
				      const char *name)
{
	const struct hipsvm_codeobj *co = NULL;
	void *p;
	size_t n;
	int err;

	SIM_INIT_API();
	if (!dptr || !bytes)	/* ROCm: nothing asked, nothing to do */
		return hipSuccess;
	if (!name)	/* ROCm returns this one directly */
		return hipErrorInvalidValue;
	/* held across the lookup: hipModuleUnload frees the code object */
	pthread_mutex_lock(&mod_lock);
	if (m && mod_live(m))
		co = m->co;
	err = co ? sim_loader_symbol(co, name, sim_current_device(), &p, &n) : -ENOENT;
	pthread_mutex_unlock(&mod_lock);
	if (err == -ENOMEM)
		SIM_RETURN(hipErrorOutOfMemory);
	if (err)
		SIM_RETURN(hipErrorNotFound);
	*dptr = p;
	*bytes = n;
	return hipSuccess;
}

/* A snapshot of a live function, for a launch or a query. */
static bool fn_get(hipFunction_t f, char *name, const struct hipsvm_kernel_info **info)
{
	bool ok;

	pthread_mutex_lock(&mod_lock);
	ok = f && fn_live(f);
	if (ok) {
		memcpy(name, f->name, sizeof(f->name));
		*info = f->info;
	}
	pthread_mutex_unlock(&mod_lock);
	return ok;
}

/* ROCm's checks of a module launch, in ROCm's order; sizes are work-items. */
static hipError_t module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
				uint32_t bx, uint32_t by, uint32_t bz, uint32_t shmem, hipStream_t stream,
				void **params, void **extra, hipEvent_t start, hipEvent_t stop)
{
	char name[256];
	struct sim_launch l = {
		.name = name, .args = params, .dims = { { gx, gy, gz }, { bx, by, bz }, shmem },
	};
	hipError_t r;

	SIM_INIT_API();
	if (!f || !fn_get(f, name, &l.info))
		return hipErrorInvalidImage;
	if (params && extra)
		return hipErrorInvalidValue;
	if (!gx || !gy || !gz || !bx || !by || !bz)
		return hipErrorInvalidValue;
	if (extra) {
		if (extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER ||
		    extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE || extra[4] != HIP_LAUNCH_PARAM_END)
			return hipErrorNotInitialized;
		l.kernarg = extra[1];
		l.kernarg_size = extra[3] ? *(const size_t *)extra[3] : 0;
	}
	if ((r = sim_exec_check_block(l.dims.block)) != hipSuccess)
		return r;
	if ((r = sim_exec_check_bounds(l.info, l.dims.block)) != hipSuccess)
		return r;
	if (start && (r = hipEventRecord(start, stream)) != hipSuccess)
		return r;
	r = sim_exec_launch(&l, stream);
	if (r == hipSuccess && stop)
		r = hipEventRecord(stop, stream);
	return r;
}

SIM_API hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy,
					 unsigned int gz, unsigned int bx, unsigned int by,
					 unsigned int bz, unsigned int shmem, hipStream_t stream,
					 void **params, void **extra)
{
	if ((uint64_t)gx * bx > UINT32_MAX || (uint64_t)gy * by > UINT32_MAX ||
	    (uint64_t)gz * bz > UINT32_MAX)
		SIM_RETURN(hipErrorInvalidConfiguration);
	SIM_RETURN(module_launch(f, gx * bx, gy * by, gz * bz, bx, by, bz, shmem, stream, params,
				 extra, NULL, NULL));
}

/* The extended forms take the grid in work-items (global sizes). */
hipError_t sim_ext_module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
				 uint32_t bx, uint32_t by, uint32_t bz, size_t shmem,
				 hipStream_t stream, void **params, void **extra,
				 hipEvent_t start, hipEvent_t stop, uint32_t flags)
	__asm__("_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j");
SIM_API hipError_t sim_ext_module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
					 uint32_t bx, uint32_t by, uint32_t bz, size_t shmem,
					 hipStream_t stream, void **params, void **extra,
					 hipEvent_t start, hipEvent_t stop, uint32_t flags)
{
	(void)flags;
	SIM_RETURN(module_launch(f, gx, gy, gz, bx, by, bz, (uint32_t)shmem, stream, params,
				 extra, start,
				 stop));
}

hipError_t sim_hcc_module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
				 uint32_t bx, uint32_t by, uint32_t bz, size_t shmem,
				 hipStream_t stream, void **params, void **extra,
				 hipEvent_t start, hipEvent_t stop)
	__asm__("_Z24hipHccModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_");
SIM_API hipError_t sim_hcc_module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
					 uint32_t bx, uint32_t by, uint32_t bz, size_t shmem,
					 hipStream_t stream, void **params, void **extra,
					 hipEvent_t start, hipEvent_t stop)
{
	SIM_RETURN(module_launch(f, gx, gy, gz, bx, by, bz, (uint32_t)shmem, stream, params,
				 extra, start,
				 stop));
}

/* ---- function attributes ---- */

/* What the simulator knows of a kernel: its argument metadata only. The
 * resource figures are those of a kernel using no LDS, no scratch and
 * the fewest registers (ROCm reads them from the code object). */
static void attrs_of(hipFuncAttributes *a)
{
	memset(a, 0, sizeof(*a));
	a->maxThreadsPerBlock = SIM_BLOCK_MAX;
	a->maxDynamicSharedSizeBytes = 65536;
	a->binaryVersion = 90;
	a->ptxVersion = 90;
}

SIM_API hipError_t hipFuncGetAttributes(struct hipFuncAttributes *attr, const void *func)
{
	const struct hipsvm_kernel_info *info;

	SIM_INIT_API();
	if (!attr)
		SIM_RETURN(hipErrorInvalidValue);
	if (!func || !sim_func_lookup(func, &info))
		SIM_RETURN(hipErrorInvalidDeviceFunction);
	attrs_of(attr);
	return hipSuccess;
}

SIM_API hipError_t hipFuncGetAttribute(int *value, hipFunction_attribute attrib, hipFunction_t f)
{
	const struct hipsvm_kernel_info *info;
	hipFuncAttributes a;
	char name[256];

	SIM_INIT_API();
	if (!value || !f)
		SIM_RETURN(hipErrorInvalidValue);
	if (!fn_get(f, name, &info))
		SIM_RETURN(hipErrorInvalidHandle);
	attrs_of(&a);
	switch (attrib) {
	case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
	case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)a.sharedSizeBytes; break;
	case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = (int)a.constSizeBytes; break;
	case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = (int)a.localSizeBytes; break;
	case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
	case HIP_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
	case HIP_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
	case HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = a.cacheModeCA; break;
	case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		*value = a.maxDynamicSharedSizeBytes; break;
	case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		*value = a.preferredShmemCarveout; break;
	default:
		SIM_RETURN(hipErrorInvalidValue);
	}
	return hipSuccess;
}

/* Accepted and without effect, as in ROCm 5.2 (no configurable split). */
SIM_API hipError_t hipFuncSetAttribute(const void *func, hipFuncAttribute attr, int value)
{
	(void)func;
	(void)attr;
	(void)value;
	SIM_INIT_API();
	return hipSuccess;
}

SIM_API hipError_t hipFuncSetCacheConfig(const void *func, hipFuncCache_t cfg)
{
	(void)func;
	(void)cfg;
	SIM_INIT_API();
	return hipSuccess;
}

SIM_API hipError_t hipFuncSetSharedMemConfig(const void *func, hipSharedMemConfig cfg)
{
	(void)func;
	(void)cfg;
	SIM_INIT_API();
	return hipSuccess;
}

const char *sim_module_fn_name(hipFunction_t f, char *buf)
{
	const struct hipsvm_kernel_info *info;

	return fn_get(f, buf, &info) ? buf : NULL;
}

bool sim_module_fn_info(hipFunction_t f, char *name, const struct hipsvm_kernel_info **info)
{
	return fn_get(f, name, info);
}

bool sim_module_fn_live(hipFunction_t f)
{
	bool ok;

	pthread_mutex_lock(&mod_lock);
	ok = f && fn_live(f);
	pthread_mutex_unlock(&mod_lock);
	return ok;
}
