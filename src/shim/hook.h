/* SPDX-License-Identifier: MIT */
/*
 * hook.h - the client of the checkpoint hook (proto.h), for the shim.
 *
 * A hook is named by a path:
 *   /sys/kernel/debug/hipsvm/hook   a file (kernel/hipsvm.ko): write a request,
 *                                   pread the reply from offset 0
 *   unix:/some/path                 a UNIX stream socket (the simulator)
 *   @name                           the same in the abstract namespace
 * Everything here is async-signal-safe: raw system calls, no malloc, no stdio,
 * no locks. One request at a time per struct hipsvm_hook: the shim gives each
 * thread its own connection.
 *
 * Nothing is trusted by its name (docs/security.md):
 *  - a path is a hook only if it is a regular file of debugfs or tracefs
 *    (fstatfs, on a descriptor opened O_PATH: nothing else is ever opened
 *    for writing), or a UNIX socket, taken as such;
 *  - a socket's server must run as our effective uid or as root
 *    (SO_PEERCRED), and as the process h->server_pid when that is set (the
 *    simulator of this very process);
 *  - a whole reply must arrive by one deadline, reply_timeout_ms after the
 *    request is sent (a drain: at least its own timeout plus
 *    HIPSVM_HOOK_MARGIN_MS), however the server dribbles it out. A server
 *    that misses it, closes, floods or answers out of step is a transport
 *    error (the connection is closed), never a hang.
 */
#ifndef HIPSVM_HOOK_H
#define HIPSVM_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/proto.h"

#define HIPSVM_HOOK_DEBUGFS "/sys/kernel/debug/hipsvm/hook"
/* The same hook served by the patched amdgpu/amdkfd (kernel/amdgpu/), for
 * the real GPUs: "auto" tries it after the module's. */
#define HIPSVM_HOOK_KFD "/sys/kernel/debug/kfd/hipsvm_hook"
#define HIPSVM_HOOK_PATH_MAX 256
/* What a drain's reply may take beyond the drain's own timeout. */
#define HIPSVM_HOOK_MARGIN_MS 2000

struct hipsvm_hook {
	int fd;			/* -1 when closed */
	bool is_file;
	uint32_t reply_timeout_ms;	/* whole reply; 0: 5000 */
	int server_pid;		/* set before open: 0 any process of ours, else this one */
	int peer_pid;		/* what the last socket open saw (for messages) */
	uint32_t peer_uid;
	char path[HIPSVM_HOOK_PATH_MAX];
};

/* The HIPSVM_HOOK value to a path: "auto" tries the debugfs file, then the
 * simulator's socket of this process (sim_name: where the simulator says it
 * listens, "@NAME" or a file path, NULL or "" when it did not say; else the
 * default @hipsvm-sim.<pid>); "none" (or "") is -ENOENT; anything else is
 * taken as a path (%p = pid). *server_pid is pid when the answer names this
 * process's simulator (its server must then be this process), else 0.
 * -ENOENT when auto finds nothing. When auto finds a server that fails the
 * peer check, its path is returned all the same, so that the caller's open
 * refuses it and says so. */
int hipsvm_hook_resolve(const char *opt, int pid, const char *sim_name, char *out, size_t cap,
			int *server_pid);

void hipsvm_hook_init(struct hipsvm_hook *h);
/* 0, or -errno: -EMEDIUMTYPE a path that is neither a debugfs/tracefs file
 * nor a socket (never opened for writing), -EACCES a server of another user,
 * -EPERM a server other than h->server_pid, -EINVAL a malformed name. */
int hipsvm_hook_open(struct hipsvm_hook *h, const char *path);
void hipsvm_hook_close(struct hipsvm_hook *h);

/* One exchange. 0 when a reply came (its status in r->status), -errno on a
 * transport error (the connection is then closed). For the debugfs file, a
 * write refused by the kernel gives r->status = -errno of the write. */
int hipsvm_hook_call(struct hipsvm_hook *h, const struct hipsvm_cmd *cmd, struct hipsvm_reply *r);

/* Protocol version of the server, or -errno. */
int hipsvm_hook_version(struct hipsvm_hook *h);
/* Number of GPUs the server has, or -errno (hipsvm samples each one's counters). */
int hipsvm_hook_gpus(struct hipsvm_hook *h);

/* set <gpus> [addr len]: cp_out[g] is the checkpoint in force for each GPU
 * whose bit comes back in *set_mask (GPUs with empty rings are left out). */
int hipsvm_hook_set(struct hipsvm_hook *h, uint64_t gpus, uint64_t addr, uint64_t len,
		    uint64_t cp_out[HIPSVM_MAX_GPUS], uint64_t *set_mask);
/* drain <gpus> <timeout_ms>: result[g] = 0, -ETIME, -ENODEV or
 * HIPSVM_DRAIN_SKIPPED (checkpoint.h) for each GPU asked. The timeout is
 * capped at HIPSVM_DRAIN_MAX_MS, which a server would refuse. */
int hipsvm_hook_drain(struct hipsvm_hook *h, uint64_t gpus, uint32_t timeout_ms,
		      int result[HIPSVM_MAX_GPUS]);
/* clear <gpus> with N=TS for each bit of cp_mask (only if still that value). */
int hipsvm_hook_clear(struct hipsvm_hook *h, uint64_t gpus, const uint64_t cp[HIPSVM_MAX_GPUS],
		      uint64_t cp_mask);
/* drainclear <gpus> <timeout_ms> with N=TS for each bit of cp_mask (protocol
 * version 2): one round trip for drain then clear. result[g] as for drain;
 * *cleared gets the GPUs whose checkpoint the server reset (it clears only
 * those given a value whose drain passed, and only if still that value).
 * The timeout is capped at HIPSVM_DRAIN_MAX_MS, which a server would refuse. */
int hipsvm_hook_drainclear(struct hipsvm_hook *h, uint64_t gpus, uint32_t timeout_ms,
			   const uint64_t cp[HIPSVM_MAX_GPUS], uint64_t cp_mask,
			   int result[HIPSVM_MAX_GPUS], uint64_t *cleared);
/* stats, with the per-GPU counters of the GPUs in gpus (0: the server's
 * default). HIPSVM_HOOK_STATS_GPUS at a time fit any server's reply. */
#define HIPSVM_HOOK_STATS_GPUS 8
int hipsvm_hook_stats(struct hipsvm_hook *h, uint64_t gpus, struct hipsvm_reply *r);

#endif
