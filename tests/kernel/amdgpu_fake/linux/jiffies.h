/* SPDX-License-Identifier: MIT */
#include "../kfake.h"
