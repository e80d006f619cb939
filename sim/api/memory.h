/* SPDX-License-Identifier: MIT */
/*
 * memory.h - what the memory API files share: pools (pool.c), arrays
 * (array.c), copies in stream order (memcpy.c), the CPU's mappings (hmm.c).
 */
#ifndef HIPSVM_SIM_API_MEMORY_H
#define HIPSVM_SIM_API_MEMORY_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_op;
struct sim_stream;

/* hipMallocAsync (pool NULL: the stream's device's current pool) and
 * hipFreeAsync's bookkeeping (s: the freeing stream, never NULL). HIP errors, as ROCm answers them. */
hipError_t sim_pool_malloc(void **ptr, size_t size, hipMemPool_t pool, hipStream_t stream);
hipError_t sim_pool_free(void *ptr, struct sim_stream *s);

struct sim_array_info {
	uint8_t *mem;			/* the elements, rows packed */
	size_t elem, row, rows, slices;	/* bytes per element and per row; counts */
	size_t width, height, depth;	/* as created (0: the dimension is absent) */
	unsigned flags;			/* hipArrayLayered, ... */
};
/* Bytes of one channel of an array format; 0 for an unknown format. */
size_t sim_format_bytes(enum hipArray_Format f);
/* The layout of a live array handle; false for anything else. */
bool sim_array_get(const hipArray *h, struct sim_array_info *out);

/* symbol.c: a registered variable's storage on the current device
 * (PlatformState::getStatGlobalVar): hipErrorInvalidSymbol if never
 * registered. */
hipError_t sim_symbol_storage(const void *symbol, void **dptr, size_t *size);

/* memcpy.c: shared by the copy and fill files */
/* Runs op in stream order: queued when !sync; otherwise after the stream
 * (and, on the null stream, every blocking stream of its device) is idle,
 * on the calling thread. op is freed with free() either way. */
hipError_t sim_run_op(hipStream_t stream, bool sync, struct sim_op *op);
/* The stream of the _spt calls: the per-thread default stream. */
hipStream_t sim_spt_stream(void);
/* ROCm's validation of a linear copy (ihipMemcpy_validate) and kind. */
hipError_t sim_check_copy(void *dst, const void *src, size_t n, int kind);
/* await: an asynchronous copy with a pageable host side returns when done
 * (ihipMemcpy; for a graph node's copy, sim_node_awaited). */
hipError_t sim_copy(void *dst, const void *src, size_t n, int kind, hipStream_t s, bool sync,
		    bool await);
/* Whether a graph's copy node of n bytes with a pageable host side is done
 * when hipGraphLaunch returns (ROCclr's staged copies: memcpy.c). */
bool sim_node_awaited(size_t n);
/* hipMemcpyAsync as a graph's 1D copy node runs it: queued, and awaited as
 * sim_node_awaited says. */
hipError_t sim_copy_node(void *dst, const void *src, size_t n, int kind, hipStream_t s);
/* hipMemcpyToSymbolAsync (to) / hipMemcpyFromSymbolAsync as a graph's
 * symbol copy node runs it: awaited as sim_node_awaited says. */
hipError_t sim_symbol_copy_node(bool to, void *ptr, const void *symbol, size_t n, size_t offset,
				int kind, hipStream_t s);

/* hmm.c */
/* Is every page of [lo, hi) mapped in this process? */
bool sim_range_mapped(uintptr_t lo, uintptr_t hi);

#endif
