/* SPDX-License-Identifier: MIT */
/*
 * conf_graph.c - graphs and stream capture as ROCm 5.2.3 runs them (hipamd
 * hip_graph.cpp, hip_graph_internal.*), with real kernels (conf_kernels.hip):
 * nodes computing a result, captured work replayed, the dependency order of
 * a random DAG against a brute-force model, and the argument answers.
 *
 * A kernel node's function may be a module function (5.2.3's getFunc takes
 * the handle as a hipFunction_t when it is no registered host function,
 * hip_graph_internal.hpp:459). Capture records hipLaunchKernel only, whose
 * function is a registered host stub: the cases register the code object
 * as a hipcc program's constructor does (__hipRegisterFatBinary /
 * __hipRegisterFunction), with a stub of their own.
 */
#include "conf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define N 4096u

static hipModule_t mod;
static hipFunction_t f_inc, f_inc8, f_bounded64;
static void *image;
static void **fatbin;

/* The host stub a program's <<<>>> launch names (its address only). */
static void inc_stub(void)
{
}

struct fatbin_wrapper {
	uint32_t magic, version;
	const void *binary;
	void *unused;
};
static struct fatbin_wrapper wrapper;

void **__hipRegisterFatBinary(const void *data);
void __hipRegisterFunction(void **handle, const void *host_fn, char *dev_fn, const char *dev_name,
			   unsigned int thread_limit, void *tid, void *bid, void *block,
			   void *grid, int *wsize);
void __hipUnregisterFatBinary(void **handle);
void __hipRegisterVar(void **handle, void *var, char *host_var, char *dev_var, int ext, size_t size,
		      int constant, int global);

/* The host shadow of graph_var (conf_kernels.hip), as hipcc makes one. */
static int graph_var_shadow[4];

static void *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	long len;
	void *p;

	cr_assert(f, "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	cr_assert_gt(len, 0);
	rewind(f);
	p = malloc((size_t)len);
	cr_assert(p);
	cr_assert_eq(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return p;
}

static void setup(void)
{
	const char *path = getenv("CONF_KERNELS");

	cr_assert(path, "CONF_KERNELS names the code object (meson sets it)");
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipModuleLoad(&mod, path));
	ASSERT_OK(hipModuleGetFunction(&f_inc, mod, "inc"));
	ASSERT_OK(hipModuleGetFunction(&f_inc8, mod, "inc8"));
	ASSERT_OK(hipModuleGetFunction(&f_bounded64, mod, "bounded64"));
	image = read_file(path);
	wrapper = (struct fatbin_wrapper){ 0x48495046u, 1, image, NULL };
	fatbin = __hipRegisterFatBinary(&wrapper);
	cr_assert(fatbin);
	__hipRegisterFunction(fatbin, (const void *)inc_stub, (char *)"inc", "inc", (unsigned)-1,
			      NULL, NULL, NULL, NULL, NULL);
	__hipRegisterVar(fatbin, graph_var_shadow, (char *)"graph_var", (char *)"graph_var", 0,
			 sizeof(graph_var_shadow), 0, 0);
}

static void teardown(void)
{
	ASSERT_OK(hipDeviceSynchronize());
	__hipUnregisterFatBinary(fatbin);
	free(image);
	ASSERT_OK(hipModuleUnload(mod));
}

TestSuite(conf_graph, .init = setup, .fini = teardown);

static dim3 dim3_of(unsigned x)
{
	dim3 d = { x, 1, 1 };

	return d;
}

static hipKernelNodeParams inc_params(hipFunction_t f, void **args, unsigned n)
{
	return (hipKernelNodeParams){
		.func = (void *)f, .gridDim = dim3_of((n + 255) / 256), .blockDim = dim3_of(256),
		.kernelParams = args,
	};
}

static size_t count_not(const int *p, size_t n, int v)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += p[i] != v;
	return bad;
}

/* What the host node saw, per launch: the first and the last element the
 * copy brought back. */
struct seen {
	const int *host;
	int first[8], last[8];
	int calls;
};

static void see(void *arg)
{
	struct seen *s = arg;

	if (s->calls < 8) {
		s->first[s->calls] = s->host[0];
		s->last[s->calls] = s->host[N - 1];
	}
	s->calls++;
}

/* memset -> kernel -> memcpy -> host, launched three times: each launch
 * fills with 5, adds one, copies back, and the host node sees 6 at both
 * ends; an event record node at the end marks completion
 * (hipGraphMemsetNode, hipGraphKernelNode, hipGraphMemcpyNode1D,
 * hipGraphHostNode, hipGraphEventRecordNode). */
Test(conf_graph, memset_kernel_memcpy_host_computes)
{
	hipGraphNode_t set, k, cp, host, rec, nodes[8];
	hipMemsetParams mp = { 0 };
	hipHostNodeParams hp;
	struct seen seen = { 0 };
	hipGraphNodeType type;
	hipGraphExec_t x;
	hipStream_t s;
	hipEvent_t ev;
	hipGraph_t g;
	int *d, *h = calloc(N, sizeof(int));
	unsigned n = N;
	void *args[] = { &d, &n };
	hipKernelNodeParams kp;
	size_t num = 8;

	cr_assert(h);
	seen.host = h;
	ASSERT_OK(hipMalloc((void **)&d, N * sizeof(int)));
	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipEventCreate(&ev));
	ASSERT_OK(hipGraphCreate(&g, 0));
	mp.dst = d;
	mp.value = 5;
	mp.elementSize = 4;
	mp.width = N;
	mp.height = 1;
	ASSERT_OK(hipGraphAddMemsetNode(&set, g, NULL, 0, &mp));
	kp = inc_params(f_inc, args, N);
	ASSERT_OK(hipGraphAddKernelNode(&k, g, &set, 1, &kp));
	ASSERT_OK(hipGraphAddMemcpyNode1D(&cp, g, &k, 1, h, d, N * sizeof(int),
					  hipMemcpyDeviceToHost));
	hp.fn = see;
	hp.userData = &seen;
	ASSERT_OK(hipGraphAddHostNode(&host, g, &cp, 1, &hp));
	ASSERT_OK(hipGraphAddEventRecordNode(&rec, g, &host, 1, ev));
	ASSERT_OK(hipGraphGetNodes(g, nodes, &num));
	cr_expect_eq(num, 5);
	ASSERT_OK(hipGraphNodeGetType(k, &type));
	cr_expect_eq(type, hipGraphNodeTypeKernel);
	ASSERT_OK(hipGraphNodeGetType(cp, &type));
	cr_expect_eq(type, hipGraphNodeTypeMemcpy1D);
	/* the node copied its arguments: changing ours changes nothing */
	n = 1;
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	for (int i = 0; i < 3; i++)
		ASSERT_OK(hipGraphLaunch(x, s));
	ASSERT_OK(hipEventSynchronize(ev));
	ASSERT_OK(hipStreamSynchronize(s));
	cr_expect_eq(seen.calls, 3);
	for (int i = 0; i < 3; i++) {
		cr_expect_eq(seen.first[i], 6, "launch %d: %d", i, seen.first[i]);
		cr_expect_eq(seen.last[i], 6, "launch %d: %d", i, seen.last[i]);
	}
	cr_expect_eq(count_not(h, N, 6), 0);
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipEventDestroy(ev));
	ASSERT_OK(hipStreamDestroy(s));
	ASSERT_OK(hipFree(d));
	free(h);
}

