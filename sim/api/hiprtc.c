/* SPDX-License-Identifier: MIT */
/*
 * hiprtc.c - runtime compilation. The simulator has no compiler: programs
 * are created, named and destroyed with ROCm 5.2's checks, but
 * hiprtcCompileProgram answers HIPRTC_ERROR_INTERNAL_ERROR (hiprtc has no
 * "not supported" code), leaves that reason in the program log and says it
 * once on stderr. A program never has code.
 */
#include "sim.h"

#include <hip/hiprtc.h>
#include <stdio.h>
#include <stdlib.h>

#define RTC_MAGIC 0x52544350u	/* "RTCP" */

static const char no_compiler[] =
	"hipsvm simulated runtime: runtime compilation is not supported\n";

struct _hiprtcProgram {
	uint32_t magic;
	bool compiled;		/* a compilation was attempted */
	char name[64];
};

static struct _hiprtcProgram *prog_of(hiprtcProgram p)
{
	return p && p->magic == RTC_MAGIC ? p : NULL;
}

SIM_API const char *hiprtcGetErrorString(hiprtcResult r)
{
	static const char *const names[] = {
		"HIPRTC_SUCCESS",
		"HIPRTC_ERROR_OUT_OF_MEMORY",
		"HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
		"HIPRTC_ERROR_INVALID_INPUT",
		"HIPRTC_ERROR_INVALID_PROGRAM",
		"HIPRTC_ERROR_INVALID_OPTION",
		"HIPRTC_ERROR_COMPILATION",
		"HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
		"HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
		"HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
		"HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
		"HIPRTC_ERROR_INTERNAL_ERROR",
	};

	if ((unsigned)r < sizeof(names) / sizeof(names[0]))
		return names[r];
	return NULL;	/* ROCm 5.2: NULL for an unknown code */
}

SIM_API hiprtcResult hiprtcVersion(int *major, int *minor)
{
	if (!major || !minor)
		return HIPRTC_ERROR_INVALID_INPUT;
	*major = 9;	/* what ROCm 5.2 answers */
	*minor = 0;
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcCreateProgram(hiprtcProgram *prog, const char *src, const char *name,
					 int nheaders, const char **headers,
					 const char **include_names)
{
	struct _hiprtcProgram *p;

	if (!prog)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (nheaders < 0)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (nheaders && (!headers || !include_names))
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!src)
		return HIPRTC_ERROR_INVALID_INPUT;
	p = calloc(1, sizeof(*p));
	if (!p)
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	p->magic = RTC_MAGIC;
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "CompileSource");
	*prog = p;
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcDestroyProgram(hiprtcProgram *prog)
{
	struct _hiprtcProgram *p;

	if (!prog)
		return HIPRTC_ERROR_INVALID_INPUT;
	p = prog_of(*prog);
	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	p->magic = 0;
	free(p);
	*prog = NULL;
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char *expr)
{
	struct _hiprtcProgram *p = prog_of(prog);

	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (!expr)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (p->compiled)
		return HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int nopts, const char **opts)
{
	static uint32_t once;
	struct _hiprtcProgram *p = prog_of(prog);

	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (nopts < 0 || (nopts && !opts))
		return HIPRTC_ERROR_INVALID_INPUT;
	SIM_INIT_API();
	if (!sim.quiet && !__atomic_exchange_n(&once, 1, __ATOMIC_RELAXED))
		sim_warn("hiprtcCompileProgram: not supported by the simulated runtime");
	p->compiled = true;
	return HIPRTC_ERROR_INTERNAL_ERROR;
}

SIM_API hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char *expr,
					  const char **lowered)
{
	struct _hiprtcProgram *p = prog_of(prog);

	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (!expr || !lowered)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!p->compiled)
		return HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
	return HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}

SIM_API hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t *size)
{
	struct _hiprtcProgram *p = prog_of(prog);

	if (!size)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	*size = p->compiled ? sizeof(no_compiler) : 1;
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char *log)
{
	struct _hiprtcProgram *p = prog_of(prog);

	if (!log)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!p)
		return HIPRTC_ERROR_INVALID_PROGRAM;
	if (p->compiled)
		memcpy(log, no_compiler, sizeof(no_compiler));
	else
		log[0] = '\0';
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t *size)
{
	if (!size)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!prog_of(prog))
		return HIPRTC_ERROR_INVALID_PROGRAM;
	*size = 0;
	return HIPRTC_SUCCESS;
}

SIM_API hiprtcResult hiprtcGetCode(hiprtcProgram prog, char *code)
{
	if (!code)
		return HIPRTC_ERROR_INVALID_INPUT;
	if (!prog_of(prog))
		return HIPRTC_ERROR_INVALID_PROGRAM;
	return HIPRTC_SUCCESS;
}
