/* SPDX-License-Identifier: MIT */
/*
 * callback.c - stream operations beyond copies and launches: host callbacks,
 * memory waits and writes (hipStreamWaitValue / WriteValue), CU masks, the
 * per-thread-stream (_spt) entry points, and hipGetStreamDeviceId.
 *
 * A callback or a wait runs on the stream's worker in stream order, so the
 * work queued after it waits for it, as ROCm's blocking marker makes it.
 * Waits poll the word (a GPU's wait packet polls memory too); a wait that
 * nobody satisfies blocks its stream for good, as on a GPU.
 */
#include "api/api.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>
#include <time.h>

#define MI210_CUS 104

/* ---- callbacks ---- */

struct cb_op {
	struct sim_op op;
	hipStream_t handle;
	hipStreamCallback_t fn;
	void *arg;
};

static void cb_run(struct sim_op *op)
{
	struct cb_op *c = (struct cb_op *)op;

	c->fn(c->handle, hipSuccess, c->arg);
}

SIM_API hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t fn, void *arg,
					unsigned int flags)
{
	struct sim_stream *s;
	struct cb_op *c;
	bool gone;

	SIM_INIT_API();
	if (!fn || flags != 0)
		SIM_RETURN(hipErrorInvalidValue);
	s = sim_stream_lookup(stream, &gone);
	if (!s)
		SIM_RETURN(gone ? hipErrorContextIsDestroyed : hipErrorNoDevice);
	c = calloc(1, sizeof(*c));
	if (!c)
		SIM_RETURN(hipErrorOutOfMemory);
	c->op.fn = cb_run;
	c->handle = stream;
	c->fn = fn;
	c->arg = arg;
	sim_stream_enqueue(s, &c->op);
	return hipSuccess;
}

/* ---- wait / write value ---- */

struct value_op {
	struct sim_op op;
	void *ptr;
	uint64_t value, mask;
	unsigned flags;
	unsigned size;		/* 4 or 8 */
	bool write;
};

static uint64_t load(const struct value_op *v)
{
	if (v->size == 4)
		return __atomic_load_n((const uint32_t *)v->ptr, __ATOMIC_ACQUIRE);
	return __atomic_load_n((const uint64_t *)v->ptr, __ATOMIC_ACQUIRE);
}

/* The condition of each wait flag, on the masked word. */
static bool satisfied(const struct value_op *v)
{
	uint64_t x = load(v) & v->mask;

	switch (v->flags) {
	case hipStreamWaitValueEq: return x == (v->value & v->mask);
	case hipStreamWaitValueAnd: return (x & v->value) != 0;
	case hipStreamWaitValueNor: return ~(x | (v->value & v->mask)) != 0;
	default: return x >= (v->value & v->mask);	/* Gte */
	}
}

static void value_run(struct sim_op *op)
{
	struct value_op *v = (struct value_op *)op;
	struct timespec ts = { 0, 20000 };

	if (v->write) {
		if (v->size == 4)
			__atomic_store_n((uint32_t *)v->ptr, (uint32_t)v->value, __ATOMIC_RELEASE);
		else
			__atomic_store_n((uint64_t *)v->ptr, v->value, __ATOMIC_RELEASE);
		return;
	}
	while (!satisfied(v))
		nanosleep(&ts, NULL);
}

/* ROCm: the word must be in memory the runtime knows (an allocation or a
 * registered range), else hipErrorInvalidValue. An unknown wait flag falls
 * back to "greater or equal", as ROCm's release build does. */
static hipError_t value_op(hipStream_t stream, void *ptr, uint64_t value, uint64_t mask,
			   unsigned flags, unsigned size, bool write)
{
	struct sim_alloc a;
	struct sim_stream *s;
	struct value_op *v;
	bool gone;

	SIM_INIT_API();
	if (!ptr || !sim_lookup(ptr, &a) || (uintptr_t)ptr + size > a.base + a.size)
		return hipErrorInvalidValue;
	if ((uintptr_t)ptr % size)
		return hipErrorInvalidValue;
	s = sim_stream_lookup(stream, &gone);
	if (!s)
		return gone ? hipErrorContextIsDestroyed : hipErrorNoDevice;
	v = calloc(1, sizeof(*v));
	if (!v)
		return hipErrorOutOfMemory;
	v->op.fn = value_run;
	v->ptr = ptr;
	v->value = value;
	v->mask = mask;
	v->flags = flags;
	v->size = size;
	v->write = write;
	sim_stream_enqueue(s, &v->op);
	return hipSuccess;
}

