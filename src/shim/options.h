/* SPDX-License-Identifier: MIT */
/*
 * options.h - the one option table (HIPSVM_<NAME>), read once from the
 * environment without getenv (the shim may start before libc is ready).
 * docs/ENVIRONMENT.md has one entry per row; tests/unit/test_options.c checks.
 *
 * Booleans: 1/0, yes/no, on/off, true/false (any case). Sizes: a number with
 * an optional K/M/G/T suffix (powers of 1024, optional trailing B/iB). Integers:
 * decimal or 0x hex. A bad value is reported to the caller (the core never
 * logs) and the default stays in force.
 */
#ifndef HIPSVM_OPTIONS_H
#define HIPSVM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hipsvm_opt_type { HIPSVM_OPT_BOOL, HIPSVM_OPT_INT, HIPSVM_OPT_SIZE, HIPSVM_OPT_STRING };

enum hipsvm_opt_id {
	/* the shim */
	HIPSVM_O_ENABLE,		/* bool, 1: master switch; 0 = pure pass-through */
	HIPSVM_O_VERBOSE,		/* bool, 0: print the option table and every warning to stderr */
	HIPSVM_O_HOOK,			/* string, "auto": auto | none | a debugfs path | unix:PATH | @ABSTRACT (%p = pid) */
	HIPSVM_O_POLICY,		/* string, "default": routing policy (docs/routing.md) */
	HIPSVM_O_REPORT,		/* string, "": JSON report path written at exit (%p = pid) */
	HIPSVM_O_TRACE,			/* string, "": trace event file (JSON lines, %p = pid) */
	HIPSVM_O_DRAIN_TIMEOUT_MS,	/* int, 1000: drain timeout per GPU */
	HIPSVM_O_WARN_LIMIT,		/* int, 10: repeated warnings of one kind printed at most */
	HIPSVM_O_INHERIT,		/* bool, 0: let exec'd children keep the preload */
	/* the simulated runtime */
	HIPSVM_O_SIM_GPUS,		/* int, 4 (1..64) */
	HIPSVM_O_SIM_MEM,		/* size, 1G: device memory per GPU */
	HIPSVM_O_SIM_XNACK,		/* bool, 1 */
	HIPSVM_O_SIM_FGS_MASK,		/* int, 0x1: GPUs that support fine-grained system memory */
	HIPSVM_O_SIM_RETRY_CAM,		/* bool, 0 */
	HIPSVM_O_SIM_APU,		/* bool, 0: no ih1 ring */
	HIPSVM_O_SIM_TS_START,		/* int, 0x1000: first timestamp of every GPU clock */
	HIPSVM_O_SIM_RING_SIZE,		/* size, 256K: bytes per IH ring */
	HIPSVM_O_SIM_SOCKET,		/* string, "@hipsvm-sim.%p": hook server socket */
	HIPSVM_O_SIM_SERVE,		/* bool, 1: run the hook server */
	HIPSVM_O_SIM_QUIET,		/* bool, 0: no start-up notice */
	HIPSVM_O_COUNT
};

struct hipsvm_option_desc {
	const char *name;	/* without the HIPSVM_ prefix, e.g. "DRAIN_TIMEOUT_MS" */
	enum hipsvm_opt_type type;
	const char *def;	/* default, as text */
	uint64_t min, max;	/* for INT and SIZE */
	const char *help;	/* one line */
};

#define HIPSVM_OPT_STR_MAX 256

struct hipsvm_options {
	uint64_t num[HIPSVM_O_COUNT];		/* BOOL, INT, SIZE */
	char str[HIPSVM_O_COUNT][HIPSVM_OPT_STR_MAX];	/* STRING */
	bool from_env[HIPSVM_O_COUNT];
};

struct hipsvm_opt_error {
	enum hipsvm_opt_id id;
	int err;		/* -EINVAL, -ERANGE, -ENAMETOOLONG */
	char value[64];		/* the offending text, truncated */
};

const struct hipsvm_option_desc *hipsvm_option_desc(enum hipsvm_opt_id id);
/* What is wrong with a value that hipsvm_options_set refused with err, in
 * words for a warning ("longer than 255 bytes", "out of range", ...). */
const char *hipsvm_option_why(enum hipsvm_opt_id id, int err);
/* -ENOENT for an unknown name (with or without the prefix). */
int hipsvm_option_lookup(const char *name, enum hipsvm_opt_id *id);

/* Defaults into o. */
void hipsvm_options_defaults(struct hipsvm_options *o);
/* Defaults, then every HIPSVM_* variable of envp (NULL-terminated, e.g.
 * environ). Unknown HIPSVM_* names are errors too (id = HIPSVM_O_COUNT).
 * Returns the number of errors (up to max_errs are described in errs). No
 * malloc, no getenv, no stdio. */
int hipsvm_options_load(struct hipsvm_options *o, char *const *envp,
			struct hipsvm_opt_error *errs, unsigned max_errs);
/* One value: 0, or -EINVAL/-ERANGE/-ENAMETOOLONG and o unchanged. */
int hipsvm_options_set(struct hipsvm_options *o, enum hipsvm_opt_id id, const char *value);

int hipsvm_parse_bool(const char *s, bool *out);
int hipsvm_parse_size(const char *s, uint64_t *out);
int hipsvm_parse_u64(const char *s, uint64_t *out);

/* The table with the values in force, one "HIPSVM_NAME=value  (default X) help"
 * line each. Length written (NUL-terminated, truncated to cap). */
size_t hipsvm_options_format(const struct hipsvm_options *o, char *buf, size_t cap);

/* Expands %p to pid and %% to % into buf. -ENAMETOOLONG if it does not fit. */
int hipsvm_expand_path(const char *tmpl, int pid, char *buf, size_t cap);

#endif
