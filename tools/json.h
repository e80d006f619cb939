/* SPDX-License-Identifier: MIT */
/*
 * json.h - a small JSON reader and writer for the hipsvm command.
 *
 * The reports and trace events are small and written by our own shim, but the
 * tool also reads files a user hands it, so the parser is strict about syntax,
 * bounded in nesting depth, and never trusts a length. Integers are kept
 * exactly (64-bit) next to their double value because byte counts and
 * CLOCK_MONOTONIC nanoseconds do not fit a double's 53 bits in every case.
 */
#ifndef HIPSVM_TOOLS_JSON_H
#define HIPSVM_TOOLS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
	enum json_type type;
	bool b;
	bool is_int;		/* a number written without fraction or exponent */
	bool neg;		/* ... and negative: i64 holds it */
	double num;
	uint64_t u64;		/* is_int && !neg */
	int64_t i64;		/* is_int */
	char *str;		/* JSON_STR, NUL-terminated (embedded NULs cut it) */
	size_t n;		/* items in an array or object */
	struct json **items;	/* array elements or object values */
	char **keys;		/* object keys, parallel to items */
};

#define JSON_MAX_DEPTH 64

/* NULL on error, with a message "line L column C: what" in err. */
struct json *json_parse(const char *text, size_t len, char *err, size_t errcap);
void json_free(struct json *j);

/* The member named key of an object (the last one, as most parsers do), or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* Follows "a.b.c" through objects; a numeric part indexes an array. */
const struct json *json_path(const struct json *root, const char *path);

/* Tolerant readers: a missing or mistyped value gives def. */
uint64_t json_u64(const struct json *obj, const char *key, uint64_t def);
const char *json_str(const struct json *obj, const char *key, const char *def);
bool json_is(const struct json *j, enum json_type t);

/* Writes s as a JSON string literal, escaping what must be escaped; a byte
 * that starts no UTF-8 character is written as \ufffd (valid UTF-8 out,
 * whatever came in). */
void json_write_str(FILE *f, const char *s);

/* What a reader takes at most (docs/cli.md, Limits): a report (the shim's is
 * under 128 KiB) and a raw events file. */
#define JSON_REPORT_MAX ((size_t)16 << 20)
#define JSON_EVENTS_MAX ((size_t)512 << 20)
/* Reads a whole regular file (or stdin for "-") of at most max bytes into a
 * NUL-terminated buffer. Opened without blocking (O_NONBLOCK) and refused
 * unless a regular file: a FIFO or a device never hangs or floods the
 * reader. -errno: -EINVAL not a regular file, -EFBIG more than max. */
int json_slurp(const char *path, char **buf, size_t *len, size_t max);
/* The words for json_slurp's error rc. */
const char *json_slurp_strerror(int rc);

#endif
