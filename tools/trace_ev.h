/* SPDX-License-Identifier: MIT */
/*
 * trace_ev.h - one raw trace event (docs/trace.md) as perfetto.c uses it.
 */
#ifndef HIPSVM_TOOLS_TRACE_EV_H
#define HIPSVM_TOOLS_TRACE_EV_H

#include "cli.h"
#include "shared/proto.h"

#include <stddef.h>

/* GPUs a trace can name: the protocol's GPU sets are 64-bit masks */
#define MAX_DEV HIPSVM_MAX_GPUS

enum ev_kind { EV_ALLOC, EV_FREE, EV_UNMAP, EV_CP_SET, EV_CP_CLEAR, EV_DRAIN, EV_FAULTS };

struct ev {
	enum ev_kind kind;
	uint64_t ts, ptr, size, dur;
	uint64_t raised, handled, dropped, real;
	int dev;		/* -1 when absent */
	int ctx;		/* -1 host_context, N device:N, -2 unknown */
	bool coordinated;
	char api[32], route[24], result[16], cp[24];
	/* filled while pairing */
	uint64_t end;		/* alloc: the free's ts (or the trace end) */
	bool closed;		/* alloc: freed; free: matched */
	int lane;
	size_t match;		/* free: index of its alloc */
	ptrdiff_t prev_open;	/* alloc: older open alloc at the same address, or -1 */
	size_t seq;		/* line order, to keep qsort stable */
};

/* Every line of path that is an event, sorted by time (stable); malformed
 * lines counted in st->bad_lines, unknown kinds skipped. -errno with a message. */
int trace_read_events(const char *path, struct ev **out, size_t *nout, struct trace_stats *st,
		      char *err, size_t errcap);
void trace_copy_str(char *dst, size_t cap, const char *s);

#endif
