/* SPDX-License-Identifier: MIT */
/*
 * codeobj_mangle.h - which parameters of a mangled kernel name point to const.
 *
 * Included by codeobj.c only. clang-15 marks a HIP kernel argument read-only in
 * the code object metadata only for `const T *__restrict__`; a plain `const T *`
 * leaves no trace there. The Itanium-mangled kernel name still has it: "PKf" is
 * "pointer to const float". This walks just enough of the mangling grammar to
 * split the parameter list (names, nested names, template arguments, qualifiers,
 * pointers, arrays, function types, substitutions S_/S<n>_, template parameters
 * T_/T<n>_), tracking for each substitution candidate whether it is a pointer to
 * const, since `f(const float *, const float *)` mangles as "PKfS0_".
 *
 * Anything it does not know (local names, lambdas, expressions, decltype, ABI
 * tags, operators) makes it give up and change nothing: this only ever adds a
 * read_only flag, and only when the parameter count matches the metadata's.
 * Bounded: recursion depth, substitution table and every read are capped.
 */
#ifndef HIPSVM_SIM_CODEOBJ_MANGLE_H
#define HIPSVM_SIM_CODEOBJ_MANGLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "codeobj.h"

#define DM_MAX_SUBS	256
#define DM_MAX_TARGS	32
#define DM_MAX_DEPTH	32
#define DMF_CONST	1u	/* const-qualified at the top */
#define DMF_PCONST	2u	/* pointer or reference to a const type */

struct dm {
	const char *s;
	size_t pos, len;
	unsigned depth, nsubs, ntargs;
	uint8_t subs[DM_MAX_SUBS];	/* flags of each substitution candidate */
	uint8_t targs[DM_MAX_TARGS];	/* flags of the function's template arguments */
};

static bool dm_type(struct dm *d, unsigned *flags);

static inline char dm_peek(const struct dm *d)
{
	return d->pos < d->len ? d->s[d->pos] : 0;
}

static inline bool dm_eat(struct dm *d, char c)
{
	if (dm_peek(d) != c)
		return false;
	d->pos++;
	return true;
}

static inline void dm_add_sub(struct dm *d, unsigned flags)
{
	if (d->nsubs < DM_MAX_SUBS)
		d->subs[d->nsubs] = (uint8_t)flags;
	d->nsubs++;
}

static inline bool dm_number(struct dm *d, size_t *n)
{
	size_t v = 0, start = d->pos;

	while (dm_peek(d) >= '0' && dm_peek(d) <= '9') {
		v = v * 10 + (size_t)(dm_peek(d) - '0');
		if (v > d->len)
			return false;
		d->pos++;
	}
	*n = v;
	return d->pos > start;
}

static inline bool dm_source_name(struct dm *d)
{
	size_t n;

	if (!dm_number(d, &n) || n == 0 || n > d->len - d->pos)
		return false;
	d->pos += n;
	return true;
}

/* After 'S': St (a prefix), Sa/Sb/Ss/Si/So/Sd, S_ or S<base 36>_. */
static inline bool dm_substitution(struct dm *d, unsigned *flags, bool *std_prefix)
{
	char c = dm_peek(d);
	size_t idx = 0;

	*flags = 0;
	*std_prefix = false;
	if (c == 't') {
		d->pos++;
		*std_prefix = true;
		return true;
	}
	if (c && strchr("absiod", c)) {
		d->pos++;
		return true;
	}
	if (!dm_eat(d, '_')) {
		for (;;) {
			c = dm_peek(d);
			if (c >= '0' && c <= '9')
				idx = idx * 36 + (size_t)(c - '0');
			else if (c >= 'A' && c <= 'Z')
				idx = idx * 36 + (size_t)(c - 'A' + 10);
			else
				break;
			if (idx >= DM_MAX_SUBS)
				return false;
			d->pos++;
		}
		if (!dm_eat(d, '_'))
			return false;
		idx++;
	}
	if (idx >= d->nsubs || idx >= DM_MAX_SUBS)
		return false;
	*flags = d->subs[idx];
	return true;
}

