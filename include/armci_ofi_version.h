/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The version of armci-ofi, for programs that want to know at compile time which ARMCI
 * they are built against (armci.h includes this file; ARMCI-MPI has none of these names,
 * so `#ifdef ARMCI_OFI_VERSION` tells the two apart). This file is the one place the
 * version is written: configure.ac reads it, and armci-info --version prints it. Between
 * releases it is MAJOR.MINOR.90, the development toward the next minor release
 * (docs/release.md).
 */
#ifndef ARMCI_OFI_VERSION_H
#define ARMCI_OFI_VERSION_H

#define ARMCI_OFI_VERSION_MAJOR  0
#define ARMCI_OFI_VERSION_MINOR  2
#define ARMCI_OFI_VERSION_PATCH  90
#define ARMCI_OFI_VERSION_STRING "0.2.90"

/** A version as one comparable number: ARMCI_OFI_VERSION >= ARMCI_OFI_VERSION_NUM(0, 2, 0). */
#define ARMCI_OFI_VERSION_NUM(major, minor, patch) ((major)*10000 + (minor)*100 + (patch))
#define ARMCI_OFI_VERSION                                                                          \
    ARMCI_OFI_VERSION_NUM(ARMCI_OFI_VERSION_MAJOR, ARMCI_OFI_VERSION_MINOR, ARMCI_OFI_VERSION_PATCH)

#endif
