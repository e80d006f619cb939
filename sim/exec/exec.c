/* SPDX-License-Identifier: MIT */
/*
 * exec.c - where a launch goes (exec.h): to the interpreter (run.c) when
 * HIPSVM_SIM_EXEC is not "touch" and the interpreter can run the kernel,
 * otherwise to the buffer-touch model (touch.c).
 */
#include "run.h"

hipError_t sim_exec_check_block(const uint32_t block[3])
{
	if ((uint64_t)block[0] * block[1] * block[2] > SIM_BLOCK_MAX)
		return hipErrorInvalidConfiguration;
	return hipSuccess;
}

hipError_t sim_exec_dims_blocks(dim3 grid, dim3 block, size_t shmem,
				struct sim_launch_dims *out)
{
	struct sim_launch_dims d = {
		.grid = { grid.x * block.x, grid.y * block.y, grid.z * block.z },
		.block = { block.x, block.y, block.z },
		.shmem = shmem > UINT32_MAX ? UINT32_MAX : (uint32_t)shmem,
	};

	if ((uint64_t)grid.x * block.x > UINT32_MAX || (uint64_t)grid.y * block.y > UINT32_MAX ||
	    (uint64_t)grid.z * block.z > UINT32_MAX)
		return hipErrorInvalidConfiguration;
	if (!block.x || !block.y || !block.z || !grid.x || !grid.y || !grid.z)
		return hipErrorInvalidValue;
	if (sim_exec_check_block(d.block) != hipSuccess)
		return hipErrorInvalidConfiguration;
	*out = d;
	return hipSuccess;
}

static bool touch_only(void)
{
	static uint32_t notice;

	if (strcmp(sim.opt.str[HIPSVM_SIM_O_EXEC], "touch"))
		return false;
	if (!sim.quiet && !__atomic_exchange_n(&notice, 1, __ATOMIC_RELAXED))
		sim_warn("HIPSVM_SIM_EXEC=touch: kernel code is not run; a launch only touches "
			 "the memory its buffer arguments point to");
	return true;
}

hipError_t sim_exec_launch(const struct sim_launch *l, hipStream_t stream)
{
	struct sim_stream *s = sim_stream_get(stream);

	if (!s)
		return hipErrorInvalidHandle;
	if (!touch_only() && l->info && sim_isa_enqueue(l, s))
		return hipSuccess;
	return sim_touch_enqueue(l, s);
}
