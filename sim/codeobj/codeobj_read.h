/* SPDX-License-Identifier: MIT */
/*
 * codeobj_read.h - bounded reading of untrusted bytes, and a MessagePack reader.
 *
 * Included by codeobj.c only (its static helpers, kept apart so that each file
 * holds one idea; the simulated runtime's build lists codeobj.c alone).
 *
 * Every read of the input goes through rd()/sub(), which fail instead of
 * reading out of bounds. The MessagePack reader knows what the AMDGPU metadata
 * uses (maps, arrays, str, uint/int, bool, nil) and skips everything else
 * (bin, ext, float) by its encoded length. Values are big-endian in
 * MessagePack; the ELF and bundle fields around it are little-endian.
 */
#ifndef HIPSVM_SIM_CODEOBJ_READ_H
#define HIPSVM_SIM_CODEOBJ_READ_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A bounded view of the input. */
struct buf {
	const uint8_t *p;
	uint64_t size;
};

/* Copies n bytes at off, or fails: the one place that reads the input. */
static inline bool rd(const struct buf *b, uint64_t off, void *dst, uint64_t n)
{
	if (off > b->size || n > b->size - off)
		return false;
	memcpy(dst, b->p + off, n);
	return true;
}

static inline bool rd32(const struct buf *b, uint64_t off, uint32_t *v)
{
	if (!rd(b, off, v, 4))
		return false;
	*v = le32toh(*v);
	return true;
}

static inline bool rd64(const struct buf *b, uint64_t off, uint64_t *v)
{
	if (!rd(b, off, v, 8))
		return false;
	*v = le64toh(*v);
	return true;
}

static inline bool sub(const struct buf *b, uint64_t off, uint64_t n, struct buf *out)
{
	if (off > b->size || n > b->size - off)
		return false;
	out->p = b->p + off;
	out->size = n;
	return true;
}

/* ------------------------------------------------------------------ */
/* MessagePack: only what the metadata uses; everything else is skipped. */

enum mp_kind { MP_NIL, MP_BOOL, MP_UINT, MP_INT, MP_STR, MP_ARRAY, MP_MAP, MP_OTHER };

struct mp_tok {
	enum mp_kind kind;
	uint64_t u;		/* UINT value, BOOL, ARRAY/MAP count, STR length */
	int64_t i;		/* INT value */
	const char *s;		/* STR bytes (not NUL-terminated) */
};

struct mp {
	struct buf b;
	uint64_t pos;
};

static inline bool mp_be(struct mp *m, unsigned n, uint64_t *v)
{
	uint8_t t[8];

	if (!rd(&m->b, m->pos, t, n))
		return false;
	m->pos += n;
	*v = 0;
	for (unsigned j = 0; j < n; j++)
		*v = (*v << 8) | t[j];
	return true;
}

/* Payload bytes of a skipped scalar, or of a string. */
static inline bool mp_bytes(struct mp *m, uint64_t n, const char **s)
{
	if (m->pos > m->b.size || n > m->b.size - m->pos)
		return false;
	if (s)
		*s = (const char *)m->b.p + m->pos;
	m->pos += n;
	return true;
}

