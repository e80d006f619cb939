/* SPDX-License-Identifier: MIT */
/*
 * capture.c - stream capture as ROCm 5.2.3 does it (hipamd hip_graph.cpp:
 * 178-838, hip_internal.hpp:158-192, hip::Stream's capture fields): between
 * hipStreamBeginCapture and hipStreamEndCapture the work a program submits
 * to the stream becomes nodes of a new graph, each depending on the nodes
 * captured last on that stream, instead of running. An event recorded on a
 * capturing stream remembers those nodes; a stream that waits on it joins
 * the capture and continues from them, and the origin stream waiting on an
 * event of the joined stream joins the branches again. hipStreamEndCapture
 * hands over the graph, refusing one with more than one leaf
 * (hipErrorStreamCaptureUnjoined) unless a leaf was taken out with
 * hipStreamUpdateCaptureDependencies.
 *
 * What 5.2.3 captures: hipLaunchKernel (hip_module.cpp:489, so <<<>>>
 * launches too, but not hipModuleLaunchKernel, which runs at once), the
 * asynchronous copies and fills (hip_memory.cpp, STREAM_CAPTURE rows),
 * hipEventRecord (hip_event.cpp:291) and hipStreamWaitEvent on a captured
 * event (hip_stream.cpp:504). Synchronous copies and fills answer
 * hipErrorStreamCaptureImplicit while a capture in the global mode is on
 * (CHECK_STREAM_CAPTURING). 5.2.3 has no hipLaunchHostFunc (its capture
 * function exists but nothing calls it), so neither has the simulator.
 * Answers of the capture path are returned without being recorded as the
 * last error, as STREAM_CAPTURE returns them.
 *
 * Where 5.2.3 leaves a joined stream in capture after the origin's end
 * (Stream::EndCapture ends only the streams in its own parallel list, which
 * capturehipStreamWaitEvent fills on the joined stream instead,
 * hip_graph.cpp:701), the simulator ends every stream of the capture.
 */
#include "api/graph.h"
#include "runtime/step.h"

#include <stdlib.h>
#include <string.h>

unsigned sim_capture_count;

struct session {
	hipGraph_t graph;
	hipStreamCaptureMode mode;
	unsigned long long id;
	pthread_t thread;		/* where it began */
	bool thread_listed;		/* in that thread's l_captureStreams */
	bool global_listed;		/* in g_captureStreams */
	hipGraphNode_t *removed;	/* hipStreamSetCaptureDependencies' leftovers */
	size_t nremoved;
};

struct cap {
	struct sim_stream *s;
	struct session *sess;
	bool origin;
	hipGraphNode_t *last;		/* what the next captured node depends on */
	size_t nlast;
	struct cap *next;
};

struct cap_event {
	hipEvent_t e;
	struct session *sess;
	hipGraphNode_t *nodes;		/* captured last before the record */
	size_t n;
	struct cap_event *next;
};

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cap *caps;
static struct cap_event *events;
static unsigned global_count;		/* sessions in g_captureStreams */
static unsigned long long next_capture_id;
static __thread unsigned thread_count;	/* this thread's l_captureStreams */
static __thread hipStreamCaptureMode capture_mode = hipStreamCaptureModeGlobal;

static void capture_reset(void)
{
	/* a fork child starts with no capture: its streams are new */
	pthread_mutex_init(&cap_lock, NULL);
	caps = NULL;
	events = NULL;
	global_count = 0;
	thread_count = 0;
	__atomic_store_n(&sim_capture_count, 0, __ATOMIC_RELAXED);
}
SIM_STEP(capture, .reset = capture_reset);

/* Caller holds cap_lock. */
static struct cap *cap_of(struct sim_stream *s)
{
	struct cap *c;

	for (c = caps; c && c->s != s; c = c->next)
		;
	return c;
}

static struct sim_stream *stream_of(hipStream_t h)
{
	bool gone;

	return sim_stream_lookup(h, &gone);
}

bool sim_capture_active_slow(hipStream_t h)
{
	struct sim_stream *s = h ? stream_of(h) : NULL;
	bool on;

	if (!s)
		return false;
	pthread_mutex_lock(&cap_lock);
	on = cap_of(s) != NULL;
	pthread_mutex_unlock(&cap_lock);
	return on;
}

bool sim_capture_unsupported_slow(void)
{
	if (capture_mode == hipStreamCaptureModeThreadLocal)
		return thread_count != 0;
	if (capture_mode == hipStreamCaptureModeGlobal)
		return thread_count != 0 || __atomic_load_n(&global_count, __ATOMIC_RELAXED) != 0;
	return false;
}

