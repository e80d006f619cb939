/* SPDX-License-Identifier: MIT */
/*
 * job.h - hipsvm report over many reports: the job view (docs/report.md,
 * "The job report"). job.c reads and checks the reports and reduces each to
 * one row; job_out.c writes the rows as text, JSON or CSV; job_html.c as a
 * page with a chart per measure.
 */
#ifndef HIPSVM_TOOLS_JOB_H
#define HIPSVM_TOOLS_JOB_H

#include "cli.h"

/* The measures of a rank, each a column, a line of the summary and a chart. */
enum job_metric {
	JM_PEAK,	/* the largest peak_bytes of one of its contexts */
	JM_COORD,	/* unmaps.coordinated */
	JM_UNCOORD,	/* unmaps.uncoordinated */
	JM_DROPPED,	/* faults dropped, over its GPUs */
	JM_DRAINS,	/* drains, over its GPUs */
	JM_DRAIN_MAX,	/* the longest drain of any of its GPUs, ns */
	JM_DRAIN_TOTAL,	/* drain time, over its GPUs, ns */
	JM_DURATION,	/* duration_ns */
	JM_COUNT
};

struct job_metric_info {
	const char *key;	/* JSON and CSV name */
	const char *title;	/* text and HTML */
	bool ns, bytes;		/* how a value reads */
};
extern const struct job_metric_info job_metrics[JM_COUNT];

struct job_rank {
	char *file;
	struct json *r;
	const char *host, *rank, *program, *schema;
	char gpus[96];		/* the GPUs it was given: "2,3" (HIP), "r:1" (ROCr only), "all" */
	char label[96];		/* its name in rows: the rank, else "pid N" */
	uint64_t pid;
	size_t ndev;		/* devices its report lists */
	const char *peak_ctx;	/* the context of JM_PEAK */
	uint64_t v[JM_COUNT];
	size_t prog;		/* index into job.programs */
};

struct job_stat {
	uint64_t total, min, median, max;
	size_t outlier;		/* index into job.rk of the value farthest from the median; SIZE_MAX: all equal */
};

struct job {
	struct job_rank *rk;
	size_t n, cap;
	const char **programs, **schemas, **hosts;
	size_t nprog, nschema, nhost;
	char **warn;		/* what the reader must be told: mixed inputs, lost ranks */
	size_t nwarn;
	char **skipped;		/* directory entries that were not reports */
	size_t nskipped;
	struct job_stat st[JM_COUNT];
};

#define JOB_MAX_REPORTS 65536

/* Reads the reports named by paths (files, or directories whose *.json are
 * read) into j and checks them together. 0, or -EINVAL / -errno with a
 * message in err (an input that cannot be used: exit 2). */
int job_load(struct job *j, char *const *paths, size_t npaths, char *err, size_t errcap);
void job_free(struct job *j);

void job_text(FILE *f, const struct job *j, bool color);
void job_json(FILE *f, const struct job *j);
void job_csv(FILE *f, const struct job *j);
/* 0, or -EIO with a message in err. */
int job_html(FILE *f, const struct job *j, char *err, size_t errcap);

/* report_cmd.c hands over here when given more than one report or a
 * directory. */
int cmd_report_job(char *const *paths, size_t npaths, enum report_fmt fmt, const char *out,
		   const char *html, bool color);

#endif
