/* SPDX-License-Identifier: MIT */
/*
 * graph.c - graphs as ROCm 5.2.3 runs them (hipamd hip_graph.cpp and
 * hip_graph_internal.*): nodes hold copies of their parameters (a kernel
 * node its arguments, by the kernel's metadata, as hipGraphKernelNode does
 * at hip_graph_internal.hpp:471), dependencies are the edges of a DAG,
 * hipGraphInstantiate clones the graph into an executable graph with one
 * topological order, and hipGraphLaunch submits the nodes in that order to
 * the stream, each as the stream-ordered call it stands for would (so the
 * launch is asynchronous, but for the small pageable copies 5.2.3 stages in
 * the launching thread, sim_node_awaited, and events and the null stream's
 * barriers work as for any stream work). Running them in one order on one stream keeps every
 * dependency; 5.2.3 spreads independent branches over extra queues, which
 * only changes how much overlaps.
 *
 * Nodes that sit on a cycle (hipGraphAddDependencies does not refuse one)
 * are never reached by 5.2.3's level order (ihipGraph::LevelOrder starts from
 * the roots), so they and what depends on them are not run; the simulator's
 * order (Kahn's) leaves out the same nodes.
 *
 * Handles are checked against sets of live graphs, nodes and executable
 * graphs, where 5.2.3 keeps the same sets (isGraphValid, isNodeValid,
 * isGraphExecValid).
 */
#include "api/api.h"
#include "api/graph.h"
#include "api/kernels.h"
#include "api/memory.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>
#include <string.h>

#include "codeobj/codeobj.h"
#include "exec/exec.h"
#include "runtime/step.h"

__thread unsigned sim_graph_running;

/* ---- a set of live pointers (open addressing, linear probing) ---- */

struct ptrset {
	uintptr_t *slot;	/* 0 empty, 1 deleted */
	size_t cap, used;
};

static size_t ps_hash(uintptr_t p, size_t cap)
{
	return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

static bool ps_has(const struct ptrset *s, const void *p)
{
	uintptr_t v = (uintptr_t)p;

	if (!s->cap || v < 2)
		return false;
	for (size_t i = ps_hash(v, s->cap), k = 0; k < s->cap; k++, i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] == v)
			return true;
		if (!s->slot[i])
			return false;
	}
	return false;
}

static bool ps_add(struct ptrset *s, const void *p)
{
	uintptr_t v = (uintptr_t)p;

	if ((s->used + 1) * 2 > s->cap) {
		struct ptrset n = { .cap = s->cap ? s->cap * 2 : 64 };

		n.slot = calloc(n.cap, sizeof(*n.slot));
		if (!n.slot)
			return false;
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i] > 1)
				ps_add(&n, (const void *)s->slot[i]);
		free(s->slot);
		*s = n;
	}
	for (size_t i = ps_hash(v, s->cap);; i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] < 2) {
			if (!s->slot[i])
				s->used++;
			s->slot[i] = v;
			return true;
		}
	}
}

static void ps_del(struct ptrset *s, const void *p)
{
	uintptr_t v = (uintptr_t)p;

	if (!s->cap)
		return;
	for (size_t i = ps_hash(v, s->cap), k = 0; k < s->cap; k++, i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] == v) {
			s->slot[i] = 1;
			return;
		}
		if (!s->slot[i])
			return;
	}
}

/* ---- graphs and nodes ---- */

struct nvec {
	struct hipGraphNode **v;
	size_t n, cap;
};

static bool nv_push(struct nvec *a, struct hipGraphNode *x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 4;
		struct hipGraphNode **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return false;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return true;
}

static bool nv_del(struct nvec *a, const struct hipGraphNode *x)
{
	for (size_t i = 0; i < a->n; i++) {
		if (a->v[i] == x) {
			memmove(a->v + i, a->v + i + 1, (a->n - i - 1) * sizeof(*a->v));
			a->n--;
			return true;
		}
	}
	return false;
}

static bool nv_has(const struct nvec *a, const struct hipGraphNode *x)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i] == x)
			return true;
	return false;
}

struct ihipGraph {
	struct nvec nodes;		/* in the order they were added */
	const struct ihipGraph *original;	/* a clone's source (hipGraphNodeFindInClone) */
};

struct kernel_node {
	hipKernelNodeParams p;	/* kernelParams / extra point at our copies */
	uint8_t *kernarg;	/* the explicit arguments at their metadata offsets */
	size_t kernarg_size;
	void **argv;		/* p.kernelParams: into kernarg */
	void *extra[5];		/* p.extra */
	size_t extra_size;
};

struct hipGraphNode {
	hipGraphNodeType type;
	struct ihipGraph *graph;
	unsigned id;			/* shared by a node and its clones */
	size_t idx;			/* its place in graph->nodes, set for a walk */
	const struct hipGraphNode *orig;	/* in an executable graph: the node cloned */
	struct nvec deps, edges;	/* what it waits for; what waits for it */
	union {
		struct kernel_node k;
		hipMemcpy3DParms m3;
		struct {
			void *dst;
			const void *src;
			size_t n;
			int kind;
		} m1;
		struct {
			void *ptr;		/* dst (from) or src (to) */
			const void *sym;
			size_t n, off;
			int kind;
		} ms;
		hipMemsetParams set;
		hipHostNodeParams host;
		hipEvent_t ev;
		struct ihipGraph *child;	/* owned: a clone of the graph given */
	} u;
};

struct hipGraphExec {
	struct ihipGraph *g;		/* the clone */
	struct hipGraphNode **order;	/* topological */
	size_t n;
};

/* recursive: a child graph node's clone is freed with its node, under it */
static pthread_mutex_t graph_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct ptrset live_graphs, live_nodes, live_execs;
static unsigned next_id;

static void graph_reset(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&graph_lock, &a);
	pthread_mutexattr_destroy(&a);
}
SIM_STEP(graph, .reset = graph_reset);

static bool graph_ok(hipGraph_t g)
{
	bool ok;

	pthread_mutex_lock(&graph_lock);
	ok = ps_has(&live_graphs, g);
	pthread_mutex_unlock(&graph_lock);
	return ok;
}

static bool node_ok(hipGraphNode_t n)
{
	bool ok;

	pthread_mutex_lock(&graph_lock);
	ok = ps_has(&live_nodes, n);
	pthread_mutex_unlock(&graph_lock);
	return ok;
}

static bool exec_ok(hipGraphExec_t x)
{
	bool ok;

	pthread_mutex_lock(&graph_lock);
	ok = ps_has(&live_execs, x);
	pthread_mutex_unlock(&graph_lock);
	return ok;
}

static struct hipGraphNode *as_node(hipGraphNode_t n)
{
	return (struct hipGraphNode *)n;
}

hipError_t sim_graph_new(hipGraph_t *out)
{
	struct ihipGraph *g = calloc(1, sizeof(*g));
	bool ok;

	if (!g)
		return hipErrorOutOfMemory;
	pthread_mutex_lock(&graph_lock);
	ok = ps_add(&live_graphs, g);
	pthread_mutex_unlock(&graph_lock);
	if (!ok) {
		free(g);
		return hipErrorOutOfMemory;
	}
	*out = g;
	return hipSuccess;
}

static void node_free_params(struct hipGraphNode *n)
{
	if (n->type == hipGraphNodeTypeKernel) {
		free(n->u.k.kernarg);
		free(n->u.k.argv);
	} else if (n->type == hipGraphNodeTypeGraph) {
		sim_graph_free(n->u.child);
	}
}

/* Caller holds graph_lock. */
static void node_unlink(struct hipGraphNode *n)
{
	for (size_t i = 0; i < n->deps.n; i++)
		nv_del(&n->deps.v[i]->edges, n);
	for (size_t i = 0; i < n->edges.n; i++)
		nv_del(&n->edges.v[i]->deps, n);
	ps_del(&live_nodes, n);
}

static void node_destroy(struct hipGraphNode *n)
{
	node_free_params(n);
	free(n->deps.v);
	free(n->edges.v);
	free(n);
}

void sim_graph_free(hipGraph_t graph)
{
	struct ihipGraph *g = graph;
	struct nvec nodes;

	if (!g)
		return;
	pthread_mutex_lock(&graph_lock);
	ps_del(&live_graphs, g);
	nodes = g->nodes;
	for (size_t i = 0; i < nodes.n; i++)
		ps_del(&live_nodes, nodes.v[i]);
	pthread_mutex_unlock(&graph_lock);
	for (size_t i = 0; i < nodes.n; i++)
		node_destroy(nodes.v[i]);
	free(nodes.v);
	free(g);
}

/* ihipGraphAddNode (hip_graph.cpp:32): the node joins the graph, then each
 * dependency gains an edge to it; a dependency that is not a node answers
 * hipErrorInvalidValue, the node staying in the graph with the edges made
 * so far, as in 5.2.3. */
