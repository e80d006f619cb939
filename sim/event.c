/* SPDX-License-Identifier: MIT */
/*
 * event.c - events. A record is an operation in the stream's FIFO that
 * stamps CLOCK_MONOTONIC when it runs; handles are checked against a
 * registry (hipErrorInvalidHandle for a bad or destroyed one).
 */
#include "sim.h"

#include <stdlib.h>

struct sim_event {
	unsigned flags;
	bool recorded;
	bool done;
	uint64_t t_ns;
	struct sim_event *next;
};

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cond = PTHREAD_COND_INITIALIZER;
static struct sim_event *events;

void sim_events_reset(void)
{
	pthread_mutex_init(&ev_lock, NULL);
	pthread_cond_init(&ev_cond, NULL);
	events = NULL;
}

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

	sim_init();
	if (!out || (flags & ~known))
		return hipErrorInvalidValue;
	/* an interprocess event must not record timing (as CUDA and ROCm) */
	if ((flags & hipEventInterprocess) && !(flags & hipEventDisableTiming))
		return hipErrorInvalidValue;
	e = calloc(1, sizeof(*e));
	if (!e)
		return hipErrorOutOfMemory;
	e->flags = flags;
	pthread_mutex_lock(&ev_lock);
	e->next = events;
	events = e;
	pthread_mutex_unlock(&ev_lock);
	*out = (hipEvent_t)e;
	return hipSuccess;
}

SIM_API hipError_t hipEventCreate(hipEvent_t *e)
{
	return sim_ret(event_create(e, hipEventDefault));
}

SIM_API hipError_t hipEventCreateWithFlags(hipEvent_t *e, unsigned flags)
{
	return sim_ret(event_create(e, flags));
}

SIM_API hipError_t hipEventDestroy(hipEvent_t h)
{
	struct sim_event *e = (struct sim_event *)h, **pp;
	bool found = false;

	sim_init();
	pthread_mutex_lock(&ev_lock);
	for (pp = &events; e && *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&ev_lock);
	if (!found)
		return sim_ret(hipErrorInvalidHandle);
	/* A record still queued would write into freed memory: let it land. */
	pthread_mutex_lock(&ev_lock);
	while (e->recorded && !e->done)
		pthread_cond_wait(&ev_cond, &ev_lock);
	pthread_mutex_unlock(&ev_lock);
	free(e);
	return hipSuccess;
}

struct record_op {
	struct sim_op op;
	struct sim_event *e;
};

static void record_run(struct sim_op *op)
{
	struct sim_event *e = ((struct record_op *)op)->e;

	pthread_mutex_lock(&ev_lock);
	e->t_ns = sim_now_ns();
	e->done = true;
	pthread_cond_broadcast(&ev_cond);
	pthread_mutex_unlock(&ev_lock);
}

SIM_API hipError_t hipEventRecord(hipEvent_t h, hipStream_t stream)
{
	struct sim_event *e = (struct sim_event *)h;
	struct record_op *op;
	struct sim_stream *s;
	bool ok;

	sim_init();
	pthread_mutex_lock(&ev_lock);
	ok = e && event_live(e);
	if (ok) {
		e->recorded = true;
		e->done = false;
	}
	pthread_mutex_unlock(&ev_lock);
	if (!ok)
		return sim_ret(hipErrorInvalidHandle);
	s = sim_stream_get(stream);
	op = calloc(1, sizeof(*op));
	if (!s || !op) {
		free(op);
		record_run(&(struct record_op){ .e = e }.op);
		return sim_ret(s ? hipErrorOutOfMemory : hipErrorInvalidHandle);
	}
	op->op.fn = record_run;
	op->e = e;
	sim_stream_enqueue(s, &op->op);
	return hipSuccess;
}

SIM_API hipError_t hipEventSynchronize(hipEvent_t h)
{
	struct sim_event *e = (struct sim_event *)h;

	sim_init();
	pthread_mutex_lock(&ev_lock);
	if (!e || !event_live(e)) {
		pthread_mutex_unlock(&ev_lock);
		return sim_ret(hipErrorInvalidHandle);
	}
	while (e->recorded && !e->done)
		pthread_cond_wait(&ev_cond, &ev_lock);
	pthread_mutex_unlock(&ev_lock);
	return hipSuccess;
}

SIM_API hipError_t hipEventQuery(hipEvent_t h)
{
	struct sim_event *e = (struct sim_event *)h;
	hipError_t r;

	sim_init();
	pthread_mutex_lock(&ev_lock);
	if (!e || !event_live(e))
		r = hipErrorInvalidHandle;
	else
		r = (e->recorded && !e->done) ? hipErrorNotReady : hipSuccess;
	pthread_mutex_unlock(&ev_lock);
	return sim_ret(r);
}

SIM_API hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b)
{
	struct sim_event *s = (struct sim_event *)a, *t = (struct sim_event *)b;
	hipError_t r = hipSuccess;

	sim_init();
	if (!ms)
		return sim_ret(hipErrorInvalidValue);
	pthread_mutex_lock(&ev_lock);
	if (!s || !t || !event_live(s) || !event_live(t))
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
	return sim_ret(r);
}

struct wait_op {
	struct sim_op op;
	struct sim_event *e;
};

static void wait_run(struct sim_op *op)
{
	struct sim_event *e = ((struct wait_op *)op)->e;

	pthread_mutex_lock(&ev_lock);
	while (event_live(e) && e->recorded && !e->done)
		pthread_cond_wait(&ev_cond, &ev_lock);
	pthread_mutex_unlock(&ev_lock);
}

SIM_API hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t h, unsigned int flags)
{
	struct sim_event *e = (struct sim_event *)h;
	struct sim_stream *s;
	struct wait_op *op;
	bool ok;

	sim_init();
	if (flags)
		return sim_ret(hipErrorInvalidValue);
	pthread_mutex_lock(&ev_lock);
	ok = e && event_live(e);
	pthread_mutex_unlock(&ev_lock);
	s = sim_stream_get(stream);
	if (!ok || !s)
		return sim_ret(hipErrorInvalidHandle);
	op = calloc(1, sizeof(*op));
	if (!op)
		return sim_ret(hipErrorOutOfMemory);
	op->op.fn = wait_run;
	op->e = e;
	sim_stream_enqueue(s, &op->op);
	return hipSuccess;
}
