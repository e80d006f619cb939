/* SPDX-License-Identifier: MIT */
/*
 * context_test.h - the parts of ROCclr's context model (context.h) that only
 * tests call: the simulator's contexts live as long as the process, so it
 * never counts references, and it finds a null stream its own way
 * (sim/runtime/stream.c). Kept to pin down how ROCclr behaves.
 */
#ifndef HIPSVM_CONTEXT_TEST_H
#define HIPSVM_CONTEXT_TEST_H

#include <stdint.h>

#include "simcore/ctx_model.h"

void hipsvm_ctx_retain(struct hipsvm_context *c);
/* Returns the count left; at 0 the context is dead (its owner frees it).
 * Never goes below zero. */
uint32_t hipsvm_ctx_release(struct hipsvm_context *c);

/* The device whose null stream getNullStream(ctx) returns: the device of a
 * primary context; the current device for host_context; -1 otherwise. */
int hipsvm_ctx_null_stream_dev(const struct hipsvm_context *c, int current_dev);

#endif
