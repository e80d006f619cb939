/* SPDX-License-Identifier: MIT */
/*
 * memcpy.c - copies and fills. Device memory is host memory inside the
 * simulator, so every kind of copy is a CPU memmove, done in stream order by
 * the stream's worker (the synchronous calls wait for the null stream first
 * and then copy on the calling thread). A range that starts inside an
 * allocation must end inside it: hipErrorInvalidValue otherwise, as ROCm
 * answers for a copy past the end of a buffer. A fill must be inside HIP
 * memory altogether (ihipMemset_validate). A synchronous call on the null
 * stream first waits for every blocking stream of the device, as ROCm's null
 * stream does.
 */
#include "api/api.h"
#include "api/graph.h"
#include "api/memory.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>

static hipError_t check_range(const void *p, size_t n)
{
	struct sim_alloc a;

	if (!sim_lookup(p, &a))
		return hipSuccess;	/* plain host memory */
	if ((uintptr_t)p + n < (uintptr_t)p || (uintptr_t)p + n > a.base + a.size)
		return hipErrorInvalidValue;
	return hipSuccess;
}

hipError_t sim_check_copy(void *dst, const void *src, size_t n, int kind)
{
	struct sim_alloc a;

	if (kind < hipMemcpyHostToHost || kind > hipMemcpyDefault)
		return hipErrorInvalidMemcpyDirection;
	if (n == 0)
		return hipSuccess;
	if (!dst || !src)
		return hipErrorInvalidValue;
	if (check_range(dst, n) != hipSuccess || check_range(src, n) != hipSuccess)
		return hipErrorInvalidValue;
	/* neither side HIP memory: only a host-to-host (or default) copy */
	if (!sim_lookup(dst, &a) && !sim_lookup(src, &a) && kind != hipMemcpyHostToHost &&
	    kind != hipMemcpyDefault)
		return hipErrorInvalidValue;
	return hipSuccess;
}

/* A fill must lie inside one piece of HIP memory. */
static hipError_t check_fill(const void *p, size_t n)
{
	struct sim_alloc a;

	if (!p)
		return hipErrorInvalidValue;
	if (!sim_lookup(p, &a))
		return hipErrorInvalidValue;
	if ((uintptr_t)p + n < (uintptr_t)p || (uintptr_t)p + n > a.base + a.size)
		return hipErrorInvalidValue;
	return hipSuccess;
}

/* What a synchronous operation waits for before it runs, as it would behind
 * the stream's queue: on the null stream the blocking streams' work; on a
 * blocking stream (hipStreamPerThread among them) the null stream's too. */
static hipError_t sync_wait(hipStream_t stream, struct sim_stream *s)
{
	if (!stream) {
		sim_stream_wait_blocking(sim_stream_device(s));
		return sim_stream_wait(s);
	}
	return sim_stream_sync(s);
}

hipError_t sim_run_op(hipStream_t stream, bool sync, struct sim_op *op)
{
	struct sim_stream *s = sim_stream_get(stream);
	hipError_t e;

	if (!s) {
		free(op);
		return hipErrorInvalidHandle;
	}
	if (!sync) {
		sim_stream_enqueue(s, op);
		return hipSuccess;
	}
	e = sync_wait(stream, s);
	op->fn(op);
	free(op);
	return e;
}

hipStream_t sim_spt_stream(void)
{
	return hipStreamPerThread;
}

struct copy_op {
	struct sim_op op;
	void *dst;
	const void *src;
	size_t n;
	int value;		/* memset: the value; -1 for a copy */
	unsigned elem;		/* memset element size: 1, 2 or 4 */
};

static void fill(void *dst, uint32_t v, size_t count, unsigned elem)
{
	size_t i;

	if (elem == 1) {
		memset(dst, (int)(v & 0xff), count);
	} else if (elem == 2) {
		uint16_t *d = dst;

		for (i = 0; i < count; i++)
			d[i] = (uint16_t)v;
	} else {
		uint32_t *d = dst;

		for (i = 0; i < count; i++)
			d[i] = v;
	}
}

static void copy_run(struct sim_op *op)
{
	struct copy_op *c = (struct copy_op *)op;

	if (c->elem)
		fill(c->dst, (uint32_t)c->value, c->n, c->elem);
	else
		memmove(c->dst, c->src, c->n);
}

/* The context of HIP memory at p (a device, or HIPSVM_CTX_HOST: pinned or
 * registered memory every device shares); NO_CTX for other memory. */
#define NO_CTX (-2)

static int mem_ctx(const void *p)
{
	struct sim_alloc a;

	return sim_lookup(p, &a) ? a.ctx : NO_CTX;
}

