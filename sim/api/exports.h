/* SPDX-License-Identifier: MIT */
/*
 * exports.h - what the real libamdhip64.so.5 exports and HIP's headers do not
 * declare: the registration and call-configuration functions that hipcc's
 * host code calls, the half-precision conversions, the debugger's build
 * identification, the reference registrations of textures and surfaces, and
 * the profiler markers. Declared here so that each definition has its
 * prototype (-Wmissing-prototypes), with the real runtime's signatures.
 */
#ifndef HIPSVM_SIM_API_EXPORTS_H
#define HIPSVM_SIM_API_EXPORTS_H

#include <hip/hip_runtime_api.h>
#include <stddef.h>

void **__hipRegisterFatBinary(const void *data);
void __hipUnregisterFatBinary(void **handle);
void __hipRegisterFunction(void **handle, const void *host_fn, char *dev_fn, const char *dev_name,
			   unsigned int thread_limit, void *tid, void *bid, void *block, void *grid,
			   int *wsize);
void __hipRegisterVar(void **handle, void *var, char *host_var, char *dev_var, int ext,
		      size_t size, int constant, int global);
void __hipRegisterManagedVar(void *handle, void **pointer, void *init, const char *name,
			     size_t size, unsigned align);
void __hipRegisterTexture(void **module, void *var, char *host_var, char *dev_var, int type,
			  int norm, int ext);
void __hipRegisterSurface(void **module, void *var, char *host_var, char *dev_var, int type,
			  int ext);
unsigned short __gnu_f2h_ieee(float f);
float __gnu_h2f_ieee(unsigned short h);
const char *amd_dbgapi_get_build_name(void);
const char *amd_dbgapi_get_git_hash(void);
size_t amd_dbgapi_get_build_id(void);
hipError_t hipProfilerStart(void);
hipError_t hipProfilerStop(void);

#endif