/* 'I' <template-arg>+ 'E'; `record` keeps the function's own arguments for T_. */
static inline bool dm_template_args(struct dm *d, bool record)
{
	if (!dm_eat(d, 'I'))
		return false;
	if (record)
		d->ntargs = 0;
	while (!dm_eat(d, 'E')) {
		unsigned f = 0;

		if (dm_eat(d, 'L')) {
			if (dm_peek(d) == '_')
				return false;	/* L_Z <encoding> E: not worth it */
			while (dm_peek(d) && dm_peek(d) != 'E')
				d->pos++;
			if (!dm_eat(d, 'E'))
				return false;
		} else if (dm_eat(d, 'J')) {
			while (!dm_eat(d, 'E'))
				if (!dm_type(d, &f))
					return false;
			f = 0;
		} else if (!dm_type(d, &f)) {
			return false;
		}
		if (record && d->ntargs < DM_MAX_TARGS)
			d->targs[d->ntargs++] = (uint8_t)f;
	}
	return true;
}

/*
 * A (possibly nested, possibly template) name. As a type (is_type) the whole
 * name becomes a substitution candidate; as the kernel's own name it does not,
 * and *fn_template says whether it ended in template arguments.
 */
static bool dm_name(struct dm *d, bool is_type, unsigned *flags, bool *fn_template)
{
	bool pending = false, targs_last = false, std_prefix;

	*flags = 0;
	if (dm_eat(d, 'N')) {
		while (dm_peek(d) && strchr("rVKRO", dm_peek(d)))
			d->pos++;
		while (!dm_eat(d, 'E')) {
			char c = dm_peek(d);

			if (c == 'S' && !pending) {
				d->pos++;
				if (!dm_substitution(d, flags, &std_prefix))
					return false;
				targs_last = false;
				continue;
			}
			if (c == 'L')
				d->pos++;
			if (pending)
				dm_add_sub(d, 0);
			if (dm_peek(d) == 'I') {
				if (!dm_template_args(d, !is_type))
					return false;
				targs_last = true;
			} else if (!dm_source_name(d)) {
				return false;
			} else {
				targs_last = false;
			}
			pending = true;
		}
		if (is_type && pending) {
			dm_add_sub(d, 0);
			*flags = 0;
		}
		*fn_template = !is_type && targs_last;
		return true;
	}
	if (dm_eat(d, 'S')) {
		if (!dm_substitution(d, flags, &std_prefix))
			return false;
		if (std_prefix) {
			if (!dm_source_name(d))
				return false;
			pending = true;
		}
	} else {
		dm_eat(d, 'L');
		if (!dm_source_name(d))
			return false;
		pending = true;
	}
	if (dm_peek(d) == 'I') {
		/* the unscoped template name, then the template-id, are candidates */
		if (pending)
			dm_add_sub(d, 0);
		if (!dm_template_args(d, !is_type))
			return false;
		*flags = 0;
		pending = true;
		*fn_template = !is_type;
	} else {
		*fn_template = false;
	}
	if (is_type && pending)
		dm_add_sub(d, *flags);
	return true;
}