SIM_API hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value,
					unsigned int flags, uint32_t mask)
{
	SIM_RETURN(value_op(stream, ptr, value, mask, flags, 4, false));
}

SIM_API hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value,
					unsigned int flags, uint64_t mask)
{
	SIM_RETURN(value_op(stream, ptr, value, mask, flags, 8, false));
}

SIM_API hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value,
					 unsigned int flags)
{
	(void)flags;
	SIM_RETURN(value_op(stream, ptr, value, ~0ull, 0, 4, true));
}

SIM_API hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value,
					 unsigned int flags)
{
	(void)flags;
	SIM_RETURN(value_op(stream, ptr, value, ~0ull, 0, 8, true));
}

/* ---- CU masks: recorded, answered back ANDed with the device's CUs ---- */

SIM_API hipError_t hipExtStreamCreateWithCUMask(hipStream_t *stream, uint32_t words,
						const uint32_t *mask)
{
	hipError_t r;

	SIM_INIT_API();
	if (!stream)
		SIM_RETURN(hipErrorInvalidHandle);
	if (words == 0 || !mask)
		SIM_RETURN(hipErrorInvalidValue);
	r = sim_stream_create(stream, hipStreamDefault, 0);
	if (r == hipSuccess)
		sim_stream_set_cu_mask(sim_stream_get(*stream), mask, words);
	SIM_RETURN(r);
}

SIM_API hipError_t hipExtStreamGetCUMask(hipStream_t stream, uint32_t words, uint32_t *mask)
{
	const uint32_t need = (MI210_CUS + 31) / 32;
	uint32_t def[4] = { 0 }, own[4] = { 0 }, out[4];
	unsigned i, n = 0;
	bool zero = true;
	struct sim_stream *s;
	bool gone;

	SIM_INIT_API();
	if (!mask)
		SIM_RETURN(hipErrorInvalidValue);
	if (words < need)
		SIM_RETURN(hipErrorInvalidValue);
	for (i = 0; i < MI210_CUS; i++)
		def[i / 32] |= 1u << (i % 32);
	memcpy(out, def, sizeof(out));
	if (stream && stream != hipStreamPerThread) {
		s = sim_stream_lookup(stream, &gone);
		if (!s)
			SIM_RETURN(hipErrorContextIsDestroyed);
		n = sim_stream_cu_mask(s, own);
		for (i = 0; i < n && i < need; i++) {
			out[i] = own[i] & def[i];
			zero &= out[i] == 0;
		}
		/* an empty intersection (or no mask) reads as the default */
		if (zero)
			memcpy(out, def, sizeof(out));
	}
	memcpy(mask, out, need * sizeof(uint32_t));
	return hipSuccess;
}

/* ---- per-thread default stream entry points: a NULL stream means
 * hipStreamPerThread (here the current device's null stream) ---- */

#define SPT(s) ((s) ? (s) : hipStreamPerThread)

SIM_API hipError_t hipStreamQuery_spt(hipStream_t s)
{
	return hipStreamQuery(SPT(s));
}

SIM_API hipError_t hipStreamSynchronize_spt(hipStream_t s)
{
	return hipStreamSynchronize(SPT(s));
}

SIM_API hipError_t hipStreamGetPriority_spt(hipStream_t s, int *prio)
{
	return hipStreamGetPriority(SPT(s), prio);
}

SIM_API hipError_t hipStreamWaitEvent_spt(hipStream_t s, hipEvent_t e, unsigned int flags)
{
	return hipStreamWaitEvent(SPT(s), e, flags);
}

SIM_API hipError_t hipStreamGetFlags_spt(hipStream_t s, unsigned int *flags)
{
	return hipStreamGetFlags(SPT(s), flags);
}

/* -1 for a handle that is not a stream, as ROCm. */
SIM_API int hipGetStreamDeviceId(hipStream_t stream)
{
	struct sim_stream *s;
	bool gone;

	SIM_INIT_API();
	s = sim_stream_lookup(stream, &gone);
	return s ? sim_stream_device(s) : -1;
}
