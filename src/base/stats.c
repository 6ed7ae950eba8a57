/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-process counters (stats.h): a leaf, counted in by every layer, the transport
 * included; report.c reads them at finalize. */
#include "stats.h"

armcii_stats_t armcii_stats;