/* Reads one header; for strings also their bytes, for bin/ext/float their payload. */
static inline bool mp_next(struct mp *m, struct mp_tok *t)
{
	uint8_t c;
	uint64_t v;

	if (!rd(&m->b, m->pos, &c, 1))
		return false;
	m->pos++;
	memset(t, 0, sizeof(*t));
	if (c <= 0x7f) { t->kind = MP_UINT; t->u = c; return true; }
	if (c >= 0xe0) { t->kind = MP_INT; t->i = (int8_t)c; return true; }
	if ((c & 0xf0) == 0x80) { t->kind = MP_MAP; t->u = c & 0x0f; return true; }
	if ((c & 0xf0) == 0x90) { t->kind = MP_ARRAY; t->u = c & 0x0f; return true; }
	if ((c & 0xe0) == 0xa0) { t->kind = MP_STR; t->u = c & 0x1f; return mp_bytes(m, t->u, &t->s); }
	switch (c) {
	case 0xc0: t->kind = MP_NIL; return true;
	case 0xc2: case 0xc3: t->kind = MP_BOOL; t->u = c & 1; return true;
	case 0xc4: case 0xc5: case 0xc6:	/* bin 8/16/32 */
		t->kind = MP_OTHER;
		return mp_be(m, 1u << (c - 0xc4), &v) && mp_bytes(m, v, NULL);
	case 0xc7: case 0xc8: case 0xc9:	/* ext 8/16/32: length, type, data */
		t->kind = MP_OTHER;
		return mp_be(m, 1u << (c - 0xc7), &v) && mp_bytes(m, 1, NULL) &&
		       mp_bytes(m, v, NULL);
	case 0xca: t->kind = MP_OTHER; return mp_bytes(m, 4, NULL);
	case 0xcb: t->kind = MP_OTHER; return mp_bytes(m, 8, NULL);
	case 0xcc: case 0xcd: case 0xce: case 0xcf:
		t->kind = MP_UINT;
		return mp_be(m, 1u << (c - 0xcc), &t->u);
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
		unsigned n = 1u << (c - 0xd0);

		if (!mp_be(m, n, &v))
			return false;
		/* sign-extend from n bytes */
		if (n < 8 && (v >> (8 * n - 1)))
			v |= ~(uint64_t)0 << (8 * n);
		t->kind = MP_INT;
		t->i = (int64_t)v;
		return true;
	}
	case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:	/* fixext 1..16 */
		t->kind = MP_OTHER;
		return mp_bytes(m, 1 + (1u << (c - 0xd4)), NULL);
	case 0xd9: case 0xda: case 0xdb:
		t->kind = MP_STR;
		return mp_be(m, 1u << (c - 0xd9), &t->u) && mp_bytes(m, t->u, &t->s);
	case 0xdc: case 0xdd:
		t->kind = MP_ARRAY;
		return mp_be(m, 2u << (c - 0xdc), &t->u);
	case 0xde: case 0xdf:
		t->kind = MP_MAP;
		return mp_be(m, 2u << (c - 0xde), &t->u);
	default:		/* 0xc1 is never used */
		return false;
	}
}

/*
 * Skips the rest of a value whose header is already read. Iterative, so a
 * deeply nested input cannot exhaust the stack; every pending item needs at
 * least one more byte, which bounds `pending` by the input size.
 */
static inline bool mp_skip_rest(struct mp *m, const struct mp_tok *first)
{
	uint64_t pending = 0;
	struct mp_tok t = *first;

	for (;;) {
		if (t.kind == MP_ARRAY || t.kind == MP_MAP) {
			uint64_t add = t.kind == MP_MAP ? 2 * t.u : t.u;

			if (add > m->b.size - m->pos || pending > m->b.size - m->pos - add)
				return false;
			pending += add;
		}
		if (!pending)
			return true;
		pending--;
		if (!mp_next(m, &t))
			return false;
	}
}

static inline bool mp_skip(struct mp *m)
{
	struct mp_tok t;

	return mp_next(m, &t) && mp_skip_rest(m, &t);
}

static inline bool tok_is(const struct mp_tok *t, const char *s)
{
	size_t n = strlen(s);

	return t->kind == MP_STR && t->u == n && !memcmp(t->s, s, n);
}

static inline bool mp_u32(struct mp *m, uint32_t *v)
{
	struct mp_tok t;

	if (!mp_next(m, &t))
		return false;
	if (t.kind == MP_INT && t.i >= 0) {
		t.kind = MP_UINT;
		t.u = (uint64_t)t.i;
	}
	if (t.kind != MP_UINT || t.u > UINT32_MAX)
		return false;
	*v = (uint32_t)t.u;
	return true;
}

/* Reads a string value; a value of any other kind is skipped and yields false. */
static inline bool mp_str(struct mp *m, struct mp_tok *t, bool *ok)
{
	if (!mp_next(m, t))
		return false;
	*ok = t->kind == MP_STR;
	return *ok || mp_skip_rest(m, t);
}

#endif /* HIPSVM_SIM_CODEOBJ_READ_H */
