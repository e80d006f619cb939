/* SPDX-License-Identifier: MIT */
/*
 * event.c - events. A record is an operation in the stream's FIFO that
 * stamps CLOCK_MONOTONIC when it runs; handles are checked against a
 * registry (hipErrorInvalidHandle for a bad or destroyed one).
 *
 * hipEventDestroy does not wait: as ROCm 5.2.3's (hip_event.cpp, `delete e`
 * while its marker may still be queued) it returns at once, and a stream
 * waiting on the event still waits for the record to land. Queued records
 * and waits hold references; the last one frees a destroyed event.
 *
 * As in ROCm 5.2 an event belongs to the device current when it was
 * created: recording it on another device's stream, or timing two events of
 * different devices, is hipErrorInvalidHandle. Interprocess events keep
 * their state in a shared memory segment (event_ipc.c) that another process
 * opens through hipIpcOpenEventHandle.
 */
#include "api/api.h"
#include "runtime/stream.h"
#include "runtime/step.h"
#include "api/graph.h"
#include "runtime/event_ipc.h"

#include <stdlib.h>
#include <time.h>

struct sim_event {
	unsigned flags;
	int device;
	struct sim_ipc_event *ipc;	/* interprocess events, once shared */
	bool recorded;
	bool done;
	uint64_t t_ns;
	unsigned refs;		/* queued records and waits */
	bool destroyed;		/* out of the registry; the last reference frees it */
	struct sim_event *next;
};

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cond = PTHREAD_COND_INITIALIZER;
static struct sim_event *events;

static void events_reset(void)
{
	pthread_mutex_init(&ev_lock, NULL);
	pthread_cond_init(&ev_cond, NULL);
	events = NULL;
}
SIM_STEP(events, .reset = events_reset);

static bool event_live(struct sim_event *e)
{
	struct sim_event *it;

	for (it = events; it && it != e; it = it->next)
		;
	return it != NULL;
}

static hipError_t event_create(hipEvent_t *out, unsigned flags)
{
	struct sim_event *e;
	const unsigned known = hipEventBlockingSync | hipEventDisableTiming |
			       hipEventInterprocess | hipEventReleaseToDevice |
			       hipEventReleaseToSystem;
	const unsigned release = hipEventReleaseToDevice | hipEventReleaseToSystem;

	SIM_INIT_API();
	/* ROCm 5.2: unknown flags, or both release scopes at once */
	if (!out || (flags & ~known) || (flags & release) == release)
		return hipErrorInvalidValue;
	e = calloc(1, sizeof(*e));
	if (!e)
		return hipErrorOutOfMemory;
	e->flags = flags;
	e->device = sim_current_device();
	pthread_mutex_lock(&ev_lock);
	e->next = events;
	events = e;
	pthread_mutex_unlock(&ev_lock);
	*out = (hipEvent_t)e;
	return hipSuccess;
}

SIM_API hipError_t hipEventCreate(hipEvent_t *e)
{
	SIM_RETURN(event_create(e, hipEventDefault));
}

SIM_API hipError_t hipEventCreateWithFlags(hipEvent_t *e, unsigned flags)
{
	SIM_RETURN(event_create(e, flags));
}

static void event_free(struct sim_event *e)
{
	if (e->ipc)
		sim_ipc_event_close(e->ipc);
	free(e);
}

/* Drops a queued operation's reference; ev_lock held. True when the event
 * is to be freed (after the lock is let go). */
static bool event_unref(struct sim_event *e)
{
	return --e->refs == 0 && e->destroyed;
}

SIM_API hipError_t hipEventDestroy(hipEvent_t h)
{
	struct sim_event *e = (struct sim_event *)h, **pp;
	bool found = false, now = false;

	SIM_INIT_API();
	pthread_mutex_lock(&ev_lock);
	for (pp = &events; e && *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			found = true;
			break;
		}
	}
	if (found) {
		e->destroyed = true;
		now = e->refs == 0;
	}
	pthread_mutex_unlock(&ev_lock);
	if (!found)
		SIM_RETURN(hipErrorInvalidHandle);
	if (now)
		event_free(e);
	return hipSuccess;
}