/* The device whose null stream a copy runs on instead of the stream it was
 * given, or -1: as hipamd 5.2.3's ihipMemcpyCommand (hip_memory.cpp:333-399)
 * chooses it, a copy whose device memory is one other device's (the given
 * stream's GPU is neither side's) goes on that device's null stream (its
 * source's when both sides are that device's), so it is ordered behind that
 * device's null-stream kernels; two devices' memory is a peer copy on the
 * stream itself. The pinned-only cases hipamd routes to the current
 * device's null stream are left on the stream. */
static int copy_route(const void *dst, const void *src, int qdev)
{
	int sc = mem_ctx(src), dc = mem_ctx(dst), m;

	if (sc >= 0 && dc >= 0 && sc != dc)
		return -1;
	m = sc >= 0 ? sc : dc;
	return m >= 0 && m != qdev ? m : -1;
}

static hipError_t submit(hipStream_t stream, bool sync, void *dst, const void *src, size_t n,
			 int value, unsigned elem)
{
	struct sim_stream *s = sim_stream_get(stream), *via = NULL;
	struct copy_op *c;
	hipError_t e;
	int dev;

	if (!s)
		return hipErrorInvalidHandle;
	if (n == 0)
		return hipSuccess;
	if (!elem && (dev = copy_route(dst, src, sim_stream_device(s))) >= 0)
		via = sim_null_stream(dev);
	if (sync) {
		e = sync_wait(stream, s);
		if (via) {
			/* and, on that device's null stream, behind its
			 * blocking streams (hip_device.cpp, NullStream) */
			hipError_t ve;

			sim_stream_wait_blocking(dev);
			ve = sim_stream_wait(via);
			if (ve != hipSuccess)	/* its own sync's to report */
				sim_stream_set_error(via, ve);
		}
		if (elem)
			fill(dst, (uint32_t)value, n, elem);
		else
			memmove(dst, src, n);
		return e;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return hipErrorOutOfMemory;
	c->op.fn = copy_run;
	c->dst = dst;
	c->src = src;
	c->n = n;
	c->value = value;
	c->elem = elem;
	if (via)
		sim_stream_enqueue_via(s, via, &c->op);
	else
		sim_stream_enqueue(s, &c->op);
	return hipSuccess;
}

/* ihipMemcpy (hip_memory.cpp:438-450) turns an asynchronous copy with a
 * side that is not HIP memory (pageable host memory) into a synchronous one:
 * the command is queued on its stream and awaited, so the caller may read
 * or reuse the host buffer when the call returns. The stream's earlier
 * error is left for its synchronisation, as awaitCompletion does not
 * report it. */
static void await_pageable(hipStream_t stream, void *dst, const void *src)
{
	struct sim_stream *s;
	struct sim_alloc a;

	if (sim_lookup(dst, &a) && sim_lookup(src, &a))
		return;
	s = sim_stream_get(stream);
	if (s)
		sim_stream_drain(s);
}

hipError_t sim_copy(void *dst, const void *src, size_t n, int kind, hipStream_t s, bool sync,
		    bool await)
{
	hipError_t e = sim_check_copy(dst, src, n, kind);

	if (e == hipSuccess)
		e = submit(s, sync, dst, src, n, -1, 0);
	if (e == hipSuccess && !sync && await && n)
		await_pageable(s, dst, src);
	return e;
}

/* await: the public asynchronous calls (ihipMemcpy); for a graph's copy
 * node see sim_node_awaited. */
static hipError_t copy_to(void *dst, const void *src, size_t n, int kind, hipStream_t s,
			  bool sync, bool await)
{
	SIM_INIT_API();
	if (sync && sim_capture_implicit())
		return hipErrorStreamCaptureImplicit;
	if (!sync && sim_capture_active(s))
		return sim_capture_memcpy(s, dst, src, n, kind);
	SIM_RETURN(sim_copy(dst, src, n, kind, s, sync, await));
}

static hipError_t copy(void *dst, const void *src, size_t n, int kind, hipStream_t s, bool sync)
{
	return copy_to(dst, src, n, kind, s, sync, true);
}

/* A graph's copy node is a command enqueued on the launch stream
 * (hipGraphMemcpyNode1D::EnqueueCommands, hip_graph_internal.hpp:797), not
 * ihipMemcpy, yet 5.2.3 on Linux dispatches directly (hipamd
 * hip_context.cpp:41-46 makes AMD_DIRECT_DISPATCH default to IS_LINUX), so
 * the enqueue submits the command in the launching thread (ROCclr
 * platform/command.cpp:343-370). A copy between device memory and memory
 * the runtime does not know (a Read/WriteMemoryCommand) of at most
 * pinnedMinXferSize_ (GPU_PINNED_MIN_XFER_SIZE, 1 MiB: utils/flags.hpp:95,
 * device/rocm/rocsettings.cpp:72) is not pinned (rocblit.cpp:81, :243,
 * :1743, :1857) but staged: hsaCopyStaged waits for the queue's earlier
 * work, then for the copy (rocblit.cpp:686, :732, :757). So hipGraphLaunch
 * returns with such a copy done; a larger one is pinned and left running. */
bool sim_node_awaited(size_t n)
{
	return n <= (size_t)1024 * 1024;
}

hipError_t sim_copy_node(void *dst, const void *src, size_t n, int kind, hipStream_t s)
{
	return copy_to(dst, src, n, kind, s, false, sim_node_awaited(n));
}

SIM_API hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
	return copy(dst, src, n, kind, NULL, true);
}

