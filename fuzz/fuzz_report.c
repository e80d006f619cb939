/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report.c - what `hipsvm report` does with a file (tools/json.c,
 * tools/render.c, tools/render_data.c): any bytes parse or are refused, and
 * a document taken as a report renders in every format without a crash or
 * an over-read. Checked: the JSON format's output is valid UTF-8 and the
 * text and CSV outputs carry no control character but newline (and the
 * colour escapes, which are off here): docs/report.md, Strings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "shim/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *what, const char *out, size_t len, bool json)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)out[i];
		size_t k = hipsvm_utf8_len((const unsigned char *)out + i, len - i);

		if (!k) {
			fprintf(stderr, "fuzz_report: %s output is not UTF-8 at %zu\n", what, i);
			abort();
		}
		if (!json && k == 1 && c < 0x20 && c != '\n') {
			fprintf(stderr, "fuzz_report: %s output has control 0x%02x at %zu\n", what, c, i);
			abort();
		}
		i += k;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum report_fmt fmts[] = { FMT_TEXT, FMT_JSON, FMT_CSV };
	char err[256], *copy = malloc(size + 1);
	struct json *r;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	r = json_parse(copy, size, err, sizeof(err));
	free(copy);
	if (!r)
		return 0;
	for (unsigned i = 0; i < 3; i++) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		if (!f)
			break;
		if (report_render(f, r, fmts[i], false, err, sizeof(err)) != 0) {
			fclose(f);
			free(out);
			break;
		}
		fclose(f);
		check(i == 0 ? "text" : i == 1 ? "json" : "csv", out, len, fmts[i] == FMT_JSON);
		free(out);
	}
	json_free(r);
	return 0;
}
