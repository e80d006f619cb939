/* SPDX-License-Identifier: MIT */
/*
 * ktest.h - helpers for the programs that run inside the QEMU guest against
 * /sys/kernel/debug/hipsvm (kernel/hipsvm.ko). They print TAP: "ok N - name"
 * or "not ok N - name", "# detail" lines, and a closing plan plus a summary
 * "# N passed, N failed" that tests/kernel/run-qemu.sh looks for.
 *
 * No Criterion here: the guest has no forking test runner and every program
 * must be small enough to copy into an initramfs with its libraries.
 */
#ifndef HIPSVM_KTEST_H
#define HIPSVM_KTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "shared/proto.h"

#define KT_DIR  "/sys/kernel/debug/hipsvm"
#define KT_HOOK KT_DIR "/hook"

/* Records one check; returns cond. */
bool kt_check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A check of a known bug: reported with a TAP "# TODO why" directive and
 * not counted as a failure. */
bool kt_check_todo(bool cond, const char *why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* In a forked child: its checks become "# [name] ..." comment lines, so
 * that the parent's TAP stays valid; the parent checks the exit status. */
void kt_child(const char *name);
/* Prints the plan and the summary; the exit status for main(). */
int kt_done(void);

int kt_open(void);	/* the hook file, O_RDWR; aborts the program on failure */

/* Writes req (a "\n" is added) and reads the reply into buf (NUL-terminated).
 * Returns write()'s result: the request length or -errno. */
int kt_req(int fd, const char *req, char *buf, size_t cap);
/* kt_req + parse; the reply's status is in r->status. -errno of the parse. */
int kt_reqp(int fd, const char *req, struct hipsvm_reply *r);
/* Formats a request with printf-style arguments, then kt_reqp. */
int kt_reqf(int fd, struct hipsvm_reply *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Value of key in r as a number; def when absent or not a number. */
uint64_t kt_num(const struct hipsvm_reply *r, const char *key, uint64_t def);
/* "word" for key, "" when absent. */
const char *kt_word(const struct hipsvm_reply *r, const char *key);

/* Log entries of "seq:op:gpu[:x]", parsed from a "log" reply. */
struct kt_event {
	uint64_t seq;
	char op[16];
	unsigned gpu;
	char x[32];
};
int kt_log(int fd, struct kt_event *ev, int max);	/* count or -1 */
/* Outcome of the fault with timestamp ts on gpu in the log: "handled",
 * "dropped" or NULL. */
const char *kt_fault_outcome(const struct kt_event *ev, int n, unsigned gpu, uint64_t ts);

/* Writes a line to a plain file (pause, inject); 0 or -errno. */
int kt_write_file(const char *path, const char *line);
/* Pauses the handler of the GPUs in mask (module debug control). */
void kt_pause(uint64_t mask);
/* A key of the module-wide stats file (e.g. "gpu0.soft.pending"); ~0 if absent. */
uint64_t kt_module_stat(const char *key);
double kt_now(void);	/* CLOCK_MONOTONIC seconds */

#endif
