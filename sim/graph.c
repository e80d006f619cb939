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
#include "sim.h"

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

	sim_init();
	if (!out || flags != 0)
		return sim_ret(hipErrorInvalidValue);
	g = calloc(1, sizeof(*g));
	if (!g)
		return sim_ret(hipErrorOutOfMemory);
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

	sim_init();
	if (!graph)
		return sim_ret(hipErrorInvalidValue);
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
		return sim_ret(hipErrorIllegalState);
	free(g);
	return hipSuccess;
}

/* An empty graph: no nodes, no roots, no edges. */
static hipError_t empty_list(hipGraph_t graph, void *list, size_t *num)
{
	sim_init();
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
	return sim_ret(empty_list(graph, nodes, num));
}

SIM_API hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t *roots, size_t *num)
{
	return sim_ret(empty_list(graph, roots, num));
}

SIM_API hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t *from, hipGraphNode_t *to,
				    size_t *num)
{
	(void)to;
	return sim_ret(empty_list(graph, from, num));
}

/* ---- stream capture ---- */

static bool stream_ok(hipStream_t s)
{
	bool gone;

	return sim_stream_lookup(s, &gone) != NULL || (!s && !sim.ngpu);
}

SIM_API hipError_t hipStreamIsCapturing(hipStream_t s, hipStreamCaptureStatus *status)
{
	sim_init();
	if (!status || !stream_ok(s))
		return sim_ret(hipErrorInvalidValue);
	*status = hipStreamCaptureStatusNone;
	return hipSuccess;
}

SIM_API hipError_t hipStreamGetCaptureInfo(hipStream_t s, hipStreamCaptureStatus *status,
					   unsigned long long *id)
{
	(void)id;
	sim_init();
	if (!status || !stream_ok(s))
		return sim_ret(hipErrorInvalidValue);
	if (!s)	/* ROCm 5.2 on the null stream */
		return sim_ret(hipErrorUnknown);
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
	sim_init();
	if (!status)
		return sim_ret(hipErrorInvalidValue);
	if (!s)
		return sim_ret(hipErrorUnknown);
	if (!stream_ok(s))
		return sim_ret(hipErrorInvalidValue);
	*status = hipStreamCaptureStatusNone;
	return hipSuccess;
}

SIM_API hipError_t hipStreamBeginCapture(hipStream_t s, hipStreamCaptureMode mode)
{
	sim_init();
	if (!stream_ok(s))
		return sim_ret(hipErrorInvalidValue);
	if (!s)	/* capture cannot start on the null stream */
		return sim_ret(hipErrorStreamCaptureUnsupported);
	if (mode < hipStreamCaptureModeGlobal || mode > hipStreamCaptureModeRelaxed)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

/* No stream ever began a capture: ROCm's answer for a stream that is not
 * the origin of one. */
SIM_API hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t *graph)
{
	sim_init();
	if (!graph || !s || !stream_ok(s))
		return sim_ret(hipErrorInvalidValue);
	return sim_ret(hipErrorStreamCaptureUnmatched);
}

SIM_API hipError_t hipStreamUpdateCaptureDependencies(hipStream_t s, hipGraphNode_t *deps,
						      size_t n, unsigned int flags)
{
	(void)deps;
	(void)n;
	(void)flags;
	sim_init();
	if (!stream_ok(s))
		return sim_ret(hipErrorInvalidValue);
	return sim_ret(hipErrorIllegalState);
}

SIM_API hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode *mode)
{
	hipStreamCaptureMode old;

	sim_init();
	if (!mode || *mode < hipStreamCaptureModeGlobal || *mode > hipStreamCaptureModeRelaxed)
		return sim_ret(hipErrorInvalidValue);
	old = capture_mode;
	capture_mode = *mode;
	*mode = old;
	return hipSuccess;
}

/* ---- nodes, instantiation and launch: not supported ---- */