static hipError_t node_add(struct hipGraphNode *n, hipGraph_t graph, const hipGraphNode_t *deps,
			   size_t ndeps, hipGraphNode_t *out)
{
	struct ihipGraph *g = graph;
	hipError_t e = hipSuccess;

	pthread_mutex_lock(&graph_lock);
	if (!ps_has(&live_graphs, g)) {
		pthread_mutex_unlock(&graph_lock);
		node_destroy(n);
		return hipErrorInvalidValue;
	}
	n->graph = g;
	n->id = ++next_id;
	if (!nv_push(&g->nodes, n) || !ps_add(&live_nodes, n)) {
		nv_del(&g->nodes, n);
		pthread_mutex_unlock(&graph_lock);
		node_destroy(n);
		return hipErrorOutOfMemory;
	}
	for (size_t i = 0; i < ndeps; i++) {
		struct hipGraphNode *d = as_node(deps[i]);

		if (!ps_has(&live_nodes, d)) {
			e = hipErrorInvalidValue;
			break;
		}
		if (nv_has(&d->edges, n))
			continue;
		if (!nv_push(&d->edges, n) || !nv_push(&n->deps, d)) {
			nv_del(&d->edges, n);
			e = hipErrorOutOfMemory;
			break;
		}
	}
	pthread_mutex_unlock(&graph_lock);
	*out = n;
	return e;
}

static struct hipGraphNode *node_new(hipGraphNodeType type)
{
	struct hipGraphNode *n = calloc(1, sizeof(*n));

	if (n)
		n->type = type;
	return n;
}

/* ---- kernel nodes ---- */

/* hipGraphKernelNode::getFunc (hip_graph_internal.hpp:459): a registered
 * host function, else the handle as a module function. */
static bool kernel_resolve(const void *func, char *buf, const char **name,
			   const struct hipsvm_kernel_info **info)
{
	*name = sim_func_lookup(func, info);
	if (*name)
		return true;
	if (sim_module_fn_info((hipFunction_t)(uintptr_t)func, buf, info)) {
		*name = buf;
		return true;
	}
	return false;
}

/* The node's own copy of the arguments, as hipGraphKernelNode::copyParams:
 * kernelParams by the metadata's sizes, or extra's buffer. */
static hipError_t kernel_copy(struct kernel_node *k, const hipKernelNodeParams *p,
			      const struct hipsvm_kernel_info *info)
{
	k->p = *p;
	k->kernarg = NULL;
	k->argv = NULL;
	if (p->kernelParams) {
		size_t len = 0;
		unsigned nargs = info ? info->nargs : 0;

		for (unsigned i = 0; i < nargs; i++)
			if ((size_t)info->args[i].offset + info->args[i].size > len)
				len = (size_t)info->args[i].offset + info->args[i].size;
		k->kernarg = calloc(1, len ? len : 1);
		k->argv = calloc(nargs ? nargs : 1, sizeof(void *));
		if (!k->kernarg || !k->argv)
			return hipErrorOutOfMemory;
		for (unsigned i = 0; i < nargs; i++) {
			k->argv[i] = k->kernarg + info->args[i].offset;
			if (p->kernelParams[i])
				memcpy(k->argv[i], p->kernelParams[i], info->args[i].size);
		}
		k->kernarg_size = len;
		k->p.kernelParams = k->argv;
		k->p.extra = NULL;
	} else {
		size_t len = p->extra[3] ? *(const size_t *)p->extra[3] : 0;

		if (p->extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER ||
		    p->extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
		    p->extra[4] != HIP_LAUNCH_PARAM_END)
			return hipErrorInvalidValue;
		k->kernarg = calloc(1, len ? len : 1);
		if (!k->kernarg)
			return hipErrorOutOfMemory;
		if (len && p->extra[1])
			memcpy(k->kernarg, p->extra[1], len);
		k->kernarg_size = len;
		k->extra_size = len;
		k->extra[0] = HIP_LAUNCH_PARAM_BUFFER_POINTER;
		k->extra[1] = k->kernarg;
		k->extra[2] = HIP_LAUNCH_PARAM_BUFFER_SIZE;
		k->extra[3] = &k->extra_size;
		k->extra[4] = HIP_LAUNCH_PARAM_END;
		k->p.extra = k->extra;
		k->p.kernelParams = NULL;
	}
	return hipSuccess;
}

/* ihipGraphAddKernelNode's checks after the NULLs (hip_graph.cpp:67): the
 * function, the launch sizes (ihipLaunchKernel_validate), then exactly one
 * of kernelParams and extra. */
static hipError_t kernel_check(const hipKernelNodeParams *p, const struct hipsvm_kernel_info **info)
{
	struct sim_launch_dims dims;
	const char *name;
	char buf[256];
	hipError_t e;

	if (!p->func)
		return hipErrorInvalidValue;
	if (!kernel_resolve(p->func, buf, &name, info))
		return hipErrorInvalidDeviceFunction;
	e = sim_exec_dims_blocks(p->gridDim, p->blockDim, p->sharedMemBytes, &dims);
	if (e != hipSuccess)
		return e;
	if (!p->kernelParams == !p->extra)
		return hipErrorInvalidValue;
	/* ihipValidateKernelParams runs the launch's own checks
	 * (hip_graph.cpp:56): the kernel's launch bounds too */
	return sim_exec_check_bounds(*info, dims.block);
}

hipError_t sim_graph_add_kernel(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				size_t n, const hipKernelNodeParams *p)
{
	const struct hipsvm_kernel_info *info = NULL;
	struct hipGraphNode *node;
	hipError_t e;

	if (!out || !g || (n && !deps) || !p || !p->func)
		return hipErrorInvalidValue;
	if (!graph_ok(g))
		return hipErrorInvalidValue;
	e = kernel_check(p, &info);
	if (e != hipSuccess)
		return e;
	node = node_new(hipGraphNodeTypeKernel);
	if (!node)
		return hipErrorOutOfMemory;
	e = kernel_copy(&node->u.k, p, info);
	if (e != hipSuccess) {
		node_destroy(node);
		return e;
	}
	return node_add(node, g, deps, n, out);
}

static hipError_t kernel_run(const struct kernel_node *k, hipStream_t stream)
{
	struct sim_launch l = { .kernarg = k->kernarg, .kernarg_size = k->kernarg_size };
	hipError_t e;
	char buf[256];

	if (!kernel_resolve(k->p.func, buf, &l.name, &l.info))
		return hipErrorInvalidDeviceFunction;
	e = sim_exec_dims_blocks(k->p.gridDim, k->p.blockDim, k->p.sharedMemBytes, &l.dims);
	if (e != hipSuccess)
		return e;
	return sim_exec_launch(&l, stream);
}

/* ---- memcpy and memset nodes ---- */

hipError_t sim_graph_add_memcpy1d(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				  size_t n, void *dst, const void *src, size_t count, int kind)
{
	struct hipGraphNode *node;
	hipError_t e;

	if (!out || !g || (n && !deps))
		return hipErrorInvalidValue;
	e = sim_check_copy(dst, src, count, kind);
	if (e != hipSuccess)
		return e;
	node = node_new(hipGraphNodeTypeMemcpy1D);
	if (!node)
		return hipErrorOutOfMemory;
	node->u.m1.dst = dst;
	node->u.m1.src = src;
	node->u.m1.n = count;
	node->u.m1.kind = kind;
	return node_add(node, g, deps, n, out);
}

/* The checks of ihipMemcpy3D_validate that need no memory lookup; the
 * rest are the copy's own when it runs. */
static hipError_t memcpy3d_check(const hipMemcpy3DParms *p)
{
	if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
		return hipErrorInvalidValue;
	if ((!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr))
		return hipErrorInvalidValue;
	if ((unsigned)p->kind > hipMemcpyDefault)
		return hipErrorInvalidMemcpyDirection;
	return hipSuccess;
}

hipError_t sim_graph_add_memcpy3d(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				  size_t n, const hipMemcpy3DParms *p)
{
	struct hipGraphNode *node;
	hipError_t e;

	if (!out || !g || (n && !deps) || !p)
		return hipErrorInvalidValue;
	e = memcpy3d_check(p);
	if (e != hipSuccess)
		return e;
	node = node_new(hipGraphNodeTypeMemcpy);
	if (!node)
		return hipErrorOutOfMemory;
	node->u.m3 = *p;
	return node_add(node, g, deps, n, out);
}

/* ihipGraphMemsetParams_validate (hip_memory.cpp:2386) and the fill's
 * range check (ihipMemset_validate, ihipMemset3D_validate): the element
 * size is 1, 2 or 4, the height not 0, and the fill lies in one allocation. */
