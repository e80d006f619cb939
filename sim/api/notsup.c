/* SPDX-License-Identifier: MIT */
/*
 * notsup.c - what a simulator cannot mean: external (Vulkan) memory and
 * semaphores, OpenGL interop, textures, surfaces, the profiler
 * markers. Each call checks its arguments first, in ROCm 5.2's order, then
 * answers hipErrorNotSupported and says so once per function on stderr (not
 * under HIPSVM_SIM_QUIET). Those whose checks are one condition are rows of
 * notsup.def, expanded here; the others follow it. hipProfilerStart/Stop
 * answer hipErrorNotSupported in ROCm 5.2 itself. docs/simulator.md lists
 * every group.
 */
#include "api/api.h"
#include "api/exports.h"

hipError_t sim_notsup(const char *fn, uint32_t *once)
{
	SIM_INIT_API();
	if (!sim.quiet && !__atomic_exchange_n(once, 1, __ATOMIC_RELAXED))
		sim_warn("%s: not supported by the simulated runtime (hipErrorNotSupported)", fn);
	SIM_RETURN(hipErrorNotSupported);
}

#define NOTSUP_AS(name) ({ static uint32_t once_; sim_notsup(name, &once_); })

#define NOTSUP(name, params, invalid)				\
	SIM_API hipError_t name params					\
	{								\
		if (invalid)						\
			SIM_RETURN(hipErrorInvalidValue);		\
		return SIM_NOTSUP();					\
	}
#include "api/notsup.def"
#undef NOTSUP

/* ---- OpenGL interop: the one call with two checks ---- */

SIM_API hipError_t hipGLGetDevices(unsigned int *count, int *devices, unsigned int max,
				   hipGLDeviceList list)
{
	if (list == hipGLDeviceListNextFrame)
		return SIM_NOTSUP();
	if (!count || !devices || max == 0)
		SIM_RETURN(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

/* ---- surfaces (image stores): no image hardware is simulated. The real
 * runtime exports these two with C++ linkage. ---- */

hipError_t sim_create_surface(hipSurfaceObject_t *out, const hipResourceDesc *desc)
	__asm__("_Z22hipCreateSurfaceObjectPP13__hip_surfacePK15hipResourceDesc");
SIM_API hipError_t sim_create_surface(hipSurfaceObject_t *out, const hipResourceDesc *desc)
{
	if (!out || !desc)
		SIM_RETURN(hipErrorInvalidValue);
	return NOTSUP_AS("hipCreateSurfaceObject");
}

hipError_t sim_destroy_surface(hipSurfaceObject_t s)
	__asm__("_Z23hipDestroySurfaceObjectP13__hip_surface");
SIM_API hipError_t sim_destroy_surface(hipSurfaceObject_t s)
{
	if (!s)
		SIM_RETURN(hipErrorInvalidValue);
	return NOTSUP_AS("hipDestroySurfaceObject");
}

SIM_API void __hipRegisterSurface(void **module, void *var, char *host_var, char *dev_var,
				  int type, int ext)
{
	/* A surface reference in a program's code: nothing to bind it to. */
	(void)module;
	(void)var;
	(void)host_var;
	(void)dev_var;
	(void)type;
	(void)ext;
}

/* ---- profiler markers: ROCm 5.2 does not implement them either ---- */

SIM_API hipError_t hipProfilerStart(void)
{
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipProfilerStop(void)
{
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}
