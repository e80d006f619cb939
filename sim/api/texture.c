/* SPDX-License-Identifier: MIT */
/*
 * texture.c - textures. No image hardware is simulated: creating, binding
 * or querying textures checks the arguments and answers
 * hipErrorNotSupported (rows of notsup.def). A channel descriptor is plain
 * data and is built as ROCm builds it.
 */
#include "api/api.h"
#include "api/exports.h"

SIM_API hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w,
						  enum hipChannelFormatKind f)
{
	hipChannelFormatDesc d = { x, y, z, w, f };

	return d;
}

/* A texture reference in a program's code: nothing to bind it to. */
SIM_API void __hipRegisterTexture(void **module, void *var, char *host_var, char *dev_var,
				  int type, int norm, int ext)
{
	(void)module;
	(void)var;
	(void)host_var;
	(void)dev_var;
	(void)type;
	(void)norm;
	(void)ext;
}

