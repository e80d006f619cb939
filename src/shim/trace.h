/* SPDX-License-Identifier: MIT */
/*
 * trace.h - HIPSVM_TRACE events (one JSON object per line; docs/report.md)
 * and the small bounded JSON writer that the report uses too.
 *
 * Everything here is async-signal-safe: no malloc, no stdio, no locale, and
 * each event goes out with exactly one write() so that lines from several
 * threads (and signal handlers) never interleave inside a line.
 */
#ifndef HIPSVM_TRACE_H
#define HIPSVM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A bounded JSON writer. Overflow is sticky; _end reports it. Commas between
 * members and elements are written by the _k* and _elem helpers. */
struct hipsvm_jw {
	char *buf;
	size_t cap, len;
	bool overflow;
	char last;		/* last character written, even past cap */
};

void hipsvm_jw_init(struct hipsvm_jw *w, char *buf, size_t cap);
void hipsvm_jw_raw(struct hipsvm_jw *w, const char *s);
void hipsvm_jw_str(struct hipsvm_jw *w, const char *s);	/* quoted, escaped */
void hipsvm_jw_u64(struct hipsvm_jw *w, uint64_t v);
void hipsvm_jw_hex(struct hipsvm_jw *w, uint64_t v);	/* "0x..." as a string */
void hipsvm_jw_sep(struct hipsvm_jw *w);	/* "," unless right after "{" or "[" */
void hipsvm_jw_key(struct hipsvm_jw *w, const char *key);	/* [,]"key": */
void hipsvm_jw_ku64(struct hipsvm_jw *w, const char *key, uint64_t v);
void hipsvm_jw_kstr(struct hipsvm_jw *w, const char *key, const char *s);
/* NUL-terminates; the length, or -ENOSPC on overflow. */
int hipsvm_jw_end(struct hipsvm_jw *w);

enum hipsvm_tf_type { HIPSVM_TF_U64, HIPSVM_TF_I64, HIPSVM_TF_HEX, HIPSVM_TF_STR, HIPSVM_TF_BOOL };

struct hipsvm_tfield {
	const char *key;
	enum hipsvm_tf_type type;
	union {
		uint64_t u;
		int64_t i;
		const char *s;
	} v;
};

#define HIPSVM_TF_U(k, x) { (k), HIPSVM_TF_U64, { .u = (uint64_t)(x) } }
#define HIPSVM_TF_I(k, x) { (k), HIPSVM_TF_I64, { .i = (int64_t)(x) } }
#define HIPSVM_TF_X(k, x) { (k), HIPSVM_TF_HEX, { .u = (uint64_t)(x) } }
#define HIPSVM_TF_S(k, x) { (k), HIPSVM_TF_STR, { .s = (x) } }
#define HIPSVM_TF_B(k, x) { (k), HIPSVM_TF_BOOL, { .u = (x) ? 1 : 0 } }

#define HIPSVM_TRACE_LINE_MAX 512

/* {"ts_ns":N,"ev":"name",<fields>}\n into buf. Length, or -ENOSPC. */
int hipsvm_trace_format(char *buf, size_t cap, uint64_t ts_ns, const char *ev,
			const struct hipsvm_tfield *f, unsigned n);

/* Formats with the CLOCK_MONOTONIC time and writes one line to fd with a
 * single write(). 0 or -errno; errno is preserved. fd < 0 is a no-op. */
int hipsvm_trace_emit(int fd, const char *ev, const struct hipsvm_tfield *f, unsigned n);
/* The events emit could not write in this process (a full disk: ENOSPC),
 * and the first such errno in *first_err (0 when none). Reset in a forked
 * child whose trace is a file of its own. */
uint64_t hipsvm_trace_lost(int *first_err);
void hipsvm_trace_lost_reset(void);

#include "shim/clock.h"	/* hipsvm_now_ns(): the timestamps of the events */

/* trace_faults.c: asks the hook h for the fault counters (raised, handled,
 * dropped, real) of the GPUs in gpus and writes one "faults" line for each
 * to fd. With last (HIPSVM_MAX_GPUS rows), a GPU whose counters equal its
 * row is not written and the rows are updated: a periodic sampler writes
 * only changes. Uses h like any request (one at a time per hook); about 7
 * KiB of stack, no malloc. 0, or -errno of the request or the write. */
struct hipsvm_hook;
#define HIPSVM_TRACE_FAULT_KINDS 4
int hipsvm_trace_faults(int fd, struct hipsvm_hook *h, uint64_t gpus,
			uint64_t (*last)[HIPSVM_TRACE_FAULT_KINDS]);

/* Opens the trace file for appending, never through a link at its last
 * component (O_NOFOLLOW) and never into anything but a regular file owned by
 * our effective uid (a FIFO or a device is not waited on: O_NONBLOCK). New
 * files get mode 0600; the descriptor is above 2. The descriptor, or -errno: -ELOOP a link, -EPERM
 * another user's file, -EINVAL not a regular file. */
int hipsvm_trace_open(const char *path);

#endif
