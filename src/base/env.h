/* SPDX-License-Identifier: BSD-3-Clause */
/* The environment table: see env_defs.h for the variables. */
#ifndef ARMCII_ENV_H
#define ARMCII_ENV_H

#include <stddef.h>

typedef enum {
    ARMCII_ENV_BOOL,
    ARMCII_ENV_AUTO,
    ARMCII_ENV_INT,
    ARMCII_ENV_SIZE,
    ARMCII_ENV_STR
} armcii_env_type_t;

#define ARMCII_ENV_STR_MAX 256

/* The field each type is stored in. */
#define ARMCII_ENV_FIELD_BOOL(f) long f;
#define ARMCII_ENV_FIELD_AUTO(f) long f;
#define ARMCII_ENV_FIELD_INT(f)  long f;
#define ARMCII_ENV_FIELD_SIZE(f) long f;
#define ARMCII_ENV_FIELD_STR(f)  char f[ARMCII_ENV_STR_MAX];

/** Parsed settings; one field per row of env_defs.h. AUTO fields hold -1 for "auto";
 *  STR fields hold the text (empty by default). */
typedef struct {
#define ARMCII_ENV(field, type, def, help) ARMCII_ENV_FIELD_##type(field)
#define ARMCII_ENV_SAME                    ARMCII_ENV
#include "env_defs.h"
#undef ARMCII_ENV_SAME
#undef ARMCII_ENV
    /* which rows the job set (by name or by another ARMCI's name for it), by row */
    unsigned char from_user[64];
} armcii_env_t;

/** One row of the table, for printing and documentation. */
typedef struct {
    const char *name; /* full variable name, e.g. "ARMCI_SHM" */
    armcii_env_type_t type;
    const char *def;
    const char *help;
    size_t offset; /* of the field in armcii_env_t */
    int same;      /* must have one value on every process (ARMCII_ENV_SAME) */
} armcii_env_row_t;

extern const armcii_env_row_t armcii_env_rows[];
extern const int armcii_env_nrows;

/** A setting of another ARMCI (env_foreign.h): where it comes from, the variable of ours that
 *  takes its value ("" for none), what to use here instead. */
typedef struct {
    const char *name; /* a name ending in '*' stands for every name it begins */
    const char *origin;
    const char *alias;
    const char *note;
} armcii_env_foreign_t;

extern const armcii_env_foreign_t armcii_env_foreign[];
extern const int armcii_env_nforeign;

/** Source of variable values: getenv in the library, a fake in unit tests. */
typedef const char *(*armcii_env_lookup_fn)(const char *name);

/**
 * Fill @p env from the table's defaults and @p lookup. On a bad value, write a message
 * naming the variable and the value into @p err and return -1; 0 on success.
 */
int armcii_env_load(armcii_env_t *env, armcii_env_lookup_fn lookup, char *err, size_t errlen);

/* Single-value parsers (exposed for the unit tests): 0 on success, -1 on a bad value. */
int armcii_env_parse_bool(const char *s, long *out_p);
int armcii_env_parse_auto(const char *s, long *out_p);
int armcii_env_parse_int(const char *s, long *out_p);
int armcii_env_parse_size(const char *s, long *out_p);

/** Whether the job set the variable @p name (a row's full name), itself or through another
 *  ARMCI's name for it; 0 for a name of no row. */
int armcii_env_user(const armcii_env_t *env, const char *name);

/** The row whose name is nearest @p name (edit distance, a third of the name at most), or -1. */
int armcii_env_nearest(const char *name);

/** The row of env_foreign.h that names @p name, or -1. */
int armcii_env_foreign_of(const char *name);

/**
 * Look at the job's environment @p envp ("NAME=value" strings, NULL last) for settings this
 * runtime does not read: an ARMCI_* name of no row (misspelled: the nearest row is named),
 * and another ARMCI's settings (env_foreign.h: what they mean here). One line each to
 * @p emit; the number of lines.
 */
int armcii_env_review(char *const *envp, void (*emit)(const char *line));

/** The value of row @p row of @p env as text ("auto" for AUTO fields at -1). */
void armcii_env_format(const armcii_env_t *env, int row, char *buf, size_t len);

/**
 * The first row, from @p from on, that must be the same on every process and differs
 * between @p a and @p b; armcii_env_nrows when there is none.
 */
int armcii_env_first_difference(const armcii_env_t *a, const armcii_env_t *b, int from);

/** Write the current settings, one "NAME = value (default ...)" line each. */
void armcii_env_print(const armcii_env_t *env, void (*emit)(const char *line));

#endif
