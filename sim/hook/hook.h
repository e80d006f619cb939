/* SPDX-License-Identifier: MIT */
/*
 * hook.h - the checkpoint hook's server (hook_server.c) and its commands
 * (hook_cmds.c).
 */
#ifndef HIPSVM_SIM_HOOK_H
#define HIPSVM_SIM_HOOK_H

#include <stddef.h>

#define SIM_LOG_LEN 64
#define SIM_ZAP_MAX 256

/* One request line to one reply line (hook_cmds.c); the reply's length. */
int sim_hook_handle_line(const char *line, size_t len, char *out, size_t cap);

#endif
