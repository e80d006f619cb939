/* SPDX-License-Identifier: MIT */
/*
 * occupancy.c - occupancy queries, the launch entry points that end in
 * hipLaunchKernel (cooperative, multi-device, extended, per-thread stream,
 * hipLaunchKernelGGLImpl, the hipConfigureCall triple), and kernel names.
 *
 * Occupancy model (an MI210 compute unit): 4 SIMDs of at most 8 waves of 64
 * work-items each, i.e. 2048 work-items, and 64 KiB of LDS. The simulator
 * does not know a kernel's register or LDS use (it reads only argument
 * metadata), so a kernel counts as using neither; the dynamic LDS asked for
 * is the only other limit. ROCm answers from the code object's real figures,
 * which can only lower these numbers.
 */
#include "api/api.h"
#include "api/kernels.h"
#include "exec/exec.h"

#include <stdlib.h>

#define CU_THREADS 2048
#define CU_LDS 65536
#define WAVE 64
#define NCU 104


static int blocks_per_cu(int block, size_t lds)
{
	int waves = (block + WAVE - 1) / WAVE;
	int n = CU_THREADS / (waves * WAVE);

	if (lds) {
		size_t by_lds = CU_LDS / lds;

		if ((size_t)n > by_lds)
			n = (int)by_lds;
	}
	return n;
}

static hipError_t max_active(int *num, int block, size_t lds)
{
	if (!num)
		return hipErrorInvalidValue;
	if (block <= 0 || block > SIM_BLOCK_MAX || lds > CU_LDS)
		return hipErrorInvalidValue;
	*num = blocks_per_cu(block, lds);
	return hipSuccess;
}

static hipError_t potential(int *grid, int *block, size_t lds, int limit)
{
	int b = SIM_BLOCK_MAX;

	if (!grid || !block)
		return hipErrorInvalidValue;
	if (limit > 0 && limit < b)
		b = limit;
	if (lds > CU_LDS)
		return hipErrorInvalidValue;
	*block = b;
	*grid = blocks_per_cu(b, lds) * NCU;
	return hipSuccess;
}

static bool host_fn_known(const void *f)
{
	const struct hipsvm_kernel_info *info;

	return f && sim_func_lookup(f, &info);
}

SIM_API hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *num, const void *f,
								int block, size_t lds)
{
	SIM_INIT_API();
	if (!num)
		SIM_RETURN(hipErrorInvalidValue);
	if (!host_fn_known(f))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(max_active(num, block, lds));
}

SIM_API hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *num, const void *f,
									 int block, size_t lds,
									 unsigned int flags)
{
	(void)flags;
	return hipOccupancyMaxActiveBlocksPerMultiprocessor(num, f, block, lds);
}

SIM_API hipError_t hipOccupancyMaxPotentialBlockSize(int *grid, int *block, const void *f,
						     size_t lds, int limit)
{
	SIM_INIT_API();
	if (!grid || !block)
		SIM_RETURN(hipErrorInvalidValue);
	if (!host_fn_known(f))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(potential(grid, block, lds, limit));
}

SIM_API hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *num, hipFunction_t f,
								      int block, size_t lds)
{
	SIM_INIT_API();
	if (!num || !sim_module_fn_live(f))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(max_active(num, block, lds));
}

SIM_API hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *num, hipFunction_t f, int block, size_t lds, unsigned int flags)
{
	(void)flags;
	return hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(num, f, block, lds);
}

SIM_API hipError_t hipModuleOccupancyMaxPotentialBlockSize(int *grid, int *block, hipFunction_t f,
							   size_t lds, int limit)
{
	SIM_INIT_API();
	if (!grid || !block || !sim_module_fn_live(f))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(potential(grid, block, lds, limit));
}

SIM_API hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int *grid, int *block,
								    hipFunction_t f, size_t lds,
								    int limit, unsigned int flags)
{
	(void)flags;
	return hipModuleOccupancyMaxPotentialBlockSize(grid, block, f, lds, limit);
}

/* ---- launch entry points ---- */

