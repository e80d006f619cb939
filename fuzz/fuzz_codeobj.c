/* SPDX-License-Identifier: MIT */
/*
 * fuzz_codeobj.c - the simulator's code-object reader (sim/codeobj/codeobj.c):
 * clang offload bundle -> ELF -> NT_AMDGPU_METADATA (MessagePack) -> kernel
 * arguments. The simulated runtime runs it on whatever a program registers.
 *
 * Checked: no crash or over-read (the input is an exact-size heap copy), the
 * documented return values only, and a loaded object that is consistent:
 * at most HIPSVM_KERNEL_MAX_ARGS arguments, terminated names, an index that
 * agrees with the count. Lookups by every kernel's name run for coverage (a
 * name may be truncated or hold a NUL, so a miss is not an error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "codeobj/codeobj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hipsvm_codeobj *co = (struct hipsvm_codeobj *)0x1;
	char *buf = malloc(size ? size : 1);
	unsigned i, n;
	int rc;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	rc = hipsvm_codeobj_load_blob(buf, size, NULL, &co);
	if (rc != 0) {
		if ((rc != -EINVAL && rc != -ENOENT && rc != -ENOTSUP && rc != -ENOMEM) ||
		    co != (struct hipsvm_codeobj *)0x1) {
			fprintf(stderr, "fuzz_codeobj: rc %d, out %s\n", rc,
				co == (struct hipsvm_codeobj *)0x1 ? "untouched" : "changed");
			abort();
		}
		free(buf);
		return 0;
	}
	n = hipsvm_codeobj_count(co);
	for (i = 0; i < n; i++) {
		const struct hipsvm_kernel_info *k = hipsvm_codeobj_kernel(co, i);

		if (!k || k->nargs > HIPSVM_KERNEL_MAX_ARGS || !memchr(k->name, '\0', sizeof(k->name)))
			abort();
		(void)hipsvm_codeobj_find(co, k->name);
	}
	if (hipsvm_codeobj_kernel(co, n) != NULL)
		abort();
	(void)hipsvm_codeobj_find(co, "");
	(void)hipsvm_codeobj_find(co, "_Z3addPfS_.kd");
	/* the loader's view: segments placed and relocated in a zeroed image
	 * (bounded: a fuzzed span may claim up to 4 GiB) */
	{
		uint64_t span = hipsvm_codeobj_image_size(co), addr, sz;
		uint8_t *img = span && span <= (16u << 20) ? calloc(1, (size_t)span) : NULL;

		if (img) {
			rc = hipsvm_codeobj_image_write(co, img, 0x7f0000000000ull);
			if (rc && rc != -EINVAL && rc != -ENOTSUP)
				abort();
			free(img);
		}
		if (hipsvm_codeobj_symbol(co, "counter", &addr, &sz) == 0 &&
		    (addr > span || sz > span - addr))
			abort();
		(void)hipsvm_codeobj_target(co);
	}
	hipsvm_codeobj_free(co);
	free(buf);
	return 0;
}
