/* SPDX-License-Identifier: MIT */
/*
 * hooksrv.h - the server side of the checkpoint hook protocol (proto.h): what
 * each request does, once, for the simulated runtime's socket (sim/hook/hook_cmds.c)
 * and the kernel module's debugfs file (kernel/hook.c). Compiled into both,
 * as proto.c and checkpoint.c are.
 *
 * A server is a backend: a table of functions over its GPUs' rings, the
 * caller's checkpoints, its way of waiting and its process state. This file
 * decides what a request means: which GPUs it names (one that does not
 * exist answers "N=nodev" to set, drain, clear and drainclear, and fails
 * inject and ring with ENODEV), the order of a drain (hipsvm_cp_drain_begin,
 * the backend's wait, the accounting), what is cleared, the reply words and
 * what goes into the log. The backend decides how: locks, sleeping, storage.
 *
 * Nothing here allocates, sleeps or locks by itself; each call of an
 * operation may (the backend's wait sleeps). Requests of several callers may
 * run at once: the backend serialises what must be (set, see checkpoint.h).
 */
#ifndef HIPSVM_HOOKSRV_H
#define HIPSVM_HOOKSRV_H

#include "shared/checkpoint.h"
#include "shared/proto.h"

/* Reply words, as a client reads them (hook.c). */
#define HIPSVM_W_NONE "none"
#define HIPSVM_W_NODEV "nodev"
#define HIPSVM_W_OK "ok"
#define HIPSVM_W_TIMEOUT "timeout"
#define HIPSVM_W_SKIPPED "skipped"
#define HIPSVM_W_ERROR "error"
#define HIPSVM_W_CLEARED "cleared"
#define HIPSVM_W_KEPT "kept"
/* drainclear: "<drain word>/<clear word>" when a clear was asked and the
 * drain passed, e.g. "ok/cleared". */
#define HIPSVM_W_SEP '/'

/* What the server logs (the backend stores it; see docs/protocol.md). */
enum hipsvm_srv_ev {
	HIPSVM_SRV_EV_SET = 1,	/* x: the checkpoint, or word "none" */
	HIPSVM_SRV_EV_DRAIN,	/* word: the drain word, or mapped/unmapped */
	HIPSVM_SRV_EV_CLEAR,	/* word: cleared/kept */
	HIPSVM_SRV_EV_RANGE,	/* x: start of the range of a set; gpu: its first */
};

struct hipsvm_srv_ops {
	/* GPUs 0..n-1 exist. */
	unsigned (*ngpus)(void *be);
	/* GPU g's rings, the caller's checkpoint on it. */
	const struct hipsvm_gpu_irq *(*irq)(void *be, unsigned g);
	struct hipsvm_cp *(*cp)(void *be, unsigned g);
	/* hipsvm_cp_set on GPU g, serialised with any other set of that
	 * checkpoint; a backend with page tables also unmaps c's range from
	 * the GPU at the same time. 1 and *ts, or 0 (empty rings). */
	int (*set)(void *be, unsigned g, const struct hipsvm_cmd *c, uint64_t *ts);
	/* Sleeps until hipsvm_cp_drain_poll(d) is true, at most ms (0:
	 * polls once): 0, -ETIME, or -EINTR (ends the request). */
	int (*wait)(void *be, unsigned g, struct hipsvm_drain *d, uint32_t ms);
	/* Optional. Every set, before its GPUs' (c->has_range: it names a
	 * range; the existing GPUs it names in gpus). */
	void (*range)(void *be, const struct hipsvm_cmd *c, uint64_t gpus);
	/* Optional. After GPU g's drain with result res: the word to log in
	 * place of "ok" (whether a remembered range is still mapped), or NULL. */
	const char *(*drained)(void *be, unsigned g, int res);
	/* Optional. After a clear on GPU g (the unmap is over). */
	void (*cleared)(void *be, unsigned g, bool reset);
	/* Optional. One log event. */
	void (*log)(void *be, enum hipsvm_srv_ev ev, unsigned g, bool has_x, uint64_t x,
		    const char *word);
	/* The body of "ok stats" and "ok log" (after the op name). */
	void (*stats)(void *be, const struct hipsvm_cmd *c, struct hipsvm_out *o);
	void (*log_format)(void *be, struct hipsvm_out *o);
	/* inject and ring of a GPU that exists: 0 (inject: *ts), or -errno
	 * and *detail. */
	int (*inject)(void *be, const struct hipsvm_cmd *c, uint64_t *ts, const char **detail);
	int (*ring)(void *be, const struct hipsvm_cmd *c, const char **detail);
	/* Optional, in place of set for every GPU of a request: the sets of
	 * the GPUs of gpus (all exist) at once, for a backend that shares
	 * their work (one look-up of the range); ts[g] for each GPU of the
	 * mask it returns, those whose set recorded a checkpoint. */
	uint64_t (*set_gpus)(void *be, uint64_t gpus, const struct hipsvm_cmd *c,
			     uint64_t ts[HIPSVM_MAX_GPUS]);
	/* Optional, in place of drained for every GPU of a request: after the
	 * drains of the GPUs of gpus, word[g] (NULL on entry) as drained's. */
	void (*drained_gpus)(void *be, uint64_t gpus, const char *word[HIPSVM_MAX_GPUS]);
};

/* One request line (len bytes, not NUL-terminated) to one reply line in out
 * (NUL-terminated). Returns 0 with *reply_len for an "ok" reply, or -errno
 * with "err ..." in out (-EINVAL: malformed, nothing was done). cmd is the
 * caller's scratch space (large: the kernel keeps it off the stack). */
int hipsvm_srv_request(const struct hipsvm_srv_ops *ops, void *be, struct hipsvm_cmd *cmd,
		       const char *req, size_t len, char *out, size_t cap, size_t *reply_len);

/* "ok", "timeout", "nodev", "skipped"; "error" for anything else. */
const char *hipsvm_srv_drain_word(int res);

/* The process's checkpoint counters summed over n GPUs. */
void hipsvm_srv_cp_sum(const struct hipsvm_srv_ops *ops, void *be, unsigned n,
		       struct hipsvm_cp_stats *sum);

#endif