SIM_API hipError_t hipMemcpyWithStream(void *dst, const void *src, size_t n, hipMemcpyKind kind,
				       hipStream_t s)
{
	return copy(dst, src, n, kind, s, true);
}

SIM_API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, hipMemcpyKind kind,
				  hipStream_t s)
{
	return copy(dst, src, n, kind, s, false);
}

SIM_API hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t n)
{
	return copy(dst, src, n, hipMemcpyHostToDevice, NULL, true);
}

SIM_API hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t n)
{
	return copy(dst, src, n, hipMemcpyDeviceToHost, NULL, true);
}

SIM_API hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n)
{
	return copy(dst, src, n, hipMemcpyDeviceToDevice, NULL, true);
}

SIM_API hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t n, hipStream_t s)
{
	return copy(dst, src, n, hipMemcpyHostToDevice, s, false);
}

SIM_API hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t n, hipStream_t s)
{
	return copy(dst, src, n, hipMemcpyDeviceToHost, s, false);
}

SIM_API hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n,
				      hipStream_t s)
{
	return copy(dst, src, n, hipMemcpyDeviceToDevice, s, false);
}

SIM_API hipError_t hipMemcpyPeer(void *dst, int dd, const void *src, int sd, size_t n)
{
	SIM_INIT_API();
	if (!sim_gpu(dd) || !sim_gpu(sd))
		SIM_RETURN(hipErrorInvalidDevice);
	return copy(dst, src, n, hipMemcpyDeviceToDevice, NULL, true);
}

SIM_API hipError_t hipMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t n,
				      hipStream_t s)
{
	SIM_INIT_API();
	if (!sim_gpu(dd) || !sim_gpu(sd))
		SIM_RETURN(hipErrorInvalidDevice);
	return copy(dst, src, n, hipMemcpyDeviceToDevice, s, false);
}

static hipError_t set(void *dst, int value, size_t count, unsigned elem, hipStream_t s, bool sync)
{
	hipError_t e;

	SIM_INIT_API();
	if (sync && sim_capture_implicit())
		return hipErrorStreamCaptureImplicit;
	if (!sync && sim_capture_active(s))
		return sim_capture_memset(s, dst, value, elem, count);
	if (count == 0)
		SIM_RETURN(hipSuccess);
	if (!dst || count > SIZE_MAX / elem)
		SIM_RETURN(hipErrorInvalidValue);
	e = check_fill(dst, count * elem);
	if (e == hipSuccess)
		e = submit(s, sync, dst, NULL, count, value, elem);
	SIM_RETURN(e);
}

SIM_API hipError_t hipMemset(void *dst, int value, size_t n)
{
	return set(dst, value, n, 1, NULL, true);
}

SIM_API hipError_t hipMemsetAsync(void *dst, int value, size_t n, hipStream_t s)
{
	return set(dst, value, n, 1, s, false);
}

SIM_API hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char v, size_t count)
{
	return set(dst, v, count, 1, NULL, true);
}

SIM_API hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char v, size_t count,
				    hipStream_t s)
{
	return set(dst, v, count, 1, s, false);
}

SIM_API hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short v, size_t count)
{
	return set(dst, v, count, 2, NULL, true);
}

SIM_API hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short v, size_t count,
				     hipStream_t s)
{
	return set(dst, v, count, 2, s, false);
}

SIM_API hipError_t hipMemsetD32(hipDeviceptr_t dst, int v, size_t count)
{
	return set(dst, v, count, 4, NULL, true);
}

SIM_API hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int v, size_t count, hipStream_t s)
{
	return set(dst, v, count, 4, s, false);
}

SIM_API hipError_t hipMemcpy_spt(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
	return copy(dst, src, n, kind, sim_spt_stream(), true);
}

SIM_API hipError_t hipMemcpyAsync_spt(void *dst, const void *src, size_t n, hipMemcpyKind kind,
				      hipStream_t s)
{
	return copy(dst, src, n, kind, s ? s : sim_spt_stream(), false);
}

SIM_API hipError_t hipMemset_spt(void *dst, int value, size_t n)
{
	return set(dst, value, n, 1, sim_spt_stream(), true);
}
