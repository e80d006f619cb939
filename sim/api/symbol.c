/* SPDX-License-Identifier: MIT */
/*
 * symbol.c - device variables (__device__ and __constant__ globals) for
 * hipGetSymbolAddress, hipGetSymbolSize and hipMemcpy{To,From}Symbol*
 * (ROCm's PlatformState::getStatGlobalVar and ihipMemcpySymbol_validate).
 * __hipRegisterVar (launch.c) records each variable by the address of its
 * host shadow, with its fat binary and device name. On a device the
 * variable is the one in its code object's image there (loader.c), where the
 * kernel reads and writes it. A variable registered without a code object
 * that has it (no fat binary, none for the device, a stripped name) gets
 * device memory of its own instead, holding the shadow's initial value: the
 * host API still works, though no kernel can see it. Either way the memory
 * is in the allocation map, so it takes the page-fault path. A symbol that
 * was never registered is hipErrorInvalidSymbol.
 */
#include "api/api.h"
#include "api/graph.h"
#include "api/exports.h"
#include "api/kernels.h"
#include "api/memory.h"
#include "exec/loader.h"
#include "runtime/map.h"

#include <stdlib.h>
#include <unistd.h>

#define SYM_NAME_MAX 128

struct sym {
	const void *host;
	void **fatbin;		/* __hipRegisterFatBinary's handle, or NULL */
	size_t size;
	char *name;
	void *dev[HIPSVM_MAX_GPUS];
	pid_t pid[HIPSVM_MAX_GPUS];	/* the process whose runtime made dev[] */
	struct sym *next;
};

static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sym *syms;

/* __hipRegisterVar: hipcc's constructors name each device variable of a
 * fat binary; it lives in the code object's image on each device. */
SIM_API void __hipRegisterVar(void **fatbin, void *host_var, char *host_name, char *name, int ext,
			      size_t size, int constant, int global)
{
	struct sym *s;

	if (!host_var)
		return;
	s = calloc(1, sizeof(*s));
	if (!s)
		return;
	s->host = host_var;
	s->fatbin = fatbin;
	s->size = size;
	s->name = strdup(name ? name : "");
	if (!s->name) {
		free(s);
		return;
	}
	pthread_mutex_lock(&sym_lock);
	s->next = syms;
	syms = s;
	pthread_mutex_unlock(&sym_lock);
}

/* The symbol's storage on the current device; a HIP error. */
static hipError_t resolve(const void *symbol, void **dptr, size_t *size)
{
	int dev = sim_current_device();
	const struct hipsvm_codeobj *co;
	struct hipsvm_context *c;
	struct sim_alloc *a;
	hipError_t e = hipSuccess;
	struct sym *s;

	if (!sim_gpu(dev))
		return hipErrorInvalidDevice;
	pthread_mutex_lock(&sym_lock);
	for (s = syms; s && s->host != symbol; s = s->next)
		;
	/* records are never freed: s stays valid without the lock */
	pthread_mutex_unlock(&sym_lock);
	if (!s)
		return hipErrorInvalidSymbol;
	co = sim_fatbin_codeobj(s->fatbin);
	switch (co ? sim_loader_symbol(co, s->name, dev, dptr, size) : -ENOENT) {
	case 0:
		return hipSuccess;
	case -ENOMEM:
		return hipErrorOutOfMemory;
	}
	pthread_mutex_lock(&sym_lock);
	if (!s->dev[dev] || s->pid[dev] != getpid()) {
		c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_MALLOC, dev);
		e = c ? sim_alloc_new(s->size ? s->size : 1, HIPSVM_KIND_DEVICE, c->id, dev, 0, NULL,
				      &a) : hipErrorInvalidDevice;
		if (e == hipSuccess) {
			memcpy((void *)a->base, s->host, s->size);
			sim_alloc_set_role((void *)a->base, SIM_ROLE_SYMBOL, s);
			s->dev[dev] = (void *)a->base;
			s->pid[dev] = getpid();
		}
	}
	if (e == hipSuccess) {
		*dptr = s->dev[dev];
		*size = s->size;
	}
	pthread_mutex_unlock(&sym_lock);
	return e;
}

