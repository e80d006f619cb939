/* SPDX-License-Identifier: MIT */
/*
 * json.c - recursive-descent JSON parser (RFC 8259), bounded depth.
 */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p, *end, *start;
	char *err;
	size_t errcap;
	bool failed;
};

static void fail(struct parser *ps, const char *what)
{
	const char *q;
	unsigned line = 1, col = 1;

	if (ps->failed)
		return;
	ps->failed = true;
	for (q = ps->start; q < ps->p && q < ps->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (ps->err && ps->errcap)
		snprintf(ps->err, ps->errcap, "line %u column %u: %s", line, col, what);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct json *node(struct parser *ps, enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j)
		fail(ps, "out of memory");
	else
		j->type = t;
	return j;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return false;
	ps->p += n;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool hex4(struct parser *ps, unsigned *out)
{
	unsigned v = 0;
	int i, h;

	if (ps->end - ps->p < 4) {
		fail(ps, "truncated \\u escape");
		return false;
	}
	for (i = 0; i < 4; i++) {
		h = hexval(ps->p[i]);
		if (h < 0) {
			fail(ps, "bad \\u escape");
			return false;
		}
		v = v * 16 + (unsigned)h;
	}
	ps->p += 4;
	*out = v;
	return true;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* ps->p is just past the opening quote. The decoded text is never longer
 * than the source text, so one allocation of the source length suffices. */
static char *string(struct parser *ps)
{
	const char *q = ps->p;
	char *out, *o;
	unsigned cp, lo;

	while (q < ps->end && *q != '"') {
		if (*q == '\\')
			q++;
		q++;
	}
	if (q >= ps->end) {
		fail(ps, "unterminated string");
		return NULL;
	}
	out = malloc((size_t)(q - ps->p) + 1);
	if (!out) {
		fail(ps, "out of memory");
		return NULL;
	}
	o = out;
	while (*ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p++;

		if (c < 0x20) {
			fail(ps, "control character in string");
			goto bad;
		}
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (!hex4(ps, &cp))
				goto bad;
			/* A surrogate pair is 12 source bytes for 4 output bytes; a
			 * lone surrogate becomes U+FFFD (3 bytes for 6). */
			if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 6 &&
			    ps->p[0] == '\\' && ps->p[1] == 'u') {
				ps->p += 2;
				if (!hex4(ps, &lo))
					goto bad;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					cp = 0xfffd;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			o += put_utf8(o, cp);
			break;
		default:
			ps->p--;
			fail(ps, "bad escape in string");
			goto bad;
		}
	}
	ps->p++;
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static struct json *number(struct parser *ps)
{
	const char *s = ps->p, *q = ps->p;
	bool frac = false;
	char buf[64];
	struct json *j;
	size_t n;

	if (q < ps->end && *q == '-')
		q++;
	if (q >= ps->end || *q < '0' || *q > '9') {
		fail(ps, "bad number");
		return NULL;
	}
	if (*q == '0' && q + 1 < ps->end && q[1] >= '0' && q[1] <= '9') {
		fail(ps, "leading zero in number");
		return NULL;
	}
	while (q < ps->end && *q >= '0' && *q <= '9')
		q++;
	if (q < ps->end && *q == '.') {
		frac = true;
		q++;
		if (q >= ps->end || *q < '0' || *q > '9') {
			fail(ps, "bad number");
			return NULL;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		frac = true;
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end || *q < '0' || *q > '9') {
			fail(ps, "bad number");
			return NULL;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	n = (size_t)(q - s);
	if (n >= sizeof(buf)) {
		fail(ps, "number too long");
		return NULL;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	j = node(ps, JSON_NUM);
	if (!j)
		return NULL;
	j->num = strtod(buf, NULL);
	if (!frac) {
		errno = 0;
		if (buf[0] == '-') {
			long long v = strtoll(buf, NULL, 10);

			if (errno == 0) {
				j->is_int = true;
				j->neg = v < 0;
				j->i64 = v;
				j->u64 = v < 0 ? 0 : (uint64_t)v;
			}
		} else {
			unsigned long long v = strtoull(buf, NULL, 10);

			if (errno == 0) {
				j->is_int = true;
				j->u64 = v;
				j->i64 = v > INT64_MAX ? INT64_MAX : (int64_t)v;
			}
		}
	}
	ps->p = q;
	return j;
}

static struct json *value(struct parser *ps, unsigned depth);

static bool grow(struct parser *ps, struct json *j, size_t *cap, bool keys)
{
	size_t ncap = *cap ? *cap * 2 : 8;
	struct json **items;
	char **k;

	items = realloc(j->items, ncap * sizeof(*items));
	if (!items) {
		fail(ps, "out of memory");
		return false;
	}
	j->items = items;
	if (keys) {
		k = realloc(j->keys, ncap * sizeof(*k));
		if (!k) {
			fail(ps, "out of memory");
			return false;
		}
		j->keys = k;
	}
	*cap = ncap;
	return true;
}

static struct json *container(struct parser *ps, unsigned depth, bool obj)
{
	struct json *j = node(ps, obj ? JSON_OBJ : JSON_ARR), *v;
	char close = obj ? '}' : ']';
	size_t cap = 0;
	char *key = NULL;

	if (!j)
		return NULL;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return j;
	}
	for (;;) {
		skip_ws(ps);
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"') {
				fail(ps, "expected a string key");
				goto bad;
			}
			ps->p++;
			key = string(ps);
			if (!key)
				goto bad;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				fail(ps, "expected ':'");
				goto bad;
			}
			ps->p++;
		}
		v = value(ps, depth + 1);
		if (!v)
			goto bad;
		if (j->n == cap && !grow(ps, j, &cap, obj)) {
			json_free(v);
			goto bad;
		}
		j->items[j->n] = v;
		if (obj)
			j->keys[j->n] = key;
		key = NULL;
		j->n++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return j;
		}
		fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		goto bad;
	}
bad:
	free(key);
	json_free(j);
	return NULL;
}

static struct json *value(struct parser *ps, unsigned depth)
{
	struct json *j;

	if (depth > JSON_MAX_DEPTH) {
		fail(ps, "nested too deeply");
		return NULL;
	}
	skip_ws(ps);
	if (ps->p >= ps->end) {
		fail(ps, "unexpected end of input");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		return container(ps, depth, true);
	case '[':
		return container(ps, depth, false);
	case '"':
		ps->p++;
		j = node(ps, JSON_STR);
		if (j) {
			j->str = string(ps);
			if (!j->str) {
				free(j);
				return NULL;
			}
		}
		return j;
	case 't':
	case 'f':
		if (literal(ps, "true") || literal(ps, "false")) {
			j = node(ps, JSON_BOOL);
			if (j)
				j->b = ps->p[-1] == 'e' && ps->p[-4] == 't';
			return j;
		}
		break;
	case 'n':
		if (literal(ps, "null"))
			return node(ps, JSON_NULL);
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return number(ps);
		break;
	}
	fail(ps, "unexpected character");
	return NULL;
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errcap)
{
	struct parser ps = { text, text + len, text, err, errcap, false };
	struct json *j;

	if (err && errcap)
		err[0] = '\0';
	j = value(&ps, 0);
	if (!j)
		return NULL;
	skip_ws(&ps);
	if (ps.p != ps.end) {
		fail(&ps, "trailing characters after the value");
		json_free(j);
		return NULL;
	}
	return j;
}

void json_free(struct json *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->n; i++) {
		json_free(j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
	free(j);
}

const struct json *json_get(const struct json *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JSON_OBJ)
		return NULL;
	for (i = obj->n; i-- > 0;)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->items[i];
	return NULL;
}

const struct json *json_path(const struct json *root, const char *path)
{
	const struct json *j = root;
	char part[128];

	while (j && *path) {
		size_t n = strcspn(path, ".");
		char *end;
		unsigned long idx;

		if (n >= sizeof(part))
			return NULL;
		memcpy(part, path, n);
		part[n] = '\0';
		path += n;
		if (*path == '.')
			path++;
		if (j->type == JSON_ARR) {
			idx = strtoul(part, &end, 10);
			if (*end || end == part || idx >= j->n)
				return NULL;
			j = j->items[idx];
		} else {
			j = json_get(j, part);
		}
	}
	return j;
}

uint64_t json_u64(const struct json *obj, const char *key, uint64_t def)
{
	const struct json *v = json_get(obj, key);

	if (!v || v->type != JSON_NUM)
		return def;
	if (v->is_int)
		return v->u64;
	if (v->num <= 0 || isnan(v->num))
		return 0;
	if (v->num >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)v->num;
}

const char *json_str(const struct json *obj, const char *key, const char *def)
{
	const struct json *v = json_get(obj, key);

	return v && v->type == JSON_STR ? v->str : def;
}

bool json_is(const struct json *j, enum json_type t)
{
	return j && j->type == t;
}
