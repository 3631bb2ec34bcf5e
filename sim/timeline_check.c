/* timeline_check.c - the trace checker: events streamed from the file (jstream.h), slices kept
 * (32 bytes each) for the nesting check at the end. */
#include "timeline_check.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jstream.h"

typedef struct slice_rec {
    int64_t pid, tid, ts, end;
} slice_rec;

static int by_track_time(const void *a, const void *b)
{
    const slice_rec *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end; /* the longer (parent) first */
}

/* A JSON number that is an integer of at most 2^53 in magnitude (exact in a double, so the
 * int64_t cast is defined). */
static bool is_int(const cJSON *it)
{
    return cJSON_IsNumber(it) && isfinite(it->valuedouble) &&
           it->valuedouble == floor(it->valuedouble) && fabs(it->valuedouble) <= 9007199254740992.0;
}

/* A ts or dur in microseconds, in [0, SIM_TIMELINE_MAX_US]: ts + dur in ns stays far inside
 * int64_t. *raw is the value found (NAN when missing or not a number). */
static bool get_time(const cJSON *ev, const char *key, int64_t *ns, double *raw)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(ev, key);
    *raw = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble <= SIM_TIMELINE_MAX_US))
        return false;
    *ns = (int64_t)llround(it->valuedouble * 1000.0);
    return true;
}

/* (a, b) pairs -- (pid, tid) tracks, (cat hash, id) async spans -- each with a count, kept in
 * insertion order (so errors name the first offender) and found through an open-addressing
 * index: a trace of 20,000 requests has 40,000 async keys. */
typedef struct pair_map {
    int64_t (*k)[2];
    int64_t *v;
    size_t n, cap;
    size_t *slot; /* entry index + 1; 0 = empty; n_slots a power of two >= 2 cap */
    size_t n_slots;
} pair_map;

static size_t pair_hash(int64_t a, int64_t b)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ULL ^ (uint64_t)b;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return (size_t)(h ^ (h >> 29));
}

/* The slot holding (a, b), or the empty slot where it would go. */
static size_t map_slot(const pair_map *m, int64_t a, int64_t b)
{
    size_t mask = m->n_slots - 1, i = pair_hash(a, b) & mask;
    while (m->slot[i] && !(m->k[m->slot[i] - 1][0] == a && m->k[m->slot[i] - 1][1] == b))
        i = (i + 1) & mask;
    return i;
}

static bool map_has(const pair_map *m, int64_t a, int64_t b)
{
    return m->n_slots && m->slot[map_slot(m, a, b)];
}

/* The count of (a, b), inserted at 0 when new; NULL when out of memory. */
static int64_t *map_get(pair_map *m, int64_t a, int64_t b)
{
    size_t found = m->n_slots ? m->slot[map_slot(m, a, b)] : 0;
    if (found)
        return &m->v[found - 1];
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        int64_t(*k)[2] = realloc(m->k, cap * sizeof *k);
        if (k)
            m->k = k;
        int64_t *v = k ? realloc(m->v, cap * sizeof *v) : NULL;
        if (v)
            m->v = v;
        size_t *slot = v ? calloc(2 * cap, sizeof *slot) : NULL;
        if (!slot)
            return NULL;
        free(m->slot);
        m->slot = slot;
        m->n_slots = 2 * cap;
        m->cap = cap;
        for (size_t e = 0; e < m->n; e++)
            m->slot[map_slot(m, m->k[e][0], m->k[e][1])] = e + 1;
    }
    m->k[m->n][0] = a;
    m->k[m->n][1] = b;
    m->v[m->n] = 0;
    m->slot[map_slot(m, a, b)] = ++m->n;
    return &m->v[m->n - 1];
}

static void map_free(pair_map *m)
{
    free(m->k);
    free(m->v);
    free(m->slot);
}

typedef struct checker {
    const char *path;
    sim_timeline_stats *st;
    slice_rec *slices;
    size_t n_slices, cap;
    pair_map named, used;
    pair_map depth; /* open async begins per (cat hash, id) */
    bool has_events;
} checker;

static sim_status bad(checker *c, long idx, const char *what, sim_err *err)
{
    return sim_fail(err, SIM_EINPUT, "%s: event %ld: %s", c->path, idx, what);
}

