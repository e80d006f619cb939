/* SPDX-License-Identifier: MIT */
/*
 * stream.c - streams. Each stream is a FIFO of operations run by
 * its own worker thread (started on the first operation): the "GPU agent"
 * that performs copies and the page touches of kernel launches in stream
 * order. Every device has a null stream. hipStreamPerThread is, as in ROCm
 * 5.2.3 (hip_stream.cpp, stream_per_thread::get), an ordinary blocking stream
 * of its own per thread and device, made at its first use and destroyed when
 * the thread ends.
 *
 * The null stream synchronises with the device's blocking streams as in
 * ROCm 5.2: work queued on the null stream first waits for what every
 * blocking stream of its device had queued, and work queued on a blocking
 * stream first waits for what the null stream had queued (a barrier
 * operation per stream waited for, taking that stream's count of queued
 * operations at that moment). Synchronising or querying a stream does the
 * same before it waits.
 *
 * Handles are checked against a registry, so a bad or destroyed handle gets
 * an error rather than a crash: hipErrorContextIsDestroyed from the stream
 * calls, as ROCm 5.2 answers for a handle it does not know. Registry and
 * stream locks are leaves: the operations themselves run with no lock held.
 *
 * Priorities are ROCm 5.2's three: -1 (high), 0 (normal), 1 (low); a
 * requested priority is clamped to them.
 */
#include "runtime/state.h"
#include "runtime/stream.h"
#include "runtime/thread.h"
#include "runtime/step.h"

#include <signal.h>
#include <stdlib.h>

struct sim_stream {
	int device;
	unsigned flags;
	int priority;
	bool is_null;
	uint32_t cu_mask[4];		/* hipExtStreamCreateWithCUMask; 0s: none */
	unsigned cu_words;
	pthread_mutex_t lock;
	pthread_cond_t work, idle;
	pthread_cond_t progress;	/* an operation completed; refs dropped */
	uint64_t queued, completed;	/* operations, ever */
	unsigned refs;			/* barriers of other streams waiting on it */
	struct sim_op *head, *tail;
	unsigned pending;		/* queued or running */
	bool started, exiting;
	pthread_t thread;
	hipError_t error;		/* first asynchronous error, reported by a sync */
	uint64_t serial;		/* tells a per-thread stream from its successor */
	struct sim_stream *next;	/* registry */
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_stream *streams;
static struct sim_stream *null_streams[HIPSVM_MAX_GPUS];

/* The calling thread's hipStreamPerThread, per device. A fork child's copy
 * of the parent's belongs to an older generation and is not used. */
struct spt_set {
	uint64_t gen;
	struct sim_stream *s[HIPSVM_MAX_GPUS];
	uint64_t serial[HIPSVM_MAX_GPUS];
};
static uint64_t spt_gen, stream_serial;
static __thread struct spt_set *spt;
static pthread_key_t spt_key;
static pthread_once_t spt_once = PTHREAD_ONCE_INIT;

/* The copy of a stream a fork child inherits: its thread is not there, so
 * nothing runs or holds it; only its memory is left to give back. */
static void stream_abandon(struct sim_stream *s)
{
	struct sim_op *op, *next;

	for (op = s->head; op; op = next) {
		next = op->next;
		free(op);
	}
	free(s);
}

static void streams_reset(void)
{
	struct sim_stream *s, *next;
	unsigned i;

	/* After fork the parent's streams and their threads are gone (in the
	 * first initialisation both lists are empty). */
	pthread_mutex_init(&reg_lock, NULL);
	for (s = streams; s; s = next) {
		next = s->next;
		stream_abandon(s);
	}
	for (i = 0; i < HIPSVM_MAX_GPUS; i++)
		if (null_streams[i])
			stream_abandon(null_streams[i]);
	streams = NULL;
	memset(null_streams, 0, sizeof(null_streams));
	spt_gen++;
}
SIM_STEP(streams, .reset = streams_reset);

static struct sim_stream *stream_new(int dev, unsigned flags, int prio, bool is_null)
{
	struct sim_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->device = dev;
	s->flags = flags;
	s->priority = prio;
	s->is_null = is_null;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->idle, NULL);
	pthread_cond_init(&s->progress, NULL);
	return s;
}

