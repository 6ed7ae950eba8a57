/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A first-fit allocator of offsets inside one contiguous range (a process's slice of
 * the node heap). Free spans are kept sorted and merged with their neighbours.
 */
#ifndef ARMCII_HALLOC_H
#define ARMCII_HALLOC_H

#include <stddef.h>

typedef struct {
    size_t off, len;
} armcii_span_t;

typedef struct {
    size_t capacity; /* bytes managed */
    size_t align;    /* every offset and length is a multiple of this (a power of two) */
    size_t used;     /* bytes currently allocated */
    armcii_span_t *free;
    int nfree, cap;
} armcii_halloc_t;

int armcii_halloc_init(armcii_halloc_t *h, size_t capacity, size_t align);
void armcii_halloc_fini(armcii_halloc_t *h);
/** Round @p len up to the allocator's alignment. */
size_t armcii_halloc_round(const armcii_halloc_t *h, size_t len);
/** Allocate @p len bytes (len > 0); writes the offset to @p off_p. -1 when no span fits. */
int armcii_halloc_alloc(armcii_halloc_t *h, size_t len, size_t *off_p);
/** Return [off, off+len) (as passed to and returned by alloc); -1 if it was not allocated. */
int armcii_halloc_free(armcii_halloc_t *h, size_t off, size_t len);

#endif
