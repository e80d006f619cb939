/* SPDX-License-Identifier: MIT */
/*
 * options.h - the option tables (HIPSVM_<NAME>), read once from the
 * environment without getenv (the shim may start before libc is ready).
 * docs/ENVIRONMENT.md has one entry per row; tests/unit/test_options.c checks.
 *
 * Two tables in one format share the parsers here: the shim's (this file's
 * enum, src/shim/options.c) and the simulated runtime's HIPSVM_SIM_* (its own
 * enum and table, src/simcore/sim_options.h). Each table owns the variables whose
 * names start with its scope; the shim's leaves HIPSVM_SIM_* and the test
 * harnesses' HIPSVM_TEST_* alone, so neither calls the other's names unknown.
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

/* Sizes as the tables write their bounds. */
#define HIPSVM_KIB UINT64_C(1024)
#define HIPSVM_MIB (HIPSVM_KIB * 1024)
#define HIPSVM_GIB (HIPSVM_MIB * 1024)
#define HIPSVM_TIB (HIPSVM_GIB * 1024)

/* A table: its rows, and the variables it owns. */
struct hipsvm_option_table {
	/* Names (after HIPSVM_) that start with scope are this table's; the
	 * load leaves every other name alone. "" owns every name... */
	const char *scope;
	/* ...except those starting with one of these (NULL-terminated, may
	 * be NULL): scopes that other tables or the test harnesses own. */
	const char *const *others;
	const struct hipsvm_option_desc *rows;
	unsigned n;
	/* A constraint that [min, max] cannot say, for INT and SIZE rows
	 * (NULL: none): false refuses v with -EINVAL. */
	bool (*ok)(unsigned row, uint64_t v);
	/* The words a warning gives for a refused value of row, when the
	 * type's words would mislead (NULL, or a NULL answer: by type). */
	const char *(*invalid)(unsigned row);
};

/* Where a table's values live: arrays of n entries each (n of the table). */
struct hipsvm_optvals {
	uint64_t *num;				/* BOOL, INT, SIZE */
	char (*str)[HIPSVM_OPT_STR_MAX];	/* STRING */
	bool *from_env;
};

/* The shim's values. */
struct hipsvm_options {
	uint64_t num[HIPSVM_O_COUNT];		/* BOOL, INT, SIZE */
	char str[HIPSVM_O_COUNT][HIPSVM_OPT_STR_MAX];	/* STRING */
	bool from_env[HIPSVM_O_COUNT];
};

struct hipsvm_opt_error {
	unsigned id;		/* the row; the table's n for an unknown name */
	int err;		/* -EINVAL, -ERANGE, -ENAMETOOLONG, -ENOENT, -EPERM (secure) */
	char value[64];		/* the offending text, truncated */
};

/* ---- any table ---- */

extern const struct hipsvm_option_table hipsvm_shim_option_table;

/* The row, or NULL when row >= t->n. */
const struct hipsvm_option_desc *hipsvm_opt_row(const struct hipsvm_option_table *t,
						unsigned row);
/* What is wrong with a value that hipsvm_opt_set refused with err, in words
 * for a warning ("longer than 255 bytes", "out of range", ...). */
const char *hipsvm_opt_why(const struct hipsvm_option_table *t, unsigned row, int err);
/* The row named name (with or without the prefix): 0, -ENOENT (*row
 * untouched), -EINVAL on NULL. */
int hipsvm_opt_lookup(const struct hipsvm_option_table *t, const char *name, unsigned *row);
/* Every row's default into v (from_env all false). */
void hipsvm_opt_defaults(const struct hipsvm_option_table *t, struct hipsvm_optvals v);
/* One value: 0, or -EINVAL/-ERANGE/-ENAMETOOLONG and v unchanged. */
int hipsvm_opt_set(const struct hipsvm_option_table *t, struct hipsvm_optvals v, unsigned row,
		   const char *value);
/* Whether the process runs in secure-execution mode (getauxval(AT_SECURE):
 * setuid, setgid, file capabilities, an LSM transition). Then opt_load takes
 * no variable at all: every HIPSVM_* option names a path, a socket or
 * changes what the program does, and the environment belongs to whoever
 * started it. override: 1 or 0 for tests, -1 to ask the kernel again. */
bool hipsvm_opt_secure(void);
void hipsvm_opt_secure_override(int on);
/* Defaults, then every HIPSVM_* variable of envp in t's scope (see
 * hipsvm_option_table; a name in scope but not in the table is an error
 * with id = t->n). In secure-execution mode the defaults only, and one
 * error (id = t->n, err -EPERM, value the first variable's name) when any
 * variable of the scope was set. Returns the number of errors, up to max_errs described
 * in errs. No malloc, no getenv, no stdio. */
