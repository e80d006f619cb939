/* SPDX-License-Identifier: MIT */
/*
 * hook.h - the checkpoint hook's server (hook_server.c) and its commands
 * (hook_cmds.c).
 */
#ifndef HIPSVM_SIM_HOOK_H
#define HIPSVM_SIM_HOOK_H

#include <stddef.h>
#include <stdint.h>

#include "shared/proto.h"

#define SIM_LOG_LEN 64
#define SIM_ZAP_MAX 256

/* One request line to one reply line (hook_cmds.c) for the connection
 * whose state is conn (NULL: none); the reply's length. */
struct sim_hook_conn {
	uint64_t pending;	/* GPUs it set and has not drained since */
	uint64_t cp_mask;	/* of those, the ones whose set recorded cp[g] */
	uint64_t cp[HIPSVM_MAX_GPUS];
};
int sim_hook_handle_line(struct sim_hook_conn *conn, const char *line, size_t len, char *out,
			 size_t cap);
/* The connection is gone (its client closed it or died): its unmap is
 * finished for it, as its drainclear would have: bounded. */
void sim_hook_conn_gone(struct sim_hook_conn *conn);

#endif