struct record_op {
	struct sim_op op;
	struct sim_event *e;
	uint64_t ipc_seq;
};

static void record_run(struct sim_op *op)
{
	struct record_op *r = (struct record_op *)op;
	struct sim_event *e = r->e;
	bool gone;

	if (e->ipc && r->ipc_seq)
		sim_ipc_event_complete(e->ipc, r->ipc_seq);
	pthread_mutex_lock(&ev_lock);
	e->t_ns = sim_now_ns();
	e->done = true;
	pthread_cond_broadcast(&ev_cond);
	gone = event_unref(e);
	pthread_mutex_unlock(&ev_lock);
	if (gone)
		event_free(e);
}

SIM_API hipError_t hipEventRecord(hipEvent_t h, hipStream_t stream)
{
	struct sim_event *e = (struct sim_event *)h;
	struct record_op *op;
	struct sim_stream *s;
	bool ok;

	SIM_INIT_API();
	if (sim_capture_active(stream))
		return sim_capture_event_record(stream, h);
	pthread_mutex_lock(&ev_lock);
	ok = e && event_live(e);
	pthread_mutex_unlock(&ev_lock);
	if (!ok)
		SIM_RETURN(hipErrorInvalidHandle);
	s = sim_stream_get(stream);
	if (!s)
		SIM_RETURN(hipErrorInvalidHandle);
	if (sim_stream_device(s) != e->device)
		SIM_RETURN(hipErrorInvalidHandle);
	op = calloc(1, sizeof(*op));
	if (!op)
		SIM_RETURN(hipErrorOutOfMemory);
	pthread_mutex_lock(&ev_lock);
	/* an interprocess event's segment exists from its first record (or
	 * its handle), as in ROCm */
	if ((e->flags & hipEventInterprocess) && !e->ipc &&
	    sim_ipc_event_create(e->device, &e->ipc) != 0) {
		pthread_mutex_unlock(&ev_lock);
		free(op);
		SIM_RETURN(hipErrorInvalidConfiguration);
	}
	e->recorded = true;
	e->done = false;
	e->refs++;
	if (e->ipc)
		op->ipc_seq = sim_ipc_event_record(e->ipc);
	pthread_mutex_unlock(&ev_lock);
	op->op.fn = record_run;
	op->e = e;
	sim_stream_enqueue(s, &op->op);
	return hipSuccess;
}

SIM_API hipError_t hipEventSynchronize(hipEvent_t h)
{
	struct sim_event *e = (struct sim_event *)h;

	SIM_INIT_API();
	pthread_mutex_lock(&ev_lock);
	if (!e || !event_live(e)) {
		pthread_mutex_unlock(&ev_lock);
		SIM_RETURN(hipErrorInvalidHandle);
	}
	while (e->recorded && !e->done)
		pthread_cond_wait(&ev_cond, &ev_lock);
	pthread_mutex_unlock(&ev_lock);
	if (e->ipc)	/* another process's records too */
		sim_ipc_event_wait(e->ipc);
	return hipSuccess;
}

SIM_API hipError_t hipEventQuery(hipEvent_t h)
{
	struct sim_event *e = (struct sim_event *)h;
	hipError_t r;

	SIM_INIT_API();
	pthread_mutex_lock(&ev_lock);
	if (!e || !event_live(e))
		r = hipErrorInvalidHandle;
	else if (e->ipc)
		r = sim_ipc_event_done(e->ipc) ? hipSuccess : hipErrorNotReady;
	else
		r = (e->recorded && !e->done) ? hipErrorNotReady : hipSuccess;
	pthread_mutex_unlock(&ev_lock);
	SIM_RETURN(r);
}

SIM_API hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b)
{
	struct sim_event *s = (struct sim_event *)a, *t = (struct sim_event *)b;
	hipError_t r = hipSuccess;

	SIM_INIT_API();
	if (!ms)
		SIM_RETURN(hipErrorInvalidValue);
	if (!s || !t)
		SIM_RETURN(hipErrorInvalidHandle);
	pthread_mutex_lock(&ev_lock);
	if (!event_live(s) || !event_live(t) || s->device != t->device)
		r = hipErrorInvalidHandle;
	else if ((s->flags | t->flags) & hipEventDisableTiming)
		r = hipErrorInvalidHandle;
	else if (!s->recorded || !t->recorded)
		r = hipErrorInvalidHandle;
	else if (!s->done || !t->done)
		r = hipErrorNotReady;
	else
		*ms = (float)((double)((int64_t)(t->t_ns - s->t_ns)) / 1e6);
	pthread_mutex_unlock(&ev_lock);
	SIM_RETURN(r);
}

