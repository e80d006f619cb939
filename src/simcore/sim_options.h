/* SPDX-License-Identifier: MIT */
/*
 * sim_options.h - the simulated runtime's options, HIPSVM_SIM_*: a table in
 * the format of the shim's (src/shim/options.h), read by the same parsers.
 * The simulator reads and reports these itself; the shim leaves them alone.
 * docs/ENVIRONMENT.md has one entry per row; tests/unit/test_options.c checks.
 *
 * The calls mirror the shim's (hipsvm_options_*), on this table; contracts
 * as there: no malloc, no getenv, no stdio, the core never logs.
 */
#ifndef HIPSVM_SIM_OPTIONS_H
#define HIPSVM_SIM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/options.h"

enum hipsvm_sim_opt_id {
	HIPSVM_SIM_O_GPUS,		/* int, 4 (1..HIPSVM_MAX_GPUS) */
	HIPSVM_SIM_O_MEM,		/* size, 64G: device memory per GPU */
	HIPSVM_SIM_O_XNACK,		/* bool, 1 */
	HIPSVM_SIM_O_FGS_MASK,		/* int, 0x1: GPUs that support fine-grained system memory */
	HIPSVM_SIM_O_RETRY_CAM,		/* bool, 0 */
	HIPSVM_SIM_O_APU,		/* bool, 0: no ih1 ring */
	HIPSVM_SIM_O_TS_START,		/* int, 0x1000: first timestamp of every GPU clock */
	HIPSVM_SIM_O_RING_SIZE,		/* size, 256K: bytes per IH ring, a power of two */
	HIPSVM_SIM_O_SOCKET,		/* string, the hook server's socket (proto.h) */
	HIPSVM_SIM_O_SERVE,		/* bool, 1: run the hook server */
	HIPSVM_SIM_O_QUIET,		/* bool, 0: no start-up notice */
	HIPSVM_SIM_O_EXEC,		/* string, "auto": interpret kernels when possible */
	HIPSVM_SIM_O_EXEC_THREADS,	/* int, 0: threads per dispatch (0: up to 4, by CPUs) */
	HIPSVM_SIM_O_SIMD,		/* int, 512: widest vector path in bits (512, 256, 0) */
	HIPSVM_SIM_O_COUNT
};

struct hipsvm_sim_options {
	uint64_t num[HIPSVM_SIM_O_COUNT];
	char str[HIPSVM_SIM_O_COUNT][HIPSVM_OPT_STR_MAX];
	bool from_env[HIPSVM_SIM_O_COUNT];
};

/* Owns the names that start with SIM_ (HIPSVM_SIM_*). */
extern const struct hipsvm_option_table hipsvm_sim_option_table;

const struct hipsvm_option_desc *hipsvm_sim_option_desc(enum hipsvm_sim_opt_id id);
const char *hipsvm_sim_option_why(enum hipsvm_sim_opt_id id, int err);
/* -ENOENT for a name that is not a row (with or without the HIPSVM_ prefix). */
int hipsvm_sim_option_lookup(const char *name, enum hipsvm_sim_opt_id *id);
void hipsvm_sim_options_defaults(struct hipsvm_sim_options *o);
/* Defaults, then every HIPSVM_SIM_* variable of envp; an unknown SIM_ name
 * is an error with id = HIPSVM_SIM_O_COUNT. Returns the number of errors. */
int hipsvm_sim_options_load(struct hipsvm_sim_options *o, char *const *envp,
			    struct hipsvm_opt_error *errs, unsigned max_errs);
int hipsvm_sim_options_set(struct hipsvm_sim_options *o, enum hipsvm_sim_opt_id id,
			   const char *value);
size_t hipsvm_sim_options_format(const struct hipsvm_sim_options *o, char *buf, size_t cap);

#endif