static hipError_t memset_check(const hipMemsetParams *p)
{
	struct sim_alloc a;
	size_t row, end;

	if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
		return hipErrorInvalidValue;
	if (p->height == 0)
		return hipErrorInvalidValue;
	if (p->height == 1) {
		if (p->width == 0)
			return hipSuccess;
		if (p->width > SIZE_MAX / p->elementSize)
			return hipErrorInvalidValue;
		row = p->width * p->elementSize;
		end = row;
	} else {
		/* 5.2.3 fills width bytes per row here (see memset_run) */
		if (p->pitch < p->width || p->height > SIZE_MAX / (p->pitch ? p->pitch : 1))
			return hipErrorInvalidValue;
		end = (p->height - 1) * p->pitch + p->width;
	}
	if (!p->dst || !sim_lookup(p->dst, &a))
		return hipErrorInvalidValue;
	if ((uintptr_t)p->dst + end < (uintptr_t)p->dst ||
	    (uintptr_t)p->dst + end > a.base + a.size)
		return hipErrorInvalidValue;
	return hipSuccess;
}

hipError_t sim_graph_add_memset(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				size_t n, const hipMemsetParams *p)
{
	struct hipGraphNode *node;
	hipError_t e;

	if (!out || !g || !p || (n && !deps) || p->height == 0)
		return hipErrorInvalidValue;
	e = memset_check(p);
	if (e != hipSuccess)
		return e;
	node = node_new(hipGraphNodeTypeMemset);
	if (!node)
		return hipErrorOutOfMemory;
	node->u.set = *p;
	return node_add(node, g, deps, n, out);
}

/* hipGraphMemsetNode::CreateCommand (hip_graph_internal.hpp:1037): one row
 * of elements, or for a height above 1 a 2D fill of width bytes per row
 * whose byte value is the element size, as 5.2.3 passes elementSize where
 * the value belongs (hip_graph_internal.hpp:1042-1046). */
static hipError_t memset_run(const hipMemsetParams *p, hipStream_t s)
{
	if (p->height == 1) {
		switch (p->elementSize) {
		case 1:
			return hipMemsetD8Async(p->dst, (unsigned char)p->value, p->width, s);
		case 2:
			return hipMemsetD16Async(p->dst, (unsigned short)p->value, p->width, s);
		default:
			return hipMemsetD32Async(p->dst, (int)p->value, p->width, s);
		}
	}
	return hipMemset2DAsync(p->dst, p->pitch, (int)p->elementSize, p->width, p->height, s);
}

/* ---- host nodes ---- */

struct host_op {
	struct sim_op op;
	hipHostFn_t fn;
	void *data;
};

static void host_run(struct sim_op *op)
{
	struct host_op *h = (struct host_op *)op;

	h->fn(h->data);
}

static hipError_t host_submit(const hipHostNodeParams *p, hipStream_t stream)
{
	struct sim_stream *s = sim_stream_get(stream);
	struct host_op *h;

	if (!s)
		return hipErrorInvalidResourceHandle;
	h = calloc(1, sizeof(*h));
	if (!h)
		return hipErrorOutOfMemory;
	h->op.fn = host_run;
	h->fn = p->fn;
	h->data = p->userData;
	sim_stream_enqueue(s, &h->op);
	return hipSuccess;
}

/* ---- clones, orders, launches ---- */

static struct ihipGraph *graph_clone(struct ihipGraph *src, bool exec);

static struct hipGraphNode *node_clone(const struct hipGraphNode *n, bool exec)
{
	struct hipGraphNode *c = node_new(n->type);

	if (!c)
		return NULL;
	c->id = n->id;
	c->orig = exec ? n : NULL;
	c->u = n->u;
	if (n->type == hipGraphNodeTypeKernel) {
		const struct hipsvm_kernel_info *info = NULL;
		const char *name;
		char buf[256];

		kernel_resolve(n->u.k.p.func, buf, &name, &info);
		if (kernel_copy(&c->u.k, &n->u.k.p, info) != hipSuccess) {
			node_destroy(c);
			return NULL;
		}
	} else if (n->type == hipGraphNodeTypeGraph) {
		c->u.child = graph_clone(n->u.child, exec);
		if (!c->u.child) {
			free(c);
			return NULL;
		}
	}
	return c;
}

/* A copy of src's nodes and edges; exec: for an executable graph (its
 * nodes remember their originals). Caller holds graph_lock. */
static struct ihipGraph *graph_clone(struct ihipGraph *src, bool exec)
{
	struct ihipGraph *g = calloc(1, sizeof(*g));
	bool ok = g != NULL;

	for (size_t i = 0; ok && i < src->nodes.n; i++) {
		struct hipGraphNode *c = node_clone(src->nodes.v[i], exec);

		ok = c && nv_push(&g->nodes, c);
		if (c && !ok)
			node_destroy(c);
		else if (c)
			c->graph = g;
	}
	/* edges: by place, as the nodes keep theirs */
	for (size_t i = 0; i < src->nodes.n; i++)
		src->nodes.v[i]->idx = i;
	for (size_t i = 0; ok && i < src->nodes.n; i++) {
		const struct hipGraphNode *s = src->nodes.v[i];

		for (size_t j = 0; ok && j < s->edges.n; j++) {
			size_t k = s->edges.v[j]->idx;

			ok = nv_push(&g->nodes.v[i]->edges, g->nodes.v[k]) &&
			     nv_push(&g->nodes.v[k]->deps, g->nodes.v[i]);
		}
	}
	if (!ok && g) {
		for (size_t i = 0; i < g->nodes.n; i++)
			node_destroy(g->nodes.v[i]);
		free(g->nodes.v);
		free(g);
		return NULL;
	}
	if (g)
		g->original = src;
	return g;
}

/* Kahn's order, nodes taken in the order they were added among those
 * ready; nodes on a cycle are left out (see the head of the file). */
static size_t topo_order(struct ihipGraph *g, struct hipGraphNode **out)
{
	size_t n = g->nodes.n, head = 0, tail = 0;
	size_t *left = calloc(n ? n : 1, sizeof(*left));

	if (!left)
		return SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		g->nodes.v[i]->idx = i;
		left[i] = g->nodes.v[i]->deps.n;
		if (!left[i])
			out[tail++] = g->nodes.v[i];
	}
	while (head < tail) {
		struct hipGraphNode *x = out[head++];

		for (size_t j = 0; j < x->edges.n; j++)
			if (--left[x->edges.v[j]->idx] == 0)
				out[tail++] = x->edges.v[j];
	}
	free(left);
	return tail;
}

static hipError_t graph_run(struct ihipGraph *g, hipStream_t s);

static hipError_t node_run(const struct hipGraphNode *n, hipStream_t s)
{
	switch (n->type) {
	case hipGraphNodeTypeKernel:
		return kernel_run(&n->u.k, s);
	case hipGraphNodeTypeMemcpy:
		return hipMemcpy3DAsync(&n->u.m3, s);
	case hipGraphNodeTypeMemcpy1D:
		return sim_copy_node(n->u.m1.dst, n->u.m1.src, n->u.m1.n, n->u.m1.kind, s);
	case hipGraphNodeTypeMemcpyFromSymbol:
	case hipGraphNodeTypeMemcpyToSymbol:
		return sim_symbol_copy_node(n->type == hipGraphNodeTypeMemcpyToSymbol, n->u.ms.ptr,
					    n->u.ms.sym, n->u.ms.n, n->u.ms.off, n->u.ms.kind, s);
	case hipGraphNodeTypeMemset:
		return memset_run(&n->u.set, s);
	case hipGraphNodeTypeHost:
		return host_submit(&n->u.host, s);
	case hipGraphNodeTypeGraph:
		return graph_run(n->u.child, s);
	case hipGraphNodeTypeWaitEvent:
		return hipStreamWaitEvent(s, n->u.ev, 0);
	case hipGraphNodeTypeEventRecord:
		return hipEventRecord(n->u.ev, s);
	default:
		return hipSuccess;
	}
}

/* A child graph's nodes, in their order, where the child node stands. */
static hipError_t graph_run(struct ihipGraph *g, hipStream_t s)
{
	struct hipGraphNode **order = calloc(g->nodes.n ? g->nodes.n : 1, sizeof(*order));
	size_t n;
	hipError_t e = hipSuccess;

	if (!order)
		return hipErrorOutOfMemory;
	n = topo_order(g, order);
	for (size_t i = 0; i < n && n != SIZE_MAX && e == hipSuccess; i++)
		e = node_run(order[i], s);
	free(order);
	return n == SIZE_MAX ? hipErrorOutOfMemory : e;
}

/* A clone becomes a graph handle: it and its nodes join the live sets.
 * Caller holds graph_lock. */
static bool graph_register(struct ihipGraph *g)
{
	if (!ps_add(&live_graphs, g))
		return false;
	for (size_t i = 0; i < g->nodes.n; i++)
		if (!ps_add(&live_nodes, g->nodes.v[i]))
			return false;
	return true;
}

/* ---- the API ---- */

SIM_API hipError_t hipGraphCreate(hipGraph_t *out, unsigned int flags)
{
	SIM_INIT_API();
	if (!out || flags != 0)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(sim_graph_new(out));
}

