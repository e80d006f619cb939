/* SPDX-License-Identifier: MIT */
/* The series copies src/proto.h here; the test uses the original. */
#include <proto.h>