/* A node's parameters read back as they were set, by its own type only:
 * memset, host and 3D copy nodes, and their Set calls replace them. */
Test(conf_graph, node_params_read_back_by_type)
{
	hipMemsetParams mp = { 0 }, mp2;
	hipHostNodeParams hp = { 0 }, hp2;
	hipMemcpy3DParms m3 = { 0 }, m32;
	hipGraphNode_t set, host, cp;
	struct seen seen = { 0 };
	hipGraph_t g;
	int *d, *h = calloc(N, sizeof(int));

	cr_assert(h);
	ASSERT_OK(hipMalloc((void **)&d, N * sizeof(int)));
	ASSERT_OK(hipGraphCreate(&g, 0));
	mp.dst = d;
	mp.value = 7;
	mp.elementSize = 4;
	mp.width = N;
	mp.height = 1;
	ASSERT_OK(hipGraphAddMemsetNode(&set, g, NULL, 0, &mp));
	hp.fn = see;
	hp.userData = &seen;
	ASSERT_OK(hipGraphAddHostNode(&host, g, &set, 1, &hp));
	m3.srcPtr = make_hipPitchedPtr(d, N * sizeof(int), N, 1);
	m3.dstPtr = make_hipPitchedPtr(h, N * sizeof(int), N, 1);
	m3.extent = make_hipExtent(N * sizeof(int), 1, 1);
	m3.kind = hipMemcpyDeviceToHost;
	ASSERT_OK(hipGraphAddMemcpyNode(&cp, g, &host, 1, &m3));

	memset(&mp2, 0xa5, sizeof(mp2));
	ASSERT_OK(hipGraphMemsetNodeGetParams(set, &mp2));
	cr_expect(mp2.dst == d && mp2.value == 7 && mp2.elementSize == 4 && mp2.width == N &&
		  mp2.height == 1);
	memset(&hp2, 0, sizeof(hp2));
	ASSERT_OK(hipGraphHostNodeGetParams(host, &hp2));
	cr_expect(hp2.fn == see && hp2.userData == &seen);
	memset(&m32, 0, sizeof(m32));
	ASSERT_OK(hipGraphMemcpyNodeGetParams(cp, &m32));
	cr_expect(m32.srcPtr.ptr == d && m32.dstPtr.ptr == h && m32.extent.width == N * sizeof(int) &&
		  m32.kind == hipMemcpyDeviceToHost);

	/* another node's type answers invalid value and leaves the output */
	memset(&mp2, 0, sizeof(mp2));
	cr_expect_eq(hipGraphMemsetNodeGetParams(host, &mp2), hipErrorInvalidValue);
	cr_expect(mp2.dst == NULL && mp2.value == 0);
	cr_expect_eq(hipGraphHostNodeGetParams(cp, &hp2), hipErrorInvalidValue);
	cr_expect_eq(hipGraphMemcpyNodeGetParams(set, &m32), hipErrorInvalidValue);

	mp.value = 9;
	mp.width = N / 2;
	ASSERT_OK(hipGraphMemsetNodeSetParams(set, &mp));
	ASSERT_OK(hipGraphMemsetNodeGetParams(set, &mp2));
	cr_expect(mp2.value == 9 && mp2.width == N / 2);
	hp.userData = h;
	ASSERT_OK(hipGraphHostNodeSetParams(host, &hp));
	ASSERT_OK(hipGraphHostNodeGetParams(host, &hp2));
	cr_expect(hp2.userData == h);
	cr_expect_eq(hipGraphHostNodeSetParams(set, &hp), hipErrorInvalidValue);
	ASSERT_OK(hipGraphMemsetNodeGetParams(set, &mp2));
	cr_expect(mp2.value == 9, "a refused Set changed the node");

	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipFree(d));
	free(h);
}

/* Unit_hipHostRegister_Graphs' graph: a copy to registered host memory
 * through hipHostGetDevicePointer's pointer, a kernel adding one there, a
 * copy back, ordered with hipGraphAddDependencies; each launch adds one. */
Test(conf_graph, kernel_node_on_registered_memory)
{
	int *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int)), *dp;
	hipGraphNode_t h2d, k, d2h;
	hipKernelNodeParams kp;
	hipGraphExec_t x;
	hipStream_t s;
	hipGraph_t g;
	unsigned n = N;
	void *args[] = { &dp, &n };
	size_t bad = 0;

	cr_assert(a && b);
	for (unsigned i = 0; i < N; i++)
		b[i] = (int)i;
	ASSERT_OK(hipHostRegister(a, N * sizeof(int), 0));
	ASSERT_OK(hipHostGetDevicePointer((void **)&dp, a, 0));
	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipGraphCreate(&g, 0));
	kp = inc_params(f_inc, args, N);
	ASSERT_OK(hipGraphAddKernelNode(&k, g, NULL, 0, &kp));
	ASSERT_OK(hipGraphAddMemcpyNode1D(&h2d, g, NULL, 0, dp, b, N * sizeof(int),
					  hipMemcpyHostToDevice));
	ASSERT_OK(hipGraphAddMemcpyNode1D(&d2h, g, NULL, 0, b, dp, N * sizeof(int),
					  hipMemcpyDeviceToHost));
	ASSERT_OK(hipGraphAddDependencies(g, &h2d, &k, 1));
	ASSERT_OK(hipGraphAddDependencies(g, &k, &d2h, 1));
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	ASSERT_OK(hipGraphLaunch(x, s));
	ASSERT_OK(hipStreamSynchronize(s));
	for (unsigned i = 0; i < N; i++)
		bad += b[i] != (int)i + 1 || a[i] != (int)i + 1;
	cr_expect_eq(bad, 0, "%zu elements not i + 1 (b[1] = %d, a[1] = %d)", bad, b[1], a[1]);
	ASSERT_OK(hipGraphLaunch(x, s));
	ASSERT_OK(hipStreamSynchronize(s));
	bad = 0;
	for (unsigned i = 0; i < N; i++)
		bad += b[i] != (int)i + 2;
	cr_expect_eq(bad, 0, "%zu elements not i + 2", bad);
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipStreamDestroy(s));
	ASSERT_OK(hipHostUnregister(a));
	free(a);
	free(b);
}

/* hipGraphExecKernelNodeSetParams changes the executable graph only
 * (hip_graph.cpp:1214, GetClonedNode): the graph's node keeps its
 * parameters; hipGraphKernelNodeGetParams answers the node's copy. */