SIM_API hipError_t hipGraphDestroy(hipGraph_t graph)
{
	SIM_INIT_API();
	if (!graph)
		SIM_RETURN(hipErrorInvalidValue);
	if (!graph_ok(graph))	/* hip_graph.cpp:854: destroyed already */
		SIM_RETURN(hipErrorIllegalState);
	sim_graph_free(graph);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipGraphAddKernelNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
					 const hipGraphNode_t *pDependencies,
					 size_t numDependencies,
					 const hipKernelNodeParams *pNodeParams)
{
	SIM_INIT_API();
	SIM_RETURN(sim_graph_add_kernel(pGraphNode, graph, pDependencies, numDependencies,
					pNodeParams));
}

SIM_API hipError_t hipGraphAddMemcpyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
					 const hipGraphNode_t *pDependencies,
					 size_t numDependencies, const hipMemcpy3DParms *pCopyParams)
{
	SIM_INIT_API();
	SIM_RETURN(sim_graph_add_memcpy3d(pGraphNode, graph, pDependencies, numDependencies,
					  pCopyParams));
}

SIM_API hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t *pGraphNode, hipGraph_t graph,
					   const hipGraphNode_t *pDependencies,
					   size_t numDependencies, void *dst, const void *src,
					   size_t count, hipMemcpyKind kind)
{
	SIM_INIT_API();
	SIM_RETURN(sim_graph_add_memcpy1d(pGraphNode, graph, pDependencies, numDependencies, dst,
					  src, count, kind));
}

SIM_API hipError_t hipGraphAddMemsetNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
					 const hipGraphNode_t *pDependencies,
					 size_t numDependencies,
					 const hipMemsetParams *pMemsetParams)
{
	SIM_INIT_API();
	if (!pGraphNode || !graph || (numDependencies && !pDependencies))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(sim_graph_add_memset(pGraphNode, graph, pDependencies, numDependencies,
					pMemsetParams));
}

/* The nodes whose parameters are a handle or a plain struct. */
static hipError_t add_simple(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
			     size_t n, struct hipGraphNode *node)
{
	if (!node)
		return hipErrorOutOfMemory;
	return node_add(node, graph, deps, n, out);
}

SIM_API hipError_t hipGraphAddEmptyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
					const hipGraphNode_t *pDependencies,
					size_t numDependencies)
{
	SIM_INIT_API();
	if (!pGraphNode || !graph || (numDependencies && !pDependencies))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(add_simple(pGraphNode, graph, pDependencies, numDependencies,
			      node_new(hipGraphNodeTypeEmpty)));
}

SIM_API hipError_t hipGraphAddHostNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
				       const hipGraphNode_t *pDependencies,
				       size_t numDependencies, const hipHostNodeParams *pNodeParams)
{
	struct hipGraphNode *n;

	SIM_INIT_API();
	if (!pGraphNode || !graph || !pNodeParams || (numDependencies && !pDependencies) ||
	    !pNodeParams->fn)
		SIM_RETURN(hipErrorInvalidValue);
	n = node_new(hipGraphNodeTypeHost);
	if (n)
		n->u.host = *pNodeParams;
	SIM_RETURN(add_simple(pGraphNode, graph, pDependencies, numDependencies, n));
}

static hipError_t add_event(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
			    size_t n, hipEvent_t ev, hipGraphNodeType type)
{
	struct hipGraphNode *node;

	if (!out || !graph || (n && !deps) || !ev)
		return hipErrorInvalidValue;
	node = node_new(type);
	if (node)
		node->u.ev = ev;
	return add_simple(out, graph, deps, n, node);
}

SIM_API hipError_t hipGraphAddEventRecordNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
					      const hipGraphNode_t *pDependencies,
					      size_t numDependencies, hipEvent_t event)
{
	SIM_INIT_API();
	SIM_RETURN(add_event(pGraphNode, graph, pDependencies, numDependencies, event,
			     hipGraphNodeTypeEventRecord));
}

SIM_API hipError_t hipGraphAddEventWaitNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
					    const hipGraphNode_t *pDependencies,
					    size_t numDependencies, hipEvent_t event)
{
	SIM_INIT_API();
	SIM_RETURN(add_event(pGraphNode, graph, pDependencies, numDependencies, event,
			     hipGraphNodeTypeWaitEvent));
}

SIM_API hipError_t hipGraphAddChildGraphNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
					     const hipGraphNode_t *pDependencies,
					     size_t numDependencies, hipGraph_t childGraph)
{
	struct hipGraphNode *n;

	SIM_INIT_API();
	if (!pGraphNode || !graph || (numDependencies && !pDependencies) || !childGraph ||
	    !graph_ok(childGraph))
		SIM_RETURN(hipErrorInvalidValue);
	n = node_new(hipGraphNodeTypeGraph);
	if (!n)
		SIM_RETURN(hipErrorOutOfMemory);
	/* the clone is a live graph, hipGraphChildGraphNodeGetGraph's answer */
	pthread_mutex_lock(&graph_lock);
	n->u.child = graph_clone(childGraph, false);
	if (n->u.child && !graph_register(n->u.child)) {
		sim_graph_free(n->u.child);
		n->u.child = NULL;
	}
	pthread_mutex_unlock(&graph_lock);
	if (!n->u.child) {
		free(n);
		SIM_RETURN(hipErrorOutOfMemory);
	}
	SIM_RETURN(node_add(n, graph, pDependencies, numDependencies, pGraphNode));
}

static hipError_t add_symbol(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
			     size_t n, void *ptr, const void *symbol, size_t count, size_t offset,
			     hipMemcpyKind kind, hipGraphNodeType type)
{
	struct hipGraphNode *node;
	size_t size = 0;
	void *addr;

	/* ihipMemcpySymbol_validate */
	if (hipGetSymbolSize(&size, symbol) != hipSuccess ||
	    hipGetSymbolAddress(&addr, symbol) != hipSuccess)
		return hipErrorInvalidSymbol;
	if (offset > size || count > size - offset)
		return hipErrorInvalidValue;
	node = node_new(type);
	if (!node)
		return hipErrorOutOfMemory;
	node->u.ms.ptr = ptr;
	node->u.ms.sym = symbol;
	node->u.ms.n = count;
	node->u.ms.off = offset;
	node->u.ms.kind = kind;
	return node_add(node, graph, deps, n, out);
}

hipError_t sim_graph_add_symbol(hipGraphNode_t *out, hipGraph_t g, const hipGraphNode_t *deps,
				size_t n, bool to, void *ptr, const void *symbol, size_t count,
				size_t offset, int kind)
{
	return add_symbol(out, g, deps, n, ptr, symbol, count, offset, (hipMemcpyKind)kind,
			  to ? hipGraphNodeTypeMemcpyToSymbol : hipGraphNodeTypeMemcpyFromSymbol);
}

/* hip_graph.cpp:1508-1509: this one checks pDependencies even when there are
 * none, so a root node cannot be added with it in 5.2.3. */
SIM_API hipError_t hipGraphAddMemcpyNodeFromSymbol(hipGraphNode_t *pGraphNode, hipGraph_t graph,
						   const hipGraphNode_t *pDependencies,
						   size_t numDependencies, void *dst,
						   const void *symbol, size_t count, size_t offset,
						   hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (!graph || !pGraphNode || !pDependencies || !dst || !graph_ok(graph))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(add_symbol(pGraphNode, graph, pDependencies, numDependencies, dst, symbol, count,
			      offset, kind, hipGraphNodeTypeMemcpyFromSymbol));
}

SIM_API hipError_t hipGraphAddMemcpyNodeToSymbol(hipGraphNode_t *pGraphNode, hipGraph_t graph,
						 const hipGraphNode_t *pDependencies,
						 size_t numDependencies, const void *symbol,
						 const void *src, size_t count, size_t offset,
						 hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (!pGraphNode || !graph || !src || !graph_ok(graph) ||
	    (!pDependencies && numDependencies))
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(add_symbol(pGraphNode, graph, pDependencies, numDependencies, (void *)src,
			      symbol, count, offset, kind, hipGraphNodeTypeMemcpyToSymbol));
}

/* ---- queries: the 5.2.3 way of filling a caller's array (hip_graph.cpp:
 * 1039): NULL asks the count; a shorter array gets the first entries; a
 * longer one is padded with NULL and the count set. ---- */

static void fill_list(struct hipGraphNode **src, size_t have, hipGraphNode_t *out, size_t *num)
{
	size_t i;

	if (!out) {
		*num = have;
		return;
	}
	for (i = 0; i < *num && i < have; i++)
		out[i] = src[i];
	if (*num > have) {
		for (; i < *num; i++)
			out[i] = NULL;
		*num = have;
	}
}