bool sim_capture_implicit(void)
{
	return __atomic_load_n(&global_count, __ATOMIC_RELAXED) != 0;
}

static bool set_nodes(hipGraphNode_t **v, size_t *n, const hipGraphNode_t *from, size_t count,
		      bool append)
{
	size_t base = append ? *n : 0;
	hipGraphNode_t *nv = realloc(*v, (base + count + 1) * sizeof(*nv));

	if (!nv)
		return false;
	if (count)
		memcpy(nv + base, from, count * sizeof(*nv));
	*v = nv;
	*n = base + count;
	return true;
}

/* The stream's capture, locked; NULL (unlocked) when it has none. */
static struct cap *cap_lock_of(hipStream_t h)
{
	struct sim_stream *s = stream_of(h);
	struct cap *c;

	if (!s)
		return NULL;
	pthread_mutex_lock(&cap_lock);
	c = cap_of(s);
	if (!c)
		pthread_mutex_unlock(&cap_lock);
	return c;
}

/* After a node was captured on c: the stream continues from it alone.
 * node is read after e was made (an argument's order is not C's to keep). */
static hipError_t captured(struct cap *c, hipError_t e, const hipGraphNode_t *node)
{
	if (e == hipSuccess && !set_nodes(&c->last, &c->nlast, node, 1, false))
		e = hipErrorOutOfMemory;
	pthread_mutex_unlock(&cap_lock);
	return e;
}

hipError_t sim_capture_kernel(hipStream_t s, const void *fn, dim3 grid, dim3 block, void **args,
			      size_t shmem)
{
	hipKernelNodeParams p = {
		.func = (void *)fn, .blockDim = block, .gridDim = grid, .kernelParams = args,
		.extra = NULL, .sharedMemBytes = (unsigned)shmem,
	};
	hipGraphNode_t node = NULL;
	struct cap *c = cap_lock_of(s);

	if (!c)
		return hipErrorInvalidValue;
	return captured(c, sim_graph_add_kernel(&node, c->sess->graph, c->last, c->nlast, &p),
			&node);
}

hipError_t sim_capture_memcpy(hipStream_t s, void *dst, const void *src, size_t n, int kind)
{
	hipGraphNode_t node = NULL;
	struct cap *c = cap_lock_of(s);

	if (!c)
		return hipErrorInvalidValue;
	return captured(c, sim_graph_add_memcpy1d(&node, c->sess->graph, c->last, c->nlast, dst,
						  src, n, kind),
			&node);
}

hipError_t sim_capture_memset(hipStream_t s, void *dst, int value, unsigned elem, size_t count)
{
	hipMemsetParams p = {
		.dst = dst, .value = (unsigned)value, .elementSize = elem, .width = count,
		.height = 1,
	};
	hipGraphNode_t node = NULL;
	struct cap *c = cap_lock_of(s);

	if (!c)
		return hipErrorInvalidValue;
	return captured(c, sim_graph_add_memset(&node, c->sess->graph, c->last, c->nlast, &p),
			&node);
}

/* capturehipMemset2DAsync (hip_graph.cpp:629) leaves the element size 0,
 * which ihipGraphAddMemsetNode refuses: hipErrorInvalidValue, in 5.2.3. */
hipError_t sim_capture_memset2d(hipStream_t s, void *dst, size_t pitch, int value, size_t w,
				size_t h)
{
	hipMemsetParams p = {
		.dst = dst, .value = (unsigned)value, .width = w, .height = h, .pitch = pitch,
	};
	hipGraphNode_t node = NULL;
	struct cap *c = cap_lock_of(s);

	if (!c)
		return hipErrorInvalidValue;
	return captured(c, sim_graph_add_memset(&node, c->sess->graph, c->last, c->nlast, &p),
			&node);
}

hipError_t sim_capture_memcpy3d(hipStream_t s, const hipMemcpy3DParms *p)
{
	hipGraphNode_t node = NULL;
	struct cap *c = cap_lock_of(s);

	if (!c)
		return hipErrorInvalidValue;
	return captured(c, sim_graph_add_memcpy3d(&node, c->sess->graph, c->last, c->nlast, p),
			&node);
}