static sim_status bad_time(checker *c, long idx, const char *key, double raw, sim_err *err)
{
    char got[40];
    if (isnan(raw))
        snprintf(got, sizeof got, "missing or not a number");
    else
        snprintf(got, sizeof got, "%.17g", raw);
    return sim_fail(err, SIM_EINPUT,
                    "%s: event %ld: field '%s' is %s, expected microseconds in [0, %g]", c->path,
                    idx, key, got, SIM_TIMELINE_MAX_US);
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static sim_status check_async(checker *c, long idx, const cJSON *ev, char ph, sim_err *err)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(ev, "id");
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
    if (!is_int(id))
        return bad(c, idx, "async event without an integer id (|id| <= 2^53)", err);
    if (!cJSON_IsString(cat))
        return bad(c, idx, "async event without a cat", err);
    const bool flow = ph == 's' || ph == 'f';
    if (flow)
        c->st->flows += ph == 's';
    else
        c->st->async_events++;
    if (ph == 'n')
        return SIM_OK;
    /* flows and async spans keep apart counts: a flow's key is its cat's hash + 1 */
    int64_t key = (int64_t)((str_hash(cat->valuestring) + flow) & 0x7fffffffffffffffLL);
    int64_t nid = (int64_t)id->valuedouble;
    int64_t *depth = map_get(&c->depth, key, nid);
    if (!depth)
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    *depth += ph == 'b' || ph == 's' ? 1 : -1;
    if (*depth < 0)
        return bad(c, idx,
                   flow ? "flow finish without a matching start"
                        : "async end without a matching begin",
                   err);
    return SIM_OK;
}

