/* SPDX-License-Identifier: MIT */
/*
 * peer.c - peer access between the simulated GPUs. Every pair of distinct
 * GPUs can access each other (an MI210 machine with Infinity Fabric links:
 * link type XGMI, one hop). Enabling records the pair per current device, as
 * ROCm 5.2 does; the simulator's memory is reachable from every GPU whether
 * or not a pair is enabled.
 */
#include "api/api.h"
#include "runtime/step.h"

#define LINK_XGMI 4	/* HSA_AMD_LINK_INFO_TYPE_XGMI */

static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t enabled[HIPSVM_MAX_GPUS];	/* bit p of [d]: d enabled access to p */

/* ROCm's order: a device and itself is "no" before any range check. */
static hipError_t can_access(int *can, int dev, int peer)
{
	if (!can)
		return hipErrorInvalidValue;
	if (dev == peer) {
		*can = 0;
		return hipSuccess;
	}
	if (!sim_gpu(dev) || !sim_gpu(peer))
		return hipErrorInvalidDevice;
	*can = 1;
	return hipSuccess;
}

SIM_API hipError_t hipDeviceCanAccessPeer(int *can, int dev, int peer)
{
	SIM_INIT_API();
	SIM_RETURN(can_access(can, dev, peer));
}

SIM_API hipError_t hipDeviceEnablePeerAccess(int peer, unsigned int flags)
{
	int dev, can = 0;
	hipError_t r = hipSuccess;

	SIM_INIT_API();
	dev = sim_current_device();
	if (flags != 0)
		SIM_RETURN(hipErrorInvalidValue);
	if (can_access(&can, dev, peer) != hipSuccess || !can)
		SIM_RETURN(hipErrorInvalidDevice);
	pthread_mutex_lock(&peer_lock);
	if (enabled[dev] & (1ull << peer))
		r = hipErrorPeerAccessAlreadyEnabled;
	else
		enabled[dev] |= 1ull << peer;
	pthread_mutex_unlock(&peer_lock);
	SIM_RETURN(r);
}

SIM_API hipError_t hipDeviceDisablePeerAccess(int peer)
{
	int dev, can = 0;
	hipError_t r = hipSuccess;

	SIM_INIT_API();
	dev = sim_current_device();
	if (can_access(&can, dev, peer) != hipSuccess || !can)
		SIM_RETURN(hipErrorInvalidDevice);
	pthread_mutex_lock(&peer_lock);
	if (!(enabled[dev] & (1ull << peer)))
		r = hipErrorPeerAccessNotEnabled;
	else
		enabled[dev] &= ~(1ull << peer);
	pthread_mutex_unlock(&peer_lock);
	SIM_RETURN(r);
}

SIM_API hipError_t hipExtGetLinkTypeAndHopCount(int d1, int d2, uint32_t *type, uint32_t *hops)
{
	SIM_INIT_API();
	if (!type || !hops || d1 == d2 || d1 < 0 || d2 < 0)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_gpu(d1) || !sim_gpu(d2))
		SIM_RETURN(hipErrorInvalidDevice);
	*type = LINK_XGMI;
	*hops = 1;
	return hipSuccess;
}

SIM_API hipError_t hipDeviceGetP2PAttribute(int *value, hipDeviceP2PAttr attr, int src, int dst)
{
	SIM_INIT_API();
	if (!value)
		SIM_RETURN(hipErrorInvalidValue);
	if (src == dst || src >= (int)sim.ngpu || dst >= (int)sim.ngpu)
		SIM_RETURN(hipErrorInvalidDevice);
	switch (attr) {
	case hipDevP2PAttrAccessSupported:
	case hipDevP2PAttrHipArrayAccessSupported:	/* same gfx on both sides */
		SIM_RETURN(can_access(value, src, dst));
	case hipDevP2PAttrPerformanceRank:
	case hipDevP2PAttrNativeAtomicSupported:
		/* ROCm answers the link type for both */
		if (!sim_gpu(src) || !sim_gpu(dst))
			SIM_RETURN(hipErrorInvalidDevice);
		*value = LINK_XGMI;
		return hipSuccess;
	default:
		SIM_RETURN(hipErrorInvalidValue);
	}
}

static void peer_reset(void)
{
	pthread_mutex_init(&peer_lock, NULL);
	memset(enabled, 0, sizeof(enabled));
}
SIM_STEP(peer, .reset = peer_reset);
