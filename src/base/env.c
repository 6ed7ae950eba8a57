/* SPDX-License-Identifier: BSD-3-Clause */
/* Parsing, validation and printing of the environment table (env_defs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "env.h"

const armcii_env_row_t armcii_env_rows[] = {
#define ARMCII_ENV_ROW(field, type, def, help, same)                                               \
    {"ARMCI_" #field, ARMCII_ENV_##type, def, help, offsetof(armcii_env_t, field), same},
#define ARMCII_ENV(field, type, def, help)      ARMCII_ENV_ROW(field, type, def, help, 0)
#define ARMCII_ENV_SAME(field, type, def, help) ARMCII_ENV_ROW(field, type, def, help, 1)
#include "env_defs.h"
#undef ARMCII_ENV_SAME
#undef ARMCII_ENV
#undef ARMCII_ENV_ROW
};
const int armcii_env_nrows = sizeof(armcii_env_rows) / sizeof(armcii_env_rows[0]);

int armcii_env_parse_bool(const char *s, long *out_p)
{
    static const char *yes[] = {"1", "yes", "on", "true", "y"};
    static const char *no[] = {"0", "no", "off", "false", "n"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out_p = 1;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out_p = 0;
            return 0;
        }
    }
    return -1;
}

int armcii_env_parse_auto(const char *s, long *out_p)
{
    if (strcasecmp(s, "auto") == 0) {
        *out_p = -1;
        return 0;
    }
    return armcii_env_parse_bool(s, out_p);
}

int armcii_env_parse_int(const char *s, long *out_p)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return -1;
    *out_p = v;
    return 0;
}

int armcii_env_parse_size(const char *s, long *out_p)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    long mult = 1;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        mult = 1L << 10;
        break;
    case 'm':
    case 'M':
        mult = 1L << 20;
        break;
    case 'g':
    case 'G':
        mult = 1L << 30;
        break;
    default:
        return -1;
    }
    if (*end != '\0') {
        end++;
        if (*end == 'b' || *end == 'B' || *end == 'i')
            end += (*end == 'i' && (end[1] == 'B' || end[1] == 'b')) ? 2 : 1;
        if (*end != '\0')
            return -1;
    }
    if (v > 0 && v > __LONG_MAX__ / mult)
        return -1;
    *out_p = v * mult;
    return 0;
}

static int parse_one(const armcii_env_row_t *row, const char *s, long *out_p)
{
    switch (row->type) {
    case ARMCII_ENV_BOOL:
        return armcii_env_parse_bool(s, out_p);
    case ARMCII_ENV_AUTO:
        return armcii_env_parse_auto(s, out_p);
    case ARMCII_ENV_INT:
        return armcii_env_parse_int(s, out_p);
    case ARMCII_ENV_SIZE:
        return armcii_env_parse_size(s, out_p);
    case ARMCII_ENV_STR: /* copied by the caller */
        return 0;
    }
    return -1;
}

/* Range rules that a well-formed value can still break. */
static int check_range(const armcii_env_row_t *row, long v)
{
    if (strcmp(row->name, "ARMCI_MAX_REQUESTS") == 0)
        return v >= 1 && v <= (1 << 22) ? 0 : -1;
    if (strcmp(row->name, "ARMCI_BOUNCE_COUNT") == 0)
        return v >= 2 && v <= 65536 ? 0 : -1;
    if (strcmp(row->name, "ARMCI_BOUNCE_SIZE") == 0)
        return v >= 4096 && v <= (1L << 30) ? 0 : -1;
    if (strcmp(row->name, "ARMCI_AGG_MAX") == 0)
        return v >= 1 ? 0 : -1;
    if (strcmp(row->name, "ARMCI_INJECT_MAX") == 0 ||
        strcmp(row->name, "ARMCI_PUT_MESSAGE_MAX") == 0)
        return v >= -1 ? 0 : -1;
    /* 0 s would fail every wait that is not already complete, such as the first connection
     * over tcp; there is no "no limit" value, a long one serves. */
    if (strcmp(row->name, "ARMCI_TIMEOUT") == 0)
        return v >= 1 ? 0 : -1;
    if (row->type == ARMCII_ENV_INT || row->type == ARMCII_ENV_SIZE)
        return v >= 0 ? 0 : -1;
    return 0;
}

int armcii_env_load(armcii_env_t *env, armcii_env_lookup_fn lookup, char *err, size_t errlen)
{
    for (int i = 0; i < armcii_env_nrows; i++) {
        const armcii_env_row_t *row = &armcii_env_rows[i];
        long *field = (long *)((char *)env + row->offset);
        const char *s = lookup ? lookup(row->name) : NULL;
        int from_user = s != NULL && *s != '\0';
        if (!from_user)
            s = row->def;
        if (row->type == ARMCII_ENV_STR) {
            if (strlen(s) >= ARMCII_ENV_STR_MAX) {
                snprintf(err, errlen, "%s is longer than %d characters", row->name,
                         ARMCII_ENV_STR_MAX - 1);
                return -1;
            }
            strcpy((char *)env + row->offset, s);
            continue;
        }
        if (parse_one(row, s, field) != 0 || check_range(row, *field) != 0) {
            snprintf(err, errlen, "%s=\"%s\" is not a valid value (%s; default %s)", row->name, s,
                     row->help, row->def);
            return -1;
        }
    }
    return 0;
}

void armcii_env_format(const armcii_env_t *env, int row, char *buf, size_t len)
{
    const armcii_env_row_t *r = &armcii_env_rows[row];
    if (r->type == ARMCII_ENV_STR) {
        snprintf(buf, len, "%s", (const char *)env + r->offset);
        return;
    }
    long v = *(const long *)((const char *)env + r->offset);
    if (r->type == ARMCII_ENV_AUTO && v < 0)
        snprintf(buf, len, "auto");
    else
        snprintf(buf, len, "%ld", v);
}

int armcii_env_first_difference(const armcii_env_t *a, const armcii_env_t *b, int from)
{
    for (int i = from; i < armcii_env_nrows; i++) {
        const armcii_env_row_t *r = &armcii_env_rows[i];
        if (!r->same)
            continue;
        const char *x = (const char *)a + r->offset, *y = (const char *)b + r->offset;
        if (r->type == ARMCII_ENV_STR ? strcmp(x, y) != 0 : *(const long *)x != *(const long *)y)
            return i;
    }
    return armcii_env_nrows;
}

void armcii_env_print(const armcii_env_t *env, void (*emit)(const char *line))
{
    char line[256], value[32];
    for (int i = 0; i < armcii_env_nrows; i++) {
        armcii_env_format(env, i, value, sizeof(value));
        snprintf(line, sizeof(line), "%-28s = %s (default %s)", armcii_env_rows[i].name, value,
                 armcii_env_rows[i].def);
        emit(line);
    }
}
