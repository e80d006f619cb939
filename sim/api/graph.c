/* SPDX-License-Identifier: MIT */
/*
 * graph.c - graphs and stream capture. A simulated GPU can hold a graph's
 * structure but cannot execute its kernel nodes, so the simulator keeps
 * graphs empty: hipGraphCreate, hipGraphDestroy and the queries of an empty
 * graph answer as ROCm 5.2 does, and every call that would add, change or
 * run nodes (or capture a stream into a graph) checks its arguments and
 * answers hipErrorNotSupported, said once per function on stderr.
 *
 * As no stream is ever capturing, the capture queries answer "not
 * capturing" with ROCm's checks, and the thread's capture mode is kept and
 * exchanged as ROCm keeps it.
 */
#include "api/api.h"
#include "runtime/stream.h"

#include <stdlib.h>

#define GRAPH_MAGIC 0x47524148u	/* "GRAH" */

struct ihipGraph {
	uint32_t magic;
	struct ihipGraph *next;
};

static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ihipGraph *graphs;
static __thread hipStreamCaptureMode capture_mode = hipStreamCaptureModeGlobal;

static bool graph_live(hipGraph_t g)
{
	struct ihipGraph *it;
	bool ok;

	pthread_mutex_lock(&graph_lock);
	for (it = graphs; it && it != (struct ihipGraph *)g; it = it->next)
		;
	ok = it != NULL;
	pthread_mutex_unlock(&graph_lock);
	return ok;
}

SIM_API hipError_t hipGraphCreate(hipGraph_t *out, unsigned int flags)
{
	struct ihipGraph *g;

	SIM_INIT_API();
	if (!out || flags != 0)
		SIM_RETURN(hipErrorInvalidValue);
	g = calloc(1, sizeof(*g));
	if (!g)
		SIM_RETURN(hipErrorOutOfMemory);
	g->magic = GRAPH_MAGIC;
	pthread_mutex_lock(&graph_lock);
	g->next = graphs;
	graphs = g;
	pthread_mutex_unlock(&graph_lock);
	*out = (hipGraph_t)g;
	return hipSuccess;
}

SIM_API hipError_t hipGraphDestroy(hipGraph_t graph)
{
	struct ihipGraph **pp, *g = (struct ihipGraph *)graph;
	bool found = false;

	SIM_INIT_API();
	if (!graph)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	for (pp = &graphs; *pp; pp = &(*pp)->next) {
		if (*pp == g) {
			*pp = g->next;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&graph_lock);
	if (!found)	/* ROCm: a graph already destroyed */
		SIM_RETURN(hipErrorIllegalState);
	free(g);
	return hipSuccess;
}

/* An empty graph: no nodes, no roots, no edges. */
static hipError_t empty_list(hipGraph_t graph, void *list, size_t *num)
{
	SIM_INIT_API();
	if (!graph || !num)
		return hipErrorInvalidValue;
	if (!graph_live(graph))
		return hipErrorInvalidValue;
	(void)list;
	*num = 0;
	return hipSuccess;
}

SIM_API hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *num)
{
	SIM_RETURN(empty_list(graph, nodes, num));
}

SIM_API hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t *roots, size_t *num)
{
	SIM_RETURN(empty_list(graph, roots, num));
}

SIM_API hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t *from, hipGraphNode_t *to,
				    size_t *num)
{
	(void)to;
	SIM_RETURN(empty_list(graph, from, num));
}

/* ---- stream capture ---- */

static bool stream_ok(hipStream_t s)
{
	bool gone;

	return sim_stream_lookup(s, &gone) != NULL || (!s && !sim.ngpu);
}

SIM_API hipError_t hipStreamIsCapturing(hipStream_t s, hipStreamCaptureStatus *status)
{
	SIM_INIT_API();
	if (!status || !stream_ok(s))
		SIM_RETURN(hipErrorInvalidValue);
	*status = hipStreamCaptureStatusNone;
	return hipSuccess;
}

SIM_API hipError_t hipStreamGetCaptureInfo(hipStream_t s, hipStreamCaptureStatus *status,
					   unsigned long long *id)
{
	(void)id;
	SIM_INIT_API();
	if (!status || !stream_ok(s))
		SIM_RETURN(hipErrorInvalidValue);
	if (!s)	/* ROCm 5.2 on the null stream */
		SIM_RETURN(hipErrorUnknown);
	*status = hipStreamCaptureStatusNone;
	return hipSuccess;
}

SIM_API hipError_t hipStreamGetCaptureInfo_v2(hipStream_t s, hipStreamCaptureStatus *status,
					      unsigned long long *id, hipGraph_t *graph,
					      const hipGraphNode_t **deps, size_t *ndeps)
{
	(void)id;
	(void)graph;
	(void)deps;
	(void)ndeps;
	SIM_INIT_API();
	if (!status)
		SIM_RETURN(hipErrorInvalidValue);
	if (!s)
		SIM_RETURN(hipErrorUnknown);
	if (!stream_ok(s))
		SIM_RETURN(hipErrorInvalidValue);
	*status = hipStreamCaptureStatusNone;
	return hipSuccess;
}

SIM_API hipError_t hipStreamBeginCapture(hipStream_t s, hipStreamCaptureMode mode)
{
	SIM_INIT_API();
	if (!stream_ok(s))
		SIM_RETURN(hipErrorInvalidValue);
	if (!s)	/* capture cannot start on the null stream */
		SIM_RETURN(hipErrorStreamCaptureUnsupported);
	if (mode < hipStreamCaptureModeGlobal || mode > hipStreamCaptureModeRelaxed)
		SIM_RETURN(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

/* No stream ever began a capture: ROCm's answer for a stream that is not
 * the origin of one. */
SIM_API hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t *graph)
{
	SIM_INIT_API();
	if (!graph || !s || !stream_ok(s))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipErrorStreamCaptureUnmatched);
}

SIM_API hipError_t hipStreamUpdateCaptureDependencies(hipStream_t s, hipGraphNode_t *deps,
						      size_t n, unsigned int flags)
{
	(void)deps;
	(void)n;
	(void)flags;
	SIM_INIT_API();
	if (!stream_ok(s))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipErrorIllegalState);
}

SIM_API hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode *mode)
{
	hipStreamCaptureMode old;

	SIM_INIT_API();
	if (!mode || *mode < hipStreamCaptureModeGlobal || *mode > hipStreamCaptureModeRelaxed)
		SIM_RETURN(hipErrorInvalidValue);
	old = capture_mode;
	capture_mode = *mode;
	*mode = old;
	return hipSuccess;
}