struct wait_op {
	struct sim_op op;
	struct sim_event *e;
};

static void wait_run(struct sim_op *op)
{
	struct sim_event *e = ((struct wait_op *)op)->e;
	struct timespec ts = { 0, 100000 };
	bool more, gone;

	/* The reference keeps e whole even when it is destroyed meanwhile: the
	 * wait is for the record queued before it, as a GPU's is. */
	pthread_mutex_lock(&ev_lock);
	while (e->recorded && !e->done)
		pthread_cond_wait(&ev_cond, &ev_lock);
	/* An opened event is recorded by another process: poll its segment,
	 * until that is done or the event destroyed. */
	for (;;) {
		more = !e->destroyed && e->ipc && !sim_ipc_event_done(e->ipc);
		if (!more)
			break;
		pthread_mutex_unlock(&ev_lock);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&ev_lock);
	}
	gone = event_unref(e);
	pthread_mutex_unlock(&ev_lock);
	if (gone)
		event_free(e);
}

SIM_API hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t h, unsigned int flags)
{
	struct sim_event *e = (struct sim_event *)h;
	struct sim_stream *s;
	struct wait_op *op;
	bool ok;

	SIM_INIT_API();
	if (sim_event_in_capture(h))
		return sim_capture_wait_event(stream, h, flags);
	if (!e)
		SIM_RETURN(hipErrorInvalidHandle);
	if (flags)
		SIM_RETURN(hipErrorInvalidValue);
	s = sim_stream_get(stream);
	if (!s)
		SIM_RETURN(hipErrorContextIsDestroyed);
	op = calloc(1, sizeof(*op));
	if (!op)
		SIM_RETURN(hipErrorOutOfMemory);
	pthread_mutex_lock(&ev_lock);
	ok = event_live(e);
	if (ok)
		e->refs++;
	pthread_mutex_unlock(&ev_lock);
	if (!ok) {
		free(op);
		SIM_RETURN(hipErrorInvalidHandle);
	}
	op->op.fn = wait_run;
	op->e = e;
	sim_stream_enqueue(s, &op->op);
	return hipSuccess;
}

/* ---- interprocess handles ---- */

SIM_API hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t *handle, hipEvent_t h)
{
	struct sim_event *e = (struct sim_event *)h;
	hipError_t r = hipSuccess;

	SIM_INIT_API();
	if (!handle || !e)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&ev_lock);
	if (!event_live(e))
		r = hipErrorInvalidHandle;
	else if (!(e->flags & hipEventInterprocess))	/* ROCm: not an IPC event */
		r = hipErrorInvalidConfiguration;
	else if (!e->ipc && sim_ipc_event_create(e->device, &e->ipc) != 0)
		r = hipErrorInvalidConfiguration;
	else
		sim_ipc_event_handle(e->ipc, handle);
	pthread_mutex_unlock(&ev_lock);
	SIM_RETURN(r);
}

SIM_API hipError_t hipIpcOpenEventHandle(hipEvent_t *out, hipIpcEventHandle_t handle)
{
	struct sim_event *e;
	hipError_t r;
	int err;

	SIM_INIT_API();
	if (!out)
		SIM_RETURN(hipErrorInvalidValue);
	r = event_create(out, hipEventDisableTiming | hipEventInterprocess);
	if (r != hipSuccess)
		SIM_RETURN(r);
	e = (struct sim_event *)*out;
	err = sim_ipc_event_open(&handle, &e->ipc, &e->device);
	if (err == 0)
		return hipSuccess;
	/* As ROCm, the event stays created; the error says why it is unusable. */
	SIM_RETURN(err == -EEXIST ? hipErrorInvalidContext : hipErrorInvalidValue);
}
