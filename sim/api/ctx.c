/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - the driver-style context API. As in ROCm 5.2 a context is a
 * device's primary context: hipCtxCreate returns that device's handle and
 * pushes it, and each thread keeps its own stack of contexts whose top is
 * the current device. Calls ROCm 5.2 leaves unimplemented (cache and shared
 * memory configs, flags, API version, hipCtxSynchronize) answer
 * hipErrorNotSupported there too, without a message here.
 */
#include "api/api.h"
#include "api/device.h"
#include "runtime/stream.h"

#define CTX_STACK 64

struct ihipCtx_t {
	int device;
};

static struct ihipCtx_t ctxs[HIPSVM_MAX_GPUS];
static __thread struct ihipCtx_t *stack[CTX_STACK];
static __thread unsigned depth;

/* The device of a context handle; -1 for what is not one. */
static int ctx_device(hipCtx_t c)
{
	uintptr_t x = (uintptr_t)c, base = (uintptr_t)ctxs;
	int dev;

	if (x < base || x >= base + sizeof(ctxs) || (x - base) % sizeof(ctxs[0]))
		return -1;
	dev = (int)((x - base) / sizeof(ctxs[0]));
	return sim_gpu(dev) ? dev : -1;
}

hipCtx_t sim_ctx_of(int dev)
{
	ctxs[dev].device = dev;
	return &ctxs[dev];
}

static void push(hipCtx_t c)
{
	if (depth == CTX_STACK) {	/* drop the bottom rather than fail */
		memmove(stack, stack + 1, (CTX_STACK - 1) * sizeof(stack[0]));
		depth--;
	}
	stack[depth++] = c;
}

SIM_API hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t dev)
{
	(void)flags;
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidValue);
	if (!ctx)
		SIM_RETURN(hipErrorInvalidValue);
	*ctx = sim_ctx_of(dev);
	push(*ctx);
	sim_set_current_device(dev);
	return hipSuccess;
}

SIM_API hipError_t hipCtxDestroy(hipCtx_t ctx)
{
	SIM_INIT_API();
	if (!ctx)
		SIM_RETURN(hipErrorInvalidValue);
	if (ctx_device(ctx) < 0)
		SIM_RETURN(hipErrorInvalidContext);
	if (depth && stack[depth - 1] == ctx)
		depth--;
	return hipSuccess;
}

SIM_API hipError_t hipCtxSetCurrent(hipCtx_t ctx)
{
	int dev;

	SIM_INIT_API();
	if (!ctx) {
		if (depth)
			depth--;
		return hipSuccess;
	}
	dev = ctx_device(ctx);
	if (dev < 0)
		SIM_RETURN(hipErrorInvalidContext);
	sim_set_current_device(dev);
	if (depth)
		depth--;
	push(ctx);
	return hipSuccess;
}

SIM_API hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
	SIM_INIT_API();
	/* ROCm writes through ctx unchecked; a NULL gets an error here. */
	if (!ctx)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim.ngpu)
		SIM_RETURN(hipErrorNoDevice);
	*ctx = sim_ctx_of(sim_current_device());
	return hipSuccess;
}

SIM_API hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
	int dev;

	SIM_INIT_API();
	dev = ctx ? ctx_device(ctx) : -1;
	if (dev < 0)
		SIM_RETURN(hipErrorInvalidContext);
	sim_set_current_device(dev);
	push(ctx);
	return hipSuccess;
}

SIM_API hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
	SIM_INIT_API();
	if (!depth)
		SIM_RETURN(hipErrorInvalidContext);
	if (ctx)
		*ctx = stack[depth - 1];
	depth--;
	return hipSuccess;
}

SIM_API hipError_t hipCtxGetDevice(hipDevice_t *dev)
{
	SIM_INIT_API();
	if (!dev)
		SIM_RETURN(hipErrorInvalidValue);
	*dev = sim_current_device();
	return hipSuccess;
}

SIM_API hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig *cfg)
{
	SIM_INIT_API();
	if (!cfg)
		SIM_RETURN(hipErrorInvalidValue);
	*cfg = hipSharedMemBankSizeFourByte;
	return hipSuccess;
}

/* Unimplemented in ROCm 5.2: hipErrorNotSupported whatever the arguments. */
SIM_API hipError_t hipCtxGetApiVersion(hipCtx_t ctx, int *version)
{
	(void)ctx;
	(void)version;
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipCtxGetCacheConfig(hipFuncCache_t *cfg)
{
	(void)cfg;
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipCtxSetCacheConfig(hipFuncCache_t cfg)
{
	(void)cfg;
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig cfg)
{
	(void)cfg;
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipCtxSynchronize(void)
{
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipCtxGetFlags(unsigned int *flags)
{
	(void)flags;
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

/* ROCm 5.2 accepts these and does nothing. */
SIM_API hipError_t hipCtxEnablePeerAccess(hipCtx_t peer, unsigned int flags)
{
	(void)peer;
	(void)flags;
	SIM_INIT_API();
	return hipSuccess;
}

SIM_API hipError_t hipCtxDisablePeerAccess(hipCtx_t peer)
{
	(void)peer;
	SIM_INIT_API();
	return hipSuccess;
}

/* ---- primary contexts ---- */

SIM_API hipError_t hipDevicePrimaryCtxGetState(hipDevice_t dev, unsigned int *flags, int *active)
{
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	if (flags)
		*flags = 0;
	if (active)
		*active = sim_device_active(dev);
	return hipSuccess;
}

SIM_API hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	return hipSuccess;
}

SIM_API hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *ctx, hipDevice_t dev)
{
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	if (!ctx)
		SIM_RETURN(hipErrorInvalidValue);
	*ctx = sim_ctx_of(dev);
	return hipSuccess;
}

SIM_API hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev)
{
	(void)dev;
	SIM_INIT_API();
	return hipSuccess;
}

SIM_API hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t dev, unsigned int flags)
{
	(void)flags;
	SIM_INIT_API();
	if (!sim_gpu(dev))
		SIM_RETURN(hipErrorInvalidDevice);
	SIM_RETURN(hipErrorContextAlreadyInUse);
}
