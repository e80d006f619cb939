/* SPDX-License-Identifier: MIT */
/*
 * exec.h - a kernel launch on a simulated GPU, as the API files hand it over:
 * the one place that decides whether its code is interpreted (run.c) or its
 * buffers are touched (touch.c), and the launch checks every entry point
 * shares.
 */
#ifndef HIPSVM_SIM_EXEC_H
#define HIPSVM_SIM_EXEC_H

#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

struct hipsvm_kernel_info;

/* The work-items of one group on gfx90a: the launch limit, and what the
 * device and function attributes say. */
#define SIM_BLOCK_MAX 1024
/* A workgroup's LDS on gfx90a (hipDeviceAttributeMaxSharedMemoryPerBlock):
 * the launch limit on dynamic plus static shared memory. */
#define SIM_LDS_BYTES 65536

/* A launch's sizes: the grid in work-items, as the dispatch packet has it. */
struct sim_launch_dims {
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shmem;
};

struct sim_launch {
	const char *name;
	const struct hipsvm_kernel_info *info;	/* the code object's; NULL: none */
	/* the arguments: one pointer per argument, or (args NULL) a packed
	 * kernarg buffer with each argument at its metadata offset */
	void **args;
	const void *kernarg;
	size_t kernarg_size;
	struct sim_launch_dims dims;
};

/* hipErrorInvalidConfiguration for a group of more than SIM_BLOCK_MAX
 * work-items: the one check of the limit, which every launch entry point
 * makes at its place in ROCm's order. */
hipError_t sim_exec_check_block(const uint32_t block[3]);
/* hipErrorLaunchFailure for a group larger than the kernel's maximum flat
 * work-group size (its __launch_bounds__), hipamd 5.2.3's
 * ihipLaunchKernel_validate (hip_module.cpp:244-251): checked after the
 * device's limit and before anything of the launch is queued (its start
 * event, the cooperative checks). info NULL: no limit known. */
hipError_t sim_exec_check_bounds(const struct hipsvm_kernel_info *info, const uint32_t block[3]);
/* A <<<grid, block, shmem>>> launch (grid in blocks) checked in
 * hipLaunchKernel's order (a grid of more than 2^32-1 work-items in a
 * dimension, a zero size, the group limit) and turned into dims. */
hipError_t sim_exec_dims_blocks(dim3 grid, dim3 block, size_t shmem,
				struct sim_launch_dims *out);
/* Queues the launch on stream: interpreted, unless HIPSVM_SIM_EXEC=touch or
 * the interpreter cannot run the kernel (said once per kernel), in which
 * case its buffers are touched. hipErrorInvalidHandle for a bad stream.
 * Not recorded as the last error. */
hipError_t sim_exec_launch(const struct sim_launch *l, hipStream_t stream);

struct hipsvm_sim_isa_stats;
/* The interpreter's counters since the process started (hipsvmSimIsaStats). */
void sim_isa_stats(struct hipsvm_sim_isa_stats *out);

#endif