static bool dm_type_inner(struct dm *d, unsigned *flags)
{
	char c = dm_peek(d);
	unsigned f = 0;
	size_t n;
	bool k = false, dummy;

	*flags = 0;
	if (c == 'r' || c == 'V' || c == 'K') {
		while (dm_peek(d) && strchr("rVK", dm_peek(d)))
			k |= d->s[d->pos++] == 'K';
		if (!dm_type(d, &f))
			return false;
		*flags = (f & DMF_PCONST) | (k ? DMF_CONST : 0);
		dm_add_sub(d, *flags);
		return true;
	}
	if (c == 'P' || c == 'R' || c == 'O') {
		d->pos++;
		if (!dm_type(d, &f))
			return false;
		*flags = (f & DMF_CONST) ? DMF_PCONST : 0;
		dm_add_sub(d, *flags);
		return true;
	}
	if (c && strchr("vwbcahstijlmxynofdegz", c)) {
		d->pos++;
		return true;
	}
	switch (c) {
	case 'u':
		d->pos++;
		if (!dm_source_name(d))
			return false;
		dm_add_sub(d, 0);
		return true;
	case 'D':
		d->pos++;
		c = dm_peek(d);
		if (!c)
			return false;
		d->pos++;
		if (c == 'p') {
			if (!dm_type(d, &f))
				return false;
			dm_add_sub(d, 0);
			return true;
		}
		if (c == 'F' || c == 'B' || c == 'U')
			return dm_number(d, &n) && (dm_eat(d, '_') || (c == 'F' && dm_eat(d, 'b')));
		if (c == 'v') {
			if (!dm_number(d, &n) || !dm_eat(d, '_') || !dm_type(d, &f))
				return false;
			dm_add_sub(d, 0);
			return true;
		}
		return c && strchr("acdefhinsu", c);
	case 'A':
		d->pos++;
		if (!dm_eat(d, '_') && !(dm_number(d, &n) && dm_eat(d, '_')))
			return false;
		if (!dm_type(d, &f))
			return false;
		dm_add_sub(d, 0);
		return true;
	case 'F':
		d->pos++;
		dm_eat(d, 'Y');
		while (!dm_eat(d, 'E')) {
			if ((dm_peek(d) == 'R' || dm_peek(d) == 'O') && d->pos + 1 < d->len &&
			    d->s[d->pos + 1] == 'E') {
				d->pos++;
				continue;
			}
			if (!dm_type(d, &f))
				return false;
		}
		dm_add_sub(d, 0);
		return true;
	case 'M':
		d->pos++;
		if (!dm_type(d, &f) || !dm_type(d, &f))
			return false;
		dm_add_sub(d, 0);
		return true;
	case 'T':
		d->pos++;
		n = 0;
		if (!dm_eat(d, '_')) {
			if (!dm_number(d, &n) || !dm_eat(d, '_'))
				return false;
			n++;
		}
		*flags = n < d->ntargs ? d->targs[n] : 0;
		dm_add_sub(d, *flags);
		if (dm_peek(d) == 'I') {
			if (!dm_template_args(d, false))
				return false;
			*flags = 0;
			dm_add_sub(d, 0);
		}
		return true;
	default:
		if ((c >= '0' && c <= '9') || c == 'N' || c == 'S')
			return dm_name(d, true, flags, &dummy);
		return false;
	}
}

static bool dm_type(struct dm *d, unsigned *flags)
{
	bool ok;

	if (++d->depth > DM_MAX_DEPTH)
		return false;
	ok = dm_type_inner(d, flags);
	d->depth--;
	return ok;
}

/* Sets read_only on global-buffer arguments whose parameter type is a pointer to const. */
static inline void hipsvm_mangled_const_args(const char *name, struct hipsvm_kernel_info *ki)
{
	struct dm d;
	bool fn_template;
	unsigned f, n = 0;
	uint8_t pflags[HIPSVM_KERNEL_MAX_ARGS];

	memset(&d, 0, sizeof(d));
	d.s = name;
	d.len = strlen(name);
	if (d.len < 3 || memcmp(name, "_Z", 2))
		return;
	d.pos = 2;
	if (!dm_name(&d, false, &f, &fn_template))
		return;
	if (fn_template && !dm_type(&d, &f))	/* templates mangle the return type */
		return;
	while (d.pos < d.len && dm_peek(&d) != '.') {
		size_t start = d.pos;

		if (!dm_type(&d, &f) || n >= HIPSVM_KERNEL_MAX_ARGS)
			return;
		if (d.pos - start == 1 && name[start] == 'v' && n == 0 && d.pos == d.len)
			break;	/* f(void) */
		pflags[n++] = (uint8_t)f;
	}
	if (n != ki->nargs)
		return;
	for (unsigned i = 0; i < n; i++)
		if ((pflags[i] & DMF_PCONST) && ki->args[i].global_buffer)
			ki->args[i].read_only = true;
}

#endif /* HIPSVM_SIM_CODEOBJ_MANGLE_H */
