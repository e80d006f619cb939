/* SPDX-License-Identifier: MIT */
/*
 * pl_run.h - running the target programs of the shim's integration tests
 * (test_*.c here, one Criterion runner): a pinned environment, with or
 * without LD_PRELOAD=libhipsvm.so, on the simulator (build/sim), on Debian's
 * ROCm 5.2 runtime (no GPU here), on the fake runtime (fake_hip.c) or with
 * no runtime; stdout, stderr, exit code and the report of the process. The
 * Criterion runner itself never runs under LD_PRELOAD.
 */
#ifndef HIPSVM_PL_RUN_H
#define HIPSVM_PL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OUT_MAX (256 * 1024)

enum rt { RT_SIM, RT_ROCM, RT_FAKE, RT_NONE };

struct res {
	int code;		/* exit code, or 128 + signal */
	int pid;
	char dir[128];		/* per-run temporary directory */
	char out[OUT_MAX];
	char err[OUT_MAX];
	char report[OUT_MAX];	/* the report of pid, "" if none */
};

/* Anchors for jnum() in the compact report. */
#define DEV(n) "{\"index\":" #n ","
#define CTX(id) "\"id\":\"" id "\""
#define SEC(s) "\"" s "\":{"

const char *bdir(void);
void read_file(const char *path, char *buf, size_t cap);
/* A folder mkdtemp made, removed with what is in it when the test process
 * exits (HIPSVM_TEST_KEEP: kept). */
void pl_remove_at_exit(const char *dir);
/* build/tests/preload/<name>; build/preload/libhipsvm.so */
char *prog(const char *name);
char *shim(void);
/* HIPSVM_TEST_PRELOAD_PREFIX, "" if unset (a sanitizer run: its runtime and
 * a ':'), which every LD_PRELOAD that run() builds starts with; and the same
 * without the trailing separator: what a child's LD_PRELOAD keeps once the
 * shim has taken itself out. */
const char *preload_prefix(void);
const char *preload_rest(void);
/* Runs argv with only the environment given here plus extra ("LD_PRELOAD=+lib"
 * adds lib after the shim), at most 120 s. */
void run(struct res *r, enum rt rt, bool preload, const char *const *argv,
	 const char *const *extra);
/* When set, called with the child's pid after fork and before the child
 * execs the program (which waits until it returns). */
extern void (*pl_before_exec)(int pid);
/* The number after "key": that follows anchor in doc; UINT64_MAX if absent. */
uint64_t jnum(const char *doc, const char *anchor, const char *key);
unsigned count_lines(const char *s, const char *needle);
/* The same stdout, stderr and exit code with and without the shim. */
void same_run(enum rt rt, const char *const *argv, const char *const *extra);

extern struct res R;

#endif
