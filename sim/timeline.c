/* timeline.c - the streaming Chrome Trace Event JSON writer: each event is built in the trace's
 * buffer (strbuf.h, JSON strings escaped there) and written with one fwrite. */
#include "timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Integer nanoseconds as microseconds, exact: the three decimals with trailing zeros left out
 * (3512000 ns is 3512, 16715700 ns is 16715.7), so slices nest exactly and a file is smaller. */
static void put_us(sim_strbuf *b, int64_t ns)
{
    if (ns < 0)
        ns = 0;
    sim_strbuf_int(b, ns / 1000);
    int64_t f = ns % 1000;
    if (!f)
        return;
    char frac[4] = {'.', (char)('0' + f / 100), (char)('0' + f % 100 / 10), (char)('0' + f % 10)};
    size_t n = sizeof frac;
    while (frac[n - 1] == '0')
        n--;
    sim_strbuf_put(b, frac, n);
}

static void put_tid(sim_strbuf *b, int tid)
{
    sim_strbuf_put(b, ",\"tid\":", 7);
    sim_strbuf_int(b, tid);
}

void sim_targs_reset(sim_targs *a)
{
    a->len = 0;
    a->buf[0] = '\0';
}

/* `,"key":` appended to a's text through a buffer over it; targs_end keeps the key and its value
 * when both fit, else neither. */
static sim_strbuf targs_key(sim_targs *a, const char *key)
{
    sim_strbuf b = sim_strbuf_over(a->buf, sizeof a->buf, a->len);
    /* a key with nothing to escape (every key the timelines write): one copy */
    size_t n = 0;
    while (key[n] && key[n] != '"' && key[n] != '\\' && (unsigned char)key[n] >= 0x20)
        n++;
    if (!key[n] && b.len + n + 5 < b.cap) {
        char *p = b.s + b.len;
        if (b.len)
            *p++ = ',';
        *p++ = '"';
        memcpy(p, key, n);
        p += n;
        *p++ = '"';
        *p++ = ':';
        *p = '\0';
        b.len = (size_t)(p - b.s);
        return b;
    }
    if (a->len)
        sim_strbuf_put(&b, ",", 1);
    sim_strbuf_json_str(&b, key);
    sim_strbuf_put(&b, ":", 1);
    return b;
}

static void targs_end(sim_targs *a, const sim_strbuf *b)
{
    if (!b->oom)
        a->len = b->len;
    a->buf[a->len] = '\0';
}

