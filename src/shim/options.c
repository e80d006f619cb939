/* SPDX-License-Identifier: MIT */
/*
 * options.c - the shim's option table, and the parsers every table shares
 * (the simulated runtime's is src/simcore/sim_options.c).
 *
 * Everything here may run while the process is still starting (the shim's
 * first hook can fire from another library's constructor), so no getenv, no
 * malloc, no stdio, no locale: only the envp array the caller hands in and
 * fixed buffers. The defaults are text in the table and go through the same
 * parsers as the environment, so the table is the only place a value lives.
 */
#include "shim/options.h"
#include "shared/proto.h"

#define HIPSVM_STR_(x) #x
#define HIPSVM_STR(x) HIPSVM_STR_(x)

#include <errno.h>
#include <string.h>
#include <sys/auxv.h>

#define KIB HIPSVM_KIB
#define MIB HIPSVM_MIB
#define GIB HIPSVM_GIB
#define TIB HIPSVM_TIB

static const struct hipsvm_option_desc table[HIPSVM_O_COUNT] = {
	[HIPSVM_O_ENABLE] = { "ENABLE", HIPSVM_OPT_BOOL, "1", 0, 1,
		"master switch; 0 makes the shim a pure pass-through" },
	[HIPSVM_O_VERBOSE] = { "VERBOSE", HIPSVM_OPT_BOOL, "0", 0, 1,
		"print the option table and every warning to stderr" },
	[HIPSVM_O_HOOK] = { "HOOK", HIPSVM_OPT_STRING, "auto", 0, 0,
		"checkpoint hook: auto | none | debugfs path | unix:PATH | @ABSTRACT (%p = pid)" },
	[HIPSVM_O_POLICY] = { "POLICY", HIPSVM_OPT_STRING, "default", 0, 0,
		"routing policy (docs/routing.md)" },
	[HIPSVM_O_REPORT] = { "REPORT", HIPSVM_OPT_STRING, "", 0, 0,
		"JSON report written at exit to this path (%p = pid); empty: none" },
	[HIPSVM_O_TRACE] = { "TRACE", HIPSVM_OPT_STRING, "", 0, 0,
		"trace events (JSON lines) written to this path (%p = pid); empty: none" },
	/* the protocol's own default and maximum: a server refuses more */
	[HIPSVM_O_DRAIN_TIMEOUT_MS] = { "DRAIN_TIMEOUT_MS", HIPSVM_OPT_INT,
		HIPSVM_STR(HIPSVM_DRAIN_DEFAULT_MS), 1, HIPSVM_DRAIN_MAX_MS,
		"drain timeout per GPU, in milliseconds" },
	[HIPSVM_O_WARN_LIMIT] = { "WARN_LIMIT", HIPSVM_OPT_INT, "10", 0, UINT32_MAX,
		"repeated warnings of one kind are printed at most this many times" },
	[HIPSVM_O_INHERIT] = { "INHERIT", HIPSVM_OPT_BOOL, "0", 0, 1,
		"let exec'd children keep the preload" },
};

/*
 * Left alone by the shim's load: TEST_ is reserved for test harnesses
 * (HIPSVM_TEST_SEED, HIPSVM_TEST_SRCDIR...), not options, and not reported
 * as unknown, so that the shim stays quiet when a test runner's environment
 * reaches it; SIM_ is the simulated runtime's table, which reads and reports
 * its own variables; the rest are the hipsvm tool's and the scripts' own
 * variables (docs/ENVIRONMENT.md, "Not options"): a user who exports
 * HIPSVM_KERNEL_CACHE for the kernel tests must not be told of an unknown
 * variable by every program the shim then runs in.
 */
static const char *const shim_others[] = {
	"TEST_", "SIM_", "SHIM_PATH", "KERNEL_CACHE", "KERNEL_VERSION", "QEMU_TIMEOUT",
	"QEMU_CPUS", "STRESS_ROUNDS", "FUZZ_SECONDS", NULL
};