SIM_API hipError_t hipLaunchKernel_spt(const void *fn, dim3 grid, dim3 block, void **args,
				       size_t shmem, hipStream_t stream)
{
	return hipLaunchKernel(fn, grid, block, args, shmem, stream ? stream : hipStreamPerThread);
}

/* A cooperative grid must be resident at once: no more blocks than the
 * device holds (hipErrorCooperativeLaunchTooLarge otherwise). The kernel's
 * launch bounds come first, as in ihipLaunchKernel_validate. */
static hipError_t coop_check(const void *f, dim3 grid, dim3 block, unsigned shmem)
{
	uint64_t threads = (uint64_t)block.x * block.y * block.z;
	uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
	const struct hipsvm_kernel_info *info = NULL;
	uint32_t b[3] = { block.x, block.y, block.z };

	if (!threads || threads > SIM_BLOCK_MAX || !blocks)
		return hipErrorInvalidConfiguration;
	if (sim_func_lookup(f, &info) && sim_exec_check_bounds(info, b) != hipSuccess)
		return hipErrorLaunchFailure;
	if (blocks > (uint64_t)blocks_per_cu((int)threads, shmem) * NCU)
		return hipErrorCooperativeLaunchTooLarge;
	return hipSuccess;
}

SIM_API hipError_t hipLaunchCooperativeKernel(const void *f, dim3 grid, dim3 block, void **args,
					      unsigned int shmem, hipStream_t stream)
{
	hipError_t r;

	SIM_INIT_API();
	if (!host_fn_known(f))
		SIM_RETURN(hipErrorInvalidDeviceFunction);
	if ((r = coop_check(f, grid, block, shmem)) != hipSuccess)
		SIM_RETURN(r);
	return hipLaunchKernel(f, grid, block, args, shmem, stream);
}

SIM_API hipError_t hipLaunchCooperativeKernel_spt(const void *f, dim3 grid, dim3 block,
						  void **args, uint32_t shmem, hipStream_t stream)
{
	return hipLaunchCooperativeKernel(f, grid, block, args, shmem,
					  stream ? stream : hipStreamPerThread);
}

/* One launch per entry, each on its own device's stream; ROCm 5.2's checks
 * in its order (more entries than GPUs or no list, a bad stream, an empty
 * block, two entries on one device), then the launches. */
static hipError_t multi(hipLaunchParams *list, int n, bool coop)
{
	int i, j;
	hipError_t r;

	SIM_INIT_API();
	if (n > (int)sim.ngpu || !list)
		return hipErrorInvalidValue;
	for (i = 0; i < n; i++) {
		dim3 b = list[i].blockDim;
		int dev = hipGetStreamDeviceId(list[i].stream);

		if (dev < 0)
			return hipErrorInvalidValue;
		if ((uint64_t)b.x * b.y * b.z == 0)
			return hipErrorInvalidConfiguration;
		for (j = 0; j < i && list[i].stream; j++)
			if (hipGetStreamDeviceId(list[j].stream) == dev)
				return hipErrorInvalidDevice;
		if (coop && host_fn_known(list[i].func) &&
		    (r = coop_check(list[i].func, list[i].gridDim, b,
				    (unsigned)list[i].sharedMem)) != hipSuccess)
			return r;
	}
	for (i = 0; i < n; i++) {
		r = hipLaunchKernel(list[i].func, list[i].gridDim, list[i].blockDim, list[i].args,
				    list[i].sharedMem, list[i].stream);
		if (r != hipSuccess)
			return r;
	}
	return hipSuccess;
}

SIM_API hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams *list, int n,
							 unsigned int flags)
{
	(void)flags;
	SIM_RETURN(multi(list, n, true));
}

SIM_API hipError_t hipExtLaunchMultiKernelMultiDevice(hipLaunchParams *list, int n,
						      unsigned int flags)
{
	(void)flags;
	SIM_RETURN(multi(list, n, false));
}