int hipsvm_opt_load(const struct hipsvm_option_table *t, struct hipsvm_optvals v,
		    char *const *envp, struct hipsvm_opt_error *errs, unsigned max_errs);
/* One "HIPSVM_NAME=value  (default X) help" line per row, values from v.
 * Length written (NUL-terminated, truncated to cap). */
size_t hipsvm_opt_format(const struct hipsvm_option_table *t, struct hipsvm_optvals v,
			 char *buf, size_t cap);

/* ---- the shim's table: the same calls on hipsvm_shim_option_table ---- */

const struct hipsvm_option_desc *hipsvm_option_desc(enum hipsvm_opt_id id);
/* What is wrong with a value that hipsvm_options_set refused with err, in
 * words for a warning ("longer than 255 bytes", "out of range", ...). */
const char *hipsvm_option_why(enum hipsvm_opt_id id, int err);
/* -ENOENT for an unknown name (with or without the prefix). */
int hipsvm_option_lookup(const char *name, enum hipsvm_opt_id *id);

/* Defaults into o. */
void hipsvm_options_defaults(struct hipsvm_options *o);
/* Defaults, then every HIPSVM_* variable of envp (NULL-terminated, e.g.
 * environ) but HIPSVM_SIM_*, HIPSVM_TEST_* and the tool's and scripts' own
 * variables (shim_others in options.c). Unknown names are errors too
 * (id = HIPSVM_O_COUNT). Returns the number of errors (up to max_errs are
 * described in errs). No malloc, no getenv, no stdio. */
int hipsvm_options_load(struct hipsvm_options *o, char *const *envp,
			struct hipsvm_opt_error *errs, unsigned max_errs);
/* One value: 0, or -EINVAL/-ERANGE/-ENAMETOOLONG and o unchanged. */
int hipsvm_options_set(struct hipsvm_options *o, enum hipsvm_opt_id id, const char *value);

/* The typed calls of a table (the shim's above, the simulator's in
 * src/simcore/sim_options.h), all made by one macro in the file that owns
 * the table: pfx##option_desc, pfx##option_why, pfx##option_lookup,
 * pfx##options_defaults, pfx##options_load, pfx##options_set and
 * pfx##options_format over table, whose values are an opts_t (num, str,
 * from_env) indexed by id_t. */
#define HIPSVM_OPTION_CALLS(pfx, table, opts_t, id_t)				\
	static struct hipsvm_optvals pfx##optvals(const opts_t *o)		\
	{									\
		/* The format and the lookups only read; the cast keeps one type. */ \
		opts_t *w = (opts_t *)o;					\
										\
		return (struct hipsvm_optvals){ w ? w->num : NULL, w ? w->str : NULL, \
						w ? w->from_env : NULL };	\
	}									\
	const struct hipsvm_option_desc *pfx##option_desc(id_t id)		\
	{									\
		return hipsvm_opt_row(&(table), (unsigned)id);			\
	}									\
	const char *pfx##option_why(id_t id, int err)				\
	{									\
		return hipsvm_opt_why(&(table), (unsigned)id, err);		\
	}									\
	int pfx##option_lookup(const char *name, id_t *id)			\
	{									\
		unsigned row;							\
		int err;							\
										\
		if (!id)							\
			return -EINVAL;						\
		err = hipsvm_opt_lookup(&(table), name, &row);			\
		if (!err)							\
			*id = (id_t)row;					\
		return err;							\
	}									\
	void pfx##options_defaults(opts_t *o)					\
	{									\
		hipsvm_opt_defaults(&(table), pfx##optvals(o));			\
	}									\
	int pfx##options_load(opts_t *o, char *const *envp, struct hipsvm_opt_error *errs, \
			      unsigned max_errs)				\
	{									\
		return hipsvm_opt_load(&(table), pfx##optvals(o), envp, errs, max_errs); \
	}									\
	int pfx##options_set(opts_t *o, id_t id, const char *value)		\
	{									\
		return hipsvm_opt_set(&(table), pfx##optvals(o), (unsigned)id, value); \
	}									\
	size_t pfx##options_format(const opts_t *o, char *buf, size_t cap)	\
	{									\
		return hipsvm_opt_format(&(table), pfx##optvals(o), buf, cap);	\
	}

int hipsvm_parse_bool(const char *s, bool *out);
int hipsvm_parse_size(const char *s, uint64_t *out);
int hipsvm_parse_u64(const char *s, uint64_t *out);

/* The table with the values in force, one "HIPSVM_NAME=value  (default X) help"
 * line each. Length written (NUL-terminated, truncated to cap). */
size_t hipsvm_options_format(const struct hipsvm_options *o, char *buf, size_t cap);

#endif