static hipError_t graph_list(hipGraph_t graph, hipGraphNode_t *out, size_t *num, bool roots)
{
	struct ihipGraph *g = graph;
	struct hipGraphNode **tmp;
	size_t have = 0;

	if (!graph || !num)
		return hipErrorInvalidValue;
	pthread_mutex_lock(&graph_lock);
	if (!ps_has(&live_graphs, g)) {
		pthread_mutex_unlock(&graph_lock);
		return hipErrorInvalidValue;
	}
	tmp = malloc((g->nodes.n ? g->nodes.n : 1) * sizeof(*tmp));
	if (!tmp) {
		pthread_mutex_unlock(&graph_lock);
		return hipErrorOutOfMemory;
	}
	for (size_t i = 0; i < g->nodes.n; i++)
		if (!roots || !g->nodes.v[i]->deps.n)
			tmp[have++] = g->nodes.v[i];
	fill_list(tmp, have, out, num);
	pthread_mutex_unlock(&graph_lock);
	free(tmp);
	return hipSuccess;
}

SIM_API hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *num)
{
	SIM_INIT_API();
	SIM_RETURN(graph_list(graph, nodes, num, false));
}

SIM_API hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t *roots, size_t *num)
{
	SIM_INIT_API();
	SIM_RETURN(graph_list(graph, roots, num, true));
}

size_t sim_graph_leaves(hipGraph_t graph, hipGraphNode_t *out, size_t max)
{
	struct ihipGraph *g = graph;
	size_t have = 0;

	pthread_mutex_lock(&graph_lock);
	for (size_t i = 0; g && i < g->nodes.n; i++) {
		if (g->nodes.v[i]->edges.n)
			continue;
		if (have < max)
			out[have] = g->nodes.v[i];
		have++;
	}
	pthread_mutex_unlock(&graph_lock);
	return have;
}

SIM_API hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t *from, hipGraphNode_t *to,
				    size_t *numEdges)
{
	struct ihipGraph *g = graph;
	size_t have = 0, i, k = 0;

	SIM_INIT_API();
	if (!graph || !numEdges || (!from && to) || (!to && from))
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	if (!ps_has(&live_graphs, g)) {
		pthread_mutex_unlock(&graph_lock);
		SIM_RETURN(hipErrorInvalidValue);
	}
	for (i = 0; i < g->nodes.n; i++)
		have += g->nodes.v[i]->edges.n;
	if (!from) {
		*numEdges = have;
	} else {
		for (i = 0; i < g->nodes.n && k < *numEdges; i++) {
			for (size_t j = 0; j < g->nodes.v[i]->edges.n && k < *numEdges; j++, k++) {
				from[k] = g->nodes.v[i];
				to[k] = g->nodes.v[i]->edges.v[j];
			}
		}
		if (*numEdges > have) {
			for (; k < *numEdges; k++)
				from[k] = to[k] = NULL;
			*numEdges = have;
		}
	}
	pthread_mutex_unlock(&graph_lock);
	SIM_RETURN(hipSuccess);
}

static hipError_t node_list(hipGraphNode_t node, hipGraphNode_t *out, size_t *num, bool deps)
{
	struct hipGraphNode *n = as_node(node);

	if (!node || !num)
		return hipErrorInvalidValue;
	pthread_mutex_lock(&graph_lock);
	if (!ps_has(&live_nodes, n)) {
		pthread_mutex_unlock(&graph_lock);
		return hipErrorInvalidValue;
	}
	if (deps)
		fill_list(n->deps.v, n->deps.n, out, num);
	else
		fill_list(n->edges.v, n->edges.n, out, num);
	pthread_mutex_unlock(&graph_lock);
	return hipSuccess;
}

SIM_API hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t *pDependencies,
					       size_t *pNumDependencies)
{
	SIM_INIT_API();
	SIM_RETURN(node_list(node, pDependencies, pNumDependencies, true));
}

SIM_API hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node,
						 hipGraphNode_t *pDependentNodes,
						 size_t *pNumDependentNodes)
{
	SIM_INIT_API();
	SIM_RETURN(node_list(node, pDependentNodes, pNumDependentNodes, false));
}

SIM_API hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType *pType)
{
	SIM_INIT_API();
	if (!node || !pType || !node_ok(node))
		SIM_RETURN(hipErrorInvalidValue);
	*pType = as_node(node)->type;
	SIM_RETURN(hipSuccess);
}

/* hip_graph.cpp:1181: both ends in the graph, no self edge, no edge twice. */
SIM_API hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t *from,
					   const hipGraphNode_t *to, size_t numDependencies)
{
	hipError_t e = hipSuccess;

	SIM_INIT_API();
	if (!graph)
		SIM_RETURN(hipErrorInvalidValue);
	if (!numDependencies)
		SIM_RETURN(hipSuccess);
	if (!from || !to)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	for (size_t i = 0; i < numDependencies && e == hipSuccess; i++) {
		struct hipGraphNode *f = as_node(from[i]), *t = as_node(to[i]);

		if (!f || !t || f == t || !ps_has(&live_nodes, f) || !ps_has(&live_nodes, t) ||
		    f->graph != graph || t->graph != graph)
			e = hipErrorInvalidValue;
	}
	for (size_t i = 0; i < numDependencies && e == hipSuccess; i++) {
		struct hipGraphNode *f = as_node(from[i]), *t = as_node(to[i]);

		if (nv_has(&f->edges, t))
			e = hipErrorInvalidValue;
		else if (!nv_push(&f->edges, t) || !nv_push(&t->deps, f))
			e = hipErrorOutOfMemory;
	}
	pthread_mutex_unlock(&graph_lock);
	SIM_RETURN(e);
}

SIM_API hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t *from,
					      const hipGraphNode_t *to, size_t numDependencies)
{
	hipError_t e = hipSuccess;

	SIM_INIT_API();
	if (!graph || !from || !to)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	for (size_t i = 0; i < numDependencies && e == hipSuccess; i++) {
		struct hipGraphNode *f = as_node(from[i]), *t = as_node(to[i]);

		if (!ps_has(&live_nodes, f) || !ps_has(&live_nodes, t) || !nv_del(&f->edges, t))
			e = hipErrorInvalidValue;
		else
			nv_del(&t->deps, f);
	}
	pthread_mutex_unlock(&graph_lock);
	SIM_RETURN(e);
}

SIM_API hipError_t hipGraphDestroyNode(hipGraphNode_t node)
{
	struct hipGraphNode *n = as_node(node);

	SIM_INIT_API();
	pthread_mutex_lock(&graph_lock);
	if (!n || !ps_has(&live_nodes, n)) {
		pthread_mutex_unlock(&graph_lock);
		SIM_RETURN(hipErrorInvalidValue);
	}
	nv_del(&n->graph->nodes, n);
	node_unlink(n);
	pthread_mutex_unlock(&graph_lock);
	node_destroy(n);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipGraphClone(hipGraph_t *pGraphClone, hipGraph_t originalGraph)
{
	struct ihipGraph *c;
	bool ok;

	SIM_INIT_API();
	if (!originalGraph || !pGraphClone)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	if (!ps_has(&live_graphs, originalGraph)) {
		pthread_mutex_unlock(&graph_lock);
		SIM_RETURN(hipErrorInvalidValue);
	}
	c = graph_clone(originalGraph, false);
	ok = c && graph_register(c);
	if (!ok)
		sim_graph_free(c);
	pthread_mutex_unlock(&graph_lock);
	if (!ok)
		SIM_RETURN(hipErrorOutOfMemory);
	*pGraphClone = c;
	SIM_RETURN(hipSuccess);
}

/* hip_graph.cpp:1483: a node of the clone with the original's ID. */
SIM_API hipError_t hipGraphNodeFindInClone(hipGraphNode_t *pNode, hipGraphNode_t originalNode,
					   hipGraph_t clonedGraph)
{
	struct ihipGraph *g = clonedGraph;
	hipError_t e = hipErrorInvalidValue;

	SIM_INIT_API();
	if (!pNode || !originalNode || !clonedGraph)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	if (ps_has(&live_graphs, g) && g->original && ps_has(&live_nodes, originalNode)) {
		for (size_t i = 0; i < g->nodes.n; i++) {
			if (g->nodes.v[i]->id == as_node(originalNode)->id) {
				*pNode = g->nodes.v[i];
				e = hipSuccess;
				break;
			}
		}
	}
	pthread_mutex_unlock(&graph_lock);
	SIM_RETURN(e);
}

/* ---- node parameters ---- */

static struct hipGraphNode *exec_node(hipGraphExec_t graphExec, hipGraphNode_t node);

/* A live node of the given type, or with x its copy in that executable
 * graph; NULL otherwise. Caller holds graph_lock. */
static struct hipGraphNode *pick(hipGraphExec_t x, hipGraphNode_t node, hipGraphNodeType type)
{
	struct hipGraphNode *n = x ? exec_node(x, node) : as_node(node);

	if (!x && !ps_has(&live_nodes, n))
		return NULL;
	return n && n->type == type ? n : NULL;
}

static struct hipGraphNode *typed(hipGraphNode_t node, hipGraphNodeType type)
{
	return pick(NULL, node, type);
}

/* A node's parameters are the member of its union for its type, at the
 * union's start: these copy them out of a node of the graph, or into one of
 * the graph or of the executable graph x, under the graph lock. */
static hipError_t params_get(hipGraphNode_t node, hipGraphNodeType type, void *out, size_t size)
{
	struct hipGraphNode *n;

	pthread_mutex_lock(&graph_lock);
	n = typed(node, type);
	if (n)
		memcpy(out, &n->u, size);
	pthread_mutex_unlock(&graph_lock);
	return n ? hipSuccess : hipErrorInvalidValue;
}

static hipError_t params_put(hipGraphExec_t x, hipGraphNode_t node, hipGraphNodeType type,
			     const void *p, size_t size)
{
	struct hipGraphNode *n;

	pthread_mutex_lock(&graph_lock);
	n = pick(x, node, type);
	if (n)
		memcpy(&n->u, p, size);
	pthread_mutex_unlock(&graph_lock);
	return n ? hipSuccess : hipErrorInvalidValue;
}

SIM_API hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node,
					       hipKernelNodeParams *pNodeParams)
{
	struct hipGraphNode *n;

	SIM_INIT_API();
	if (!node || !pNodeParams)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	n = typed(node, hipGraphNodeTypeKernel);
	if (n)
		*pNodeParams = n->u.k.p;
	pthread_mutex_unlock(&graph_lock);
	SIM_RETURN(n ? hipSuccess : hipErrorInvalidValue);
}