SIM_API hipError_t hipExtLaunchKernel(const void *f, dim3 grid, dim3 block, void **args,
				      size_t shmem, hipStream_t stream, hipEvent_t start,
				      hipEvent_t stop, int flags)
{
	const struct hipsvm_kernel_info *info = NULL;
	struct sim_launch_dims d;
	hipError_t r;

	(void)flags;
	SIM_INIT_API();
	/* the launch's checks come before its start event (ihipLaunchKernel,
	 * then ihipModuleLaunchKernel); hipLaunchKernel makes the others */
	if (f && sim_func_lookup(f, &info) &&
	    sim_exec_dims_blocks(grid, block, shmem, &d) == hipSuccess &&
	    sim_exec_check_bounds(info, d.block) != hipSuccess)
		SIM_RETURN(hipErrorLaunchFailure);
	if (start && (r = hipEventRecord(start, stream)) != hipSuccess)
		return r;
	r = hipLaunchKernel(f, grid, block, args, shmem, stream);
	if (r == hipSuccess && stop)
		r = hipEventRecord(stop, stream);
	return r;
}

void sim_launch_ggl(uintptr_t f, const dim3 *grid, const dim3 *block, uint32_t shmem,
		    hipStream_t stream, void **args)
	__asm__("_ZN8hip_impl22hipLaunchKernelGGLImplEmRK4dim3S2_jP12ihipStream_tPPv");
SIM_API void sim_launch_ggl(uintptr_t f, const dim3 *grid, const dim3 *block, uint32_t shmem,
			    hipStream_t stream, void **args)
{
	hipLaunchKernel((const void *)f, *grid, *block, args, shmem, stream);
}

/* ---- hipConfigureCall / hipSetupArgument / hipLaunchByPtr: the
 * arguments are packed, per thread, into a kernarg buffer ---- */

#define ARGBUF 4096

static __thread struct {
	bool configured;
	dim3 grid, block;
	size_t shmem;
	hipStream_t stream;
	uint8_t buf[ARGBUF];
	size_t len;
} call;

SIM_API hipError_t hipConfigureCall(dim3 grid, dim3 block, size_t shmem, hipStream_t stream)
{
	SIM_INIT_API();
	call.configured = true;
	call.grid = grid;
	call.block = block;
	call.shmem = shmem;
	call.stream = stream;
	call.len = 0;
	return hipSuccess;
}

SIM_API hipError_t hipSetupArgument(const void *arg, size_t size, size_t offset)
{
	SIM_INIT_API();
	if (!arg || offset > ARGBUF || size > ARGBUF - offset)
		SIM_RETURN(hipErrorInvalidValue);
	memcpy(call.buf + offset, arg, size);
	if (offset + size > call.len)
		call.len = offset + size;
	return hipSuccess;
}

SIM_API hipError_t hipLaunchByPtr(const void *f)
{
	struct sim_launch l = { .args = NULL };
	hipError_t e;

	SIM_INIT_API();
	if (!call.configured)
		SIM_RETURN(hipErrorMissingConfiguration);
	call.configured = false;
	/* hipLaunchKernel's checks, in its order */
	l.name = sim_func_lookup(f, &l.info);
	if (!l.name)
		SIM_RETURN(hipErrorInvalidDeviceFunction);
	e = sim_exec_dims_blocks(call.grid, call.block, call.shmem, &l.dims);
	if (e != hipSuccess)
		SIM_RETURN(e);
	l.kernarg = call.buf;
	l.kernarg_size = call.len;
	SIM_RETURN(sim_exec_launch(&l, call.stream));
}

/* ---- kernel names (for tracers) ---- */

SIM_API const char *hipKernelNameRef(const hipFunction_t f)
{
	static __thread char buf[256];

	return f ? sim_module_fn_name(f, buf) : NULL;
}

SIM_API const char *hipKernelNameRefByPtr(const void *host_fn, hipStream_t stream)
{
	const struct hipsvm_kernel_info *info;

	if (!host_fn || hipGetStreamDeviceId(stream) < 0)
		return NULL;
	return sim_func_lookup(host_fn, &info);
}