Test(conf_graph, exec_kernel_params_change_the_exec_only)
{
	int *a, *b, h[2];
	unsigned n = N;
	void *args_a[] = { &a, &n }, *args_b[] = { &b, &n };
	hipKernelNodeParams kp, got;
	hipGraphNode_t k;
	hipGraphExec_t x;
	hipGraph_t g;

	ASSERT_OK(hipMalloc((void **)&a, N * sizeof(int)));
	ASSERT_OK(hipMalloc((void **)&b, N * sizeof(int)));
	ASSERT_OK(hipMemset(a, 0, N * sizeof(int)));
	ASSERT_OK(hipMemset(b, 0, N * sizeof(int)));
	ASSERT_OK(hipGraphCreate(&g, 0));
	kp = inc_params(f_inc, args_a, N);
	ASSERT_OK(hipGraphAddKernelNode(&k, g, NULL, 0, &kp));
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	kp.kernelParams = args_b;
	ASSERT_OK(hipGraphExecKernelNodeSetParams(x, k, &kp));
	ASSERT_OK(hipGraphLaunch(x, NULL));
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipMemcpy(&h[0], a, sizeof(int), hipMemcpyDeviceToHost));
	ASSERT_OK(hipMemcpy(&h[1], b, sizeof(int), hipMemcpyDeviceToHost));
	cr_expect_eq(h[0], 0);
	cr_expect_eq(h[1], 1);
	ASSERT_OK(hipGraphKernelNodeGetParams(k, &got));
	cr_expect_eq(*(int **)got.kernelParams[0], a, "the graph's node still names a");
	cr_expect_eq(got.func, (void *)f_inc);
	ASSERT_OK(hipGraphExecDestroy(x));
	EXPECT_HIP(hipGraphExecKernelNodeSetParams(x, k, &kp), hipErrorInvalidValue);
	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipFree(a));
	ASSERT_OK(hipFree(b));
}

/* Captured work replays: a fill and three <<<>>> launches captured on a
 * stream run nothing while captured, make a chain of four nodes, and each
 * of N replays leaves 3 in every element; the arguments were taken when
 * captured. hipStreamIsCapturing and hipStreamGetCaptureInfo(_v2) answer
 * the capture while it is on. */
Test(conf_graph, captured_work_replays)
{
	hipStreamCaptureStatus st;
	unsigned long long id = 0, id2 = 0;
	const hipGraphNode_t *deps = NULL;
	hipGraph_t g, cg = NULL;
	hipGraphExec_t x;
	hipStream_t s;
	size_t nd = 0, num = 0;
	int *d, *h = malloc(N * sizeof(int));
	unsigned n = N;
	void *args[] = { &d, &n };

	cr_assert(h);
	ASSERT_OK(hipMalloc((void **)&d, N * sizeof(int)));
	ASSERT_OK(hipMemset(d, 0x7f, N * sizeof(int)));
	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
	ASSERT_OK(hipStreamIsCapturing(s, &st));
	cr_expect_eq(st, hipStreamCaptureStatusActive);
	ASSERT_OK(hipMemsetAsync(d, 0, N * sizeof(int), s));
	for (int i = 0; i < 3; i++)
		ASSERT_OK(hipLaunchKernel((const void *)inc_stub, dim3_of(N / 256), dim3_of(256),
					  args, 0, s));
	ASSERT_OK(hipStreamGetCaptureInfo(s, &st, &id));
	cr_expect_eq(st, hipStreamCaptureStatusActive);
	cr_expect_neq(id, 0);
	ASSERT_OK(hipStreamGetCaptureInfo_v2(s, &st, &id2, &cg, &deps, &nd));
	cr_expect_eq(id2, id);
	cr_expect_eq(nd, 1, "the last launch is the one dependency");
	cr_expect(cg != NULL);
	/* the launches copied their arguments when captured */
	n = 0;
	ASSERT_OK(hipStreamEndCapture(s, &g));
	cr_expect_eq(g, cg);
	ASSERT_OK(hipStreamIsCapturing(s, &st));
	cr_expect_eq(st, hipStreamCaptureStatusNone);
	ASSERT_OK(hipMemcpy(h, d, N * sizeof(int), hipMemcpyDeviceToHost));
	cr_expect_eq(count_not(h, N, 0x7f7f7f7f), 0, "nothing ran while captured");
	ASSERT_OK(hipGraphGetNodes(g, NULL, &num));
	cr_expect_eq(num, 4);
	ASSERT_OK(hipGraphGetEdges(g, NULL, NULL, &num));
	cr_expect_eq(num, 3);
	ASSERT_OK(hipGraphGetRootNodes(g, NULL, &num));
	cr_expect_eq(num, 1);
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	for (int r = 0; r < 5; r++) {
		ASSERT_OK(hipMemset(d, 0x7f, N * sizeof(int)));
		ASSERT_OK(hipGraphLaunch(x, s));
		ASSERT_OK(hipStreamSynchronize(s));
		ASSERT_OK(hipMemcpy(h, d, N * sizeof(int), hipMemcpyDeviceToHost));
		cr_expect_eq(count_not(h, N, 3), 0, "replay %d: h[0] = %d", r, h[0]);
	}
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipStreamDestroy(s));
	ASSERT_OK(hipFree(d));
	free(h);
}

/* A capture that forks onto a second stream through an event and joins
 * back (hip_graph.cpp:664, 684): the two launches are independent nodes,
 * the copy after the join depends on both. Without a node after the join
 * the graph has two leaves, which 5.2.3's hipStreamEndCapture refuses
 * (hipErrorStreamCaptureUnjoined, hip_graph.cpp:831). */
Test(conf_graph, capture_fork_and_join)
{
	hipStream_t s1, s2;
	hipEvent_t fork, join;
	hipGraph_t g;
	hipGraphExec_t x;
	hipGraphNode_t roots[4], deps[4];
	hipGraphNodeType type;
	size_t num;
	int *a, *b, h[2] = { 0, 0 };
	unsigned n = N;
	void *args_a[] = { &a, &n }, *args_b[] = { &b, &n };

	ASSERT_OK(hipMalloc((void **)&a, N * sizeof(int)));
	ASSERT_OK(hipMalloc((void **)&b, N * sizeof(int)));
	ASSERT_OK(hipMemset(a, 0, N * sizeof(int)));
	ASSERT_OK(hipMemset(b, 0, N * sizeof(int)));
	ASSERT_OK(hipStreamCreate(&s1));
	ASSERT_OK(hipStreamCreate(&s2));
	ASSERT_OK(hipEventCreate(&fork));
	ASSERT_OK(hipEventCreate(&join));

	ASSERT_OK(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
	ASSERT_OK(hipEventRecord(fork, s1));
	ASSERT_OK(hipStreamWaitEvent(s2, fork, 0));
	ASSERT_OK(hipLaunchKernel((const void *)inc_stub, dim3_of(N / 256), dim3_of(256), args_b, 0,
				  s2));
	ASSERT_OK(hipLaunchKernel((const void *)inc_stub, dim3_of(N / 256), dim3_of(256), args_a, 0,
				  s1));
	ASSERT_OK(hipEventRecord(join, s2));
	ASSERT_OK(hipStreamWaitEvent(s1, join, 0));
	EXPECT_HIP(hipStreamEndCapture(s2, &g), hipErrorStreamCaptureUnmatched);
	ASSERT_OK(hipMemcpyAsync(h, a, sizeof(int), hipMemcpyDeviceToHost, s1));
	ASSERT_OK(hipStreamEndCapture(s1, &g));
	num = 4;
	ASSERT_OK(hipGraphGetRootNodes(g, roots, &num));
	cr_expect_eq(num, 2, "both launches are roots");
	for (size_t i = 0; i < num && i < 2; i++) {
		ASSERT_OK(hipGraphNodeGetType(roots[i], &type));
		cr_expect_eq(type, hipGraphNodeTypeKernel);
		num = 4;
	}
	num = 4;
	ASSERT_OK(hipGraphNodeGetDependentNodes(roots[0], deps, &num));
	cr_expect_eq(num, 1);
	num = 4;
	ASSERT_OK(hipGraphNodeGetDependencies(deps[0], roots, &num));
	cr_expect_eq(num, 2, "the copy waits for both branches");
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	ASSERT_OK(hipGraphLaunch(x, s1));
	ASSERT_OK(hipStreamSynchronize(s1));
	ASSERT_OK(hipMemcpy(&h[1], b, sizeof(int), hipMemcpyDeviceToHost));
	cr_expect_eq(h[0], 1);
	cr_expect_eq(h[1], 1);
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g));

	/* no node after the join: two leaves */
	ASSERT_OK(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
	ASSERT_OK(hipEventRecord(fork, s1));
	ASSERT_OK(hipStreamWaitEvent(s2, fork, 0));
	ASSERT_OK(hipMemsetAsync(b, 0, 4, s2));
	ASSERT_OK(hipMemsetAsync(a, 0, 4, s1));
	EXPECT_HIP(hipStreamEndCapture(s1, &g), hipErrorStreamCaptureUnjoined);

	ASSERT_OK(hipEventDestroy(fork));
	ASSERT_OK(hipEventDestroy(join));
	ASSERT_OK(hipStreamDestroy(s1));
	ASSERT_OK(hipStreamDestroy(s2));
	ASSERT_OK(hipFree(a));
	ASSERT_OK(hipFree(b));
}