/* hipGraphKernelNode::SetParams: the new function and sizes are checked as
 * at creation; the arguments are copied again. */
static hipError_t kernel_set(struct hipGraphNode *n, const hipKernelNodeParams *p)
{
	const struct hipsvm_kernel_info *info = NULL;
	struct kernel_node k;
	hipError_t e = kernel_check(p, &info);

	if (e != hipSuccess)
		return e;
	e = kernel_copy(&k, p, info);
	if (e != hipSuccess) {
		free(k.kernarg);
		free(k.argv);
		return e;
	}
	pthread_mutex_lock(&graph_lock);
	free(n->u.k.kernarg);
	free(n->u.k.argv);
	n->u.k = k;
	if (!k.p.kernelParams) {
		n->u.k.extra[1] = n->u.k.kernarg;
		n->u.k.extra[3] = &n->u.k.extra_size;
		n->u.k.p.extra = n->u.k.extra;
	}
	pthread_mutex_unlock(&graph_lock);
	return hipSuccess;
}

SIM_API hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node,
					       const hipKernelNodeParams *pNodeParams)
{
	SIM_INIT_API();
	if (!node || !pNodeParams || !pNodeParams->func || !node_ok(node) ||
	    as_node(node)->type != hipGraphNodeTypeKernel)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(kernel_set(as_node(node), pNodeParams));
}

SIM_API hipError_t hipGraphMemcpyNodeGetParams(hipGraphNode_t node, hipMemcpy3DParms *pNodeParams)
{
	SIM_INIT_API();
	if (!node || !pNodeParams)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(params_get(node, hipGraphNodeTypeMemcpy, pNodeParams, sizeof(*pNodeParams)));
}

static hipError_t memcpy3d_set(hipGraphExec_t x, hipGraphNode_t node, const hipMemcpy3DParms *p)
{
	hipError_t e = memcpy3d_check(p);

	return e != hipSuccess ? e : params_put(x, node, hipGraphNodeTypeMemcpy, p, sizeof(*p));
}

SIM_API hipError_t hipGraphMemcpyNodeSetParams(hipGraphNode_t node,
					       const hipMemcpy3DParms *pNodeParams)
{
	SIM_INIT_API();
	if (!node || !pNodeParams)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(memcpy3d_set(NULL, node, pNodeParams));
}

static bool hip_memory(const void *p)
{
	struct sim_alloc a;

	return p && sim_lookup(p, &a);
}

/* hipGraphMemcpyNode1D::ValidateParams (hip_graph_internal.cpp:56), which
 * only the Set calls make: between HIP memory and other memory the kind
 * must say which way. */
static hipError_t memcpy1d_set(hipGraphExec_t x, hipGraphNode_t node, void *dst, const void *src,
			       size_t count, hipMemcpyKind kind)
{
	struct hipGraphNode *n;
	hipError_t e = sim_check_copy(dst, src, count, kind);
	bool dh = hip_memory(dst), sh = hip_memory(src);

	if (e != hipSuccess)
		return e;
	if ((!sh && dh && kind != hipMemcpyHostToDevice) ||
	    (sh && !dh && kind != hipMemcpyDeviceToHost))
		return hipErrorInvalidValue;
	pthread_mutex_lock(&graph_lock);
	n = pick(x, node, hipGraphNodeTypeMemcpy1D);
	if (n) {
		n->u.m1.dst = dst;
		n->u.m1.src = src;
		n->u.m1.n = count;
		n->u.m1.kind = kind;
	}
	pthread_mutex_unlock(&graph_lock);
	return n ? hipSuccess : hipErrorInvalidValue;
}

/* hip_graph.cpp:903: also refuses a count of 0 and src == dst. */
SIM_API hipError_t hipGraphMemcpyNodeSetParams1D(hipGraphNode_t node, void *dst, const void *src,
						 size_t count, hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (!node || !dst || !src || !count || src == dst)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(memcpy1d_set(NULL, node, dst, src, count, kind));
}

/* Is p a registered symbol? Asked through hipGetSymbolSize, whose answer
 * must not become the program's last error. */
static bool is_symbol(const void *p)
{
	hipError_t before = sim_last_error(false);
	size_t size;
	bool yes = hipGetSymbolSize(&size, p) == hipSuccess;

	if (before == hipSuccess)
		sim_last_error(true);
	else
		sim_ret(before);
	return yes;
}

static hipError_t symbol_set(hipGraphExec_t x, hipGraphNode_t node, void *ptr, const void *symbol,
			     size_t count, size_t offset, hipMemcpyKind kind, hipGraphNodeType type)
{
	struct hipGraphNode *n;
	size_t size = 0;
	void *addr;

	/* hipGraphMemcpyNodeFromSymbol::SetParams (hip_graph_internal.hpp:867):
	 * a destination that is a symbol too is refused, and the direction
	 * checks are 5.2.3's as written: a HIP destination wants
	 * hipMemcpyDeviceToDevice, any other hipMemcpyHostToDevice */
	if (type == hipGraphNodeTypeMemcpyFromSymbol) {
		if (is_symbol(ptr))
			return hipErrorInvalidValue;
	}
	if (hipGetSymbolSize(&size, symbol) != hipSuccess ||
	    hipGetSymbolAddress(&addr, symbol) != hipSuccess)
		return hipErrorInvalidSymbol;
	if (offset > size || count > size - offset)
		return hipErrorInvalidValue;
	if (type == hipGraphNodeTypeMemcpyFromSymbol &&
	    ((!hip_memory(ptr) && kind != hipMemcpyHostToDevice) ||
	     (hip_memory(ptr) && kind != hipMemcpyDeviceToDevice)))
		return hipErrorInvalidMemcpyDirection;
	/* hipGraphMemcpyNodeToSymbol::SetParams (hip_graph_internal.hpp:957):
	 * the kind's two sides against the memory's (HIP memory counts as
	 * device memory; the symbol's storage is device memory here) */
	if (type == hipGraphNodeTypeMemcpyToSymbol && kind != hipMemcpyDefault &&
	    (hip_memory(ptr) != (kind == hipMemcpyDeviceToDevice || kind == hipMemcpyDeviceToHost) ||
	     (kind != hipMemcpyHostToDevice && kind != hipMemcpyDeviceToDevice)))
		return hipErrorInvalidValue;
	pthread_mutex_lock(&graph_lock);
	n = pick(x, node, type);
	if (n) {
		n->u.ms.ptr = ptr;
		n->u.ms.sym = symbol;
		n->u.ms.n = count;
		n->u.ms.off = offset;
		n->u.ms.kind = kind;
	}
	pthread_mutex_unlock(&graph_lock);
	return n ? hipSuccess : hipErrorInvalidValue;
}

SIM_API hipError_t hipGraphMemcpyNodeSetParamsFromSymbol(hipGraphNode_t node, void *dst,
							 const void *symbol, size_t count,
							 size_t offset, hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (!symbol)
		SIM_RETURN(hipErrorInvalidSymbol);
	if (!node || !dst || !count || symbol == dst)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(symbol_set(NULL, node, dst, symbol, count, offset, kind,
			      hipGraphNodeTypeMemcpyFromSymbol));
}

SIM_API hipError_t hipGraphMemcpyNodeSetParamsToSymbol(hipGraphNode_t node, const void *symbol,
						       const void *src, size_t count,
						       size_t offset, hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (!symbol)
		SIM_RETURN(hipErrorInvalidSymbol);
	if (!node || !src || !count || symbol == src)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(symbol_set(NULL, node, (void *)src, symbol, count, offset, kind,
			      hipGraphNodeTypeMemcpyToSymbol));
}

