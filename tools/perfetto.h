/* SPDX-License-Identifier: MIT */
/*
 * perfetto.h - what perfetto.c (allocations, counters, the whole file) and
 * perfetto_gpu.c (the GPU tracks) share: the thread ids of the tracks and
 * the writer of one Chrome-trace event.
 */
#ifndef HIPSVM_TOOLS_PERFETTO_H
#define HIPSVM_TOOLS_PERFETTO_H

#include "trace_ev.h"

#define MAX_LANES 64
#define TID_UNMAPS 50
#define TID_GPU(n) (100 + (n))
#define TID_HOST(lane) (1000 + (lane))
#define TID_DEVMEM(n, lane) (10000 + (n) * 1000 + (lane))
#define TID_GPULANE(n, lane) (200000 + (n) * 1000 + (lane))

struct out {
	FILE *f;
	uint64_t t0;
	int pid;
	bool first;
};

/* ,"key":<ns - t0 in us, 3 decimals> */
void pf_ts(struct out *o, const char *key, uint64_t ns);
/* ,"dur":<ns in us> */
void pf_dur(struct out *o, uint64_t ns);
/* Opens one event: {"ph":..,"cat":..,"pid":..,"tid":..,"name":..  (the
 * caller adds members and the closing brace). Every event has a "cat":
 * some parsers of the format require it. */
void pf_begin(struct out *o, const char *ph, const char *cat, const char *name, int tid);
/* A track's name and its place in the list. */
void pf_thread_meta(struct out *o, int tid, const char *name, int sort);

/* perfetto_gpu.c: per GPU, checkpoint windows and drains on lanes, the fault
 * counters, and the unmaps' instants. lanes[d]: lanes GPU d used; undrawn:
 * slices past the last lane. */
void pf_emit_gpu(struct out *o, struct ev *ev, size_t n, uint64_t t_end, int *lanes,
		 size_t *undrawn);

#endif