/* 5.2.3 also captures hipMemcpy2DAsync (a 3D copy node of depth 1,
 * hip_graph.cpp:223) and the symbol copies (hip_graph.cpp:553, 579); a
 * graph may name a symbol with hipGraphAddMemcpyNodeToSymbol as well. */
Test(conf_graph, capture_2d_and_symbol_copies)
{
	int src[4] = { 7, 8, 9, 10 }, back[4] = { 0 }, rows[8] = { 0 }, *d;
	hipGraphNode_t nodes[4], to;
	hipGraphNodeType type[4];
	hipStream_t s;
	hipGraphExec_t x;
	hipGraph_t g, g2;
	size_t num = 4;

	ASSERT_OK(hipMalloc((void **)&d, 8 * sizeof(int)));
	ASSERT_OK(hipMemset(d, 0, 8 * sizeof(int)));
	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
	ASSERT_OK(hipMemcpyToSymbolAsync(graph_var_shadow, src, sizeof(src), 0,
					 hipMemcpyHostToDevice, s));
	ASSERT_OK(hipMemcpyFromSymbolAsync(back, graph_var_shadow, sizeof(back), 0,
					   hipMemcpyDeviceToHost, s));
	/* two rows of two ints, pitch four ints on the device */
	ASSERT_OK(hipMemcpy2DAsync(d, 4 * sizeof(int), src, 2 * sizeof(int), 2 * sizeof(int), 2,
				   hipMemcpyHostToDevice, s));
	EXPECT_HIP(hipMemcpyToSymbolAsync(&num, src, 4, 0, hipMemcpyHostToDevice, s),
		   hipErrorInvalidSymbol);
	ASSERT_OK(hipStreamEndCapture(s, &g));
	cr_expect_eq(back[0], 0, "nothing ran while captured");
	ASSERT_OK(hipGraphGetNodes(g, nodes, &num));
	cr_assert_eq(num, 3);
	for (size_t i = 0; i < 3; i++)
		ASSERT_OK(hipGraphNodeGetType(nodes[i], &type[i]));
	cr_expect_eq(type[0], hipGraphNodeTypeMemcpyToSymbol);
	cr_expect_eq(type[1], hipGraphNodeTypeMemcpyFromSymbol);
	cr_expect_eq(type[2], hipGraphNodeTypeMemcpy);
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	ASSERT_OK(hipGraphLaunch(x, s));
	ASSERT_OK(hipStreamSynchronize(s));
	cr_expect(!memcmp(back, src, sizeof(src)), "back %d %d %d %d", back[0], back[1], back[2],
		  back[3]);
	ASSERT_OK(hipMemcpy(rows, d, sizeof(rows), hipMemcpyDeviceToHost));
	cr_expect(rows[0] == 7 && rows[1] == 8 && rows[2] == 0 && rows[4] == 9 && rows[5] == 10,
		  "rows %d %d %d %d %d", rows[0], rows[1], rows[2], rows[4], rows[5]);
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g));

	/* added by hand; FromSymbol wants a dependency array even for none */
	ASSERT_OK(hipGraphCreate(&g2, 0));
	src[0] = 70;
	ASSERT_OK(hipGraphAddMemcpyNodeToSymbol(&to, g2, NULL, 0, graph_var_shadow, src, sizeof(int),
						0, hipMemcpyHostToDevice));
	EXPECT_HIP(hipGraphAddMemcpyNodeFromSymbol(&nodes[0], g2, NULL, 0, back, graph_var_shadow,
						   sizeof(int), 0, hipMemcpyDeviceToHost),
		   hipErrorInvalidValue);
	ASSERT_OK(hipGraphAddMemcpyNodeFromSymbol(&nodes[0], g2, &to, 1, back, graph_var_shadow,
						  sizeof(int), 0, hipMemcpyDeviceToHost));
	EXPECT_HIP(hipGraphAddMemcpyNodeToSymbol(&nodes[1], g2, NULL, 0, graph_var_shadow, src,
						 sizeof(int), 16, hipMemcpyHostToDevice),
		   hipErrorInvalidValue);
	/* hipGraphMemcpyNodeFromSymbol::SetParams (hip_graph_internal.hpp:867):
	 * a symbol as destination, then 5.2.3's direction rule (memory that is
	 * not HIP's takes hipMemcpyHostToDevice, as written there) */
	EXPECT_HIP(hipGraphMemcpyNodeSetParamsFromSymbol(nodes[0], graph_var_shadow,
							 graph_var_shadow, 4, 0,
							 hipMemcpyDeviceToDevice),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipGraphMemcpyNodeSetParamsFromSymbol(nodes[0], back, graph_var_shadow, 4, 0,
							 hipMemcpyDeviceToHost),
		   hipErrorInvalidMemcpyDirection);
	EXPECT_HIP(hipGraphMemcpyNodeSetParamsFromSymbol(nodes[0], d, graph_var_shadow, 4, 0,
							 hipMemcpyDeviceToHost),
		   hipErrorInvalidMemcpyDirection);
	ASSERT_OK(hipGraphMemcpyNodeSetParamsFromSymbol(nodes[0], back, graph_var_shadow,
							sizeof(int), 0, hipMemcpyHostToDevice));
	/* hipGraphMemcpyNodeToSymbol::SetParams (hip_graph_internal.hpp:957):
	 * the kind's sides against the memory's */
	EXPECT_HIP(hipGraphMemcpyNodeSetParamsToSymbol(to, graph_var_shadow, graph_var_shadow, 4, 0,
						       hipMemcpyDeviceToDevice),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipGraphMemcpyNodeSetParamsToSymbol(to, graph_var_shadow, src, 4, 0,
						       hipMemcpyDeviceToDevice),
		   hipErrorInvalidValue);
	ASSERT_OK(hipGraphMemcpyNodeSetParamsToSymbol(to, graph_var_shadow, d, 4, 0,
						      hipMemcpyDeviceToDevice));
	ASSERT_OK(hipGraphMemcpyNodeSetParamsToSymbol(to, graph_var_shadow, src, sizeof(int), 0,
						      hipMemcpyHostToDevice));
	(void)hipGetLastError();
	ASSERT_OK(hipGraphMemcpyNodeSetParamsFromSymbol(nodes[0], back, graph_var_shadow,
							sizeof(int), 0, hipMemcpyHostToDevice));
	EXPECT_HIP(hipGetLastError(), hipSuccess);
	ASSERT_OK(hipGraphInstantiate(&x, g2, NULL, NULL, 0));
	ASSERT_OK(hipGraphLaunch(x, s));
	ASSERT_OK(hipStreamSynchronize(s));
	cr_expect_eq(back[0], 70);
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g2));
	ASSERT_OK(hipStreamDestroy(s));
	ASSERT_OK(hipFree(d));
}