const struct hipsvm_option_table hipsvm_shim_option_table = {
	.scope = "",
	.others = shim_others,
	.rows = table,
	.n = HIPSVM_O_COUNT,
};

static const char prefix[] = "HIPSVM_";
#define PREFIX_LEN (sizeof(prefix) - 1)

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool ieq(const char *a, const char *b)
{
	while (*a && lower(*a) == lower(*b)) {
		a++;
		b++;
	}
	return lower(*a) == lower(*b);
}

const struct hipsvm_option_desc *hipsvm_opt_row(const struct hipsvm_option_table *t,
						unsigned row)
{
	if (!t || row >= t->n)
		return NULL;
	return &t->rows[row];
}

const char *hipsvm_opt_why(const struct hipsvm_option_table *t, unsigned row, int err)
{
	const struct hipsvm_option_desc *d = hipsvm_opt_row(t, row);

	if (err == -ENAMETOOLONG)
		return "longer than 255 bytes";
	if (err == -ERANGE)
		return "out of range";
	if (!d)
		return "not a valid value";
	if (t->invalid && t->invalid(row))
		return t->invalid(row);
	switch (d->type) {
	case HIPSVM_OPT_BOOL:
		return "not a boolean (1/0, yes/no, on/off, true/false)";
	case HIPSVM_OPT_INT:
		return "not a decimal number";
	case HIPSVM_OPT_SIZE:
		return "not a size (a number, optionally K, M or G)";
	case HIPSVM_OPT_STRING:
		break;
	}
	return "not a valid value";
}

/* name[0..len) against the table, prefix already stripped. */
static int lookup_n(const struct hipsvm_option_table *t, const char *name, size_t len,
		    unsigned *row)
{
	unsigned i;

	for (i = 0; i < t->n; i++) {
		if (strlen(t->rows[i].name) == len && !memcmp(t->rows[i].name, name, len)) {
			*row = i;
			return 0;
		}
	}
	return -ENOENT;
}

int hipsvm_opt_lookup(const struct hipsvm_option_table *t, const char *name, unsigned *row)
{
	if (!t || !name || !row)
		return -EINVAL;
	if (!strncmp(name, prefix, PREFIX_LEN))
		name += PREFIX_LEN;
	return lookup_n(t, name, strlen(name), row);
}