SIM_API hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t node, hipMemsetParams *pNodeParams)
{
	SIM_INIT_API();
	if (!node || !pNodeParams)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(params_get(node, hipGraphNodeTypeMemset, pNodeParams, sizeof(*pNodeParams)));
}

static hipError_t memset_set(hipGraphExec_t x, hipGraphNode_t node, const hipMemsetParams *p)
{
	hipError_t e = memset_check(p);

	return e != hipSuccess ? e : params_put(x, node, hipGraphNodeTypeMemset, p, sizeof(*p));
}

SIM_API hipError_t hipGraphMemsetNodeSetParams(hipGraphNode_t node,
					       const hipMemsetParams *pNodeParams)
{
	SIM_INIT_API();
	if (!node || !pNodeParams)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(memset_set(NULL, node, pNodeParams));
}

SIM_API hipError_t hipGraphHostNodeGetParams(hipGraphNode_t node, hipHostNodeParams *pNodeParams)
{
	SIM_INIT_API();
	if (!node || !pNodeParams)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(params_get(node, hipGraphNodeTypeHost, pNodeParams, sizeof(*pNodeParams)));
}

static hipError_t host_set(hipGraphExec_t x, hipGraphNode_t node, const hipHostNodeParams *p)
{
	return params_put(x, node, hipGraphNodeTypeHost, p, sizeof(*p));
}

/* hip_graph.cpp:1737: userData may not be NULL here, though it may be
 * when the node is added. */
SIM_API hipError_t hipGraphHostNodeSetParams(hipGraphNode_t node,
					     const hipHostNodeParams *pNodeParams)
{
	SIM_INIT_API();
	if (!pNodeParams || !pNodeParams->fn || !pNodeParams->userData || !node)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(host_set(NULL, node, pNodeParams));
}

static hipError_t event_get(hipGraphNode_t node, hipEvent_t *out, hipGraphNodeType type)
{
	if (!node || !out)
		return hipErrorInvalidValue;
	return params_get(node, type, out, sizeof(*out));
}

static hipError_t event_set(hipGraphExec_t x, hipGraphNode_t node, hipEvent_t ev,
			    hipGraphNodeType type)
{
	struct hipGraphNode *n;

	if (!node || !ev)
		return hipErrorInvalidValue;
	pthread_mutex_lock(&graph_lock);
	n = pick(x, node, type);
	if (n)
		n->u.ev = ev;
	pthread_mutex_unlock(&graph_lock);
	return n ? hipSuccess : hipErrorInvalidValue;
}

SIM_API hipError_t hipGraphEventRecordNodeGetEvent(hipGraphNode_t node, hipEvent_t *event_out)
{
	SIM_INIT_API();
	SIM_RETURN(event_get(node, event_out, hipGraphNodeTypeEventRecord));
}

SIM_API hipError_t hipGraphEventRecordNodeSetEvent(hipGraphNode_t node, hipEvent_t event)
{
	SIM_INIT_API();
	SIM_RETURN(event_set(NULL, node, event, hipGraphNodeTypeEventRecord));
}

SIM_API hipError_t hipGraphEventWaitNodeGetEvent(hipGraphNode_t node, hipEvent_t *event_out)
{
	SIM_INIT_API();
	SIM_RETURN(event_get(node, event_out, hipGraphNodeTypeWaitEvent));
}

SIM_API hipError_t hipGraphEventWaitNodeSetEvent(hipGraphNode_t node, hipEvent_t event)
{
	SIM_INIT_API();
	SIM_RETURN(event_set(NULL, node, event, hipGraphNodeTypeWaitEvent));
}

SIM_API hipError_t hipGraphChildGraphNodeGetGraph(hipGraphNode_t node, hipGraph_t *pGraph)
{
	struct hipGraphNode *n;

	SIM_INIT_API();
	if (!node || !pGraph)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	n = typed(node, hipGraphNodeTypeGraph);
	if (n)
		*pGraph = n->u.child;
	pthread_mutex_unlock(&graph_lock);
	SIM_RETURN(n ? hipSuccess : hipErrorInvalidValue);
}

/* ---- executable graphs ---- */

static hipError_t instantiate(hipGraphExec_t *out, hipGraph_t graph)
{
	struct hipGraphExec *x;
	bool ok;

	if (!out || !graph)
		return hipErrorInvalidValue;
	x = calloc(1, sizeof(*x));
	if (!x)
		return hipErrorOutOfMemory;
	pthread_mutex_lock(&graph_lock);
	if (!ps_has(&live_graphs, graph)) {
		pthread_mutex_unlock(&graph_lock);
		free(x);
		return hipErrorInvalidValue;
	}
	x->g = graph_clone(graph, true);
	ok = x->g != NULL;
	if (ok) {
		x->order = calloc(x->g->nodes.n ? x->g->nodes.n : 1, sizeof(*x->order));
		ok = x->order && (x->n = topo_order(x->g, x->order)) != SIZE_MAX;
	}
	ok = ok && ps_add(&live_execs, x);
	pthread_mutex_unlock(&graph_lock);
	if (!ok) {
		if (x->g) {
			for (size_t i = 0; i < x->g->nodes.n; i++)
				node_destroy(x->g->nodes.v[i]);
			free(x->g->nodes.v);
			free(x->g);
		}
		free(x->order);
		free(x);
		return hipErrorOutOfMemory;
	}
	*out = x;
	return hipSuccess;
}

/* hip_graph.cpp:990: neither the error node nor the log is written. */
SIM_API hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
				       hipGraphNode_t *pErrorNode, char *pLogBuffer,
				       size_t bufferSize)
{
	(void)pErrorNode;
	(void)pLogBuffer;
	(void)bufferSize;
	SIM_INIT_API();
	SIM_RETURN(instantiate(pGraphExec, graph));
}

SIM_API hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *pGraphExec, hipGraph_t graph,
						unsigned long long flags)
{
	SIM_INIT_API();
	if (!pGraphExec || !graph)
		SIM_RETURN(hipErrorInvalidValue);
	if (flags != 0 && flags != hipGraphInstantiateFlagAutoFreeOnLaunch)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(instantiate(pGraphExec, graph));
}

/* 5.2.3 deletes what it is given (hip_graph.cpp:1015); a handle that is
 * not a live executable graph answers hipErrorInvalidValue here. */
SIM_API hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)
{
	struct hipGraphExec *x = graphExec;
	bool ok;

	SIM_INIT_API();
	if (!x)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	ok = ps_has(&live_execs, x);
	ps_del(&live_execs, x);
	pthread_mutex_unlock(&graph_lock);
	if (!ok)
		SIM_RETURN(hipErrorInvalidValue);
	for (size_t i = 0; i < x->g->nodes.n; i++)
		node_destroy(x->g->nodes.v[i]);
	free(x->g->nodes.v);
	free(x->g);
	free(x->order);
	free(x);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)
{
	struct hipGraphExec *x = graphExec;
	hipError_t e = hipSuccess;
	bool gone;

	SIM_INIT_API();
	if (!x || (stream && !sim_stream_lookup(stream, &gone)) || !exec_ok(x))
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_stream_get(stream))
		SIM_RETURN(hipErrorInvalidResourceHandle);
	/* The exec's nodes change only through the hipGraphExec*SetParams
	 * calls, which a program does not make during its own launch. */
	sim_graph_running++;
	for (size_t i = 0; i < x->n && e == hipSuccess; i++)
		e = node_run(x->order[i], stream);
	sim_graph_running--;
	SIM_RETURN(e);
}

/* hipGraphExec::GetClonedNode: the exec's copy of a node of the graph it
 * was made from. Caller holds graph_lock. */
static struct hipGraphNode *exec_node(hipGraphExec_t graphExec, hipGraphNode_t node)
{
	struct hipGraphExec *x = graphExec;

	if (!ps_has(&live_execs, x))
		return NULL;
	for (size_t i = 0; i < x->g->nodes.n; i++)
		if (x->g->nodes.v[i]->orig == as_node(node))
			return x->g->nodes.v[i];
	return NULL;
}

static hipError_t exec_lookup(hipGraphExec_t x, hipGraphNode_t node, hipGraphNodeType type,
			      struct hipGraphNode **out)
{
	pthread_mutex_lock(&graph_lock);
	*out = exec_node(x, node);
	pthread_mutex_unlock(&graph_lock);
	return *out && (*out)->type == type ? hipSuccess : hipErrorInvalidValue;
}

SIM_API hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
						   const hipKernelNodeParams *pNodeParams)
{
	struct hipGraphNode *c;

	SIM_INIT_API();
	if (!hGraphExec || !node || !pNodeParams || !pNodeParams->func)
		SIM_RETURN(hipErrorInvalidValue);
	if (exec_lookup(hGraphExec, node, hipGraphNodeTypeKernel, &c) != hipSuccess)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(kernel_set(c, pNodeParams));
}