/* v as "%lld" prints it, NUL-terminated, into buf (room for 24 bytes); returns its length. */
static size_t int_text(char *buf, long long v)
{
    sim_strbuf b = sim_strbuf_over(buf, 24, 0);
    sim_strbuf_int(&b, v);
    return b.len;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as exactly v: full precision, and
 * 2799525.877 stays 2799525.877 rather than 2799525.8770000003. */
void sim_timeline_fmt_num(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        v = 0.0;
    /* a whole number below 10^15 is what %.15g prints, without the round trip (nor printf) */
    if (v == floor(v) && fabs(v) < 1e15 && !(v == 0.0 && signbit(v))) {
        char digits[24];
        const size_t n = int_text(digits, (long long)v);
        if (n < len) {
            memcpy(buf, digits, n + 1);
            return;
        }
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void sim_targs_num(sim_targs *a, const char *key, double v)
{
    char num[32];
    sim_timeline_fmt_num(num, sizeof num, v);
    sim_strbuf b = targs_key(a, key);
    sim_strbuf_put(&b, num, strlen(num));
    targs_end(a, &b);
}

/* ns / 1e9 as a decimal, digits from the integer: the seconds, then the nine decimals with trailing
 * zeros left out. It is the text sim_timeline_fmt_num gives (double)ns / 1e9 when 1e5 <= ns < 1e15:
 * the division is correctly rounded (ns < 2^53 is exact), so the double x is within 2^-53 |x| of
 * the decimal D = ns / 1e9, which has at most 15 significant digits; %.15g rounds x to 15 of them,
 * and the error is below half a unit of the 15th (5e-16 |D| at least, > 2^-53 |D|), so it prints D
 * (trailing zeros dropped), and D reads back as x (x is D's nearest double), so no longer form is
 * tried. ns >= 1e5 (1e-4 s) keeps %g out of exponent notation, ns < 1e15 within 15 digits. */
void sim_targs_ns_as_s(sim_targs *a, const char *key, int64_t ns)
{
    if (ns < 100000 || ns >= 1000000000000000) {
        sim_targs_num(a, key, (double)ns / 1e9);
        return;
    }
    char num[32];
    size_t n = int_text(num, ns / 1000000000);
    int64_t f = ns % 1000000000;
    if (f) {
        num[n++] = '.';
        for (int64_t d = 100000000; f; d /= 10) {
            num[n++] = (char)('0' + f / d);
            f %= d;
        }
    }
    sim_strbuf b = targs_key(a, key);
    sim_strbuf_put(&b, num, n);
    targs_end(a, &b);
}

void sim_targs_int(sim_targs *a, const char *key, int64_t v)
{
    sim_strbuf b = targs_key(a, key);
    sim_strbuf_int(&b, v);
    targs_end(a, &b);
}

void sim_targs_str(sim_targs *a, const char *key, const char *v)
{
    sim_strbuf b = targs_key(a, key);
    sim_strbuf_json_str(&b, v);
    targs_end(a, &b);
}

sim_status sim_timeline_open(sim_timeline *t, const char *path, sim_err *err)
{
    return sim_timeline_open_meta(t, path, NULL, err);
}

sim_status sim_timeline_open_meta(sim_timeline *t, const char *path, const sim_targs *meta,
                                  sim_err *err)
{
    memset(t, 0, sizeof *t);
    sim_status st = sim_outfile_open(&t->out, path, "--chrome-trace", err);
    if (st)
        return st;
    int n = fprintf(t->out.f,
                    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"infersim\"%s%s},"
                    "\"traceEvents\":[\n",
                    meta && meta->len ? "," : "", meta && meta->len ? meta->buf : "");
    t->bytes = n > 0 ? n : 0;
    t->first = true;
    return SIM_OK;
}

static const char footer[] = "\n]}\n";

void sim_timeline_limit(sim_timeline *t, double max_bytes)
{
    t->max_bytes = max_bytes > 0 ? max_bytes : 0;
}

bool sim_timeline_over(const sim_timeline *t) { return t->over; }

sim_status sim_timeline_close(sim_timeline *t, sim_err *err)
{
    const bool oom = t->ev.oom;
    sim_strbuf_free(&t->ev);
    free(t->memo);
    t->memo = NULL;
    if (t->over) /* the file was removed when it passed the limit */
        return sim_fail(err, SIM_EINPUT, "--chrome-trace: the timeline passed %.0f MB",
                        t->max_bytes / 1e6);
    if (!t->out.f)
        return SIM_OK;
    if (oom) {
        sim_outfile_abort(&t->out);
        return sim_fail(err, SIM_EINTERNAL, "out of memory writing the trace");
    }
    fputs(footer, t->out.f);
    return sim_outfile_commit(&t->out, err);
}

void sim_timeline_abort(sim_timeline *t)
{
    sim_strbuf_free(&t->ev);
    free(t->memo);
    t->memo = NULL;
    sim_outfile_abort(&t->out);
}

/* Starts an event object: separator, ph, pid, name. */
static sim_strbuf *begin(sim_timeline *t, char ph, int pid, const char *name)
{
    sim_strbuf *b = &t->ev;
    b->len = 0;
    if (!t->first)
        sim_strbuf_put(b, ",\n", 2);
    const char head[] = {'{', '"', 'p', 'h', '"', ':', '"', ph, '"', ','};
    sim_strbuf_put(b, head, sizeof head);
    sim_strbuf_put(b, "\"pid\":", 6);
    sim_strbuf_int(b, pid);
    sim_strbuf_put(b, ",\"name\":", 8);
    sim_strbuf_json_str(b, name);
    t->first = false;
    t->events++;
    return b;
}

/* Ends the event with its args and writes it (nothing, the trace failed, when out of memory). */
static void end(sim_timeline *t, const sim_targs *args)
{
    sim_strbuf *b = &t->ev;
    if (args && args->len) {
        sim_strbuf_put(b, ",\"args\":{", 9);
        sim_strbuf_put(b, args->buf, args->len);
        sim_strbuf_put(b, "}", 1);
    }
    sim_strbuf_put(b, "}", 1);
    if (b->oom)
        return;
    t->bytes += (int64_t)b->len;
    if (t->max_bytes > 0 && (double)t->bytes + (double)(sizeof footer - 1) > t->max_bytes) {
        t->over = true;
        t->bytes += (int64_t)(sizeof footer - 1); /* the file closed here: past max_bytes */
        sim_outfile_abort(&t->out);
        return;
    }
    fwrite(b->s, 1, b->len, t->out.f);
}

static void name_meta(sim_timeline *t, int pid, int tid, const char *what, const char *name,
                      int sort)
{
    if (t->over)
        return;
    char key[32];
    sim_targs a;
    sim_targs_reset(&a);
    sim_targs_str(&a, "name", name);
    snprintf(key, sizeof key, "%s_name", what);
    sim_strbuf *b = begin(t, 'M', pid, key);
    if (tid >= 0)
        put_tid(b, tid);
    end(t, &a);
    sim_targs_reset(&a);
    sim_targs_int(&a, "sort_index", sort);
    snprintf(key, sizeof key, "%s_sort_index", what);
    b = begin(t, 'M', pid, key);
    if (tid >= 0)
        put_tid(b, tid);
    end(t, &a);
}

void sim_timeline_name_process(sim_timeline *t, int pid, const char *name, int sort)
{
    name_meta(t, pid, -1, "process", name, sort);
}

void sim_timeline_name_thread(sim_timeline *t, int pid, int tid, const char *name, int sort)
{
    name_meta(t, pid, tid, "thread", name, sort);
}

void sim_timeline_slice(sim_timeline *t, int pid, int tid, const char *name, const char *cat,
                        int64_t ts_ns, int64_t dur_ns, const sim_targs *args)
{
    if (t->over)
        return;
    sim_strbuf *b = begin(t, 'X', pid, name);
    put_tid(b, tid);
    sim_strbuf_put(b, ",\"cat\":", 7);
    sim_strbuf_json_str(b, cat);
    sim_strbuf_put(b, ",\"ts\":", 6);
    put_us(b, ts_ns);
    sim_strbuf_put(b, ",\"dur\":", 7);
    put_us(b, dur_ns);
    end(t, args);
}

void sim_timeline_counter(sim_timeline *t, int pid, const char *name, int64_t ts_ns,
                          const sim_targs *args)
{
    if (t->over)
        return;
    sim_strbuf *b = begin(t, 'C', pid, name);
    sim_strbuf_put(b, ",\"ts\":", 6);
    put_us(b, ts_ns);
    end(t, args);
}

/* An async or flow event's cat, id and ts. */
static void put_cat_id_ts(sim_strbuf *b, const char *cat, int64_t id, int64_t ts_ns)
{
    sim_strbuf_put(b, ",\"cat\":", 7);
    sim_strbuf_json_str(b, cat);
    sim_strbuf_put(b, ",\"id\":", 6);
    sim_strbuf_int(b, id);
    sim_strbuf_put(b, ",\"ts\":", 6);
    put_us(b, ts_ns);
}

void sim_timeline_flow(sim_timeline *t, char ph, int pid, int tid, const char *cat,
                       const char *name, int64_t id, int64_t ts_ns)
{
    if (t->over)
        return;
    sim_strbuf *b = begin(t, ph, pid, name);
    put_tid(b, tid);
    put_cat_id_ts(b, cat, id, ts_ns);
    sim_strbuf_put(b, ",\"bp\":\"e\"", 9);
    end(t, NULL);
}

void sim_timeline_async(sim_timeline *t, char ph, int pid, const char *cat, const char *name,
                        int64_t id, int64_t ts_ns, const sim_targs *args)
{
    if (t->over)
        return;
    sim_strbuf *b = begin(t, ph, pid, name);
    put_cat_id_ts(b, cat, id, ts_ns);
    if (ph == 'n')
        sim_strbuf_put(b, ",\"s\":\"t\"", 8);
    end(t, args);
}

void sim_timeline_ctr_init(sim_timeline_ctr *c, int pid, const char *name, int64_t every_ns, int n,
                           const char *const *keys)
{
    memset(c, 0, sizeof *c);
    c->pid = pid;
    c->name = name;
    c->every_ns = every_ns;
    c->n = n < 0 ? 0 : n > SIM_TIMELINE_CTR_MAX ? SIM_TIMELINE_CTR_MAX : n;
    for (int k = 0; k < c->n; k++)
        c->keys[k] = keys[k];
}

struct sim_timeline_num_memo {
    uint64_t bits;
    char text[26];
    unsigned char len; /* 0: empty */
};

/* sim_targs_num's text for v, through the trace's memo of numbers printed before. */
static void targs_num_memo(sim_timeline *t, sim_targs *a, const char *key, double v)
{
    if (!t->memo && !(t->memo = calloc(SIM_TIMELINE_NUM_MEMO, sizeof *t->memo))) {
        t->ev.oom = true; /* the trace fails, as with any allocation that fails */
        sim_targs_num(a, key, v);
        return;
    }
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    struct sim_timeline_num_memo *m =
        &t->memo[(bits ^ bits >> 23 ^ bits >> 41) % SIM_TIMELINE_NUM_MEMO];
    if (!m->len || m->bits != bits) {
        char num[32];
        sim_timeline_fmt_num(num, sizeof num, v);
        const size_t n = strlen(num);
        if (n >= sizeof m->text) { /* longer than any shortest double (24 bytes) */
            sim_targs_num(a, key, v);
            return;
        }
        memcpy(m->text, num, n + 1);
        m->len = (unsigned char)n;
        m->bits = bits;
    }
    sim_strbuf b = targs_key(a, key);
    sim_strbuf_put(&b, m->text, m->len);
    targs_end(a, &b);
}

/* Writes v at ts as the value shown. */
static void ctr_write(sim_timeline *t, sim_timeline_ctr *c, int64_t ts_ns, const double *v)
{
    sim_targs a;
    sim_targs_reset(&a);
    for (int k = 0; k < c->n; k++) {
        targs_num_memo(t, &a, c->keys[k], v[k]);
        c->shown[k] = v[k];
    }
    sim_timeline_counter(t, c->pid, c->name, ts_ns, &a);
    c->shown_ns = ts_ns;
    c->any_shown = true;
}

static bool ctr_same(const sim_timeline_ctr *c, const double *a, const double *b)
{
    for (int k = 0; k < c->n; k++)
        if (a[k] != b[k])
            return false;
    return true;
}

void sim_timeline_ctr_set(sim_timeline *t, sim_timeline_ctr *c, int64_t ts_ns, const double *v)
{
    if (c->every_ns < 0 || !c->any_shown) {
        ctr_write(t, c, ts_ns, v);
        return;
    }
    /* a held change whose interval has ended: its value is the counter's at the interval's end
     * (the next set is at or after it) */
    if (c->any_held && ts_ns >= c->shown_ns + c->every_ns) {
        ctr_write(t, c, c->shown_ns + c->every_ns, c->held);
        c->any_held = false;
    }
    if (ctr_same(c, v, c->shown)) {
        c->any_held = false; /* back to the value shown */
        return;
    }
    if (ts_ns >= c->shown_ns + c->every_ns) {
        ctr_write(t, c, ts_ns, v);
        return;
    }
    memcpy(c->held, v, (size_t)c->n * sizeof *v);
    c->held_ns = ts_ns;
    c->any_held = true;
}

void sim_timeline_ctr_flush(sim_timeline *t, sim_timeline_ctr *c)
{
    if (c->any_held)
        ctr_write(t, c, c->held_ns, c->held);
    c->any_held = false;
}

void sim_timeline_merge_init(sim_timeline_merge *m, const char *count_key)
{
    memset(m, 0, sizeof *m);
    m->count_key = count_key;
}

void sim_timeline_merge_flush(sim_timeline *t, sim_timeline_merge *m)
{
    if (!m->held)
        return;
    m->held = false;
    if (m->n > 1) {
        sim_targs a = m->args;
        sim_targs_int(&a, m->count_key, m->n);
        sim_timeline_slice(t, m->pid, m->tid, m->name, m->cat, m->ts_ns, m->end_ns - m->ts_ns, &a);
    } else {
        sim_timeline_slice(t, m->pid, m->tid, m->name, m->cat, m->ts_ns, m->end_ns - m->ts_ns,
                           &m->args);
    }
}

bool sim_timeline_merge_extend(sim_timeline_merge *m, int pid, int tid, const char *name,
                               const char *cat, int64_t ts_ns, int64_t dur_ns)
{
    if (!m->count_key || !m->held || ts_ns != m->end_ns || pid != m->pid || tid != m->tid ||
        strcmp(name, m->name) != 0 || strcmp(cat, m->cat) != 0)
        return false;
    m->end_ns += dur_ns;
    m->n++;
    return true;
}

void sim_timeline_merge_slice(sim_timeline *t, sim_timeline_merge *m, int pid, int tid,
                              const char *name, const char *cat, int64_t ts_ns, int64_t dur_ns,
                              const sim_targs *args)
{
    if (!m->count_key) {
        sim_timeline_slice(t, pid, tid, name, cat, ts_ns, dur_ns, args);
        return;
    }
    const size_t len = args ? args->len : 0;
    if (len == m->args.len && memcmp(len ? args->buf : "", m->args.buf, len) == 0 &&
        sim_timeline_merge_extend(m, pid, tid, name, cat, ts_ns, dur_ns))
        return;
    sim_timeline_merge_flush(t, m);
    m->held = true;
    m->pid = pid;
    m->tid = tid;
    m->name = name;
    m->cat = cat;
    m->ts_ns = ts_ns;
    m->end_ns = ts_ns + dur_ns;
    m->n = 1;
    m->args.len = len;
    memcpy(m->args.buf, len ? args->buf : "", len + 1);
}
