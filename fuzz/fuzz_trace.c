/* SPDX-License-Identifier: MIT */
/*
 * fuzz_trace.c - what `hipsvm trace --from` does with a raw events file
 * (tools/trace_read.c, tools/perfetto.c, tools/perfetto_gpu.c): any bytes as
 * JSON lines convert or are refused, without a crash or an over-read, and
 * the Perfetto trace written is valid UTF-8 whatever the events held.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli.h"
#include "shim/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[] = "/tmp/fuzz_trace.XXXXXX";
	static int fd = -1;
	struct trace_stats st;
	char err[512], *out = NULL;
	size_t len = 0;
	FILE *f;

	/* trace_convert reads a file by name, as the command does: one file
	 * of our own (mkstemp: O_EXCL, no planted link followed), rewritten
	 * through its descriptor for every input */
	if (fd < 0 && (fd = mkstemp(path)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	f = open_memstream(&out, &len);
	if (!f)
		return 0;
	memset(&st, 0, sizeof(st));
	if (trace_convert(path, f, NULL, &st, err, sizeof(err)) == 0) {
		fflush(f);
		for (size_t i = 0; i < len;) {
			size_t k = hipsvm_utf8_len((const unsigned char *)out + i, len - i);

			if (!k) {
				fprintf(stderr, "fuzz_trace: output not UTF-8 at %zu\n", i);
				abort();
			}
			i += k;
		}
	}
	fclose(f);
	free(out);
	return 0;
}