hipError_t sim_symbol_storage(const void *symbol, void **dptr, size_t *size)
{
	return resolve(symbol, dptr, size);
}

SIM_API hipError_t hipGetSymbolAddress(void **devPtr, const void *symbol)
{
	size_t n;

	SIM_INIT_API();
	if (!devPtr)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(resolve(symbol, devPtr, &n));
}

SIM_API hipError_t hipGetSymbolSize(size_t *size, const void *symbol)
{
	void *p;

	SIM_INIT_API();
	if (!size)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(resolve(symbol, &p, size));
}

/* ihipMemcpySymbol_validate: the symbol's storage plus offset, with the
 * copy inside the symbol. */
static hipError_t at(const void *symbol, size_t n, size_t offset, void **p)
{
	size_t size;
	hipError_t e = resolve(symbol, p, &size);

	if (e != hipSuccess)
		return e;
	if (offset > size || n > size - offset)
		return hipErrorInvalidValue;
	*p = (char *)*p + offset;
	return hipSuccess;
}

static hipError_t to_symbol(const void *symbol, const void *src, size_t n, size_t offset, int kind,
			    hipStream_t s, bool sync, bool await)
{
	void *p;
	hipError_t e;

	SIM_INIT_API();
	if (sync && sim_capture_implicit())
		return hipErrorStreamCaptureImplicit;
	if (!sync && sim_capture_active(s))
		return sim_capture_symbol(s, true, (void *)src, symbol, n, offset, kind);
	e = at(symbol, n, offset, &p);
	if (e == hipSuccess)
		e = sim_copy(p, src, n, kind, s, sync, await);
	SIM_RETURN(e);
}

static hipError_t from_symbol(void *dst, const void *symbol, size_t n, size_t offset, int kind,
			      hipStream_t s, bool sync, bool await)
{
	void *p;
	hipError_t e;

	SIM_INIT_API();
	if (sync && sim_capture_implicit())
		return hipErrorStreamCaptureImplicit;
	if (!sync && sim_capture_active(s))
		return sim_capture_symbol(s, false, dst, symbol, n, offset, kind);
	e = at(symbol, n, offset, &p);
	if (e == hipSuccess)
		e = sim_copy(dst, p, n, kind, s, sync, await);
	SIM_RETURN(e);
}

hipError_t sim_symbol_copy_node(bool to, void *ptr, const void *symbol, size_t n, size_t offset,
				int kind, hipStream_t s)
{
	bool await = sim_node_awaited(n);

	if (to)
		return to_symbol(symbol, ptr, n, offset, kind, s, false, await);
	return from_symbol(ptr, symbol, n, offset, kind, s, false, await);
}

SIM_API hipError_t hipMemcpyToSymbol(const void *symbol, const void *src, size_t sizeBytes,
				     size_t offset, hipMemcpyKind kind)
{
	return to_symbol(symbol, src, sizeBytes, offset, kind, NULL, true, true);
}

SIM_API hipError_t hipMemcpyToSymbol_spt(const void *symbol, const void *src, size_t sizeBytes,
					 size_t offset, hipMemcpyKind kind)
{
	return to_symbol(symbol, src, sizeBytes, offset, kind, sim_spt_stream(), true, true);
}

SIM_API hipError_t hipMemcpyToSymbolAsync(const void *symbol, const void *src, size_t sizeBytes,
					  size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
	return to_symbol(symbol, src, sizeBytes, offset, kind, stream, false, true);
}

SIM_API hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol, size_t sizeBytes,
				       size_t offset, hipMemcpyKind kind)
{
	return from_symbol(dst, symbol, sizeBytes, offset, kind, NULL, true, true);
}

SIM_API hipError_t hipMemcpyFromSymbol_spt(void *dst, const void *symbol, size_t sizeBytes,
					   size_t offset, hipMemcpyKind kind)
{
	return from_symbol(dst, symbol, sizeBytes, offset, kind, sim_spt_stream(), true, true);
}

SIM_API hipError_t hipMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t sizeBytes,
					    size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
	return from_symbol(dst, symbol, sizeBytes, offset, kind, stream, false, true);
}
