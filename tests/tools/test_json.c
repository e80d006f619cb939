/* SPDX-License-Identifier: MIT */
/*
 * test_json.c - the hipsvm command's JSON parser (tools/json.c): the reports
 * and trace events a user hands the tool must parse exactly or fail cleanly.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static struct json *parse(const char *s)
{
	char err[128];

	return json_parse(s, strlen(s), err, sizeof(err));
}

Test(json, scalars_and_containers)
{
	struct json *j = parse(" {\"a\": [1, -2, 3.5, true, false, null, \"x\"], \"b\": {}} ");

	cr_assert_not_null(j);
	cr_assert_eq(j->type, JSON_OBJ);
	cr_assert_eq(json_path(j, "a")->n, 7);
	cr_assert_eq(json_path(j, "a.0")->u64, 1);
	cr_assert(json_path(j, "a.1")->neg);
	cr_assert_eq(json_path(j, "a.1")->i64, -2);
	cr_assert_not(json_path(j, "a.2")->is_int);
	cr_assert_float_eq(json_path(j, "a.2")->num, 3.5, 1e-12);
	cr_assert(json_path(j, "a.3")->b);
	cr_assert_not(json_path(j, "a.4")->b);
	cr_assert_eq(json_path(j, "a.5")->type, JSON_NULL);
	cr_assert_str_eq(json_path(j, "a.6")->str, "x");
	cr_assert_eq(json_path(j, "b")->type, JSON_OBJ);
	cr_assert_null(json_path(j, "a.7"));
	cr_assert_null(json_path(j, "c"));
	json_free(j);
}

Test(json, u64_exact)
{
	/* CLOCK_MONOTONIC ns and byte counts beyond 2^53 must not be rounded. */
	struct json *j = parse("{\"t\":18446744073709551615,\"u\":9007199254740993}");

	cr_assert_not_null(j);
	cr_assert_eq(json_u64(j, "t", 0), UINT64_MAX);
	cr_assert_eq(json_u64(j, "u", 0), 9007199254740993ull);
	json_free(j);
}

Test(json, tolerant_readers)
{
	struct json *j = parse("{\"n\":\"12\",\"s\":5,\"f\":2.9}");

	cr_assert_eq(json_u64(j, "n", 7), 7, "a string is not a number");
	cr_assert_str_eq(json_str(j, "s", "-"), "-");
	cr_assert_eq(json_u64(j, "missing", 3), 3);
	cr_assert_eq(json_u64(j, "f", 0), 2);
	cr_assert_eq(json_u64(NULL, "x", 9), 9);
	json_free(j);
}

Test(json, string_escapes)
{
	struct json *j = parse("\"a\\\"b\\\\c\\/d\\n\\u00e9\\ud83d\\ude00\\ud800x\"");

	cr_assert_not_null(j);
	cr_assert_str_eq(j->str, "a\"b\\c/d\n\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
	json_free(j);
}

Test(json, last_duplicate_key_wins)
{
	struct json *j = parse("{\"k\":1,\"k\":2}");

	cr_assert_eq(json_u64(j, "k", 0), 2);
	json_free(j);
}

Test(json, rejects_malformed)
{
	static const char *const bad[] = {
		"", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", "-", "1e",
		"tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "[1 2]", "{} {}", "\"a\nb\"", "+1",
		"[\"\\ud800\\u12\"]",
	};
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json *j = json_parse(bad[i], strlen(bad[i]), err, sizeof(err));

		cr_assert_null(j, "accepted bad input #%zu <%s>", i, bad[i]);
		cr_assert(strncmp(err, "line ", 5) == 0 && strstr(err, " column "),
			  "message for #%zu: %s", i, err);
	}
}

Test(json, error_position)
{
	char err[128];
	const char *s = "{\n  \"a\": 1,\n  \"b\": ]\n}";

	cr_assert_null(json_parse(s, strlen(s), err, sizeof(err)));
	cr_assert_str_eq(err, "line 3 column 8: unexpected character");
}

Test(json, depth_is_bounded)
{
	char deep[4 * JSON_MAX_DEPTH + 8], err[128];
	size_t i, n = 0;

	for (i = 0; i < JSON_MAX_DEPTH + 5; i++)
		deep[n++] = '[';
	for (i = 0; i < JSON_MAX_DEPTH + 5; i++)
		deep[n++] = ']';
	cr_assert_null(json_parse(deep, n, err, sizeof(err)));
	cr_assert(strstr(err, "nested too deeply"), "%s", err);

	n = 0;
	for (i = 0; i < JSON_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (i = 0; i < JSON_MAX_DEPTH; i++)
		deep[n++] = ']';
	struct json *j = json_parse(deep, n, err, sizeof(err));
	cr_assert_not_null(j, "%s", err);
	json_free(j);
}

Test(json, length_is_respected)
{
	/* The parser must not read past len even without a NUL there. */
	const char s[] = "[1,2]garbage";
	char err[64];
	struct json *j = json_parse(s, 5, err, sizeof(err));

	cr_assert_not_null(j);
	cr_assert_eq(j->n, 2);
	json_free(j);
}

/* Random mutations of a valid report must never crash the parser. Seed
 * printed; HIPSVM_TEST_SEED overrides it. */
Test(json, mutations_do_not_crash)
{
	const char *base = "{\"schema\":\"hipsvm-report/2\",\"devices\":[{\"index\":0,\"faults\":"
			   "{\"raised\":12,\"dropped\":3}}],\"x\":[true,null,-1.5e3,\"\\u0041\"]}";
	const char *env = getenv("HIPSVM_TEST_SEED");
	unsigned seed = env ? (unsigned)strtoul(env, NULL, 0) : 12345u;
	size_t len = strlen(base), i, k;
	char buf[256], err[128];

	cr_log_info("seed %u (HIPSVM_TEST_SEED)", seed);
	srand(seed);
	for (i = 0; i < 20000; i++) {
		memcpy(buf, base, len);
		for (k = 0; k < 1 + (unsigned)rand() % 4; k++)
			buf[(unsigned)rand() % len] = (char)(rand() % 128);
		json_free(json_parse(buf, (unsigned)rand() % (len + 1), err, sizeof(err)));
	}
	cr_assert(1, "seed %u", seed);
}
