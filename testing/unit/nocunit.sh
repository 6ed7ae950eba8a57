#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run instead of the unit tests where configure found no CUnit: they are not built, and
# make check says so as a skip, which summary.sh counts (and fails under CI).
. "$(dirname "$0")/../report.sh"
skip_all "unit: CUnit is not installed (apt-get install libcunit1-dev; then configure again): the unit tests were not built"