/* ---- a random DAG of host nodes against a brute-force order model ---- */

#define DAG_N 28
#define DAG_SEED 0x6a09e667u

static uint32_t rng_state;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

struct dag_log {
	int order[4 * DAG_N];
	int len;
};

struct dag_slot {
	struct dag_log *log;
	int id;
};

static void dag_visit(void *arg)
{
	struct dag_slot *s = arg;

	if (s->log->len < 4 * DAG_N)
		s->log->order[s->log->len] = s->id;
	s->log->len++;
}

/* Ids 0..DAG_N-1 in a random rank; edges only from lower to higher rank,
 * some given when a node is added (to nodes added before it), the rest
 * with hipGraphAddDependencies; nodes are added in a random order unrelated
 * to the rank. Two launches must each run every node once, and no node may
 * run before one that reaches it in the brute-force transitive closure. */
Test(conf_graph, random_dag_order_respected)
{
	static bool edge[DAG_N][DAG_N], reach[DAG_N][DAG_N];
	static struct dag_slot slots[DAG_N];
	struct dag_log log = { .len = 0 };
	int rank[DAG_N], add_order[DAG_N], pos[DAG_N];
	hipGraphNode_t node[DAG_N] = { 0 };
	bool added[DAG_N] = { false };
	size_t nedges = 0, num, roots_model = 0;
	hipGraphExec_t x;
	hipStream_t s;
	hipGraph_t g;

	rng_state = DAG_SEED;
	cr_log_info("random_dag_order_respected: seed 0x%08x", DAG_SEED);
	printf("# random_dag_order_respected: seed 0x%08x\n", DAG_SEED);
	for (int i = 0; i < DAG_N; i++)
		rank[i] = add_order[i] = i;
	for (int i = DAG_N - 1; i > 0; i--) {
		int j = (int)(rng() % (uint32_t)(i + 1)), t = rank[i];

		rank[i] = rank[j];
		rank[j] = t;
		j = (int)(rng() % (uint32_t)(i + 1));
		t = add_order[i];
		add_order[i] = add_order[j];
		add_order[j] = t;
	}
	memset(edge, 0, sizeof(edge));
	for (int u = 0; u < DAG_N; u++)
		for (int v = 0; v < DAG_N; v++)
			if (rank[u] < rank[v] && rng() % 100 < 12) {
				edge[u][v] = true;
				nedges++;
			}
	ASSERT_OK(hipGraphCreate(&g, 0));
	for (int k = 0; k < DAG_N; k++) {
		int v = add_order[k];
		hipGraphNode_t deps[DAG_N];
		hipHostNodeParams hp = { .fn = dag_visit, .userData = &slots[v] };
		size_t nd = 0;

		slots[v] = (struct dag_slot){ &log, v };
		for (int u = 0; u < DAG_N; u++)
			if (edge[u][v] && added[u] && rng() % 2)
				deps[nd++] = node[u];
		ASSERT_OK(hipGraphAddHostNode(&node[v], g, nd ? deps : NULL, nd, &hp));
		added[v] = true;
	}
	for (int u = 0; u < DAG_N; u++) {
		for (int v = 0; v < DAG_N; v++) {
			size_t nd = 0;
			hipGraphNode_t dv[DAG_N];
			bool has = false;

			if (!edge[u][v])
				continue;
			num = DAG_N;
			ASSERT_OK(hipGraphNodeGetDependencies(node[v], dv, &num));
			nd = num;
			for (size_t i = 0; i < nd; i++)
				has |= dv[i] == node[u];
			if (!has)
				ASSERT_OK(hipGraphAddDependencies(g, &node[u], &node[v], 1));
			else	/* the same edge twice */
				EXPECT_HIP(hipGraphAddDependencies(g, &node[u], &node[v], 1),
					   hipErrorInvalidValue);
		}
	}
	ASSERT_OK(hipGraphGetEdges(g, NULL, NULL, &num));
	cr_expect_eq(num, nedges);
	for (int v = 0; v < DAG_N; v++) {
		bool root = true;

		for (int u = 0; u < DAG_N; u++)
			root &= !edge[u][v];
		roots_model += root;
	}
	ASSERT_OK(hipGraphGetRootNodes(g, NULL, &num));
	cr_expect_eq(num, roots_model);
	/* brute force: reach = transitive closure of edge */
	memcpy(reach, edge, sizeof(reach));
	for (int k = 0; k < DAG_N; k++)
		for (int i = 0; i < DAG_N; i++)
			for (int j = 0; j < DAG_N; j++)
				reach[i][j] |= reach[i][k] && reach[k][j];
	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	ASSERT_OK(hipGraphLaunch(x, s));
	ASSERT_OK(hipGraphLaunch(x, s));
	ASSERT_OK(hipStreamSynchronize(s));
	cr_assert_eq(log.len, 2 * DAG_N);
	for (int run = 0; run < 2; run++) {
		const int *o = log.order + run * DAG_N;

		for (int i = 0; i < DAG_N; i++)
			pos[i] = -1;
		for (int i = 0; i < DAG_N; i++) {
			cr_assert(o[i] >= 0 && o[i] < DAG_N);
			cr_expect_eq(pos[o[i]], -1, "node %d ran twice", o[i]);
			pos[o[i]] = i;
		}
		for (int i = 0; i < DAG_N; i++)
			for (int j = i + 1; j < DAG_N; j++)
				cr_expect(!reach[o[j]][o[i]],
					  "run %d: node %d ran before %d, which reaches it", run,
					  o[i], o[j]);
	}
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipStreamDestroy(s));
}

/* A node on a cycle is never reached from a root (5.2.3's LevelOrder):
 * it and what follows it are not run; the rest is. */
Test(conf_graph, cycle_nodes_are_not_run)
{
	static struct dag_slot slots[3];
	struct dag_log log = { .len = 0 };
	hipGraphNode_t a, b, c;
	hipHostNodeParams hp = { .fn = dag_visit };
	hipGraphExec_t x;
	hipGraph_t g;

	for (int i = 0; i < 3; i++)
		slots[i] = (struct dag_slot){ &log, i };
	ASSERT_OK(hipGraphCreate(&g, 0));
	hp.userData = &slots[0];
	ASSERT_OK(hipGraphAddHostNode(&a, g, NULL, 0, &hp));
	hp.userData = &slots[1];
	ASSERT_OK(hipGraphAddHostNode(&b, g, NULL, 0, &hp));
	hp.userData = &slots[2];
	ASSERT_OK(hipGraphAddHostNode(&c, g, &b, 1, &hp));
	ASSERT_OK(hipGraphAddDependencies(g, &c, &b, 1));
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	ASSERT_OK(hipGraphLaunch(x, NULL));
	ASSERT_OK(hipStreamSynchronize(NULL));
	cr_expect_eq(log.len, 1);
	cr_expect_eq(log.order[0], 0);
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g));
}