static sim_status check_event(checker *c, long idx, const cJSON *ev, sim_err *err)
{
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(ev, "ph");
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(ev, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    if (!cJSON_IsObject(ev) || !cJSON_IsString(ph) || strlen(ph->valuestring) != 1)
        return bad(c, idx, "not an object with a one-letter ph", err);
    if (!is_int(pid) || !cJSON_IsString(name))
        return bad(c, idx, "pid must be an integer (|pid| <= 2^53) and name a string", err);
    if (tid && !is_int(tid))
        return bad(c, idx, "tid must be an integer (|tid| <= 2^53)", err);
    char p = ph->valuestring[0];
    int64_t ipid = (int64_t)pid->valuedouble, itid = tid ? (int64_t)tid->valuedouble : 0;
    c->st->events++;
    if (p == 'M') {
        c->st->metadata++;
        bool names = strcmp(name->valuestring, "process_name") == 0 ||
                     strcmp(name->valuestring, "thread_name") == 0;
        if (names) {
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(args, "name");
            if (!cJSON_IsString(n))
                return bad(c, idx, "name metadata without args.name", err);
            bool thread = name->valuestring[0] == 't';
            if (thread && !tid)
                return bad(c, idx, "thread_name without a tid", err);
            if (!map_get(&c->named, ipid, thread ? itid : -1))
                return sim_fail(err, SIM_EINTERNAL, "out of memory");
        }
        return SIM_OK;
    }
    int64_t ts;
    double raw;
    if (!get_time(ev, "ts", &ts, &raw))
        return bad_time(c, idx, "ts", raw, err);
    if (!map_get(&c->used, ipid, -1))
        return sim_fail(err, SIM_EINTERNAL, "out of memory");
    switch (p) {
    case 'X': {
        int64_t dur;
        if (!get_time(ev, "dur", &dur, &raw))
            return bad_time(c, idx, "dur", raw, err);
        if (!tid)
            return bad(c, idx, "X slice without a tid", err);
        if (!map_get(&c->used, ipid, itid))
            return sim_fail(err, SIM_EINTERNAL, "out of memory");
        if (c->n_slices == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 1024;
            slice_rec *s = realloc(c->slices, cap * sizeof *s);
            if (!s)
                return sim_fail(err, SIM_EINTERNAL, "out of memory");
            c->slices = s;
            c->cap = cap;
        }
        c->slices[c->n_slices++] = (slice_rec){ipid, itid, ts, ts + dur};
        c->st->slices++;
        if (ts + dur > c->st->end_ns)
            c->st->end_ns = ts + dur;
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
        if (cJSON_IsString(cat) && strcmp(cat->valuestring, "iteration") == 0) {
            /* identical iterations merged into one slice (timeline_serve.h) count n times */
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(args, "iterations");
            if (n && (!is_int(n) || n->valuedouble < 1))
                return bad(c, idx, "iteration slice whose args.iterations is not a count >= 1",
                           err);
            c->st->iterations += n ? (int64_t)n->valuedouble : 1;
            if (dur > INT64_MAX - c->st->iteration_ns)
                return bad(c, idx, "iteration durations sum past 2^63 ns", err);
            c->st->iteration_ns += dur;
            if (ts + dur > c->st->last_iteration_end_ns)
                c->st->last_iteration_end_ns = ts + dur;
        }
        return SIM_OK;
    }
    case 'C': {
        if (!cJSON_IsObject(args) || !args->child)
            return bad(c, idx, "counter without an args object", err);
        const cJSON *v;
        cJSON_ArrayForEach(v, args)
        {
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
                return bad(c, idx, "counter arg that is not a finite number", err);
        }
        c->st->counters++;
        return SIM_OK;
    }
    case 'b':
    case 'e':
    case 'n':
    case 's':
    case 'f':
        return check_async(c, idx, ev, p, err);
    case 'i':
        c->st->instants++;
        return SIM_OK;
    default:
        return bad(c, idx, "unexpected phase", err);
    }
}

static sim_status check_nesting(checker *c, sim_err *err)
{
    if (c->n_slices > 0) /* qsort of a NULL array is undefined even for 0 elements */
        qsort(c->slices, c->n_slices, sizeof *c->slices, by_track_time);
    int64_t stack[64];
    int depth = 0;
    for (size_t i = 0; i < c->n_slices; i++) {
        const slice_rec *s = &c->slices[i];
        if (i == 0 || s->pid != c->slices[i - 1].pid || s->tid != c->slices[i - 1].tid) {
            depth = 0;
            c->st->tracks++;
        }
        while (depth > 0 && stack[depth - 1] <= s->ts)
            depth--;
        if (depth > 0 && s->end > stack[depth - 1])
            return sim_fail(err, SIM_EINPUT,
                            "%s: slices on pid %lld tid %lld overlap partially at ts %lld ns "
                            "(one ends at %lld, the next runs to %lld)",
                            c->path, (long long)s->pid, (long long)s->tid, (long long)s->ts,
                            (long long)stack[depth - 1], (long long)s->end);
        if (depth == 64)
            return sim_fail(err, SIM_EINPUT, "%s: slices nest deeper than 64", c->path);
        stack[depth++] = s->end;
    }
    return SIM_OK;
}

/* One value of the trace file: an event of traceEvents, or another top-level value. */
static sim_status on_value(void *ctx, const char *key, long index, const cJSON *v, sim_err *err)
{
    checker *c = ctx;
    if (strcmp(key, "traceEvents") != 0)
        return SIM_OK;
    if (index < 0 && !cJSON_IsArray(v))
        return sim_fail(err, SIM_EINPUT, "%s: no traceEvents array", c->path);
    c->has_events = true;
    return index < 0 ? SIM_OK : check_event(c, index, v, err);
}

sim_status sim_timeline_check(const char *path, sim_timeline_stats *stats, sim_err *err)
{
    memset(stats, 0, sizeof *stats);
    checker c = {.path = path, .st = stats};
    /* streamed: memory grows with the slices, not with the file */
    sim_status st =
        sim_jstream_object(path, "traceEvents", SIM_JSTREAM_MAX_VALUE, on_value, &c, err);
    if (!st && !c.has_events)
        st = sim_fail(err, SIM_EINPUT, "%s: no traceEvents array", path);
    for (size_t k = 0; !st && k < c.depth.n; k++)
        if (c.depth.v[k] != 0)
            st = sim_fail(err, SIM_EINPUT, "%s: async id %lld has %lld begins without an end", path,
                          (long long)c.depth.k[k][1], (long long)c.depth.v[k]);
    for (size_t k = 0; !st && k < c.used.n; k++)
        if (!map_has(&c.named, c.used.k[k][0], c.used.k[k][1]))
            st =
                c.used.k[k][1] < 0
                    ? sim_fail(err, SIM_EINPUT, "%s: pid %lld has no process_name metadata", path,
                               (long long)c.used.k[k][0])
                    : sim_fail(err, SIM_EINPUT, "%s: pid %lld tid %lld has no thread_name metadata",
                               path, (long long)c.used.k[k][0], (long long)c.used.k[k][1]);
    if (!st)
        st = check_nesting(&c, err);
    free(c.slices);
    map_free(&c.named);
    map_free(&c.used);
    map_free(&c.depth);
    return st;
}