SIM_API hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
						   hipMemcpy3DParms *pNodeParams)
{
	struct hipGraphNode *c;

	SIM_INIT_API();
	if (!hGraphExec || !node || !pNodeParams || memcpy3d_check(pNodeParams) != hipSuccess)
		SIM_RETURN(hipErrorInvalidValue);
	if (exec_lookup(hGraphExec, node, hipGraphNodeTypeMemcpy, &c) != hipSuccess)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(memcpy3d_set(hGraphExec, node, pNodeParams));
}

SIM_API hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec,
						     hipGraphNode_t node, void *dst,
						     const void *src, size_t count,
						     hipMemcpyKind kind)
{
	struct hipGraphNode *c;

	SIM_INIT_API();
	if (!hGraphExec || !node || !dst || !src || !count || src == dst)
		SIM_RETURN(hipErrorInvalidValue);
	if (exec_lookup(hGraphExec, node, hipGraphNodeTypeMemcpy1D, &c) != hipSuccess)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(memcpy1d_set(hGraphExec, node, dst, src, count, kind));
}

SIM_API hipError_t hipGraphExecMemcpyNodeSetParamsFromSymbol(hipGraphExec_t hGraphExec,
							     hipGraphNode_t node, void *dst,
							     const void *symbol, size_t count,
							     size_t offset, hipMemcpyKind kind)
{
	struct hipGraphNode *c;

	SIM_INIT_API();
	if (!symbol)
		SIM_RETURN(hipErrorInvalidSymbol);
	if (!hGraphExec || !node || !dst || !count || symbol == dst)
		SIM_RETURN(hipErrorInvalidValue);
	if (exec_lookup(hGraphExec, node, hipGraphNodeTypeMemcpyFromSymbol, &c) != hipSuccess)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(symbol_set(hGraphExec, node, dst, symbol, count, offset, kind,
			      hipGraphNodeTypeMemcpyFromSymbol));
}

SIM_API hipError_t hipGraphExecMemcpyNodeSetParamsToSymbol(hipGraphExec_t hGraphExec,
							   hipGraphNode_t node, const void *symbol,
							   const void *src, size_t count,
							   size_t offset, hipMemcpyKind kind)
{
	struct hipGraphNode *c;

	SIM_INIT_API();
	if (!symbol)
		SIM_RETURN(hipErrorInvalidSymbol);
	if (!hGraphExec || !src || !node || !count || src == symbol)
		SIM_RETURN(hipErrorInvalidValue);
	if (exec_lookup(hGraphExec, node, hipGraphNodeTypeMemcpyToSymbol, &c) != hipSuccess)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(symbol_set(hGraphExec, node, (void *)src, symbol, count, offset, kind,
			      hipGraphNodeTypeMemcpyToSymbol));
}

SIM_API hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
						   const hipMemsetParams *pNodeParams)
{
	struct hipGraphNode *c;

	SIM_INIT_API();
	if (!hGraphExec || !node || !pNodeParams || !pNodeParams->dst)
		SIM_RETURN(hipErrorInvalidValue);
	if (exec_lookup(hGraphExec, node, hipGraphNodeTypeMemset, &c) != hipSuccess)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(memset_set(hGraphExec, node, pNodeParams) == hipSuccess ? hipSuccess
										: hipErrorInvalidValue);
}

SIM_API hipError_t hipGraphExecHostNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
						 const hipHostNodeParams *pNodeParams)
{
	struct hipGraphNode *c;

	SIM_INIT_API();
	if (!hGraphExec || !pNodeParams || !pNodeParams->fn || !pNodeParams->userData || !node ||
	    !node_ok(node))
		SIM_RETURN(hipErrorInvalidValue);
	if (exec_lookup(hGraphExec, node, hipGraphNodeTypeHost, &c) != hipSuccess)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(host_set(hGraphExec, node, pNodeParams));
}

static hipError_t exec_event_set(hipGraphExec_t x, hipGraphNode_t node, hipEvent_t ev,
				 hipGraphNodeType type)
{
	struct hipGraphNode *c;

	if (!x || !node || !ev || !node_ok(node) || as_node(node)->type != type)
		return hipErrorInvalidValue;
	if (exec_lookup(x, node, type, &c) != hipSuccess)
		return hipErrorInvalidValue;
	return event_set(x, node, ev, type);
}

SIM_API hipError_t hipGraphExecEventRecordNodeSetEvent(hipGraphExec_t hGraphExec,
						       hipGraphNode_t hNode, hipEvent_t event)
{
	SIM_INIT_API();
	SIM_RETURN(exec_event_set(hGraphExec, hNode, event, hipGraphNodeTypeEventRecord));
}

SIM_API hipError_t hipGraphExecEventWaitNodeSetEvent(hipGraphExec_t hGraphExec,
						     hipGraphNode_t hNode, hipEvent_t event)
{
	SIM_INIT_API();
	SIM_RETURN(exec_event_set(hGraphExec, hNode, event, hipGraphNodeTypeWaitEvent));
}

/* hip_graph.cpp:1760: the graph's nodes in order against the exec's, by
 * type; each matching node's parameters are taken over. Caller holds
 * graph_lock. */
static hipError_t exec_update(struct hipGraphExec *x, struct ihipGraph *g,
			      hipGraphNode_t *err_node, hipGraphExecUpdateResult *result)
{
	struct hipGraphNode **order = calloc(g->nodes.n ? g->nodes.n : 1, sizeof(*order));
	size_t n;

	if (!order)
		return hipErrorOutOfMemory;
	n = topo_order(g, order);
	if (n != x->n) {
		free(order);
		*result = hipGraphExecUpdateErrorTopologyChanged;
		return hipErrorGraphExecUpdateFailure;
	}
	for (size_t i = 0; i < n; i++) {
		struct hipGraphNode *o = x->order[i], *nw = order[i];

		if (o->type != nw->type) {
			*err_node = nw;
			*result = hipGraphExecUpdateErrorNodeTypeChanged;
			free(order);
			return hipErrorGraphExecUpdateFailure;
		}
		if (o->type == hipGraphNodeTypeKernel) {
			if (kernel_set(o, &nw->u.k.p) != hipSuccess) {
				*err_node = nw;
				*result = hipGraphExecUpdateErrorParametersChanged;
				free(order);
				return hipErrorGraphExecUpdateFailure;
			}
		} else if (o->type != hipGraphNodeTypeGraph) {
			o->u = nw->u;
		}
	}
	free(order);
	*result = hipGraphExecUpdateSuccess;
	return hipSuccess;
}

SIM_API hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph,
				      hipGraphNode_t *hErrorNode_out,
				      hipGraphExecUpdateResult *updateResult_out)
{
	hipError_t e;

	SIM_INIT_API();
	if (!hGraphExec || !hGraph || !hErrorNode_out || !updateResult_out)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	if (!ps_has(&live_execs, hGraphExec) || !ps_has(&live_graphs, hGraph))
		e = hipErrorInvalidValue;
	else
		e = exec_update(hGraphExec, hGraph, hErrorNode_out, updateResult_out);
	pthread_mutex_unlock(&graph_lock);
	SIM_RETURN(e);
}

/* hip_graph.cpp:1240: 5.2.3 first runs hipGraphExecUpdate of the whole
 * executable graph against the child graph, and answers its failure. */
SIM_API hipError_t hipGraphExecChildGraphNodeSetParams(hipGraphExec_t hGraphExec,
						       hipGraphNode_t node, hipGraph_t childGraph)
{
	hipGraphExecUpdateResult res;
	hipGraphNode_t err = NULL;
	struct hipGraphNode *c;
	struct ihipGraph *clone;
	hipError_t e;

	SIM_INIT_API();
	if (!hGraphExec || !node || !childGraph || !graph_ok(childGraph))
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&graph_lock);
	if (!ps_has(&live_nodes, node) || childGraph == as_node(node)->graph) {
		pthread_mutex_unlock(&graph_lock);
		SIM_RETURN(ps_has(&live_nodes, node) ? hipErrorUnknown : hipErrorInvalidValue);
	}
	if (!ps_has(&live_execs, hGraphExec)) {
		pthread_mutex_unlock(&graph_lock);
		SIM_RETURN(hipErrorInvalidValue);
	}
	e = exec_update(hGraphExec, childGraph, &err, &res);
	c = e == hipSuccess ? pick(hGraphExec, node, hipGraphNodeTypeGraph) : NULL;
	if (e == hipSuccess && !c)
		e = hipErrorInvalidValue;
	if (e == hipSuccess) {
		clone = graph_clone(childGraph, true);
		if (clone) {
			sim_graph_free(c->u.child);
			c->u.child = clone;
		} else {
			e = hipErrorOutOfMemory;
		}
	}
	pthread_mutex_unlock(&graph_lock);
	SIM_RETURN(e);
}