static void stream_free(struct sim_stream *s);

/* Takes s out of the registry if it is still there as that serial
 * (hipDeviceReset may have destroyed it, and its memory be another
 * stream's since). */
static bool stream_unlink(struct sim_stream *s, uint64_t serial)
{
	struct sim_stream **pp;
	bool found;

	pthread_mutex_lock(&reg_lock);
	for (pp = &streams; *pp && *pp != s; pp = &(*pp)->next)
		;
	found = *pp && (*pp)->serial == serial;
	if (found)
		*pp = s->next;
	pthread_mutex_unlock(&reg_lock);
	return found;
}

static bool stream_live(struct sim_stream *s, uint64_t serial)
{
	struct sim_stream *it;

	pthread_mutex_lock(&reg_lock);
	for (it = streams; it && it != s; it = it->next)
		;
	pthread_mutex_unlock(&reg_lock);
	return it && it->serial == serial;
}

/* Thread exit: the thread's per-thread streams go, their work done first
 * (stream_free), as ROCm's thread_local destructor deletes them. */
static void spt_destroy(void *p)
{
	struct spt_set *set = p;
	unsigned i;

	if (set->gen == __atomic_load_n(&spt_gen, __ATOMIC_RELAXED)) {
		for (i = 0; i < HIPSVM_MAX_GPUS; i++) {
			if (set->s[i] && stream_unlink(set->s[i], set->serial[i]))
				stream_free(set->s[i]);
		}
	}
	free(set);
}

static void spt_key_make(void)
{
	pthread_key_create(&spt_key, spt_destroy);
}

static struct sim_stream *spt_stream(int dev)
{
	struct sim_stream *s;

	if (!sim_gpu(dev))
		return NULL;
	if (spt && spt->gen != __atomic_load_n(&spt_gen, __ATOMIC_RELAXED)) {
		free(spt);	/* a fork child's copy: those streams are gone */
		spt = NULL;
	}
	if (!spt) {
		pthread_once(&spt_once, spt_key_make);
		spt = calloc(1, sizeof(*spt));
		if (!spt)
			return NULL;
		spt->gen = __atomic_load_n(&spt_gen, __ATOMIC_RELAXED);
		pthread_setspecific(spt_key, spt);
	}
	if (!spt->s[dev] || !stream_live(spt->s[dev], spt->serial[dev])) {
		s = stream_new(dev, hipStreamDefault, 0, false);
		if (!s)
			return NULL;
		pthread_mutex_lock(&reg_lock);
		s->serial = ++stream_serial;
		s->next = streams;
		streams = s;
		pthread_mutex_unlock(&reg_lock);
		spt->s[dev] = s;
		spt->serial[dev] = s->serial;
	}
	return spt->s[dev];
}

/* dev's null stream, made at its first use; caller holds reg_lock. */
static struct sim_stream *null_stream_locked(int dev)
{
	if (!sim_gpu(dev))
		return NULL;
	if (!null_streams[dev])
		null_streams[dev] = stream_new(dev, 0, 0, true);
	return null_streams[dev];
}

struct sim_stream *sim_null_stream(int dev)
{
	struct sim_stream *s;

	pthread_mutex_lock(&reg_lock);
	s = null_stream_locked(dev);
	pthread_mutex_unlock(&reg_lock);
	return s;
}

struct sim_stream *sim_stream_get(hipStream_t h)
{
	struct sim_stream *s = (struct sim_stream *)h, *it;
	int dev = sim_current_device();

	if (h == hipStreamPerThread)
		return spt_stream(dev);
	pthread_mutex_lock(&reg_lock);
	if (!h) {
		s = null_stream_locked(dev);
	} else {
		for (it = streams; it && it != s; it = it->next)
			;
		s = it;
	}
	pthread_mutex_unlock(&reg_lock);
	return s;
}

struct sim_stream *sim_stream_lookup(hipStream_t h, bool *destroyed)
{
	struct sim_stream *s = sim_stream_get(h);

