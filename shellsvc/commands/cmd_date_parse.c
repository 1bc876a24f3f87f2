/* SPDX-License-Identifier: Apache-2.0 */
/* GNU's date input grammar (gnulib's parse_datetime as coreutils 9.1
 * reads `date -d`): a lexer, a parser that takes items one at a time,
 * and the arithmetic that turns them into an instant. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_date.h"

/* ---- tokens ---- */

typedef enum tk_type { // ORDER TOKENS
    TK_END,
    TK_UNUM,      // 17 (tk_digits, tk_val; tk_frac when a decimal)
    TK_SNUM,      // -17 or +17 (a sign, blanks, digits)
    TK_MONTH,     // tk_val 1-12
    TK_DAY,       // tk_val 0-6
    TK_MERID,     // tk_val 0 AM, 1 PM
    TK_UNIT,      // tk_unit, tk_val (multiplier: week 7 days)
    TK_SHIFT,     // today, tomorrow, yesterday, now: tk_val days
    TK_ORDINAL,   // last this next first … twelfth: tk_val
    TK_AGO,       // ago (-1), hence (+1)
    TK_ZONE,      // tk_val seconds east
    TK_DAYZONE,   // tk_val seconds east, a daylight zone (EDT)
    TK_LOCALZONE, // a name of the local zone: tk_val 1 when daylight
    TK_DST,       // dst
    TK_T,         // T: the ISO 8601 separator, or the zone -7
    TK_CHAR,      // any other character (tk_val)
} tk_type;

typedef enum tk_unit { U_YEAR, U_MONTH, U_DAY, U_HOUR, U_MIN, U_SEC } tk_unit;

typedef struct tk {
    tk_type tk_type;
    int64_t tk_val;
    int tk_digits;
    bool tk_frac; // a decimal number (tk_ns its fraction)
    long tk_ns;
    tk_unit tk_unit;
} tk;

#define TK_MAX 128

typedef struct dp_word {
    const char *w_name;
    tk_type w_type;
    int w_val;
    tk_unit w_unit;
} dp_word;

#define H(n) ((n)*3600)

static const dp_word dp_months[] = {
    {"JANUARY", TK_MONTH, 1, 0},   {"FEBRUARY", TK_MONTH, 2, 0},
    {"MARCH", TK_MONTH, 3, 0},     {"APRIL", TK_MONTH, 4, 0},
    {"MAY", TK_MONTH, 5, 0},       {"JUNE", TK_MONTH, 6, 0},
    {"JULY", TK_MONTH, 7, 0},      {"AUGUST", TK_MONTH, 8, 0},
    {"SEPTEMBER", TK_MONTH, 9, 0}, {"SEPT", TK_MONTH, 9, 0},
    {"OCTOBER", TK_MONTH, 10, 0},  {"NOVEMBER", TK_MONTH, 11, 0},
    {"DECEMBER", TK_MONTH, 12, 0}, {"SUNDAY", TK_DAY, 0, 0},
    {"MONDAY", TK_DAY, 1, 0},      {"TUESDAY", TK_DAY, 2, 0},
    {"TUES", TK_DAY, 2, 0},        {"WEDNESDAY", TK_DAY, 3, 0},
    {"WEDNES", TK_DAY, 3, 0},      {"THURSDAY", TK_DAY, 4, 0},
    {"THUR", TK_DAY, 4, 0},        {"THURS", TK_DAY, 4, 0},
    {"FRIDAY", TK_DAY, 5, 0},      {"SATURDAY", TK_DAY, 6, 0},
};

