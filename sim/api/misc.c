/* SPDX-License-Identifier: MIT */
/*
 * misc.c - the runtime's small services: API names, the tracing callback
 * tables, command-kind names, half-precision conversions, and the debugger's
 * build identification.
 *
 * API and activity callbacks are recorded as ROCm 5.2 records them (an id
 * out of the API id range is refused with hipErrorInvalidValue), but the
 * simulator never calls them: it produces no trace records
 * (docs/simulator.md).
 */
#include "api/api.h"
#include "api/exports.h"

#include <hip/amd_detail/hip_prof_str.h>
#include <hip/amd_detail/hip_runtime_prof.h>

SIM_API const char *hipApiName(uint32_t id)
{
	return hip_api_name(id);
}

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	void *fn, *arg;
} api_cb[(HIP_API_ID_LAST + 1)], act_cb[(HIP_API_ID_LAST + 1)];
static struct {
	void *id_cb, *op_cb, *arg;
	bool enabled[kHipVdiOpIdNumber];
} activity;

static hipError_t set_cb(void *table, uint32_t id, void *fn, void *arg)
{
	struct { void *fn, *arg; } *t = table;

	if (id >= (HIP_API_ID_LAST + 1))
		return hipErrorInvalidValue;
	pthread_mutex_lock(&cb_lock);
	t[id].fn = fn;
	t[id].arg = arg;
	pthread_mutex_unlock(&cb_lock);
	return hipSuccess;
}

SIM_API hipError_t hipRegisterApiCallback(uint32_t id, void *fn, void *arg)
{
	return set_cb(api_cb, id, fn, arg);
}

SIM_API hipError_t hipRemoveApiCallback(uint32_t id)
{
	return set_cb(api_cb, id, NULL, NULL);
}

SIM_API hipError_t hipRegisterActivityCallback(uint32_t id, void *fn, void *arg)
{
	return set_cb(act_cb, id, fn, arg);
}

SIM_API hipError_t hipRemoveActivityCallback(uint32_t id)
{
	return set_cb(act_cb, id, NULL, NULL);
}

SIM_API void hipInitActivityCallback(void *id_callback, void *op_callback, void *arg)
{
	pthread_mutex_lock(&cb_lock);
	activity.id_cb = id_callback;
	activity.op_cb = op_callback;
	activity.arg = arg;
	pthread_mutex_unlock(&cb_lock);
}

SIM_API bool hipEnableActivityCallback(uint32_t op, bool enable)
{
	if (op >= kHipVdiOpIdNumber)
		return false;
	__atomic_store_n(&activity.enabled[op], enable, __ATOMIC_RELAXED);
	return true;
}

/* The runtime's names of its command kinds (OpenCL command type values). */
SIM_API const char *hipGetCmdName(uint32_t kind)
{
	static const char *const names[] = {
		"KernelExecution", "Task", "NativeKernel", "CopyDeviceToHost",
		"CopyHostToDevice", "CopyDeviceToDevice", "ReadImage", "WriteImage",
		"CopyImage", "CopyImageToBuffer", "CopyBufferToImage", NULL,
		"MapImage", "UnmapMemObject", NULL, "AcquireGLObjects",
		"ReleaseGLObjects", "CopyDeviceToHost2D", "CopyHostToDevice2D",
		"CopyDeviceToDevice2D", "User", "Barrier", "MigrateMemObjects",
		"FillBuffer", "FillImage", "SvmFree", "SvmMemcpy", "SvmMemFill",
		"SvmMap", "SvmUnmap",
	};
	if (kind == 0)
		return "InternalMarker";
	if (kind >= 0x11F0 && kind - 0x11F0 < sizeof(names) / sizeof(names[0]) &&
	    names[kind - 0x11F0])
		return names[kind - 0x11F0];
	return "Unknown command type";
}

/* IEEE 754 binary32 -> binary16, round to nearest even (compiler-rt's
 * contract for these two names). */
SIM_API unsigned short __gnu_f2h_ieee(float f)
{
	uint32_t x, sign, mant;
	int exp;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000u;
	exp = (int)((x >> 23) & 0xff);
	mant = x & 0x7fffffu;
	if (exp == 0xff)	/* inf, nan (quiet, payload's top bits kept) */
		return (unsigned short)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
	exp -= 127 - 15;
	if (exp >= 0x1f)
		return (unsigned short)(sign | 0x7c00u);
	if (exp <= 0) {		/* subnormal half, or zero */
		uint32_t m, shift, half, rem;

		if (exp < -10)
			return (unsigned short)sign;
		m = mant | 0x800000u;
		shift = (uint32_t)(14 - exp);
		half = 1u << (shift - 1);
		rem = m & ((1u << shift) - 1);
		m >>= shift;
		if (rem > half || (rem == half && (m & 1)))
			m++;
		return (unsigned short)(sign | m);
	}
	{
		uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
		uint32_t rem = mant & 0x1fffu;

		/* a carry out of the mantissa bumps the exponent, up to inf */
		if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
			h++;
		return (unsigned short)h;
	}
}

SIM_API float __gnu_h2f_ieee(unsigned short h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu, x;
	float f;

	if (exp == 0x1f) {
		x = sign | 0x7f800000u | (mant << 13);
	} else if (exp == 0) {
		if (!mant) {
			x = sign;
		} else {	/* subnormal: normalise */
			int e = -1;

			do {
				e++;
				mant <<= 1;
			} while (!(mant & 0x400u));
			x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
		}
	} else {
		x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
	}
	memcpy(&f, &x, 4);
	return f;
}

/* The debugger API's build identification: ROCm 5.2.3's runtime answers an
 * empty name and hash and build id 0. */
SIM_API const char *amd_dbgapi_get_build_name(void)
{
	return "";
}

SIM_API const char *amd_dbgapi_get_git_hash(void)
{
	return "";
}

SIM_API size_t amd_dbgapi_get_build_id(void)
{
	return 0;
}

/* No precompiled header is embedded in the simulator. */
SIM_API void __hipGetPCH(const char **pch, unsigned int *size)
{
	if (pch)
		*pch = "";
	if (size)
		*size = 0;
}