	*destroyed = !s && h && h != hipStreamPerThread;
	return s;
}

unsigned sim_stream_flags(const struct sim_stream *s)
{
	return s->flags;
}

int sim_device_active(int dev)
{
	struct sim_stream *s;
	int active;

	pthread_mutex_lock(&reg_lock);
	active = dev >= 0 && dev < HIPSVM_MAX_GPUS && null_streams[dev] != NULL;
	for (s = streams; s && !active; s = s->next)
		active = s->device == dev;
	pthread_mutex_unlock(&reg_lock);
	return active;
}

void sim_stream_set_cu_mask(struct sim_stream *s, const uint32_t *mask, unsigned words)
{
	if (words > 4)
		words = 4;
	memcpy(s->cu_mask, mask, words * sizeof(uint32_t));
	s->cu_words = words;
}

unsigned sim_stream_cu_mask(const struct sim_stream *s, uint32_t *mask)
{
	memcpy(mask, s->cu_mask, sizeof(s->cu_mask));
	return s->cu_words;
}

int sim_stream_device(const struct sim_stream *s)
{
	return s->device;
}

void sim_stream_set_error(struct sim_stream *s, hipError_t e)
{
	pthread_mutex_lock(&s->lock);
	if (s->error == hipSuccess)
		s->error = e;
	pthread_mutex_unlock(&s->lock);
}