static const dp_word dp_zones[] = {
    {"GMT", TK_ZONE, 0, 0},
    {"UT", TK_ZONE, 0, 0},
    {"UTC", TK_ZONE, 0, 0},
    {"WET", TK_ZONE, 0, 0},
    {"WEST", TK_DAYZONE, 0, 0},
    {"BST", TK_DAYZONE, 0, 0},
    {"ART", TK_ZONE, -H(3), 0},
    {"BRT", TK_ZONE, -H(3), 0},
    {"BRST", TK_DAYZONE, -H(3), 0},
    {"NST", TK_ZONE, -(H(3) + 1800), 0},
    {"NDT", TK_DAYZONE, -(H(3) + 1800), 0},
    {"AST", TK_ZONE, -H(4), 0},
    {"ADT", TK_DAYZONE, -H(4), 0},
    {"CLT", TK_ZONE, -H(4), 0},
    {"CLST", TK_DAYZONE, -H(4), 0},
    {"EST", TK_ZONE, -H(5), 0},
    {"EDT", TK_DAYZONE, -H(5), 0},
    {"CST", TK_ZONE, -H(6), 0},
    {"CDT", TK_DAYZONE, -H(6), 0},
    {"MST", TK_ZONE, -H(7), 0},
    {"MDT", TK_DAYZONE, -H(7), 0},
    {"PST", TK_ZONE, -H(8), 0},
    {"PDT", TK_DAYZONE, -H(8), 0},
    {"AKST", TK_ZONE, -H(9), 0},
    {"AKDT", TK_DAYZONE, -H(9), 0},
    {"HST", TK_ZONE, -H(10), 0},
    {"HAST", TK_ZONE, -H(10), 0},
    {"HADT", TK_DAYZONE, -H(10), 0},
    {"SST", TK_ZONE, -H(12), 0},
    {"WAT", TK_ZONE, H(1), 0},
    {"CET", TK_ZONE, H(1), 0},
    {"CEST", TK_DAYZONE, H(1), 0},
    {"MET", TK_ZONE, H(1), 0},
    {"MEZ", TK_ZONE, H(1), 0},
    {"MEST", TK_DAYZONE, H(1), 0},
    {"MESZ", TK_DAYZONE, H(1), 0},
    {"EET", TK_ZONE, H(2), 0},
    {"EEST", TK_DAYZONE, H(2), 0},
    {"CAT", TK_ZONE, H(2), 0},
    {"SAST", TK_ZONE, H(2), 0},
    {"EAT", TK_ZONE, H(3), 0},
    {"MSK", TK_ZONE, H(3), 0},
    {"MSD", TK_DAYZONE, H(3), 0},
    {"IST", TK_ZONE, H(5) + 1800, 0},
    {"SGT", TK_ZONE, H(8), 0},
    {"KST", TK_ZONE, H(9), 0},
    {"JST", TK_ZONE, H(9), 0},
    {"GST", TK_ZONE, H(10), 0},
    {"NZST", TK_ZONE, H(12), 0},
    {"NZDT", TK_DAYZONE, H(12), 0},
};

static const dp_word dp_units[] = {
    {"YEAR", TK_UNIT, 1, U_YEAR},      {"MONTH", TK_UNIT, 1, U_MONTH},
    {"FORTNIGHT", TK_UNIT, 14, U_DAY}, {"WEEK", TK_UNIT, 7, U_DAY},
    {"DAY", TK_UNIT, 1, U_DAY},        {"HOUR", TK_UNIT, 1, U_HOUR},
    {"MINUTE", TK_UNIT, 1, U_MIN},     {"MIN", TK_UNIT, 1, U_MIN},
    {"SECOND", TK_UNIT, 1, U_SEC},     {"SEC", TK_UNIT, 1, U_SEC},
};

static const dp_word dp_relative[] = {
    {"TOMORROW", TK_SHIFT, 1, 0},    {"YESTERDAY", TK_SHIFT, -1, 0},
    {"TODAY", TK_SHIFT, 0, 0},       {"NOW", TK_SHIFT, 0, 0},
    {"LAST", TK_ORDINAL, -1, 0},     {"THIS", TK_ORDINAL, 0, 0},
    {"NEXT", TK_ORDINAL, 1, 0},      {"FIRST", TK_ORDINAL, 1, 0},
    {"THIRD", TK_ORDINAL, 3, 0},     {"FOURTH", TK_ORDINAL, 4, 0},
    {"FIFTH", TK_ORDINAL, 5, 0},     {"SIXTH", TK_ORDINAL, 6, 0},
    {"SEVENTH", TK_ORDINAL, 7, 0},   {"EIGHTH", TK_ORDINAL, 8, 0},
    {"NINTH", TK_ORDINAL, 9, 0},     {"TENTH", TK_ORDINAL, 10, 0},
    {"ELEVENTH", TK_ORDINAL, 11, 0}, {"TWELFTH", TK_ORDINAL, 12, 0},
    {"AGO", TK_AGO, -1, 0},          {"HENCE", TK_AGO, 1, 0},
};

#define NWORDS(t) (sizeof(t) / sizeof(t)[0])

/* What the lexer needs besides the text: the local zone's names. */
typedef struct dp_lex {
    const char *lx_p;
    char lx_local[2][32]; // standard and daylight abbreviations
} dp_lex;

static bool
word_in(const dp_word *t, size_t n, const char *w, tk *out)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].w_name, w) == 0) {
            out->tk_type = t[i].w_type;
            out->tk_val = t[i].w_val;
            out->tk_unit = t[i].w_unit;
            return true;
        }
    return false;
}