/* capturehipMemcpy2DAsync (hip_graph.cpp:223): a 3D copy node of depth 1. */
hipError_t sim_capture_memcpy2d(hipStream_t s, void *dst, size_t dpitch, const void *src,
				size_t spitch, size_t w, size_t h, int kind)
{
	hipMemcpy3DParms p;
	hipGraphNode_t node = NULL;
	struct cap *c;

	if (!dst || !src)
		return hipErrorInvalidValue;
	memset(&p, 0, sizeof(p));
	p.kind = (hipMemcpyKind)kind;
	p.srcPtr.ptr = (void *)src;
	p.srcPtr.pitch = spitch;
	p.dstPtr.ptr = dst;
	p.dstPtr.pitch = dpitch;
	p.extent = (hipExtent){ w, h, 1 };
	c = cap_lock_of(s);
	if (!c)
		return hipErrorInvalidValue;
	return captured(c, sim_graph_add_memcpy3d(&node, c->sess->graph, c->last, c->nlast, &p),
			&node);
}

/* capturehipMemcpyTo/FromSymbolAsync (hip_graph.cpp:553, 579): a symbol
 * that does not check out is recorded as the last error there (HIP_RETURN). */
hipError_t sim_capture_symbol(hipStream_t s, bool to, void *ptr, const void *symbol, size_t n,
			      size_t offset, int kind)
{
	hipGraphNode_t node = NULL;
	struct cap *c = cap_lock_of(s);
	hipError_t e;

	if (!c)
		return hipErrorInvalidValue;
	e = sim_graph_add_symbol(&node, c->sess->graph, c->last, c->nlast, to, ptr, symbol, n,
				 offset, kind);
	if (e == hipErrorInvalidSymbol || (e == hipErrorInvalidValue && !node)) {
		pthread_mutex_unlock(&cap_lock);
		return sim_ret(e);
	}
	return captured(c, e, &node);
}

/* Caller holds cap_lock. */
static struct cap_event *event_of(hipEvent_t e)
{
	struct cap_event *ce;

	for (ce = events; ce && ce->e != e; ce = ce->next)
		;
	return ce;
}

/* capturehipEventRecord (hip_graph.cpp:664): no node; the event keeps the
 * stream's last nodes for the streams that will wait on it. */
hipError_t sim_capture_event_record(hipStream_t s, hipEvent_t e)
{
	struct cap_event *ce;
	struct cap *c;

	if (!e)
		return hipErrorInvalidHandle;
	c = cap_lock_of(s);
	if (!c)
		return hipErrorInvalidValue;
	ce = event_of(e);
	if (!ce) {
		ce = calloc(1, sizeof(*ce));
		if (!ce) {
			pthread_mutex_unlock(&cap_lock);
			return hipErrorOutOfMemory;
		}
		ce->e = e;
		ce->next = events;
		events = ce;
	}
	ce->sess = c->sess;
	if (!set_nodes(&ce->nodes, &ce->n, c->last, c->nlast, false)) {
		pthread_mutex_unlock(&cap_lock);
		return hipErrorOutOfMemory;
	}
	pthread_mutex_unlock(&cap_lock);
	return hipSuccess;
}

bool sim_event_in_capture_slow(hipEvent_t e)
{
	bool on;

	if (!e)
		return false;
	pthread_mutex_lock(&cap_lock);
	on = event_of(e) != NULL;
	pthread_mutex_unlock(&cap_lock);
	return on;
}

/* capturehipStreamWaitEvent (hip_graph.cpp:684): a stream that is not the
 * origin joins the capture the event was recorded in; either way it
 * continues from the event's nodes as well. The flags are not looked at. */
hipError_t sim_capture_wait_event(hipStream_t h, hipEvent_t e, unsigned flags)
{
	struct sim_stream *s = h ? stream_of(h) : NULL;
	struct cap_event *ce;
	struct cap *c;
	bool ok;

	(void)flags;
	if (h && !s)
		return hipErrorInvalidValue;
	if (!e || !h)
		return hipErrorInvalidValue;
	pthread_mutex_lock(&cap_lock);
	ce = event_of(e);
	c = cap_of(s);
	if (!ce) {
		pthread_mutex_unlock(&cap_lock);
		return hipErrorInvalidValue;
	}
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c) {
			pthread_mutex_unlock(&cap_lock);
			return hipErrorOutOfMemory;
		}
		c->s = s;
		c->next = caps;
		caps = c;
		__atomic_fetch_add(&sim_capture_count, 1, __ATOMIC_RELAXED);
	}
	if (!c->origin)
		c->sess = ce->sess;
	ok = set_nodes(&c->last, &c->nlast, ce->nodes, ce->n, true);
	pthread_mutex_unlock(&cap_lock);
	return ok ? hipSuccess : hipErrorOutOfMemory;
}

/* Ends every stream and event of the session; frees it. Caller holds
 * cap_lock. */
