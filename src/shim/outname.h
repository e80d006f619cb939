/* SPDX-License-Identifier: MIT */
/*
 * outname.h - the names of output files (reports, traces) from a template,
 * so that every process of a parallel or batch job gets its own:
 *
 *   %p        the process id
 *   %h        the host name (up to its first '.')
 *   %r        the rank the launcher gave the process: the first set of
 *             OMPI_COMM_WORLD_RANK (Open MPI), PMIX_RANK (PMIx),
 *             PMI_RANK (MPICH, Intel MPI: PMI), SLURM_PROCID (srun);
 *             "norank" when none is
 *   %e{VAR}   the value of environment variable VAR ("" when unset)
 *   %%        a '%'
 * Any other '%' is copied as it is. A value is used as it is, except that
 * '/' in a host name or a rank becomes '_' (they name one file, not a
 * directory).
 *
 * Async-signal-safe: no malloc, no stdio, no locale; the environment is read
 * from envp (environ, or the environment a program is given), never through
 * getenv.
 */
#ifndef HIPSVM_OUTNAME_H
#define HIPSVM_OUTNAME_H

#include <stddef.h>

/* The variables %r reads, in the order tried; NULL-terminated. */
extern const char *const hipsvm_rank_vars[];

/* Expands tmpl into buf (NUL-terminated). 0, -EINVAL (NULL tmpl or buf, a
 * %e without a well-formed {NAME}) or -ENAMETOOLONG (the result and its NUL
 * do not fit in cap); buf is untouched on error. envp may be NULL (no
 * variable set). */
int hipsvm_outname(const char *tmpl, int pid, char *const *envp, char *buf, size_t cap);

/* The paths of sockets and hook files (HIPSVM_HOOK, HIPSVM_SIM_SOCKET): %p
 * and %% only, any other '%' copied. Same returns, buf untouched on error. */
int hipsvm_expand_path(const char *tmpl, int pid, char *buf, size_t cap);

/* Whether tmpl tells processes apart by itself (holds %p). */
int hipsvm_outname_per_process(const char *tmpl);

#endif
