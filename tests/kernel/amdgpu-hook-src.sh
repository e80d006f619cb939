#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/kernel/amdgpu-hook-src.sh PATCH FILE OUT - the text of a file that
# PATCH creates (a new file is one hunk of added lines), written to OUT, so
# that test_amdgpu_hook.c compiles the series' own kfd_hipsvm_hook.c.
set -eu
awk -v want="+++ b/$2" '
	/^diff --git / { inside = 0 }
	$0 == want { inside = 1; next }
	inside && /^@@ -0,0 / { body = 1; next }
	inside && body && /^\+/ { print substr($0, 2); found = 1 }
	END { if (!found) exit 1 }
' "$1" >"$3.tmp" || { rm -f "$3.tmp"; echo "no new file $2 in $1" >&2; exit 1; }
mv "$3.tmp" "$3"