/* A child graph node runs its graph's nodes where it stands; an empty node
 * orders without work; hipGraphClone and hipGraphNodeFindInClone. */
Test(conf_graph, child_graph_and_clone)
{
	hipGraph_t child, g, clone, got;
	hipGraphNode_t set, cnode, empty, found;
	hipMemsetParams mp = { 0 };
	hipGraphExec_t x;
	int *d, h = 0;
	unsigned n = 1;
	void *args[] = { &d, &n };
	hipKernelNodeParams kp;
	hipGraphNode_t k;
	size_t num = 0;

	ASSERT_OK(hipMalloc((void **)&d, sizeof(int)));
	ASSERT_OK(hipGraphCreate(&child, 0));
	mp.dst = d;
	mp.value = 41;
	mp.elementSize = 4;
	mp.width = 1;
	mp.height = 1;
	ASSERT_OK(hipGraphAddMemsetNode(&set, child, NULL, 0, &mp));
	ASSERT_OK(hipGraphCreate(&g, 0));
	ASSERT_OK(hipGraphAddChildGraphNode(&cnode, g, NULL, 0, child));
	ASSERT_OK(hipGraphChildGraphNodeGetGraph(cnode, &got));
	ASSERT_OK(hipGraphGetNodes(got, NULL, &num));
	cr_expect_eq(num, 1);
	ASSERT_OK(hipGraphAddEmptyNode(&empty, g, &cnode, 1));
	kp = inc_params(f_inc, args, 1);
	ASSERT_OK(hipGraphAddKernelNode(&k, g, &empty, 1, &kp));
	ASSERT_OK(hipGraphClone(&clone, g));
	ASSERT_OK(hipGraphNodeFindInClone(&found, k, clone));
	cr_expect_neq(found, k);
	EXPECT_HIP(hipGraphNodeFindInClone(&found, k, g), hipErrorInvalidValue);
	ASSERT_OK(hipGraphInstantiate(&x, clone, NULL, NULL, 0));
	ASSERT_OK(hipGraphDestroy(child));
	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipGraphDestroy(clone));
	ASSERT_OK(hipGraphLaunch(x, NULL));
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipMemcpy(&h, d, sizeof(int), hipMemcpyDeviceToHost));
	cr_expect_eq(h, 42, "the child's fill, then the kernel: %d", h);
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipFree(d));
}

