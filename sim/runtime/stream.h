/* SPDX-License-Identifier: MIT */
/*
 * stream.h - the stream engine (stream.c): queues, their barriers, waits.
 */
#ifndef HIPSVM_SIM_RUNTIME_STREAM_H
#define HIPSVM_SIM_RUNTIME_STREAM_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

struct sim_stream;
struct sim_op {
	void (*fn)(struct sim_op *op);
	struct sim_op *next;
};
/* NULL stream = the current device's null stream; NULL if the handle is bad. */
struct sim_stream *sim_stream_get(hipStream_t s);
int sim_stream_device(const struct sim_stream *s);
/* Queues op (owned by the stream, freed with free() after fn), behind the
 * null-stream / blocking-stream barriers (stream.c). Takes the registry
 * lock: not with it held. */
void sim_stream_enqueue(struct sim_stream *s, struct sim_op *op);
/* The op s runs next (its queue's head), or NULL. Valid until s's worker
 * takes it: for that worker, or for a thread it waits for. */
struct sim_op *sim_stream_peek(struct sim_stream *s);
/* ROCm 5.2.3's route for a copy whose memory is another device's
 * (hip_memory.cpp ihipMemcpyCommand, ihipMemcpy): op goes on via (that
 * device's null stream, behind its barriers) after all that s has queued,
 * and s waits for it. via == s: sim_stream_enqueue. */
void sim_stream_enqueue_via(struct sim_stream *s, struct sim_stream *via, struct sim_op *op);
/* dev's null stream (made at its first use); NULL for no such GPU. */
struct sim_stream *sim_null_stream(int dev);
hipError_t sim_stream_wait(struct sim_stream *s);	/* s's own queue only */
/* Waits until s's own queue is empty, leaving its error alone (a command
 * awaited by the runtime itself, not a synchronisation the caller asked
 * for). */
void sim_stream_drain(struct sim_stream *s);
/* What a synchronous operation on s waits for, as in ROCm 5.2: s's queue,
 * and before that, for the null stream, the device's blocking streams (for
 * a blocking stream, the null stream). Takes the registry lock: not with
 * it held. Returns and clears s's first asynchronous error. */
hipError_t sim_stream_sync(struct sim_stream *s);
hipError_t sim_device_sync(int dev);	/* -1: every device */
void sim_stream_set_error(struct sim_stream *s, hipError_t e);
/* Waits until every blocking stream of dev is idle (the null stream's
 * barrier), leaving their errors alone. */
void sim_stream_wait_blocking(int dev);

/* Does dev have a stream (its null stream included)? ROCm's "active". */
int sim_device_active(int dev);
/* hipDeviceReset: destroys dev's streams (not its null stream). */
void sim_streams_destroy_device(int dev);
/* The stream for a handle as ROCm resolves it: NULL and hipStreamPerThread
 * name the current device's null stream; *destroyed tells a handle that is
 * not (or no longer) a stream. */
struct sim_stream *sim_stream_lookup(hipStream_t h, bool *destroyed);
unsigned sim_stream_flags(const struct sim_stream *s);
int sim_stream_priority(const struct sim_stream *s);
/* hipErrorNotReady while s (or, for the null stream, a blocking stream it
 * waits for) has work queued; hipSuccess when idle. */
hipError_t sim_stream_query(struct sim_stream *s);
/* Unregisters the stream of handle h and frees it once its pending work is
 * done; false when h is not (or no longer) a stream. */
bool sim_stream_destroy(hipStream_t h);
/* hipStreamCreateWithFlags' checks and creation (not recorded). */
hipError_t sim_stream_create(hipStream_t *out, unsigned flags, int prio);
/* The CU mask a stream was created with (at most 4 words); words kept. */
void sim_stream_set_cu_mask(struct sim_stream *s, const uint32_t *mask, unsigned words);
unsigned sim_stream_cu_mask(const struct sim_stream *s, uint32_t *mask);

#endif