int hipsvm_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "yes", "on", "true" };
	static const char *const no[] = { "0", "no", "off", "false" };
	unsigned i;

	if (!s || !out)
		return -EINVAL;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (ieq(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (ieq(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Digits of a decimal or 0x-hex number; *end is left after the last digit.
 * -EINVAL when there is no digit, -ERANGE past 2^64 - 1. */
static int parse_num(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	unsigned base = 10, digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && lower(*s) >= 'a' && lower(*s) <= 'f')
			d = (unsigned)(lower(*s) - 'a' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	*out = v;
	*end = s;
	return 0;
}

int hipsvm_parse_u64(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int err;

	if (!s || !out)
		return -EINVAL;
	err = parse_num(s, &v, &end);
	if (err)
		return err;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int hipsvm_parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v, mul = 1;
	int err;

	if (!s || !out)
		return -EINVAL;
	err = parse_num(s, &v, &end);
	if (err)
		return err;
	switch (lower(*end)) {
	case 'k': mul = KIB; end++; break;
	case 'm': mul = MIB; end++; break;
	case 'g': mul = GIB; end++; break;
	case 't': mul = TIB; end++; break;
	default: break;
	}
	/* "K", "KB", "KiB"; a bare "B" means bytes. */
	if (mul != 1 && lower(end[0]) == 'i' && lower(end[1]) == 'b')
		end += 2;
	else if (lower(*end) == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int hipsvm_opt_set(const struct hipsvm_option_table *t, struct hipsvm_optvals o, unsigned id,
		   const char *value)
{
	const struct hipsvm_option_desc *d = hipsvm_opt_row(t, id);
	uint64_t v;
	bool b;
	size_t len;
	int err;

	if (!o.num || !d || !value)
		return -EINVAL;
	switch (d->type) {
	case HIPSVM_OPT_BOOL:
		err = hipsvm_parse_bool(value, &b);
		if (err)
			return err;
		o.num[id] = b;
		return 0;
	case HIPSVM_OPT_INT:
	case HIPSVM_OPT_SIZE:
		err = d->type == HIPSVM_OPT_INT ? hipsvm_parse_u64(value, &v)
						 : hipsvm_parse_size(value, &v);
		if (err)
			return err;
		if (v < d->min || v > d->max)
			return -ERANGE;
		if (t->ok && !t->ok(id, v))
			return -EINVAL;
		o.num[id] = v;
		return 0;
	case HIPSVM_OPT_STRING:
		len = strlen(value);
		if (len >= HIPSVM_OPT_STR_MAX)
			return -ENAMETOOLONG;
		memcpy(o.str[id], value, len + 1);
		return 0;
	}
	return -EINVAL;
}

void hipsvm_opt_defaults(const struct hipsvm_option_table *t, struct hipsvm_optvals o)
{
	unsigned i;

	memset(o.num, 0, t->n * sizeof(o.num[0]));
	memset(o.str, 0, t->n * sizeof(o.str[0]));
	memset(o.from_env, 0, t->n * sizeof(o.from_env[0]));
	/* A default that does not parse is a bug of the table; test_options
	 * checks every row, so the value simply stays 0 / "" here. */
	for (i = 0; i < t->n; i++)
		(void)hipsvm_opt_set(t, o, i, t->rows[i].def);
}

static void copy_trunc(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void add_error(struct hipsvm_opt_error *errs, unsigned max_errs, int nerr,
		      unsigned id, int err, const char *text, size_t len)
{
	struct hipsvm_opt_error *e;

	if (!errs || (unsigned)nerr >= max_errs)
		return;
	e = &errs[nerr];
	e->id = id;
	e->err = err;
	copy_trunc(e->value, sizeof(e->value), text, len);
}

/* Is the variable named name (prefix stripped) t's? */
static bool in_scope(const struct hipsvm_option_table *t, const char *name)
{
	const char *const *o;

	if (strncmp(name, t->scope, strlen(t->scope)))
		return false;
	for (o = t->others; o && *o; o++)
		if (!strncmp(name, *o, strlen(*o)))
			return false;
	return true;
}

/*
 * The first occurrence of a name wins, as with getenv. For an unknown name the
 * error's value holds the variable's name without the HIPSVM_ prefix (what a
 * warning must show) and err is -ENOENT. Names out of t's scope are left alone.
 */
static int secure_override = -1;

void hipsvm_opt_secure_override(int on)
{
	secure_override = on;
}

bool hipsvm_opt_secure(void)
{
	if (secure_override >= 0)
		return secure_override != 0;
	return getauxval(AT_SECURE) != 0;
}

int hipsvm_opt_load(const struct hipsvm_option_table *t, struct hipsvm_optvals o,
		    char *const *envp, struct hipsvm_opt_error *errs, unsigned max_errs)
{
	/* A row's first occurrence wins; seen[] is sized for the larger table. */
	bool seen[64] = { false }, secure = hipsvm_opt_secure();
	int nerr = 0;

	if (!t || !o.num || t->n > sizeof(seen) / sizeof(seen[0]))
		return -EINVAL;
	hipsvm_opt_defaults(t, o);
	for (; envp && *envp; envp++) {
		const char *var = *envp, *eq, *name;
		unsigned id;
		int err;

		if (strncmp(var, prefix, PREFIX_LEN))
			continue;
		name = var + PREFIX_LEN;
		if (!in_scope(t, name))
			continue;
		eq = strchr(var, '=');
		if (!eq)
			continue;
		if (secure) {
			/* setuid, setgid or file capabilities: the environment
			 * is the caller's, not the program's owner's (as glibc
			 * treats its own variables). One error names the first
			 * variable; every one is ignored. */
			if (!nerr) {
				add_error(errs, max_errs, nerr, t->n, -EPERM, name, (size_t)(eq - name));
				nerr++;
			}
			continue;
		}
		if (lookup_n(t, name, (size_t)(eq - name), &id)) {
			add_error(errs, max_errs, nerr, t->n, -ENOENT, name, (size_t)(eq - name));
			nerr++;
			continue;
		}
		if (seen[id])
			continue;
		seen[id] = true;
		err = hipsvm_opt_set(t, o, id, eq + 1);
		if (err) {
			add_error(errs, max_errs, nerr, id, err, eq + 1, strlen(eq + 1));
			nerr++;
			continue;
		}
		o.from_env[id] = true;
	}
	return nerr;
}

/* A bounded writer: keeps counting past cap so the caller can see what was
 * lost, but never writes past cap - 1. */
struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *w, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, w->len++)
		if (w->len + 1 < w->cap)
			w->buf[w->len] = s[i];
}

static void puts_(struct out *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_u64(struct out *w, uint64_t v, unsigned base)
{
	char tmp[24];
	int n = 0;

	do {
		unsigned d = (unsigned)(v % base);

		tmp[sizeof(tmp) - 1 - n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	if (base == 16)
		puts_(w, "0x");
	put(w, tmp + sizeof(tmp) - n, (size_t)n);
}

/* Sizes print with the largest suffix that divides them exactly. */
static void put_size(struct out *w, uint64_t v)
{
	static const struct { uint64_t mul; char c; } sfx[] = {
		{ TIB, 'T' }, { GIB, 'G' }, { MIB, 'M' }, { KIB, 'K' },
	};
	unsigned i;

	for (i = 0; v && i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (v % sfx[i].mul == 0) {
			put_u64(w, v / sfx[i].mul, 10);
			put(w, &sfx[i].c, 1);
			return;
		}
	}
	put_u64(w, v, 10);
}

static void put_value(struct out *w, const struct hipsvm_option_desc *d,
		      struct hipsvm_optvals o, unsigned id)
{
	switch (d->type) {
	case HIPSVM_OPT_BOOL:
		puts_(w, o.num[id] ? "1" : "0");
		break;
	case HIPSVM_OPT_INT:
		/* Masks and timestamps read better the way their default is written. */
		put_u64(w, o.num[id], d->def[0] == '0' && d->def[1] == 'x' ? 16 : 10);
		break;
	case HIPSVM_OPT_SIZE:
		put_size(w, o.num[id]);
		break;
	case HIPSVM_OPT_STRING:
		puts_(w, o.str[id]);
		break;
	}
}

size_t hipsvm_opt_format(const struct hipsvm_option_table *t, struct hipsvm_optvals o,
			 char *buf, size_t cap)
{
	struct out w = { buf, cap, 0 };
	unsigned i;

	if (!t || !o.num || !buf || !cap)
		return 0;
	for (i = 0; i < t->n; i++) {
		const struct hipsvm_option_desc *d = &t->rows[i];

		puts_(&w, prefix);
		puts_(&w, d->name);
		puts_(&w, "=");
		put_value(&w, d, o, i);
		puts_(&w, "  (default ");
		puts_(&w, d->def[0] ? d->def : "\"\"");
		puts_(&w, ") ");
		puts_(&w, d->help);
		puts_(&w, "\n");
	}
	if (w.len >= cap)
		w.len = cap - 1;
	buf[w.len] = '\0';
	return w.len;
}

/* ---- the shim's table ---- */

HIPSVM_OPTION_CALLS(hipsvm_, hipsvm_shim_option_table, struct hipsvm_options, enum hipsvm_opt_id)