/* gnulib's lookup_word: meridians, month and day names (3 letters, or
 * 3 and a '.', abbreviate), zones, DST, units (a trailing S dropped),
 * relative words, military zones, then zones with the periods dropped. */
static bool
lookup_word(const dp_lex *lx, const char *word, tk *out)
{
    char w[64];
    snprintf(w, sizeof w, "%s", word);
    for (char *p = w; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    if (strcmp(w, "AM") == 0 || strcmp(w, "A.M.") == 0 ||
        strcmp(w, "PM") == 0 || strcmp(w, "P.M.") == 0) {
        out->tk_type = TK_MERID;
        out->tk_val = w[0] == 'P';
        return true;
    }
    size_t len = strlen(w);
    bool abbrev = len == 3 || (len == 4 && w[3] == '.');
    for (size_t i = 0; i < NWORDS(dp_months); i++) {
        const char *n = dp_months[i].w_name;
        if (abbrev ? strncmp(w, n, 3) == 0 : strcmp(w, n) == 0) {
            out->tk_type = dp_months[i].w_type;
            out->tk_val = dp_months[i].w_val;
            return true;
        }
    }
    if (strcmp(w, "GMT") == 0 || strcmp(w, "UT") == 0 ||
        strcmp(w, "UTC") == 0) {
        out->tk_type = TK_ZONE;
        out->tk_val = 0;
        return true;
    }
    // The local zone's own names before the table's: "EST" in New York
    // is its local time, standard (tk_val 0) or daylight (1).
    for (int i = 0; i < 2; i++)
        if (lx->lx_local[i][0] != '\0' && strcmp(w, lx->lx_local[i]) == 0) {
            out->tk_type = TK_LOCALZONE;
            out->tk_val = i;
            return true;
        }
    if (word_in(dp_zones, NWORDS(dp_zones), w, out))
        return true;
    if (strcmp(w, "DST") == 0) {
        out->tk_type = TK_DST;
        return true;
    }
    if (word_in(dp_units, NWORDS(dp_units), w, out))
        return true;
    if (len > 1 && w[len - 1] == 'S') {
        w[len - 1] = '\0';
        bool found = word_in(dp_units, NWORDS(dp_units), w, out);
        w[len - 1] = 'S';
        if (found)
            return true;
    }
    if (word_in(dp_relative, NWORDS(dp_relative), w, out))
        return true;
    if (len == 1 && isalpha((unsigned char)w[0]) && w[0] != 'J') {
        char c = w[0];
        if (c == 'T') {
            out->tk_type = TK_T;
            return true;
        }
        out->tk_type = TK_ZONE;
        out->tk_val = c == 'Z'   ? 0
                      : c <= 'I' ? H(c - 'A' + 1)
                      : c <= 'M' ? H(c - 'K' + 10)
                                 : -H(c - 'N' + 1);
        return true;
    }
    char nd[64];
    size_t k = 0;
    for (size_t i = 0; i < len; i++)
        if (w[i] != '.')
            nd[k++] = w[i];
    nd[k] = '\0';
    if (k != len && word_in(dp_zones, NWORDS(dp_zones), nd, out))
        return true;
    return false;
}

/* The next token; false on a word no table has. */
static bool
lex(dp_lex *lx, tk *t)
{
    memset(t, 0, sizeof *t);
    for (;;) {
        while (isspace((unsigned char)*lx->lx_p))
            lx->lx_p++;
        const char *p = lx->lx_p;
        unsigned char c = (unsigned char)*p;
        if (c == '\0') {
            t->tk_type = TK_END;
            return true;
        }
        if (isdigit(c) || c == '-' || c == '+') {
            int sign = 0;
            if (c == '-' || c == '+') {
                sign = c == '-' ? -1 : 1;
                do
                    p++;
                while (isspace((unsigned char)*p));
                if (!isdigit((unsigned char)*p)) { // a lone sign is skipped
                    lx->lx_p = p;
                    continue;
                }
            }
            int64_t v = 0;
            int nd = 0;
            while (isdigit((unsigned char)*p)) {
                if (v > INT64_MAX / 10 - 10)
                    return false;
                v = v * 10 + (*p++ - '0');
                nd++;
            }
            t->tk_type = sign ? TK_SNUM : TK_UNUM;
            t->tk_val = sign < 0 ? -v : v;
            t->tk_digits = nd;
            if ((*p == '.' || *p == ',') && isdigit((unsigned char)p[1])) {
                p++;
                long ns = 0;
                int k = 0;
                for (; isdigit((unsigned char)*p); p++, k++)
                    if (k < 9)
                        ns = ns * 10 + (*p - '0');
                for (; k < 9; k++)
                    ns *= 10;
                // A negative decimal is -(v + frac): its fraction counts
                // back, as gnulib's does.
                if (sign < 0 && ns != 0) {
                    t->tk_val -= 1;
                    ns = 1000000000L - ns;
                }
                t->tk_frac = true;
                t->tk_ns = ns;
            }
            lx->lx_p = p;
            return true;
        }
        if (isalpha(c)) {
            char w[64];
            size_t n = 0;
            while (isalpha((unsigned char)*p) || *p == '.') {
                if (n < sizeof w - 1)
                    w[n++] = *p;
                p++;
            }
            w[n] = '\0';
            lx->lx_p = p;
            return lookup_word(lx, w, t);
        }
        if (c == '(') { // a comment, nested
            int depth = 0;
            do {
                if (*p == '\0')
                    return false;
                if (*p == '(')
                    depth++;
                else if (*p == ')')
                    depth--;
                p++;
            } while (depth > 0);
            lx->lx_p = p;
            continue;
        }
        t->tk_type = TK_CHAR;
        t->tk_val = c;
        lx->lx_p++;
        return true;
    }
}

/* ---- items ---- */

/* What the items said (gnulib's parser_control, the parts date uses). */
typedef struct dp_st {
    const tk *ps_tk;
    int ps_n, ps_i;
    // date
    int64_t ps_year, ps_month, ps_day;
    int ps_year_digits;
    int ps_dates, ps_times, ps_days, ps_zones, ps_rels;
    bool ps_year_seen;
    // time of day
    int64_t ps_hour, ps_min, ps_sec;
    long ps_ns;
    int ps_merid; // -1 24-hour, 0 AM, 1 PM
    // weekday
    int64_t ps_day_ord;
    int ps_day_num;
    // zone (seconds east)
    long ps_zone;
    int ps_locals;      // local zone names seen
    int ps_local_isdst; // what the last one said
    // relative
    int64_t ps_ry, ps_rm, ps_rd, ps_rh, ps_rmin, ps_rs;
    long ps_rns;
} dp_st;

static const tk *
peek(const dp_st *ps, int k)
{
    int i = ps->ps_i + k;
    return &ps->ps_tk[i < ps->ps_n ? i : ps->ps_n - 1];
}

static bool
is_char(const tk *t, char c)
{
    return t->tk_type == TK_CHAR && t->tk_val == c;
}

/* A relative item: n units (n counted, not yet scaled by tk_val). */
static bool
apply_rel(dp_st *ps, const tk *unit, int64_t n, long ns, int factor)
{
    int64_t v = n * unit->tk_val * factor;
    switch (unit->tk_unit) {
    case U_YEAR:
        ps->ps_ry += v;
        break;
    case U_MONTH:
        ps->ps_rm += v;
        break;
    case U_DAY:
        ps->ps_rd += v;
        break;
    case U_HOUR:
        ps->ps_rh += v;
        break;
    case U_MIN:
        ps->ps_rmin += v;
        break;
    case U_SEC:
        ps->ps_rs += v;
        if (factor < 0 && ns != 0) {
            ps->ps_rs -= 1;
            ps->ps_rns += 1000000000L - ns;
        } else {
            ps->ps_rns += ns;
        }
        break;
    }
    ps->ps_rels++;
    return true;
}

/* relunit [ago]: a number (or ordinal, or none) and a unit. k tokens
 * of number before the unit at ps_i + k. */
static bool
item_rel(dp_st *ps, int k)
{
    const tk *num = k ? peek(ps, 0) : NULL;
    const tk *unit = peek(ps, k);
    if (num != NULL && num->tk_frac && unit->tk_unit != U_SEC)
        return false;
    int64_t n = num != NULL ? num->tk_val : 1;
    long ns = num != NULL ? num->tk_ns : 0;
    ps->ps_i += k + 1;
    int factor = 1;
    if (peek(ps, 0)->tk_type == TK_AGO) {
        factor = (int)peek(ps, 0)->tk_val;
        ps->ps_i++;
    }
    return apply_rel(ps, unit, n, ns, factor);
}

/* gnulib's digits_to_date_time: a bare number is a year, a YYYYMMDD
 * date, or HH / HHMM. */
static bool
item_number(dp_st *ps, const tk *t)
{
    if (t->tk_frac)
        return false;
    if (ps->ps_dates && !ps->ps_year_digits && !ps->ps_rels &&
        (ps->ps_times || t->tk_digits > 2)) {
        ps->ps_year_seen = true;
        ps->ps_year = t->tk_val;
        ps->ps_year_digits = t->tk_digits;
        return true;
    }
    if (t->tk_digits > 4) {
        ps->ps_dates++;
        ps->ps_day = t->tk_val % 100;
        ps->ps_month = t->tk_val / 100 % 100;
        ps->ps_year = t->tk_val / 10000;
        ps->ps_year_digits = t->tk_digits - 4;
        return true;
    }
    ps->ps_times++;
    if (t->tk_digits <= 2) {
        ps->ps_hour = t->tk_val;
        ps->ps_min = 0;
    } else {
        ps->ps_hour = t->tk_val / 100;
        ps->ps_min = t->tk_val % 100;
    }
    ps->ps_sec = 0;
    ps->ps_ns = 0;
    ps->ps_merid = -1;
    return true;
}

/* zone_offset: SNUM [':' UNUM]: hh, hhmm or hh:mm, at most 24 hours. */
static bool
zone_offset(dp_st *ps, long *out)
{
    const tk *s = peek(ps, 0);
    if (s->tk_frac)
        return false;
    int64_t v = s->tk_val < 0 ? -s->tk_val : s->tk_val;
    int sign = s->tk_val < 0 ? -1 : 1;
    int64_t minutes;
    ps->ps_i++;
    if (is_char(peek(ps, 0), ':') && peek(ps, 1)->tk_type == TK_UNUM) {
        minutes = v * 60 + peek(ps, 1)->tk_val;
        ps->ps_i += 2;
    } else if (s->tk_digits <= 2) {
        minutes = v * 60;
    } else {
        minutes = v / 100 * 60 + v % 100;
    }
    if (minutes > 24 * 60)
        return false;
    *out = sign * (long)minutes * 60;
    return true;
}

/* A time of day from ps_i (a UNUM): H am/pm, H:M [am/pm | offset],
 * H:M:S[.frac] [am/pm | offset], H offset. */
static bool
item_time(dp_st *ps)
{
    const tk *h = peek(ps, 0);
    if (h->tk_frac)
        return false;
    ps->ps_times++;
    ps->ps_hour = h->tk_val;
    ps->ps_min = ps->ps_sec = 0;
    ps->ps_ns = 0;
    ps->ps_merid = -1;
    ps->ps_i++;
    if (peek(ps, 0)->tk_type == TK_MERID) {
        ps->ps_merid = (int)peek(ps, 0)->tk_val;
        ps->ps_i++;
        return true;
    }
    if (peek(ps, 0)->tk_type == TK_SNUM) { // H offset
        ps->ps_zones++;
        return zone_offset(ps, &ps->ps_zone);
    }
    // H ':' M
    const tk *m = peek(ps, 1);
    if (m->tk_frac)
        return false;
    ps->ps_min = m->tk_val;
    ps->ps_i += 2;
    if (is_char(peek(ps, 0), ':') && peek(ps, 1)->tk_type == TK_UNUM) {
        const tk *s = peek(ps, 1);
        ps->ps_sec = s->tk_val;
        ps->ps_ns = s->tk_ns;
        ps->ps_i += 2;
    }
    if (peek(ps, 0)->tk_type == TK_MERID) {
        ps->ps_merid = (int)peek(ps, 0)->tk_val;
        ps->ps_i++;
    } else if (peek(ps, 0)->tk_type == TK_SNUM) {
        ps->ps_zones++;
        return zone_offset(ps, &ps->ps_zone);
    }
    return true;
}

static void
set_date(dp_st *ps, int64_t y, int yd, int64_t m, int64_t d)
{
    ps->ps_dates++;
    ps->ps_year = y;
    ps->ps_year_digits = yd;
    ps->ps_month = m;
    ps->ps_day = d;
}

/* One item at ps_i; false when none fits. */
static bool
item(dp_st *ps)
{
    const tk *a = peek(ps, 0), *b = peek(ps, 1), *c = peek(ps, 2);
    switch (a->tk_type) {
    case TK_UNUM:
        if (b->tk_type == TK_UNIT)
            return item_rel(ps, 1);
        if (is_char(b, ':') && c->tk_type == TK_UNUM)
            return item_time(ps);
        if (b->tk_type == TK_MERID)
            return item_time(ps);
        if (is_char(b, '/') && c->tk_type == TK_UNUM) {
            if (a->tk_frac || c->tk_frac)
                return false;
            if (is_char(peek(ps, 3), '/') && peek(ps, 4)->tk_type == TK_UNUM) {
                const tk *e = peek(ps, 4);
                if (e->tk_frac)
                    return false;
                if (a->tk_digits >= 4)
                    set_date(ps, a->tk_val, a->tk_digits, c->tk_val, e->tk_val);
                else
                    set_date(ps, e->tk_val, e->tk_digits, a->tk_val, c->tk_val);
                ps->ps_i += 5;
                return true;
            }
            set_date(ps, 0, 0, a->tk_val, c->tk_val);
            ps->ps_i += 3;
            return true;
        }
        if (b->tk_type == TK_SNUM && c->tk_type == TK_SNUM && !a->tk_frac &&
            !b->tk_frac && !c->tk_frac) { // ISO 8601: YYYY-MM-DD
            set_date(ps, a->tk_val, a->tk_digits, -b->tk_val, -c->tk_val);
            ps->ps_i += 3;
            // 'T' time
            // A 'T' after the date starts its time (and only a time).
            if (peek(ps, 0)->tk_type == TK_T) {
                if (peek(ps, 1)->tk_type != TK_UNUM ||
                    !is_char(peek(ps, 2), ':'))
                    return false;
                ps->ps_i++;
                return item_time(ps);
            }
            return true;
        }
        if (b->tk_type == TK_MONTH) {
            if (a->tk_frac)
                return false;
            if (c->tk_type == TK_SNUM) { // 17-JUN-1992
                set_date(ps, -c->tk_val, c->tk_digits, b->tk_val, a->tk_val);
                ps->ps_i += 3;
            } else if (c->tk_type == TK_UNUM && !c->tk_frac) {
                set_date(ps, c->tk_val, c->tk_digits, b->tk_val, a->tk_val);
                ps->ps_i += 3;
            } else {
                set_date(ps, 0, 0, b->tk_val, a->tk_val);
                ps->ps_i += 2;
            }
            return true;
        }
        if (b->tk_type == TK_DAY) {
            ps->ps_days++;
            ps->ps_day_ord = a->tk_val;
            ps->ps_day_num = (int)b->tk_val;
            ps->ps_i += 2;
            return true;
        }
        if (b->tk_type == TK_SNUM && c->tk_type == TK_UNIT) {
            // hybrid: a number, then a signed relative item
            if (!item_number(ps, a))
                return false;
            ps->ps_i++;
            return item_rel(ps, 1);
        }
        if (b->tk_type == TK_SNUM)
            return item_time(ps); // H offset
        ps->ps_i++;
        return item_number(ps, a);
    case TK_SNUM:
        if (b->tk_type == TK_UNIT)
            return item_rel(ps, 1);
        return false;
    case TK_ORDINAL:
        if (b->tk_type == TK_UNIT)
            return item_rel(ps, 1);
        if (b->tk_type == TK_DAY) {
            ps->ps_days++;
            ps->ps_day_ord = a->tk_val;
            ps->ps_day_num = (int)b->tk_val;
            ps->ps_i += 2;
            return true;
        }
        return false;
    case TK_UNIT:
        return item_rel(ps, 0);
    case TK_SHIFT:
        ps->ps_rd += a->tk_val;
        ps->ps_rels++;
        ps->ps_i++;
        return true;
    case TK_MONTH:
        if (b->tk_type == TK_SNUM && c->tk_type == TK_SNUM) { // JUN-17-1992
            if (b->tk_frac || c->tk_frac)
                return false;
            set_date(ps, -c->tk_val, c->tk_digits, a->tk_val, -b->tk_val);
            ps->ps_i += 3;
            return true;
        }
        if (b->tk_type == TK_UNUM && !b->tk_frac) {
            if (is_char(c, ',') && peek(ps, 3)->tk_type == TK_UNUM) {
                const tk *y = peek(ps, 3);
                if (y->tk_frac)
                    return false;
                set_date(ps, y->tk_val, y->tk_digits, a->tk_val, b->tk_val);
                ps->ps_i += 4;
                return true;
            }
            set_date(ps, 0, 0, a->tk_val, b->tk_val);
            ps->ps_i += 2;
            return true;
        }
        return false;
    case TK_DAY:
        ps->ps_days++;
        ps->ps_day_ord = 0;
        ps->ps_day_num = (int)a->tk_val;
        ps->ps_i++;
        if (is_char(peek(ps, 0), ','))
            ps->ps_i++;
        return true;
    case TK_ZONE:
    case TK_T:
        ps->ps_zones++;
        ps->ps_zone = a->tk_type == TK_T ? -H(7) : (long)a->tk_val;
        ps->ps_i++;
        if (b->tk_type == TK_SNUM && c->tk_type == TK_UNIT)
            return item_rel(ps, 1);  // UTC +1 hour: a relative item
        if (b->tk_type == TK_SNUM) { // UTC+3
            long off;
            if (!zone_offset(ps, &off))
                return false;
            ps->ps_zone += off;
            return true;
        }
        if (b->tk_type == TK_DST) {
            ps->ps_zone += 3600;
            ps->ps_i++;
        }
        return true;
    case TK_LOCALZONE:
        ps->ps_locals++;
        ps->ps_local_isdst = (int)a->tk_val;
        ps->ps_i++;
        if (b->tk_type == TK_DST) {
            ps->ps_local_isdst = 1;
            ps->ps_i++;
        }
        return true;
    case TK_DAYZONE:
        ps->ps_zones++;
        ps->ps_zone = (long)a->tk_val + 3600;
        ps->ps_i++;
        return true;
    default:
        return false;
    }
}

/* ---- the instant ---- */

/* An hour of the 12-hour clock with its meridian; -1 when invalid. */
static int64_t
to_hour(int64_t h, int merid)
{
    if (merid < 0)
        return h >= 0 && h <= 23 ? h : -1;
    if (h < 1 || h > 12)
        return -1;
    return (h % 12) + (merid ? 12 : 0);
}

static int64_t
to_year(int64_t y, int digits)
{
    if (y < 0)
        y = -y;
    if (digits == 2)
        y += y < 69 ? 2000 : 1900;
    return y;
}

/* The local names of z in the year of now (January's and July's), for
 * the lexer to read "EST" as New York's. */
static void
local_names(const dt_tz *z, int64_t now, dp_lex *lx)
{
    dt_tm tm;
    dt_localtime(z, now, &tm);
    int64_t jan = dt_days_from_civil(tm.tm_year, 1, 1) * 86400;
    int64_t jul = dt_days_from_civil(tm.tm_year, 7, 1) * 86400;
    dt_tm a, b;
    dt_localtime(z, jan, &a);
    dt_localtime(z, jul, &b);
    const dt_tm *std = a.tm_dst ? &b : &a, *dst = a.tm_dst ? &a : &b;
    snprintf(lx->lx_local[0], sizeof lx->lx_local[0], "%s", std->tm_abbr);
    if (dst->tm_dst)
        snprintf(lx->lx_local[1], sizeof lx->lx_local[1], "%s", dst->tm_abbr);
    for (int i = 0; i < 2; i++) { // the tables hold upper case names
        bool alpha = true;
        for (char *p = lx->lx_local[i]; *p; p++) {
            alpha = alpha && isalpha((unsigned char)*p);
            *p = (char)toupper((unsigned char)*p);
        }
        if (!alpha)
            lx->lx_local[i][0] = '\0';
    }
}

/* @SECONDS[.FRAC]: the whole text. */
static bool
parse_at(const char *p, int64_t *out, long *out_ns)
{
    while (isspace((unsigned char)*p))
        p++;
    dp_lex lx = {.lx_p = p};
    tk t, e;
    if (!lex(&lx, &t) || (t.tk_type != TK_UNUM && t.tk_type != TK_SNUM) ||
        !lex(&lx, &e) || e.tk_type != TK_END)
        return false;
    *out = t.tk_val;
    *out_ns = t.tk_ns;
    return true;
}

/* The zone for the arithmetic: the named offset, or z. */
static bool
to_instant(const dp_st *ps, const dt_tz *z, int64_t y, int64_t mon, int64_t d,
           int64_t h, int64_t mi, int64_t s, bool strict, int64_t *out)
{
    if (ps->ps_zones) {
        int64_t yy = y + (mon >= 0 ? mon / 12 : -((11 - mon) / 12));
        int64_t mm = mon - (yy - y) * 12;
        *out = (dt_days_from_civil(yy, mm + 1, 1) + d - 1) * 86400 + h * 3600 +
               mi * 60 + s - ps->ps_zone;
        return true;
    }
    return dt_mktime(z, y, mon, d, h, mi, s, strict, out);
}

static bool
dp_run(const char *text, int64_t now, long now_ns, const dt_tz *z, int64_t *out,
       long *out_ns)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '@')
        return parse_at(p + 1, out, out_ns);
    dp_lex lx = {.lx_p = p};
    local_names(z, now, &lx);
    tk *toks = box_calloc(TK_MAX, sizeof *toks);
    if (toks == NULL)
        return false;
    int n = 0;
    bool ok = true;
    for (;;) {
        if (n == TK_MAX - 1 || !lex(&lx, &toks[n])) {
            ok = false;
            break;
        }
        if (toks[n++].tk_type == TK_END)
            break;
    }
    dt_tm nowtm;
    dt_localtime(z, now, &nowtm);
    dp_st ps = {
        .ps_tk = toks,
        .ps_n = n,
        .ps_hour = nowtm.tm_hour,
        .ps_min = nowtm.tm_min,
        .ps_sec = nowtm.tm_sec,
        .ps_ns = now_ns,
        .ps_merid = -1,
    };
    while (ok && peek(&ps, 0)->tk_type != TK_END)
        ok = item(&ps);
    box_free(toks);
    if (!ok || ps.ps_times > 1 || ps.ps_dates > 1 || ps.ps_days > 1 ||
        ps.ps_zones + ps.ps_locals > 1)
        return false;
    int64_t year = nowtm.tm_year, mon = nowtm.tm_mon, day = nowtm.tm_mday;
    if (ps.ps_dates || ps.ps_year_seen) {
        if (ps.ps_year_digits > 0 || ps.ps_year_seen)
            year = to_year(ps.ps_year, ps.ps_year_digits);
        if (ps.ps_dates) {
            mon = ps.ps_month - 1;
            day = ps.ps_day;
        }
        if (mon < 0 || mon > 11 || day < 1 ||
            day > dt_month_days(year, (int)mon + 1))
            return false;
    }
    int64_t hour, min, sec;
    long ns;
    if (ps.ps_times || (ps.ps_rels && !ps.ps_dates && !ps.ps_days)) {
        hour = to_hour(ps.ps_hour, ps.ps_merid);
        min = ps.ps_min;
        sec = ps.ps_sec;
        ns = ps.ps_ns;
        if (hour < 0 || min < 0 || min > 59 || sec < 0 || sec > 59)
            return false;
    } else {
        hour = min = sec = 0;
        ns = 0;
    }
    // gnulib's order: the fields as local time; the weekday and the
    // calendar items in local time; only then the named zone, as the
    // difference between its offset and the local one found.
    int64_t t;
    bool zoned = false;
    if (!dt_mktime(z, year, mon, day, hour, min, sec, true, &t)) {
        if (!ps.ps_zones)
            return false;
        if (!to_instant(&ps, z, year, mon, day, hour, min, sec, true, &t))
            return false;
        zoned = true;
    }
    if (ps.ps_locals) {
        dt_tm tm;
        dt_localtime(z, t, &tm);
        if ((int)tm.tm_dst != ps.ps_local_isdst)
            return false;
    }
    if (ps.ps_days && !ps.ps_dates) {
        dt_tm tm;
        dt_localtime(z, t, &tm);
        int64_t shift = ((ps.ps_day_num - tm.tm_wday + 7) % 7) +
                        7 * (ps.ps_day_ord - (ps.ps_day_ord > 0 &&
                                              tm.tm_wday != ps.ps_day_num));
        if (!dt_mktime(z, tm.tm_year, tm.tm_mon, tm.tm_mday + shift, tm.tm_hour,
                       tm.tm_min, tm.tm_sec, false, &t))
            return false;
    }
    if (ps.ps_ry || ps.ps_rm || ps.ps_rd) {
        dt_tm tm;
        dt_localtime(z, t, &tm);
        if (!dt_mktime(z, tm.tm_year + ps.ps_ry, tm.tm_mon + ps.ps_rm,
                       tm.tm_mday + ps.ps_rd, tm.tm_hour, tm.tm_min, tm.tm_sec,
                       false, &t))
            return false;
    }
    if (ps.ps_zones && !zoned) {
        dt_tm tm;
        dt_localtime(z, t, &tm);
        t -= ps.ps_zone - tm.tm_off;
    }
    t += ps.ps_rh * 3600 + ps.ps_rmin * 60 + ps.ps_rs;
    ns += ps.ps_rns;
    t += ns / 1000000000L;
    ns %= 1000000000L;
    *out = t;
    *out_ns = ns;
    return true;
}

/* A leading TZ="…" names the zone the rest is read in. */
bool
dt_parse(const char *text, int64_t now, long now_ns, const dt_tz *z,
         int64_t *out, long *out_ns)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (strncmp(p, "TZ=\"", 4) != 0)
        return dp_run(text, now, now_ns, z, out, out_ns);
    char name[256];
    size_t n = 0;
    for (p += 4; *p != '"'; p++) {
        if (*p == '\0')
            return false;
        if (*p == '\\' && (p[1] == '\\' || p[1] == '"'))
            p++;
        if (n < sizeof name - 1)
            name[n++] = *p;
    }
    name[n] = '\0';
    dt_tz *tz = dt_tz_load(name);
    if (tz == NULL)
        return false;
    bool ok = dp_run(p + 1, now, now_ns, tz, out, out_ns);
    dt_tz_free(tz);
    return ok;
}
