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
_Static_assert(sizeof(armcii_env_rows) / sizeof(armcii_env_rows[0]) <=
                   sizeof(((armcii_env_t *)0)->from_user),
               "armcii_env_t.from_user has a byte per row");

const armcii_env_foreign_t armcii_env_foreign[] = {
#define ARMCII_ENV_FOREIGN(name, origin, alias, note) {name, origin, alias, note},
#include "env_foreign.h"
#undef ARMCII_ENV_FOREIGN
};
const int armcii_env_nforeign = sizeof(armcii_env_foreign) / sizeof(armcii_env_foreign[0]);

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

/* What a value of each type may be, for the message that refuses one. */
static const char *accepted(armcii_env_type_t type)
{
    switch (type) {
    case ARMCII_ENV_BOOL:
        return "1, yes, on, true, y or 0, no, off, false, n";
    case ARMCII_ENV_AUTO:
        return "auto, or 1, yes, on, true, y or 0, no, off, false, n";
    case ARMCII_ENV_INT:
        return "a whole number";
    case ARMCII_ENV_SIZE:
        return "a number of bytes, with K, M or G for KiB, MiB or GiB";
    case ARMCII_ENV_STR:
        break;
    }
    return "text";
}

/* The value of @p row the job set: under its own name, or else under another ARMCI's name
 * for it (env_foreign.h), whose name is then written to @p via_p; NULL when neither. */
static const char *user_value(const armcii_env_row_t *row, armcii_env_lookup_fn lookup,
                              const char **via_p)
{
    if (!lookup)
        return NULL;
    const char *s = lookup(row->name);
    if (s && *s)
        return s;
    for (int f = 0; f < armcii_env_nforeign; f++) {
        if (strcmp(armcii_env_foreign[f].alias, row->name) != 0)
            continue;
        s = lookup(armcii_env_foreign[f].name);
        if (s && *s) {
            *via_p = armcii_env_foreign[f].name;
            return s;
        }
    }
    return NULL;
}

int armcii_env_load(armcii_env_t *env, armcii_env_lookup_fn lookup, char *err, size_t errlen)
{
    for (int i = 0; i < armcii_env_nrows; i++) {
        const armcii_env_row_t *row = &armcii_env_rows[i];
        long *field = (long *)((char *)env + row->offset);
        const char *via = NULL;
        const char *s = user_value(row, lookup, &via);
        env->from_user[i] = s != NULL;
        if (!s)
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
        int bad_form = parse_one(row, s, field) != 0;
        if (bad_form || check_range(row, *field) != 0) {
            char name[128], what[160];
            if (via)
                snprintf(name, sizeof name, "%s (read as %s)", via, row->name);
            else
                snprintf(name, sizeof name, "%s", row->name);
            if (bad_form)
                snprintf(what, sizeof what, ": %s takes %s", row->name, accepted(row->type));
            else
                snprintf(what, sizeof what, ", out of range");
            snprintf(err, errlen, "%s=\"%s\" is not a valid value%s (%s; default %s)", name, s,
                     what, row->help, row->def);
            return -1;
        }
    }
    return 0;
}

/* The row named @p name, or -1. */
static int row_of(const char *name)
{
    for (int i = 0; i < armcii_env_nrows; i++)
        if (strcmp(armcii_env_rows[i].name, name) == 0)
            return i;
    return -1;
}

int armcii_env_user(const armcii_env_t *env, const char *name)
{
    int i = row_of(name);
    return i >= 0 && env->from_user[i];
}

/* Edit distance between @p a and @p b (insertions, deletions, substitutions), at most 64
 * characters of each counted. */
static int distance(const char *a, const char *b)
{
    int la = (int)strnlen(a, 64), lb = (int)strnlen(b, 64), row[65];
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

int armcii_env_nearest(const char *name)
{
    int best = -1, best_d = (int)strlen(name) / 3;
    if (best_d < 1)
        best_d = 1;
    for (int i = 0; i < armcii_env_nrows; i++) {
        int d = distance(name, armcii_env_rows[i].name);
        if (d <= best_d && (best < 0 || d < best_d)) {
            best = i;
            best_d = d;
        }
    }
    return best;
}

int armcii_env_foreign_of(const char *name)
{
    for (int f = 0; f < armcii_env_nforeign; f++) {
        const char *p = armcii_env_foreign[f].name;
        size_t n = strlen(p);
        if (n > 0 && p[n - 1] == '*' ? strncmp(name, p, n - 1) == 0 : strcmp(name, p) == 0)
            return f;
    }
    return -1;
}

static const char *value_in(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (; envp && *envp; envp++)
        if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
            return *envp + n + 1;
    return NULL;
}

int armcii_env_review(char *const *envp, void (*emit)(const char *line))
{
    char *const *all = envp;
    int lines = 0;
    for (; envp && *envp; envp++) {
        char name[128], line[512];
        size_t n = strcspn(*envp, "=");
        if (n >= sizeof name || (*envp)[n] != '=')
            continue;
        memcpy(name, *envp, n);
        name[n] = '\0';
        const char *value = *envp + n + 1;
        int f = armcii_env_foreign_of(name);
        if (f >= 0) {
            const armcii_env_foreign_t *x = &armcii_env_foreign[f];
            const char *ours = x->alias[0] ? value_in(all, x->alias) : NULL;
            if (ours && *ours)
                snprintf(line, sizeof line, "%s (%s) is not read: %s=%s is set and takes its place",
                         name, x->origin, x->alias, ours);
            else if (x->alias[0])
                snprintf(line, sizeof line, "%s (%s) is read as %s=%s: %s", name, x->origin,
                         x->alias, value, x->note);
            else
                snprintf(line, sizeof line, "%s (%s) is not read by armci-ofi: %s", name, x->origin,
                         x->note);
        } else if (strncmp(name, "ARMCI_", 6) == 0 && strncmp(name, "ARMCI_TEST_", 11) != 0 &&
                   row_of(name) < 0) {
            int near = armcii_env_nearest(name);
            if (near >= 0)
                snprintf(line, sizeof line,
                         "%s is not a setting of armci-ofi and is ignored; did you mean %s? "
                         "(armci-info lists them all)",
                         name, armcii_env_rows[near].name);
            else
                snprintf(line, sizeof line,
                         "%s is not a setting of armci-ofi and is ignored (armci-info lists "
                         "them all)",
                         name);
        } else {
            continue;
        }
        emit(line);
        lines++;
    }
    return lines;
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
