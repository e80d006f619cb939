/* SPDX-License-Identifier: MIT */
/*
 * report.h - the "hipsvm-report/4" JSON document (docs/report.md).
 *
 * Formatting only: the shim gathers the facts (meta) and the counters, this
 * writes them in the one documented shape, into a caller's buffer, without
 * malloc or stdio (the report can be asked for at any time, also at exit
 * while other threads still run).
 */
#ifndef HIPSVM_REPORT_H
#define HIPSVM_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "shim/policy.h"
#include "shared/proto.h"
#include "shim/stats.h"

#define HIPSVM_REPORT_SCHEMA "hipsvm-report/4"

struct hipsvm_report_meta {
	int pid;
	const char *program;		/* /proc/self/exe */
	/* Where in a job the process ran (schema 4), "" when not known: so
	 * that the reports of many ranks can be put side by side. */
	const char *host;		/* %h */
	const char *rank;		/* %r, "" when no launcher set one */
	const char *rocr_visible;	/* ROCR_VISIBLE_DEVICES as the process got it */
	const char *hip_visible;	/* HIP_VISIBLE_DEVICES */
	uint64_t duration_ns;		/* since the shim started */
	const char *runtime;		/* "sim" | "rocm" | "unknown" */
	const char *policy;		/* the policy text in force */
	const char *hook_path;		/* "" when none */
	const char *hook_state;		/* "connected" | "none" | "error" */
	uint64_t hook_version;
	unsigned ndev;			/* devices to list (at least max_dev_seen) */
	const struct hipsvm_policy *pol;	/* quotas */
	uint64_t trace_lost;		/* trace events no write took (schema 4) */
};

/* The whole document, NUL-terminated. Length, or -ENOSPC (buf then holds a
 * truncated, invalid prefix). */
int hipsvm_report_format(const struct hipsvm_stats *s, const struct hipsvm_report_meta *m,
			 char *buf, size_t cap);

/* Copies the fault counters of a hook "stats" reply (keys g<N>.faults_raised,
 * _handled, _dropped, _real) into s. The number of devices found. */
int hipsvm_report_apply_faults(struct hipsvm_stats *s, const struct hipsvm_reply *r);

/* Writes buf to path through outfile.h (a temporary file beside it, 0600,
 * renamed over it; only an absent path, a link or a regular file of ours is
 * replaced). No malloc, no stdio. 0, or -errno. */
int hipsvm_report_save(const char *path, const char *buf, size_t len);

/* The number of devices the report lists. */
unsigned hipsvm_report_ndev(const struct hipsvm_stats *s, unsigned known);

#endif
