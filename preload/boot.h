/* SPDX-License-Identifier: MIT */
/*
 * boot.h - start-up of the shim, its messages, fork.
 *
 * Start-up is lazy and idempotent: the constructor boots, and so does the
 * first HIP wrapper, whichever comes first (hooks can run before the
 * constructor, from other libraries' constructors). One thread wins a
 * compare-and-swap and boots; others wait the few microseconds it takes.
 * The unmap hooks never boot: before the shim is ready nothing is tracked,
 * so they just pass through. Booting reads the environment from `environ`
 * (no getenv), prints nothing unless something is wrong or HIPSVM_VERBOSE
 * is set, and strips libhipsvm from LD_PRELOAD unless HIPSVM_INHERIT=1.
 */
#ifndef HIPSVM_PRELOAD_BOOT_H
#define HIPSVM_PRELOAD_BOOT_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/shim.h"
#include "table.h"

extern struct hipsvm_shim *hipsvm_shim_ptr;
/* The shim's svm_bits (shim.h) once it is ready; before, the address of a
 * NULL bitmap: the unmap hot path reaches the bitmap in two loads without
 * asking whether the shim is ready (unmap.h). */
extern uint64_t *const *hipsvm_svm_bits;

/* The shim when it is ready, else NULL. One acquire load. */
static inline struct hipsvm_shim *hipsvm_ready(void)
{
	return __atomic_load_n(&hipsvm_shim_ptr, __ATOMIC_ACQUIRE);
}

/* The real function of a libc row on an unmap path, inline because every
 * munmap of the process takes it: never resolved from inside a guarded
 * section (dlsym may allocate and unmap); NULL until then, and the caller
 * makes the system call (seam.h). */
static inline void *hipsvm_libc_real(enum hipsvm_row_id id)
{
	void *p = __atomic_load_n(&hipsvm_rows[id].real, __ATOMIC_ACQUIRE);

	if (__builtin_expect(p != NULL, 1) || hipsvm_tls.guard || !hipsvm_ready())
		return p;
	return hipsvm_real(id);
}

/* Boots if needed; the shim, or NULL when it is disabled (HIPSVM_ENABLE=0)
 * or when called from inside the boot itself. */
struct hipsvm_shim *hipsvm_boot(void);

/* "hipsvm: <message>\n" on stderr with one write(). Formats %s %d %u %x
 * %lu %zu only; async-signal-safe. */
void hipsvm_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* HIPSVM_REPORT with %p expanded: 0, or -ENOENT when it is not set. */
int hipsvm_report_path(char *buf, size_t cap);

/* Removes every libhipsvm entry from the LD_PRELOAD of env, in place.
 * Returns the number removed. (Exposed for its unit test.) */
int hipsvm_strip_preload(char **env);

#endif
