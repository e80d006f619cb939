/* SPDX-License-Identifier: MIT */
/* The series copies src/shared/proto.h here; the test uses the original. */
#include "shared/proto.h"