SIM_API hipError_t hipGraphAddChildGraphNode(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, hipGraph_t childGraph)
{
	(void)pDependencies;
	(void)numDependencies;
	if (!pGraphNode || !graph || !childGraph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t* from, const hipGraphNode_t* to, size_t numDependencies)
{
	(void)from;
	(void)to;
	(void)numDependencies;
	if (!graph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddEmptyNode(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies)
{
	(void)pDependencies;
	(void)numDependencies;
	if (!pGraphNode || !graph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddEventRecordNode(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, hipEvent_t event)
{
	(void)pDependencies;
	(void)numDependencies;
	(void)event;
	if (!pGraphNode || !graph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddEventWaitNode(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, hipEvent_t event)
{
	(void)pDependencies;
	(void)numDependencies;
	(void)event;
	if (!pGraphNode || !graph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddHostNode(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, const hipHostNodeParams* pNodeParams)
{
	(void)pDependencies;
	(void)numDependencies;
	if (!pGraphNode || !graph || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddKernelNode(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, const hipKernelNodeParams* pNodeParams)
{
	(void)pDependencies;
	(void)numDependencies;
	if (!pGraphNode || !graph || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddMemcpyNode(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, const hipMemcpy3DParms* pCopyParams)
{
	(void)pDependencies;
	(void)numDependencies;
	if (!pGraphNode || !graph || !pCopyParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, void* dst, const void* src, size_t count, hipMemcpyKind kind)
{
	(void)pDependencies;
	(void)numDependencies;
	(void)count;
	(void)kind;
	if (!pGraphNode || !graph || !dst || !src)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddMemcpyNodeFromSymbol(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, void* dst, const void* symbol, size_t count, size_t offset, hipMemcpyKind kind)
{
	(void)pDependencies;
	(void)numDependencies;
	(void)count;
	(void)offset;
	(void)kind;
	if (!pGraphNode || !graph || !dst || !symbol)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddMemcpyNodeToSymbol(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, const void* symbol, const void* src, size_t count, size_t offset, hipMemcpyKind kind)
{
	(void)pDependencies;
	(void)numDependencies;
	(void)count;
	(void)offset;
	(void)kind;
	if (!pGraphNode || !graph || !symbol || !src)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphAddMemsetNode(hipGraphNode_t* pGraphNode, hipGraph_t graph, const hipGraphNode_t* pDependencies, size_t numDependencies, const hipMemsetParams* pMemsetParams)
{
	(void)pDependencies;
	(void)numDependencies;
	if (!pGraphNode || !graph || !pMemsetParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphChildGraphNodeGetGraph(hipGraphNode_t node, hipGraph_t* pGraph)
{
	if (!node || !pGraph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphClone(hipGraph_t* pGraphClone, hipGraph_t originalGraph)
{
	if (!pGraphClone || !originalGraph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphDestroyNode(hipGraphNode_t node)
{
	if (!node)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphEventRecordNodeGetEvent(hipGraphNode_t node, hipEvent_t* event_out)
{
	if (!node || !event_out)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphEventRecordNodeSetEvent(hipGraphNode_t node, hipEvent_t event)
{
	(void)event;
	if (!node)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphEventWaitNodeGetEvent(hipGraphNode_t node, hipEvent_t* event_out)
{
	if (!node || !event_out)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphEventWaitNodeSetEvent(hipGraphNode_t node, hipEvent_t event)
{
	(void)event;
	if (!node)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecChildGraphNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node, hipGraph_t childGraph)
{
	if (!hGraphExec || !node || !childGraph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)
{
	if (!graphExec)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecEventRecordNodeSetEvent(hipGraphExec_t hGraphExec, hipGraphNode_t hNode, hipEvent_t event)
{
	(void)event;
	if (!hGraphExec || !hNode)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecEventWaitNodeSetEvent(hipGraphExec_t hGraphExec, hipGraphNode_t hNode, hipEvent_t event)
{
	(void)event;
	if (!hGraphExec || !hNode)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecHostNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node, const hipHostNodeParams* pNodeParams)
{
	if (!hGraphExec || !node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node, const hipKernelNodeParams* pNodeParams)
{
	if (!hGraphExec || !node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node, hipMemcpy3DParms* pNodeParams)
{
	if (!hGraphExec || !node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec, hipGraphNode_t node, void* dst, const void* src, size_t count, hipMemcpyKind kind)
{
	(void)count;
	(void)kind;
	if (!hGraphExec || !node || !dst || !src)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecMemcpyNodeSetParamsFromSymbol(hipGraphExec_t hGraphExec, hipGraphNode_t node, void* dst, const void* symbol, size_t count, size_t offset, hipMemcpyKind kind)
{
	(void)count;
	(void)offset;
	(void)kind;
	if (!hGraphExec || !node || !dst || !symbol)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecMemcpyNodeSetParamsToSymbol(hipGraphExec_t hGraphExec, hipGraphNode_t node, const void* symbol, const void* src, size_t count, size_t offset, hipMemcpyKind kind)
{
	(void)count;
	(void)offset;
	(void)kind;
	if (!hGraphExec || !node || !symbol || !src)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node, const hipMemsetParams* pNodeParams)
{
	if (!hGraphExec || !node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph, hipGraphNode_t* hErrorNode_out, hipGraphExecUpdateResult* updateResult_out)
{
	(void)hErrorNode_out;
	(void)updateResult_out;
	if (!hGraphExec || !hGraph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphHostNodeGetParams(hipGraphNode_t node, hipHostNodeParams* pNodeParams)
{
	if (!node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphHostNodeSetParams(hipGraphNode_t node, const hipHostNodeParams* pNodeParams)
{
	if (!node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphInstantiate(hipGraphExec_t* pGraphExec, hipGraph_t graph, hipGraphNode_t* pErrorNode, char* pLogBuffer, size_t bufferSize)
{
	(void)pErrorNode;
	(void)pLogBuffer;
	(void)bufferSize;
	if (!pGraphExec || !graph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* pGraphExec, hipGraph_t graph, unsigned long long flags)
{
	(void)flags;
	if (!pGraphExec || !graph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node, hipKernelNodeParams* pNodeParams)
{
	if (!node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node, const hipKernelNodeParams* pNodeParams)
{
	if (!node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)
{
	(void)stream;
	if (!graphExec)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphMemcpyNodeGetParams(hipGraphNode_t node, hipMemcpy3DParms* pNodeParams)
{
	if (!node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphMemcpyNodeSetParams(hipGraphNode_t node, const hipMemcpy3DParms* pNodeParams)
{
	if (!node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphMemcpyNodeSetParams1D(hipGraphNode_t node, void* dst, const void* src, size_t count, hipMemcpyKind kind)
{
	(void)count;
	(void)kind;
	if (!node || !dst || !src)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphMemcpyNodeSetParamsFromSymbol(hipGraphNode_t node, void* dst, const void* symbol, size_t count, size_t offset, hipMemcpyKind kind)
{
	(void)count;
	(void)offset;
	(void)kind;
	if (!node || !dst || !symbol)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphMemcpyNodeSetParamsToSymbol(hipGraphNode_t node, const void* symbol, const void* src, size_t count, size_t offset, hipMemcpyKind kind)
{
	(void)count;
	(void)offset;
	(void)kind;
	if (!node || !symbol || !src)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t node, hipMemsetParams* pNodeParams)
{
	if (!node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphMemsetNodeSetParams(hipGraphNode_t node, const hipMemsetParams* pNodeParams)
{
	if (!node || !pNodeParams)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphNodeFindInClone(hipGraphNode_t* pNode, hipGraphNode_t originalNode, hipGraph_t clonedGraph)
{
	if (!pNode || !originalNode || !clonedGraph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t* pDependencies, size_t* pNumDependencies)
{
	(void)pDependencies;
	(void)pNumDependencies;
	if (!node)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node, hipGraphNode_t* pDependentNodes, size_t* pNumDependentNodes)
{
	(void)pDependentNodes;
	(void)pNumDependentNodes;
	if (!node)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType* pType)
{
	if (!node || !pType)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t* from, const hipGraphNode_t* to, size_t numDependencies)
{
	(void)from;
	(void)to;
	(void)numDependencies;
	if (!graph)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}