/* The argument answers of 5.2.3's graph calls, each from hip_graph.cpp. */
Test(conf_graph, graph_argument_answers)
{
	hipGraph_t g, g2;
	hipGraphNode_t e1, e2, other, node;
	hipGraphExec_t x;
	hipKernelNodeParams kp;
	hipMemsetParams mp = { 0 };
	hipHostNodeParams hp = { 0 };
	hipEvent_t ev;
	int *d;
	unsigned n = 1;
	void *args[] = { &d, &n };

	ASSERT_OK(hipMalloc((void **)&d, 64));
	ASSERT_OK(hipGraphCreate(&g, 0));
	ASSERT_OK(hipGraphCreate(&g2, 0));
	ASSERT_OK(hipGraphAddEmptyNode(&e1, g, NULL, 0));
	ASSERT_OK(hipGraphAddEmptyNode(&e2, g, NULL, 0));
	ASSERT_OK(hipGraphAddEmptyNode(&other, g2, NULL, 0));
	/* the NULLs and a count without an array */
	EXPECT_HIP(hipGraphAddEmptyNode(NULL, g, NULL, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphAddEmptyNode(&node, NULL, NULL, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphAddEmptyNode(&node, g, NULL, 1), hipErrorInvalidValue);
	/* kernel nodes: hip_graph.cpp:67 */
	kp = inc_params(f_inc, args, 1);
	EXPECT_HIP(hipGraphAddKernelNode(&node, g, NULL, 0, NULL), hipErrorInvalidValue);
	kp.func = NULL;
	EXPECT_HIP(hipGraphAddKernelNode(&node, g, NULL, 0, &kp), hipErrorInvalidValue);
	kp.func = (void *)&kp;
	EXPECT_HIP(hipGraphAddKernelNode(&node, g, NULL, 0, &kp), hipErrorInvalidDeviceFunction);
	kp = inc_params(f_inc, NULL, 1);
	EXPECT_HIP(hipGraphAddKernelNode(&node, g, NULL, 0, &kp), hipErrorInvalidValue);
	kp = inc_params(f_inc, args, 1);
	kp.blockDim = dim3_of(2048);
	EXPECT_HIP(hipGraphAddKernelNode(&node, g, NULL, 0, &kp), hipErrorInvalidConfiguration);
	/* the kernel's __launch_bounds__(64): ihipValidateKernelParams makes
	 * the launch's checks (hip_graph.cpp:56, hip_module.cpp:244-251) */
	kp = inc_params(f_bounded64, args, 1);
	kp.blockDim = dim3_of(65);
	EXPECT_HIP(hipGraphAddKernelNode(&node, g, NULL, 0, &kp), hipErrorLaunchFailure);
	/* memset nodes: the element size and the height (hip_memory.cpp:2386) */
	mp.dst = d;
	mp.width = 4;
	mp.height = 1;
	mp.elementSize = 3;
	EXPECT_HIP(hipGraphAddMemsetNode(&node, g, NULL, 0, &mp), hipErrorInvalidValue);
	mp.elementSize = 4;
	mp.height = 0;
	EXPECT_HIP(hipGraphAddMemsetNode(&node, g, NULL, 0, &mp), hipErrorInvalidValue);
	mp.height = 1;
	mp.width = 1000;
	EXPECT_HIP(hipGraphAddMemsetNode(&node, g, NULL, 0, &mp), hipErrorInvalidValue);
	/* host and event nodes */
	EXPECT_HIP(hipGraphAddHostNode(&node, g, NULL, 0, &hp), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphAddEventRecordNode(&node, g, NULL, 0, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphAddEventWaitNode(&node, g, NULL, 0, NULL), hipErrorInvalidValue);
	ASSERT_OK(hipEventCreate(&ev));
	ASSERT_OK(hipGraphAddEventRecordNode(&node, g, NULL, 0, ev));
	{
		hipEvent_t out = NULL;

		ASSERT_OK(hipGraphEventRecordNodeGetEvent(node, &out));
		cr_expect_eq(out, ev);
		EXPECT_HIP(hipGraphEventWaitNodeGetEvent(node, &out), hipErrorInvalidValue);
		EXPECT_HIP(hipGraphEventRecordNodeGetEvent(e1, &out), hipErrorInvalidValue);
	}
	/* 1D copies: ihipMemcpy_validate, then hipGraphMemcpyNodeSetParams1D's
	 * own count and src == dst (hip_graph.cpp:903) */
	EXPECT_HIP(hipGraphAddMemcpyNode1D(&node, g, NULL, 0, NULL, d, 4, hipMemcpyDefault),
		   hipErrorInvalidValue);
	ASSERT_OK(hipGraphAddMemcpyNode1D(&node, g, NULL, 0, d + 4, d, 4, hipMemcpyDefault));
	EXPECT_HIP(hipGraphMemcpyNodeSetParams1D(node, d + 4, d, 0, hipMemcpyDefault),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipGraphMemcpyNodeSetParams1D(node, d, d, 4, hipMemcpyDefault),
		   hipErrorInvalidValue);
	/* hipGraphMemcpyNode1D::ValidateParams (hip_graph_internal.cpp:56):
	 * host to HIP memory must say hipMemcpyHostToDevice, and back */
	{
		int host[4];

		EXPECT_HIP(hipGraphMemcpyNodeSetParams1D(node, d, host, 4, hipMemcpyDeviceToHost),
			   hipErrorInvalidValue);
		EXPECT_HIP(hipGraphMemcpyNodeSetParams1D(node, host, d, 4, hipMemcpyHostToDevice),
			   hipErrorInvalidValue);
		ASSERT_OK(hipGraphMemcpyNodeSetParams1D(node, host, d, 4, hipMemcpyDeviceToHost));
		ASSERT_OK(hipGraphMemcpyNodeSetParams1D(node, d + 4, d, 4, hipMemcpyDefault));
	}
	/* dependencies: hip_graph.cpp:1181 */
	ASSERT_OK(hipGraphAddDependencies(g, NULL, NULL, 0));
	EXPECT_HIP(hipGraphAddDependencies(g, &e1, &e1, 1), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphAddDependencies(g, &e1, &other, 1), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphAddDependencies(g, &e1, NULL, 1), hipErrorInvalidValue);
	ASSERT_OK(hipGraphAddDependencies(g, &e1, &e2, 1));
	EXPECT_HIP(hipGraphAddDependencies(g, &e1, &e2, 1), hipErrorInvalidValue);
	ASSERT_OK(hipGraphRemoveDependencies(g, &e1, &e2, 1));
	EXPECT_HIP(hipGraphRemoveDependencies(g, &e1, &e2, 1), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphGetEdges(g, &e1, NULL, &(size_t){ 1 }), hipErrorInvalidValue);
	/* instantiation and launch */
	EXPECT_HIP(hipGraphInstantiate(NULL, g, NULL, NULL, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphInstantiateWithFlags(&x, g, 7), hipErrorInvalidValue);
	ASSERT_OK(hipGraphInstantiateWithFlags(&x, g, hipGraphInstantiateFlagAutoFreeOnLaunch));
	EXPECT_HIP(hipGraphLaunch(NULL, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphLaunch(x, conf_dead_stream()), hipErrorInvalidValue);
	ASSERT_OK(hipGraphLaunch(x, NULL));
	ASSERT_OK(hipGraphExecDestroy(x));
	EXPECT_HIP(hipGraphLaunch(x, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipGraphExecDestroy(NULL), hipErrorInvalidValue);
	/* a destroyed node */
	ASSERT_OK(hipGraphDestroyNode(e2));
	EXPECT_HIP(hipGraphDestroyNode(e2), hipErrorInvalidValue);
	ASSERT_OK(hipDeviceSynchronize());
	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipGraphDestroy(g2));
	ASSERT_OK(hipEventDestroy(ev));
	ASSERT_OK(hipFree(d));
}

struct end_arg {
	hipStream_t s;
	hipError_t got;
	void *mem;
};

static void *malloc_elsewhere(void *p)
{
	struct end_arg *a = p;

	a->got = hipMalloc(&a->mem, 64);
	if (a->got == hipSuccess)
		(void)hipFree(a->mem);
	return NULL;
}

static void *end_elsewhere(void *p)
{
	struct end_arg *a = p;
	hipGraph_t g;

	a->got = hipStreamEndCapture(a->s, &g);
	if (a->got == hipSuccess)
		(void)hipGraphDestroy(g);
	return NULL;
}

/* The capture answers (hip_graph.cpp:727-838, hip_internal.hpp:158-186):
 * a second begin, a synchronous copy during a global capture, the end from
 * another thread (only relaxed captures may), the dependency updates, the
 * thread's mode, and 5.2.3's captured hipMemset2DAsync, which leaves the
 * element size 0 and is refused. */
Test(conf_graph, capture_answers)
{
	hipStreamCaptureMode mode = hipStreamCaptureModeRelaxed;
	struct end_arg arg;
	pthread_t t;
	hipStream_t s;
	hipGraph_t g;
	int *d, h[4];

	ASSERT_OK(hipMalloc((void **)&d, 256));
	ASSERT_OK(hipStreamCreate(&s));
	EXPECT_HIP(hipStreamUpdateCaptureDependencies(s, NULL, 0, 0), hipErrorIllegalState);
	EXPECT_HIP(hipStreamBeginCapture(s, (hipStreamCaptureMode)9), hipErrorInvalidValue);
	ASSERT_OK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
	EXPECT_HIP(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal), hipErrorIllegalState);
	EXPECT_HIP(hipMemcpy(h, d, 16, hipMemcpyDeviceToHost), hipErrorStreamCaptureImplicit);
	EXPECT_HIP(hipMemset(d, 0, 16), hipErrorStreamCaptureImplicit);
	EXPECT_HIP(hipMemset2DAsync(d, 16, 0, 16, 2, s), hipErrorInvalidValue);
	EXPECT_HIP(hipStreamUpdateCaptureDependencies(s, NULL, 1, 0), hipErrorInvalidValue);
	/* allocation calls: CHECK_STREAM_CAPTURE_SUPPORTED */
	{
		void *p = NULL;
		int host[4];

		EXPECT_HIP(hipMalloc(&p, 64), hipErrorStreamCaptureUnsupported);
		EXPECT_HIP(hipHostMalloc(&p, 64, 0), hipErrorStreamCaptureUnsupported);
		EXPECT_HIP(hipHostRegister(host, sizeof(host), 0), hipErrorStreamCaptureUnsupported);
		EXPECT_HIP(hipFree(d), hipErrorStreamCaptureUnsupported);
		/* another thread, its mode global: the global capture counts */
		arg = (struct end_arg){ s, hipSuccess, NULL };
		cr_assert_eq(pthread_create(&t, NULL, malloc_elsewhere, &arg), 0);
		cr_assert_eq(pthread_join(t, NULL), 0);
		cr_expect_eq(arg.got, hipErrorStreamCaptureUnsupported, "%s",
			     hipGetErrorName(arg.got));
	}
	arg = (struct end_arg){ s, hipSuccess, NULL };
	cr_assert_eq(pthread_create(&t, NULL, end_elsewhere, &arg), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_expect_eq(arg.got, hipErrorStreamCaptureWrongThread, "%s", hipGetErrorName(arg.got));
	ASSERT_OK(hipStreamEndCapture(s, &g));
	ASSERT_OK(hipGraphDestroy(g));
	/* after it, synchronous copies work again */
	ASSERT_OK(hipMemcpy(h, d, 16, hipMemcpyDeviceToHost));

	/* a thread-local capture: this thread may not allocate, another may */
	ASSERT_OK(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
	{
		void *p = NULL;

		EXPECT_HIP(hipMalloc(&p, 64), hipErrorStreamCaptureUnsupported);
	}
	arg = (struct end_arg){ s, hipErrorUnknown, NULL };
	cr_assert_eq(pthread_create(&t, NULL, malloc_elsewhere, &arg), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_expect_eq(arg.got, hipSuccess, "%s", hipGetErrorName(arg.got));
	ASSERT_OK(hipStreamEndCapture(s, &g));
	ASSERT_OK(hipGraphDestroy(g));

	/* a relaxed capture may be ended by another thread; in it synchronous
	 * copies work, and hipModuleLaunchKernel runs at once (5.2.3 captures
	 * hipLaunchKernel only, hip_module.cpp:489) */
	ASSERT_OK(hipStreamBeginCapture(s, hipStreamCaptureModeRelaxed));
	ASSERT_OK(hipMemset(d, 0, 16));
	{
		void *p = NULL;

		ASSERT_OK(hipMalloc(&p, 64));
		ASSERT_OK(hipFree(p));
	}
	{
		unsigned n = 4;
		void *args[] = { &d, &n };

		ASSERT_OK(hipModuleLaunchKernel(f_inc, 1, 1, 1, 64, 1, 1, 0, s, args, NULL));
	}
	ASSERT_OK(hipStreamSynchronize(s));
	ASSERT_OK(hipMemcpy(h, d, 16, hipMemcpyDeviceToHost));
	cr_expect(h[0] == 1 && h[3] == 1, "the module launch ran: %d %d", h[0], h[3]);
	arg = (struct end_arg){ s, hipErrorUnknown, NULL };
	cr_assert_eq(pthread_create(&t, NULL, end_elsewhere, &arg), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_expect_eq(arg.got, hipSuccess, "%s", hipGetErrorName(arg.got));

	ASSERT_OK(hipThreadExchangeStreamCaptureMode(&mode));
	cr_expect_eq(mode, hipStreamCaptureModeGlobal);
	ASSERT_OK(hipThreadExchangeStreamCaptureMode(&mode));
	cr_expect_eq(mode, hipStreamCaptureModeRelaxed);
	mode = (hipStreamCaptureMode)7;
	EXPECT_HIP(hipThreadExchangeStreamCaptureMode(&mode), hipErrorInvalidValue);
	ASSERT_OK(hipStreamDestroy(s));
	ASSERT_OK(hipFree(d));
}

static atomic_int held_done;

/* A graph's copy nodes are commands enqueued on the launch stream, but
 * 5.2.3 on Linux submits them in the launching thread (direct dispatch),
 * and a copy of at most 1 MiB between device memory and pageable host
 * memory is staged, which waits for the queue's earlier work and for the
 * copy (sim/api/memcpy.c, sim_node_awaited): hipGraphLaunch returns with
 * it done, after the stream's earlier work, as 5.2.3's own tests
 * (hipGraphAddMemcpyNodeFromSymbol.cc, hipGraphClone.cc) read the host
 * buffer at once. The 1D, to-symbol and from-symbol nodes, each awaited. */
Test(conf_graph, pageable_copy_nodes_done_at_launch)
{
	static int host[N], in[4] = { 11, 12, 13, 14 }, out[4];
	int *d = NULL, i;
	hipGraphNode_t cp, to, from;
	hipGraph_t g;
	hipGraphExec_t x;
	hipStream_t s;

	ASSERT_OK(hipMalloc((void **)&d, N * sizeof(int)));
	for (i = 0; i < (int)N; i++)
		host[i] = i;
	ASSERT_OK(hipMemcpy(d, host, N * sizeof(int), hipMemcpyHostToDevice));
	memset(host, 0, sizeof(host));
	memset(out, 0, sizeof(out));
	ASSERT_OK(hipGraphCreate(&g, 0));
	ASSERT_OK(hipGraphAddMemcpyNode1D(&cp, g, NULL, 0, host, d, N * sizeof(int),
					  hipMemcpyDeviceToHost));
	ASSERT_OK(hipGraphAddMemcpyNodeToSymbol(&to, g, &cp, 1, graph_var_shadow, in, sizeof(in), 0,
						hipMemcpyHostToDevice));
	ASSERT_OK(hipGraphAddMemcpyNodeFromSymbol(&from, g, &to, 1, out, graph_var_shadow,
						  sizeof(out), 0, hipMemcpyDeviceToHost));
	ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
	ASSERT_OK(hipStreamCreate(&s));
	atomic_store(&held_done, 0);
	ASSERT_OK(hipStreamAddCallback(s, conf_hold_stream, &held_done, 0));
	ASSERT_OK(hipGraphLaunch(x, s));
	cr_expect_eq(atomic_load(&held_done), 1, "the launch returned before its copy nodes ran");
	for (i = 0; i < (int)N && host[i] == i; i++)
		;
	cr_expect_eq(i, (int)N, "the 1D node's copy not done at the launch's return: host[%d] %d",
		     i, i < (int)N ? host[i] : 0);
	cr_expect(!memcmp(out, in, sizeof(in)), "from symbol at the launch's return: %d %d %d %d",
		  out[0], out[1], out[2], out[3]);
	EXPECT_HIP(hipStreamQuery(s), hipSuccess);
	ASSERT_OK(hipStreamSynchronize(s));
	ASSERT_OK(hipGraphExecDestroy(x));
	ASSERT_OK(hipGraphDestroy(g));
	ASSERT_OK(hipStreamDestroy(s));
	ASSERT_OK(hipFree(d));
}

/* Above 1 MiB ROCclr pins the pageable side and leaves the copy to the GPU
 * (rocblit.cpp:1743, :1857): the launch returns while the stream still
 * holds it. Exactly 1 MiB is still staged and done at the return. */
Test(conf_graph, pageable_copy_node_above_1mib_left_running)
{
	const size_t mib = (size_t)1024 * 1024;
	size_t sizes[2] = { mib, mib + sizeof(int) };
	unsigned char *h = malloc(mib + sizeof(int)), *d = NULL;

	cr_assert(h);
	ASSERT_OK(hipMalloc((void **)&d, mib + sizeof(int)));
	ASSERT_OK(hipMemset(d, 0x5a, mib + sizeof(int)));
	for (int k = 0; k < 2; k++) {
		size_t n = sizes[k];
		hipGraphNode_t cp;
		hipGraph_t g;
		hipGraphExec_t x;
		hipStream_t s;
		bool staged = n <= mib;

		memset(h, 0, mib + sizeof(int));
		ASSERT_OK(hipGraphCreate(&g, 0));
		ASSERT_OK(hipGraphAddMemcpyNode1D(&cp, g, NULL, 0, h, d, n,
						  hipMemcpyDeviceToHost));
		ASSERT_OK(hipGraphInstantiate(&x, g, NULL, NULL, 0));
		ASSERT_OK(hipStreamCreate(&s));
		atomic_store(&held_done, 0);
		ASSERT_OK(hipStreamAddCallback(s, conf_hold_stream, &held_done, 0));
		ASSERT_OK(hipGraphLaunch(x, s));
		cr_expect_eq(atomic_load(&held_done), staged ? 1 : 0,
			     "%zu bytes: the launch %s", n,
			     staged ? "did not wait for the staged copy" : "waited for a pinned copy");
		if (staged)
			cr_expect_eq(h[n - 1], 0x5a, "%zu bytes: the copy not done at the return", n);
		else
			EXPECT_HIP(hipStreamQuery(s), hipErrorNotReady);
		ASSERT_OK(hipStreamSynchronize(s));
		cr_expect_eq(h[0], 0x5a);
		cr_expect_eq(h[n - 1], 0x5a, "%zu bytes", n);
		cr_expect_eq(h[mib + sizeof(int) - 1], staged ? 0 : 0x5a);
		ASSERT_OK(hipGraphExecDestroy(x));
		ASSERT_OK(hipGraphDestroy(g));
		ASSERT_OK(hipStreamDestroy(s));
	}
	ASSERT_OK(hipFree(d));
	free(h);
}