static void *worker_main(void *arg)
{
	struct sim_stream *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct sim_op *op;

		while (!s->head && !s->exiting)
			pthread_cond_wait(&s->work, &s->lock);
		if (!s->head)
			break;
		op = s->head;
		s->head = op->next;
		if (!s->head)
			s->tail = NULL;
		pthread_mutex_unlock(&s->lock);
		op->fn(op);
		free(op);
		pthread_mutex_lock(&s->lock);
		s->completed++;
		pthread_cond_broadcast(&s->progress);
		if (--s->pending == 0)
			pthread_cond_broadcast(&s->idle);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct sim_op *sim_stream_peek(struct sim_stream *s)
{
	struct sim_op *op;

	pthread_mutex_lock(&s->lock);
	op = s->head;
	pthread_mutex_unlock(&s->lock);
	return op;
}

static void enqueue_one(struct sim_stream *s, struct sim_op *op)
{
	op->next = NULL;
	pthread_mutex_lock(&s->lock);
	if (!s->started)
		s->started = sim_thread_start(&s->thread, worker_main, s, "hipsvm-stream") == 0;
	if (!s->started) {
		/* no thread: run inline rather than lose the work */
		s->queued++;
		pthread_mutex_unlock(&s->lock);
		op->fn(op);
		free(op);
		pthread_mutex_lock(&s->lock);
		s->completed++;
		pthread_cond_broadcast(&s->progress);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	s->pending++;
	s->queued++;
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->lock);
}


struct barrier_op {
	struct sim_op op;
	struct sim_stream *other;
	uint64_t upto;
};

/* Waits until `other` has completed its first `upto` operations; holds a
 * reference on it meanwhile (stream_free waits for those). */
static void barrier_run(struct sim_op *op)
{
	struct barrier_op *b = (struct barrier_op *)op;
	struct sim_stream *o = b->other;

	pthread_mutex_lock(&o->lock);
	while (o->completed < b->upto)
		pthread_cond_wait(&o->progress, &o->lock);
	o->refs--;
	pthread_cond_broadcast(&o->progress);
	pthread_mutex_unlock(&o->lock);
}

/* Takes a barrier on o when o has work outstanding; caller holds reg_lock. */
static struct barrier_op *barrier_on(struct sim_stream *o)
{
	struct barrier_op *b = NULL;

	pthread_mutex_lock(&o->lock);
	if (o->completed < o->queued && (b = calloc(1, sizeof(*b)))) {
		b->op.fn = barrier_run;
		b->other = o;
		b->upto = o->queued;
		o->refs++;
	}
	pthread_mutex_unlock(&o->lock);
	return b;
}

/* The null stream / blocking streams rule (top of file): queues on s the
 * barriers that work queued on s now must wait behind. */
static void fence(struct sim_stream *s)
{
	struct barrier_op **list = NULL, *b;
	struct sim_stream *t;
	size_t n = 0, cap = 0, i;

	if (s->flags & hipStreamNonBlocking)
		return;
	pthread_mutex_lock(&reg_lock);
	if (s->is_null) {
		for (t = streams; t; t = t->next)
			cap++;
		list = cap ? malloc(cap * sizeof(*list)) : NULL;
		for (t = streams; t && list; t = t->next)
			if (t->device == s->device && !(t->flags & hipStreamNonBlocking) &&
			    (b = barrier_on(t)))
				list[n++] = b;
	} else if (null_streams[s->device]) {
		list = malloc(sizeof(*list));
		if (list && (b = barrier_on(null_streams[s->device])))
			list[n++] = b;
	}
	pthread_mutex_unlock(&reg_lock);
	/* Without memory for the list the order is lost, not the work. */
	for (i = 0; i < n; i++)
		enqueue_one(s, &list[i]->op);
	free(list);
}

void sim_stream_enqueue(struct sim_stream *s, struct sim_op *op)
{
	fence(s);
	enqueue_one(s, op);
}

/* A barrier on everything o has queued so far, queued on s. */
static void order_behind(struct sim_stream *s, struct sim_stream *o)
{
	struct barrier_op *b;

	pthread_mutex_lock(&reg_lock);
	b = barrier_on(o);
	pthread_mutex_unlock(&reg_lock);
	if (b)
		enqueue_one(s, &b->op);
}

void sim_stream_enqueue_via(struct sim_stream *s, struct sim_stream *via, struct sim_op *op)
{
	if (via == s) {
		sim_stream_enqueue(s, op);
		return;
	}
	fence(via);
	order_behind(via, s);
	enqueue_one(via, op);
	/* Anything queued on via meanwhile is waited for too: a later
	 * barrier, never one that could wait for s in turn (its count of s
	 * was taken before this one was queued on s). */
	order_behind(s, via);
}

hipError_t sim_stream_sync(struct sim_stream *s)
{
	fence(s);
	return sim_stream_wait(s);
}

void sim_stream_drain(struct sim_stream *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->pending)
		pthread_cond_wait(&s->idle, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

hipError_t sim_stream_wait(struct sim_stream *s)
{
	hipError_t e;

	pthread_mutex_lock(&s->lock);
	while (s->pending)
		pthread_cond_wait(&s->idle, &s->lock);
	e = s->error;
	s->error = hipSuccess;
	pthread_mutex_unlock(&s->lock);
	return e;
}

static bool stream_busy(struct sim_stream *s)
{
	bool busy;

	pthread_mutex_lock(&s->lock);
	busy = s->pending != 0;
	pthread_mutex_unlock(&s->lock);
	return busy;
}

/* A reference that keeps s from being freed (stream_free waits for refs). */
static void stream_hold(struct sim_stream *s)
{
	pthread_mutex_lock(&s->lock);
	s->refs++;
	pthread_mutex_unlock(&s->lock);
}

static void stream_release(struct sim_stream *s)
{
	pthread_mutex_lock(&s->lock);
	s->refs--;
	pthread_cond_broadcast(&s->progress);
	pthread_mutex_unlock(&s->lock);
}

hipError_t sim_device_sync(int dev)
{
	hipError_t e = hipSuccess, e2;
	struct sim_stream *s, **held = NULL;
	unsigned i, n = 0, cap = HIPSVM_MAX_GPUS;

	/*
	 * The device's streams are held (a reference each, so that none is
	 * freed under us) and waited for without the registry lock: launches
	 * take it (sim_stream_get), and a kernel being waited for may wait in
	 * turn for one that another thread has yet to launch, on this device
	 * or another (hip-tests' Unit_threadfence_system: one kernel a GPU,
	 * each launched and synchronised by its own thread, passing a flag
	 * round). Only when the list cannot be allocated is the lock held
	 * throughout, as before.
	 */
	pthread_mutex_lock(&reg_lock);
	for (s = streams; s; s = s->next)
		cap++;
	held = malloc(cap * sizeof(*held));
	for (s = streams; s; s = s->next)
		if (dev < 0 || s->device == dev) {
			if (!held) {
				if ((e2 = sim_stream_wait(s)) != hipSuccess && e == hipSuccess)
					e = e2;
				continue;
			}
			stream_hold(s);
			held[n++] = s;
		}
	for (i = 0; i < HIPSVM_MAX_GPUS; i++)
		if (null_streams[i] && (dev < 0 || (int)i == dev)) {
			if (!held) {
				if ((e2 = sim_stream_wait(null_streams[i])) != hipSuccess &&
				    e == hipSuccess)
					e = e2;
				continue;
			}
			stream_hold(null_streams[i]);
			held[n++] = null_streams[i];
		}
	pthread_mutex_unlock(&reg_lock);
	for (i = 0; i < n; i++) {
		if ((e2 = sim_stream_wait(held[i])) != hipSuccess && e == hipSuccess)
			e = e2;
		stream_release(held[i]);
	}
	free(held);
	return e;
}

hipError_t sim_stream_create(hipStream_t *out, unsigned flags, int prio)
{
	struct sim_stream *s;

	sim_init();
	if (!out || (flags != hipStreamDefault && flags != hipStreamNonBlocking))
		return hipErrorInvalidValue;
	if (!sim.ngpu)
		return hipErrorNoDevice;
	s = stream_new(sim_current_device(), flags, prio, false);
	if (!s)
		return hipErrorOutOfMemory;
	pthread_mutex_lock(&reg_lock);
	s->serial = ++stream_serial;
	s->next = streams;
	streams = s;
	pthread_mutex_unlock(&reg_lock);
	*out = (hipStream_t)s;
	return hipSuccess;
}

static void stream_free(struct sim_stream *s)
{
	/* Pending work completes first, as on a GPU. */
	sim_stream_wait(s);
	pthread_mutex_lock(&s->lock);
	s->exiting = true;
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->lock);
	if (s->started)
		pthread_join(s->thread, NULL);
	/* barriers of other streams may still look at it */
	pthread_mutex_lock(&s->lock);
	while (s->refs)
		pthread_cond_wait(&s->progress, &s->lock);
	pthread_mutex_unlock(&s->lock);
	free(s);
}

void sim_streams_destroy_device(int dev)
{
	struct sim_stream **pp, *s, *gone = NULL;

	pthread_mutex_lock(&reg_lock);
	for (pp = &streams; (s = *pp);) {
		if (s->device == dev) {
			*pp = s->next;
			s->next = gone;
			gone = s;
		} else {
			pp = &s->next;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	while ((s = gone)) {
		gone = s->next;
		stream_free(s);
	}
}

bool sim_stream_destroy(hipStream_t h)
{
	struct sim_stream *s = (struct sim_stream *)h, **pp;
	bool found = false;

	pthread_mutex_lock(&reg_lock);
	for (pp = &streams; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	if (found)
		stream_free(s);
	return found;
}

hipError_t sim_stream_query(struct sim_stream *s)
{
	fence(s);
	return stream_busy(s) ? hipErrorNotReady : hipSuccess;
}

int sim_stream_priority(const struct sim_stream *s)
{
	return s->priority;
}

/* The null stream's implicit barrier (memcpy.c: a synchronous copy or fill
 * on the null stream first waits for every blocking stream of its device,
 * as ROCm's null stream does). Waits without taking the streams' errors,
 * which belong to their own synchronisation. */
void sim_stream_wait_blocking(int dev)
{
	struct sim_stream *s;

	pthread_mutex_lock(&reg_lock);
	for (s = streams; s; s = s->next) {
		if (s->device != dev || (s->flags & hipStreamNonBlocking))
			continue;
		pthread_mutex_lock(&s->lock);
		while (s->pending)
			pthread_cond_wait(&s->idle, &s->lock);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&reg_lock);
}
