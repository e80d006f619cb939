/* SPDX-License-Identifier: MIT */
/*
 * policy.c - parses HIPSVM_POLICY (grammar in policy.h, prose in
 * docs/routing.md). Runs once at start-up, possibly before libc is fully
 * ready, so: no malloc, no stdio, fixed buffers only.
 */
#include "shim/policy.h"

#include <errno.h>
#include <string.h>

#include "shared/fmt.h"
#include "shim/options.h"

#define ITEM_MAX 96

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool ieq_n(const char *a, size_t n, const char *lit)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!lit[i] || lower(a[i]) != lit[i])
			return false;
	return lit[n] == '\0';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((*s)[*n - 1]))
		(*n)--;
}

static void copy_bad(char *bad, size_t cap, const char *s, size_t n)
{
	if (!bad || !cap)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(bad, s, n);
	bad[n] = '\0';
}

/* A decimal device index, all of s[0..n). */
static int parse_dev(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0;
	size_t i;

	if (!n || n > 3)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v >= HIPSVM_POLICY_MAX_DEV)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_size_n(const char *s, size_t n, uint64_t *out)
{
	char tmp[ITEM_MAX];

	trim(&s, &n);
	if (!n || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return hipsvm_parse_size(tmp, out);
}

/* One quota part: SIZE, DEV:SIZE or DEV-DEV:SIZE, applied to p. */
static int parse_quota_part(const char *s, size_t n, struct hipsvm_policy *p)
{
	const char *colon;
	unsigned lo = 0, hi = HIPSVM_POLICY_MAX_DEV - 1, d;
	uint64_t bytes;

	trim(&s, &n);
	colon = memchr(s, ':', n);
	if (colon) {
		const char *dash = memchr(s, '-', (size_t)(colon - s));
		size_t dn = (size_t)(colon - s);

		trim(&s, &dn);
		if (dash) {
			if (parse_dev(s, (size_t)(dash - s), &lo) ||
			    parse_dev(dash + 1, (size_t)(colon - dash - 1), &hi) || hi < lo)
				return -EINVAL;
		} else {
			if (parse_dev(s, dn, &lo))
				return -EINVAL;
			hi = lo;
		}
		if (parse_size_n(colon + 1, n - (size_t)(colon + 1 - s), &bytes))
			return -EINVAL;
	} else if (parse_size_n(s, n, &bytes)) {
		return -EINVAL;
	}
	for (d = lo; d <= hi; d++) {
		p->quota[d] = bytes;
		p->quota_mask |= UINT64_C(1) << d;
	}
	return 0;
}

static int parse_quota(const char *s, size_t n, struct hipsvm_policy *p)
{
	while (n) {
		const char *semi = memchr(s, ';', n);
		size_t part = semi ? (size_t)(semi - s) : n;

		if (parse_quota_part(s, part, p))
			return -EINVAL;
		if (!semi)
			break;
		n -= part + 1;
		s = semi + 1;
		if (!n)
			return -EINVAL;	/* trailing ';' */
	}
	return 0;
}

void hipsvm_policy_default(struct hipsvm_policy *p)
{
	memset(p, 0, sizeof(*p));
}

int hipsvm_policy_parse(const char *text, struct hipsvm_policy *out, char *bad, size_t bad_cap)
{
	struct hipsvm_policy p;
	bool in_quota = false;
	const char *s = text;
	size_t left;

	hipsvm_policy_default(&p);
	if (!text || !*text) {
		*out = p;
		return 0;
	}
	left = strlen(text);
	for (;;) {
		const char *comma = memchr(s, ',', left);
		size_t n = comma ? (size_t)(comma - s) : left;
		const char *item = s;
		size_t in = n;
		int err = 0;

		trim(&item, &in);
		if (!in) {
			err = -EINVAL;
		} else if (ieq_n(item, in, "default")) {
			in_quota = false;
		} else if (ieq_n(item, in, "managed-local")) {
			p.managed_local = true;
			in_quota = false;
		} else if (ieq_n(item, in, "oversubscribe")) {
			p.oversubscribe = true;
			in_quota = false;
		} else if (ieq_n(item, in, "map-all")) {
			p.map_all = true;
			in_quota = false;
		} else if (in > 6 && ieq_n(item, 6, "quota=")) {
			err = parse_quota(item + 6, in - 6, &p);
			in_quota = true;
		} else if (in_quota && memchr(item, ':', in)) {
			err = parse_quota(item, in, &p);
		} else {
			err = -EINVAL;
		}
		if (err) {
			copy_bad(bad, bad_cap, item, in);
			return -EINVAL;
		}
		if (!comma)
			break;
		left -= n + 1;
		s = comma + 1;
	}
	*out = p;
	return 0;
}

bool hipsvm_policy_quota(const struct hipsvm_policy *p, int dev, uint64_t *bytes)
{
	if (dev < 0 || dev >= HIPSVM_POLICY_MAX_DEV)
		return false;
	if (!(p->quota_mask & (UINT64_C(1) << dev)))
		return false;
	*bytes = p->quota[dev];
	return true;
}

bool hipsvm_policy_is_default(const struct hipsvm_policy *p)
{
	return !p->managed_local && !p->oversubscribe && !p->map_all && !p->quota_mask;
}

struct w {
	char *buf;
	size_t cap, len;
};

static void put(struct w *w, const char *s)
{
	for (; *s; s++, w->len++)
		if (w->len + 1 < w->cap)
			w->buf[w->len] = *s;
}

static void put_u64(struct w *w, uint64_t v)
{
	char tmp[HIPSVM_FMT_U64_MAX];

	put(w, hipsvm_fmt_u64(tmp, v));
}

size_t hipsvm_policy_format(const struct hipsvm_policy *p, char *buf, size_t cap)
{
	struct w w = { buf, cap, 0 };
	bool first = true;
	unsigned d;

	if (hipsvm_policy_is_default(p))
		put(&w, "default");
	if (p->managed_local) {
		put(&w, "managed-local");
		first = false;
	}
	if (p->oversubscribe) {
		put(&w, first ? "oversubscribe" : ",oversubscribe");
		first = false;
	}
	if (p->map_all) {
		put(&w, first ? "map-all" : ",map-all");
		first = false;
	}
	if (p->quota_mask) {
		bool qfirst = true;

		put(&w, first ? "quota=" : ",quota=");
		for (d = 0; d < HIPSVM_POLICY_MAX_DEV; d++) {
			if (!(p->quota_mask & (UINT64_C(1) << d)))
				continue;
			if (!qfirst)
				put(&w, ";");
			put_u64(&w, d);
			put(&w, ":");
			put_u64(&w, p->quota[d]);
			qfirst = false;
		}
	}
	if (cap)
		buf[w.len < cap ? w.len : cap - 1] = '\0';
	return w.len;
}
