/* SPDX-License-Identifier: MIT */
/*
 * graph.h - graphs (graph.c) and stream capture (capture.c) as the other API
 * files see them: the capture hooks the stream-ordered entry points call
 * first, as hipamd rocm-5.2.3's STREAM_CAPTURE / EVENT_CAPTURE /
 * CHECK_STREAM_CAPTURING macros do (hip_internal.hpp:158-192), and the node
 * constructors capture.c shares with the hipGraphAdd*Node calls.
 */
#ifndef HIPSVM_SIM_API_GRAPH_H
#define HIPSVM_SIM_API_GRAPH_H

#include "api/api.h"
#include "runtime/stream.h"

/* Streams in a capture (origins and the streams that joined them): 0 keeps
 * every hook to one relaxed load. */
extern unsigned sim_capture_count;
/* Set while a graph's nodes are submitted (hipGraphLaunch): their work goes
 * to the stream even when it is capturing, as 5.2.3's graph launch enqueues
 * its commands directly (hip_graph_internal.cpp:790). */
extern __thread unsigned sim_graph_running;

bool sim_capture_active_slow(hipStream_t s);
static inline bool sim_capture_active(hipStream_t s)
{
	return __atomic_load_n(&sim_capture_count, __ATOMIC_RELAXED) && !sim_graph_running &&
	       sim_capture_active_slow(s);
}

/* What a capturing stream records instead of running (capture.c). Each
 * answers as 5.2.3's capturehip* function: not recorded as the last error. */
hipError_t sim_capture_kernel(hipStream_t s, const void *fn, dim3 grid, dim3 block, void **args,
			      size_t shmem);
hipError_t sim_capture_memcpy(hipStream_t s, void *dst, const void *src, size_t n, int kind);
/* count elements of elem bytes */
hipError_t sim_capture_memset(hipStream_t s, void *dst, int value, unsigned elem, size_t count);
hipError_t sim_capture_memset2d(hipStream_t s, void *dst, size_t pitch, int value, size_t w,
				size_t h);
hipError_t sim_capture_memcpy3d(hipStream_t s, const hipMemcpy3DParms *p);
hipError_t sim_capture_memcpy2d(hipStream_t s, void *dst, size_t dpitch, const void *src,
				size_t spitch, size_t w, size_t h, int kind);
/* to: hipMemcpyToSymbolAsync (ptr is the source), else From (ptr the
 * destination) */
hipError_t sim_capture_symbol(hipStream_t s, bool to, void *ptr, const void *symbol, size_t n,
			      size_t offset, int kind);
hipError_t sim_capture_event_record(hipStream_t s, hipEvent_t e);
/* hipStreamWaitEvent on an event recorded in a capture: s joins it. */
bool sim_event_in_capture_slow(hipEvent_t e);
static inline bool sim_event_in_capture(hipEvent_t e)
{
	return __atomic_load_n(&sim_capture_count, __ATOMIC_RELAXED) && !sim_graph_running &&
	       sim_event_in_capture_slow(e);
}
hipError_t sim_capture_wait_event(hipStream_t s, hipEvent_t e, unsigned flags);
/* CHECK_STREAM_CAPTURE_SUPPORTED (hip_internal.hpp:158), at the top of
 * 5.2.3's allocation and free calls: while this thread has a capture in the
 * global or thread-local mode (or, with the thread's mode global, any thread
 * has a global capture) they answer hipErrorStreamCaptureUnsupported. The
 * thread's mode is hipThreadExchangeStreamCaptureMode's. */
bool sim_capture_unsupported_slow(void);
#define SIM_CAPTURE_SUPPORTED()								\
	do {										\
		if (__atomic_load_n(&sim_capture_count, __ATOMIC_RELAXED) &&		\
		    sim_capture_unsupported_slow())					\
			SIM_RETURN(hipErrorStreamCaptureUnsupported);			\
	} while (0)

/* hipStreamDestroy: the stream leaves any capture it is in (a capture it
 * began ends, its graph freed). */
void sim_capture_stream_gone(hipStream_t s);
/* CHECK_STREAM_CAPTURING: a synchronous copy or fill while a capture in
 * hipStreamCaptureModeGlobal is on answers hipErrorStreamCaptureImplicit. */
bool sim_capture_implicit(void);
/* hipStreamBeginCapture with hipStreamCaptureModeRelaxed leaves the rest alone. */

/* ---- graph.c, for capture.c ---- */
hipError_t sim_graph_new(hipGraph_t *out);
void sim_graph_free(hipGraph_t g);
/* The leaves of g (nodes nothing depends on), at most max into out; the count. */
size_t sim_graph_leaves(hipGraph_t g, hipGraphNode_t *out, size_t max);
hipError_t sim_graph_add_kernel(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				size_t n, const hipKernelNodeParams *p);
hipError_t sim_graph_add_memcpy1d(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				  size_t n, void *dst, const void *src, size_t count, int kind);
hipError_t sim_graph_add_memset(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				size_t n, const hipMemsetParams *p);
hipError_t sim_graph_add_symbol(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				size_t n, bool to, void *ptr, const void *symbol, size_t count,
				size_t offset, int kind);
hipError_t sim_graph_add_memcpy3d(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				  size_t n, const hipMemcpy3DParms *p);

struct hipsvm_kernel_info;

/* module.c: a live module function's kernel name (256 bytes) and metadata. */
bool sim_module_fn_info(hipFunction_t f, char *name, const struct hipsvm_kernel_info **info);

#endif
