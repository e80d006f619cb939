/* SPDX-License-Identifier: MIT */
/*
 * notsup.c - what a simulator cannot mean: external (Vulkan) memory and
 * semaphores, OpenGL interop, surfaces, the profiler markers. Each call checks
 * its arguments first, in ROCm 5.2's order, then answers
 * hipErrorNotSupported and says so once per function on stderr (not under
 * HIPSVM_SIM_QUIET). hipProfilerStart/Stop answer hipErrorNotSupported in
 * ROCm 5.2 itself. docs/simulator.md lists every group.
 */
#include "sim.h"

hipError_t sim_notsup(const char *fn, uint32_t *once)
{
	sim_init();
	if (!sim.quiet && !__atomic_exchange_n(once, 1, __ATOMIC_RELAXED))
		sim_warn("%s: not supported by the simulated runtime (hipErrorNotSupported)", fn);
	return sim_ret(hipErrorNotSupported);
}

#define NOTSUP_AS(name) ({ static uint32_t once_; sim_notsup(name, &once_); })

/* ---- external memory and semaphores (Vulkan/DirectX interop) ---- */

SIM_API hipError_t hipImportExternalMemory(hipExternalMemory_t *out,
					   const hipExternalMemoryHandleDesc *desc)
{
	if (!out || !desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipExternalMemoryGetMappedBuffer(void **ptr, hipExternalMemory_t mem,
						    const hipExternalMemoryBufferDesc *desc)
{
	if (!mem || !ptr || !desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipDestroyExternalMemory(hipExternalMemory_t mem)
{
	if (!mem)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipImportExternalSemaphore(hipExternalSemaphore_t *out,
					      const hipExternalSemaphoreHandleDesc *desc)
{
	if (!out || !desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipSignalExternalSemaphoresAsync(const hipExternalSemaphore_t *sems,
						    const hipExternalSemaphoreSignalParams *params,
						    unsigned int n, hipStream_t stream)
{
	(void)n;
	(void)stream;
	if (!sems || !params)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipWaitExternalSemaphoresAsync(const hipExternalSemaphore_t *sems,
						  const hipExternalSemaphoreWaitParams *params,
						  unsigned int n, hipStream_t stream)
{
	(void)n;
	(void)stream;
	if (!sems || !params)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipDestroyExternalSemaphore(hipExternalSemaphore_t sem)
{
	if (!sem)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

/* ---- OpenGL interop: there is no GL context to share ---- */

SIM_API hipError_t hipGLGetDevices(unsigned int *count, int *devices, unsigned int max,
				   hipGLDeviceList list)
{
	if (list == hipGLDeviceListNextFrame)
		return SIM_NOTSUP();
	if (!count || !devices || max == 0)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphicsGLRegisterBuffer(hipGraphicsResource **res, GLuint buffer,
					       unsigned int flags)
{
	(void)buffer;
	(void)flags;
	if (!res)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphicsGLRegisterImage(hipGraphicsResource **res, GLuint image,
					      GLenum target, unsigned int flags)
{
	(void)image;
	(void)target;
	(void)flags;
	if (!res)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphicsMapResources(int count, hipGraphicsResource_t *res,
					   hipStream_t stream)
{
	(void)stream;
	if (count <= 0 || !res)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphicsSubResourceGetMappedArray(hipArray_t *array,
							hipGraphicsResource_t res,
							unsigned int index, unsigned int level)
{
	(void)index;
	(void)level;
	if (!array || !res)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphicsResourceGetMappedPointer(void **ptr, size_t *size,
						       hipGraphicsResource_t res)
{
	if (!ptr || !size || !res)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphicsUnmapResources(int count, hipGraphicsResource_t *res,
					     hipStream_t stream)
{
	(void)stream;
	if (count <= 0 || !res)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGraphicsUnregisterResource(hipGraphicsResource_t res)
{
	if (!res)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

/* ---- surfaces (image stores): no image hardware is simulated. The real
 * runtime exports these two with C++ linkage. ---- */

hipError_t sim_create_surface(hipSurfaceObject_t *out, const hipResourceDesc *desc)
	__asm__("_Z22hipCreateSurfaceObjectPP13__hip_surfacePK15hipResourceDesc");
SIM_API hipError_t sim_create_surface(hipSurfaceObject_t *out, const hipResourceDesc *desc)
{
	if (!out || !desc)
		return sim_ret(hipErrorInvalidValue);
	return NOTSUP_AS("hipCreateSurfaceObject");
}

hipError_t sim_destroy_surface(hipSurfaceObject_t s)
	__asm__("_Z23hipDestroySurfaceObjectP13__hip_surface");
SIM_API hipError_t sim_destroy_surface(hipSurfaceObject_t s)
{
	if (!s)
		return sim_ret(hipErrorInvalidValue);
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
	sim_init();
	return sim_ret(hipErrorNotSupported);
}

SIM_API hipError_t hipProfilerStop(void)
{
	sim_init();
	return sim_ret(hipErrorNotSupported);
}
