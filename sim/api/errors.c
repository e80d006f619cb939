/* SPDX-License-Identifier: MIT */
/*
 * errors.c - the error calls: the last error (kept by sim/runtime/errors.c)
 * and the error names.
 *
 * ROCm 5.2's hipGetErrorString returns the enumerator's name, like
 * hipGetErrorName; the table below was taken from the real libamdhip64.so.5
 * by calling both for every value (unknown values: "hipErrorUnknown").
 */
#include "api/api.h"

static const struct {
	int code;
	const char *name;
} names[] = {
	{ hipSuccess, "hipSuccess" },
	{ hipErrorInvalidValue, "hipErrorInvalidValue" },
	{ hipErrorOutOfMemory, "hipErrorOutOfMemory" },
	{ hipErrorNotInitialized, "hipErrorNotInitialized" },
	{ hipErrorDeinitialized, "hipErrorDeinitialized" },
	{ hipErrorProfilerDisabled, "hipErrorProfilerDisabled" },
	{ hipErrorProfilerNotInitialized, "hipErrorProfilerNotInitialized" },
	{ hipErrorProfilerAlreadyStarted, "hipErrorProfilerAlreadyStarted" },
	{ hipErrorProfilerAlreadyStopped, "hipErrorProfilerAlreadyStopped" },
	{ hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration" },
	{ hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue" },
	{ hipErrorInvalidSymbol, "hipErrorInvalidSymbol" },
	{ hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer" },
	{ hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection" },
	{ hipErrorInsufficientDriver, "hipErrorInsufficientDriver" },
	{ hipErrorMissingConfiguration, "hipErrorMissingConfiguration" },
	{ hipErrorPriorLaunchFailure, "hipErrorPriorLaunchFailure" },
	{ hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction" },
	{ hipErrorNoDevice, "hipErrorNoDevice" },
	{ hipErrorInvalidDevice, "hipErrorInvalidDevice" },
	{ hipErrorInvalidImage, "hipErrorInvalidImage" },
	{ hipErrorInvalidContext, "hipErrorInvalidContext" },
	{ hipErrorContextAlreadyCurrent, "hipErrorContextAlreadyCurrent" },
	{ hipErrorMapFailed, "hipErrorMapFailed" },
	{ hipErrorUnmapFailed, "hipErrorUnmapFailed" },
	{ hipErrorArrayIsMapped, "hipErrorArrayIsMapped" },
	{ hipErrorAlreadyMapped, "hipErrorAlreadyMapped" },
	{ hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu" },
	{ hipErrorAlreadyAcquired, "hipErrorAlreadyAcquired" },
	{ hipErrorNotMapped, "hipErrorNotMapped" },
	{ hipErrorNotMappedAsArray, "hipErrorNotMappedAsArray" },
	{ hipErrorNotMappedAsPointer, "hipErrorNotMappedAsPointer" },
	{ hipErrorECCNotCorrectable, "hipErrorECCNotCorrectable" },
	{ hipErrorUnsupportedLimit, "hipErrorUnsupportedLimit" },
	{ hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse" },
	{ hipErrorPeerAccessUnsupported, "hipErrorPeerAccessUnsupported" },
	{ hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile" },
	{ hipErrorInvalidGraphicsContext, "hipErrorInvalidGraphicsContext" },
	{ hipErrorInvalidSource, "hipErrorInvalidSource" },
	{ hipErrorFileNotFound, "hipErrorFileNotFound" },
	{ hipErrorSharedObjectSymbolNotFound, "hipErrorSharedObjectSymbolNotFound" },
	{ hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed" },
	{ hipErrorOperatingSystem, "hipErrorOperatingSystem" },
	{ hipErrorInvalidHandle, "hipErrorInvalidHandle" },
	{ hipErrorIllegalState, "hipErrorIllegalState" },
	{ hipErrorNotFound, "hipErrorNotFound" },
	{ hipErrorNotReady, "hipErrorNotReady" },
	{ hipErrorIllegalAddress, "hipErrorIllegalAddress" },
	{ hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources" },
	{ hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut" },
	{ hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled" },
	{ hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled" },
	{ hipErrorSetOnActiveProcess, "hipErrorSetOnActiveProcess" },
	{ hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed" },
	{ hipErrorAssert, "hipErrorAssert" },
	{ hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered" },
	{ hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered" },
	{ hipErrorLaunchFailure, "hipErrorLaunchFailure" },
	{ hipErrorCooperativeLaunchTooLarge, "hipErrorCooperativeLaunchTooLarge" },
	{ hipErrorNotSupported, "hipErrorNotSupported" },
	{ hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported" },
	{ hipErrorStreamCaptureInvalidated, "hipErrorStreamCaptureInvalidated" },
	{ hipErrorStreamCaptureMerge, "hipErrorStreamCaptureMerge" },
	{ hipErrorStreamCaptureUnmatched, "hipErrorStreamCaptureUnmatched" },
	{ hipErrorStreamCaptureUnjoined, "hipErrorStreamCaptureUnjoined" },
	{ hipErrorStreamCaptureIsolation, "hipErrorStreamCaptureIsolation" },
	{ hipErrorStreamCaptureImplicit, "hipErrorStreamCaptureImplicit" },
	{ hipErrorCapturedEvent, "hipErrorCapturedEvent" },
	{ hipErrorStreamCaptureWrongThread, "hipErrorStreamCaptureWrongThread" },
	{ hipErrorGraphExecUpdateFailure, "hipErrorGraphExecUpdateFailure" },
	{ hipErrorRuntimeMemory, "hipErrorRuntimeMemory" },
	{ hipErrorRuntimeOther, "hipErrorRuntimeOther" },
	{ hipErrorTbd, "hipErrorTbd" },
	{ hipErrorUnknown, "hipErrorUnknown" },
};

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
