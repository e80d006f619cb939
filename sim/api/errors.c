/* SPDX-License-Identifier: MIT */
/*
 * errors.c - the error calls: the last error (kept by sim/runtime/errors.c)
 * and the error names.
 *
 * ROCm 5.2's hipGetErrorString returns the enumerator's name, like
 * hipGetErrorName, for the codes below; any other value is
 * "hipErrorUnknown" (tests/sim/conf_errors.c checks every value against
 * the real libamdhip64.so.5).
 */
#include "api/api.h"

#define N(e) { e, #e }	/* a code and its enumerator's name */

static const struct {
	int code;
	const char *name;
} names[] = {
	N(hipSuccess),
	N(hipErrorInvalidValue),
	N(hipErrorOutOfMemory),
	N(hipErrorNotInitialized),
	N(hipErrorDeinitialized),
	N(hipErrorProfilerDisabled),
	N(hipErrorProfilerNotInitialized),
	N(hipErrorProfilerAlreadyStarted),
	N(hipErrorProfilerAlreadyStopped),
	N(hipErrorInvalidConfiguration),
	N(hipErrorInvalidPitchValue),
	N(hipErrorInvalidSymbol),
	N(hipErrorInvalidDevicePointer),
	N(hipErrorInvalidMemcpyDirection),
	N(hipErrorInsufficientDriver),
	N(hipErrorMissingConfiguration),
	N(hipErrorPriorLaunchFailure),
	N(hipErrorInvalidDeviceFunction),
	N(hipErrorNoDevice),
	N(hipErrorInvalidDevice),
	N(hipErrorInvalidImage),
	N(hipErrorInvalidContext),
	N(hipErrorContextAlreadyCurrent),
	N(hipErrorMapFailed),
	N(hipErrorUnmapFailed),
	N(hipErrorArrayIsMapped),
	N(hipErrorAlreadyMapped),
	N(hipErrorNoBinaryForGpu),
	N(hipErrorAlreadyAcquired),
	N(hipErrorNotMapped),
	N(hipErrorNotMappedAsArray),
	N(hipErrorNotMappedAsPointer),
	N(hipErrorECCNotCorrectable),
	N(hipErrorUnsupportedLimit),
	N(hipErrorContextAlreadyInUse),
	N(hipErrorPeerAccessUnsupported),
	N(hipErrorInvalidKernelFile),
	N(hipErrorInvalidGraphicsContext),
	N(hipErrorInvalidSource),
	N(hipErrorFileNotFound),
	N(hipErrorSharedObjectSymbolNotFound),
	N(hipErrorSharedObjectInitFailed),
	N(hipErrorOperatingSystem),
	N(hipErrorInvalidHandle),
	N(hipErrorIllegalState),
	N(hipErrorNotFound),
	N(hipErrorNotReady),
	N(hipErrorIllegalAddress),
	N(hipErrorLaunchOutOfResources),
	N(hipErrorLaunchTimeOut),
	N(hipErrorPeerAccessAlreadyEnabled),
	N(hipErrorPeerAccessNotEnabled),
	N(hipErrorSetOnActiveProcess),
	N(hipErrorContextIsDestroyed),
	N(hipErrorAssert),
	N(hipErrorHostMemoryAlreadyRegistered),
	N(hipErrorHostMemoryNotRegistered),
	N(hipErrorLaunchFailure),
	N(hipErrorCooperativeLaunchTooLarge),
	N(hipErrorNotSupported),
	N(hipErrorStreamCaptureUnsupported),
	N(hipErrorStreamCaptureInvalidated),
	N(hipErrorStreamCaptureMerge),
	N(hipErrorStreamCaptureUnmatched),
	N(hipErrorStreamCaptureUnjoined),
	N(hipErrorStreamCaptureIsolation),
	N(hipErrorStreamCaptureImplicit),
	N(hipErrorCapturedEvent),
	N(hipErrorStreamCaptureWrongThread),
	N(hipErrorGraphExecUpdateFailure),
	N(hipErrorRuntimeMemory),
	N(hipErrorRuntimeOther),
	N(hipErrorTbd),
	N(hipErrorUnknown),
};
#undef N

SIM_API hipError_t hipGetLastError(void)
{
	return sim_last_error(true);
}

SIM_API hipError_t hipPeekAtLastError(void)
{
	return sim_last_error(false);
}

SIM_API const char *hipGetErrorName(hipError_t e)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == (int)e)
			return names[i].name;
	return "hipErrorUnknown";
}

SIM_API const char *hipGetErrorString(hipError_t e)
{
	return hipGetErrorName(e);
}
