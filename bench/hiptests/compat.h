/* SPDX-License-Identifier: MIT */
/*
 * compat.h - force-included into every hip-tests file run.py builds: what
 * hip-tests from 5.4 on take from newer HIP headers than Debian's 5.2, so
 * that their files build. The enumerators get the values of ROCm 6.0's
 * headers, so the program asks the runtime what such a binary asks; ROCm
 * 5.2.3 (and the simulator) refuses them as it refuses any attribute it
 * does not know.
 */
#ifndef HIPTESTS_COMPAT_H
#define HIPTESTS_COMPAT_H

#include <hip/hip_runtime.h>

#if HIP_VERSION < 50400000
/* hip-tests' utils.hh calls it in a kernel; 5.2 declares it in the device
 * pass only, so the host pass, which never runs kernels, gets a stand-in. */
#ifndef __HIP_DEVICE_COMPILE__
__host__ __device__ static inline long long int wall_clock64(void)
{
	return 0;
}
#endif
#define hipDeviceAttributeWallClockRate ((hipDeviceAttribute_t)10017)
#define hipDeviceAttributeVirtualMemoryManagementSupported ((hipDeviceAttribute_t)89)
#endif

#endif