static void session_end(struct session *sess)
{
	struct cap **cp = &caps, *c;
	struct cap_event **ep = &events, *ce;

	while ((c = *cp)) {
		if (c->sess == sess) {
			*cp = c->next;
			free(c->last);
			free(c);
			__atomic_fetch_sub(&sim_capture_count, 1, __ATOMIC_RELAXED);
		} else {
			cp = &c->next;
		}
	}
	while ((ce = *ep)) {
		if (ce->sess == sess) {
			*ep = ce->next;
			free(ce->nodes);
			free(ce);
		} else {
			ep = &ce->next;
		}
	}
	free(sess->removed);
	free(sess);
}

void sim_capture_stream_gone(hipStream_t h)
{
	struct sim_stream *s;
	struct cap **cp, *c;

	if (!__atomic_load_n(&sim_capture_count, __ATOMIC_RELAXED) || !(s = stream_of(h)))
		return;
	pthread_mutex_lock(&cap_lock);
	for (cp = &caps; (c = *cp) && c->s != s; cp = &c->next)
		;
	if (c && c->origin) {
		struct session *sess = c->sess;

		if (sess->thread_listed && pthread_equal(sess->thread, pthread_self()))
			thread_count--;
		if (sess->global_listed)
			__atomic_fetch_sub(&global_count, 1, __ATOMIC_RELAXED);
		sim_graph_free(sess->graph);
		session_end(sess);
	} else if (c) {
		*cp = c->next;
		free(c->last);
		free(c);
		__atomic_fetch_sub(&sim_capture_count, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&cap_lock);
}

/* ---- the API ---- */

SIM_API hipError_t hipStreamIsCapturing(hipStream_t s, hipStreamCaptureStatus *status)
{
	SIM_INIT_API();
	if (!status || (s && !stream_of(s)))
		SIM_RETURN(hipErrorInvalidValue);
	*status = s && sim_capture_active_slow(s) ? hipStreamCaptureStatusActive
						   : hipStreamCaptureStatusNone;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipStreamGetCaptureInfo(hipStream_t s, hipStreamCaptureStatus *status,
					   unsigned long long *id)
{
	struct cap *c;

	SIM_INIT_API();
	if (!status || (s && !stream_of(s)))
		SIM_RETURN(hipErrorInvalidValue);
	if (!s)	/* hip_graph.cpp:1273 */
		SIM_RETURN(hipErrorUnknown);
	c = cap_lock_of(s);
	*status = c ? hipStreamCaptureStatusActive : hipStreamCaptureStatusNone;
	if (c) {
		if (id)
			*id = c->sess->id;
		pthread_mutex_unlock(&cap_lock);
	}
	SIM_RETURN(hipSuccess);
}

/* The dependencies answered point at the stream's own list, valid until
 * its next captured call, as 5.2.3's vector data. */
SIM_API hipError_t hipStreamGetCaptureInfo_v2(hipStream_t s, hipStreamCaptureStatus *status,
					      unsigned long long *id, hipGraph_t *graph,
					      const hipGraphNode_t **deps, size_t *ndeps)
{
	struct cap *c;

	SIM_INIT_API();
	if (!status)
		SIM_RETURN(hipErrorInvalidValue);
	if (!s)
		SIM_RETURN(hipErrorUnknown);
	if (!stream_of(s))
		SIM_RETURN(hipErrorInvalidValue);
	c = cap_lock_of(s);
	*status = c ? hipStreamCaptureStatusActive : hipStreamCaptureStatusNone;
	if (c) {
		if (id)
			*id = c->sess->id;
		if (graph)
			*graph = c->sess->graph;
		if (deps)
			*deps = c->last;
		if (ndeps)
			*ndeps = c->nlast;
		pthread_mutex_unlock(&cap_lock);
	}
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipStreamBeginCapture(hipStream_t h, hipStreamCaptureMode mode)
{
	struct sim_stream *s = h ? stream_of(h) : NULL;
	struct session *sess;
	struct cap *c;
	hipError_t e;

	SIM_INIT_API();
	if (h && !s)
		SIM_RETURN(hipErrorInvalidValue);
	if (!h)	/* capture cannot start on the null stream */
		SIM_RETURN(hipErrorStreamCaptureUnsupported);
	if (mode < hipStreamCaptureModeGlobal || mode > hipStreamCaptureModeRelaxed)
		SIM_RETURN(hipErrorInvalidValue);
	sess = calloc(1, sizeof(*sess));
	c = calloc(1, sizeof(*c));
	if (!sess || !c) {
		free(sess);
		free(c);
		SIM_RETURN(hipErrorOutOfMemory);
	}
	e = sim_graph_new(&sess->graph);
	if (e != hipSuccess) {
		free(sess);
		free(c);
		SIM_RETURN(e);
	}
	pthread_mutex_lock(&cap_lock);
	if (cap_of(s)) {
		pthread_mutex_unlock(&cap_lock);
		sim_graph_free(sess->graph);
		free(sess);
		free(c);
		SIM_RETURN(hipErrorIllegalState);
	}
	sess->mode = mode;
	sess->id = ++next_capture_id;
	sess->thread = pthread_self();
	if (mode != hipStreamCaptureModeRelaxed) {
		sess->thread_listed = true;
		thread_count++;
	}
	if (mode == hipStreamCaptureModeGlobal) {
		sess->global_listed = true;
		__atomic_fetch_add(&global_count, 1, __ATOMIC_RELAXED);
	}
	c->s = s;
	c->sess = sess;
	c->origin = true;
	c->next = caps;
	caps = c;
	__atomic_fetch_add(&sim_capture_count, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&cap_lock);
	SIM_RETURN(hipSuccess);
}

/* hip_graph.cpp:788, in its order. */
SIM_API hipError_t hipStreamEndCapture(hipStream_t h, hipGraph_t *graph)
{
	struct session *sess;
	hipGraphNode_t leaves[2];
	size_t nleaves;
	struct cap *c;
	bool removed = false;

	SIM_INIT_API();
	if (!graph || !h || !stream_of(h))
		SIM_RETURN(hipErrorInvalidValue);
	c = cap_lock_of(h);
	if (!c || !c->origin) {
		if (c)
			pthread_mutex_unlock(&cap_lock);
		SIM_RETURN(hipErrorStreamCaptureUnmatched);
	}
	sess = c->sess;
	if (sess->mode != hipStreamCaptureModeRelaxed) {
		if (!sess->thread_listed || !pthread_equal(sess->thread, pthread_self())) {
			pthread_mutex_unlock(&cap_lock);
			SIM_RETURN(hipErrorStreamCaptureWrongThread);
		}
		sess->thread_listed = false;
		thread_count--;
	}
	if (sess->global_listed) {
		sess->global_listed = false;
		__atomic_fetch_sub(&global_count, 1, __ATOMIC_RELAXED);
	}
	nleaves = sim_graph_leaves(sess->graph, NULL, 0);
	if (nleaves > 1) {
		hipGraphNode_t *all = malloc(nleaves * sizeof(*all));

		if (all) {
			sim_graph_leaves(sess->graph, all, nleaves);
			for (size_t i = 0; i < nleaves && !removed; i++)
				for (size_t j = 0; j < sess->nremoved && !removed; j++)
					removed = all[i] == sess->removed[j];
			free(all);
		}
		if (!removed) {
			/* 5.2.3 leaves the stream capturing, off the lists */
			pthread_mutex_unlock(&cap_lock);
			SIM_RETURN(hipErrorStreamCaptureUnjoined);
		}
	}
	(void)leaves;
	*graph = sess->graph;
	session_end(sess);
	pthread_mutex_unlock(&cap_lock);
	SIM_RETURN(hipSuccess);
}

/* hip_graph.cpp:1318: flags other than Add and Set change nothing. */
SIM_API hipError_t hipStreamUpdateCaptureDependencies(hipStream_t h, hipGraphNode_t *deps,
						      size_t n, unsigned int flags)
{
	struct session *sess;
	struct cap *c;
	bool ok = true;

	SIM_INIT_API();
	if (h && !stream_of(h))
		SIM_RETURN(hipErrorInvalidValue);
	c = h ? cap_lock_of(h) : NULL;
	if (!c)
		SIM_RETURN(hipErrorIllegalState);
	if (n && !deps) {
		pthread_mutex_unlock(&cap_lock);
		SIM_RETURN(hipErrorInvalidValue);
	}
	sess = c->sess;
	if (flags == hipStreamAddCaptureDependencies) {
		ok = set_nodes(&c->last, &c->nlast, deps, n, true);
	} else if (flags == hipStreamSetCaptureDependencies) {
		ok = set_nodes(&sess->removed, &sess->nremoved, c->last, c->nlast, true) &&
		     set_nodes(&c->last, &c->nlast, deps, n, false);
	}
	pthread_mutex_unlock(&cap_lock);
	SIM_RETURN(ok ? hipSuccess : hipErrorOutOfMemory);
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
	SIM_RETURN(hipSuccess);
}
