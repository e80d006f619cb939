/* SPDX-License-Identifier: MIT */
/*
 * graph_nodes.c - graph nodes, instantiation, executable graphs and their
 * launch: not supported (graph.c says why). Each call checks that the
 * pointers and handles it needs are not NULL (hipErrorInvalidValue, as ROCm
 * 5.2 answers for them), then answers hipErrorNotSupported, said once per
 * function on stderr.
 */
#include "sim.h"

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
