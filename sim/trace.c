/* trace.c - the streaming Chrome Trace Event JSON writer: each event is built in the trace's
 * buffer (strbuf.h, JSON strings escaped there) and written with one fwrite. */
#include "trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Integer nanoseconds as microseconds with three decimals: exact, so slices nest exactly. */
static void put_us(sim_strbuf *b, int64_t ns)
{
    if (ns < 0)
        ns = 0;
    char frac[4] = {'.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10),
                    (char)('0' + ns % 10)};
    sim_strbuf_int(b, ns / 1000);
    sim_strbuf_put(b, frac, sizeof frac);
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

/* The shortest of %.15g, %.16g, %.17g that reads back as exactly v: full precision, and
 * 2799525.877 stays 2799525.877 rather than 2799525.8770000003. */
void sim_trace_fmt_num(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        v = 0.0;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void sim_targs_num(sim_targs *a, const char *key, double v)
{
    char num[32];
    sim_trace_fmt_num(num, sizeof num, v);
    sim_strbuf b = targs_key(a, key);
    sim_strbuf_put(&b, num, strlen(num));
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

sim_status sim_trace_open(sim_trace *t, const char *path, sim_err *err)
{
    return sim_trace_open_meta(t, path, NULL, err);
}

sim_status sim_trace_open_meta(sim_trace *t, const char *path, const sim_targs *meta, sim_err *err)
{
    memset(t, 0, sizeof *t);
    sim_status st = sim_outfile_open(&t->out, path, "--chrome-trace", err);
    if (st)
        return st;
    fprintf(t->out.f,
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"infersim\"%s%s},"
            "\"traceEvents\":[\n",
            meta && meta->len ? "," : "", meta && meta->len ? meta->buf : "");
    t->first = true;
    return SIM_OK;
}

sim_status sim_trace_close(sim_trace *t, sim_err *err)
{
    const bool oom = t->ev.oom;
    sim_strbuf_free(&t->ev);
    if (!t->out.f)
        return SIM_OK;
    if (oom) {
        sim_outfile_abort(&t->out);
        return sim_fail(err, SIM_EINTERNAL, "out of memory writing the trace");
    }
    fputs("\n]}\n", t->out.f);
    return sim_outfile_commit(&t->out, err);
}

void sim_trace_abort(sim_trace *t)
{
    sim_strbuf_free(&t->ev);
    sim_outfile_abort(&t->out);
}

/* Starts an event object: separator, ph, pid, name. */
static sim_strbuf *begin(sim_trace *t, char ph, int pid, const char *name)
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
static void end(sim_trace *t, const sim_targs *args)
{
    sim_strbuf *b = &t->ev;
    if (args && args->len) {
        sim_strbuf_put(b, ",\"args\":{", 9);
        sim_strbuf_put(b, args->buf, args->len);
        sim_strbuf_put(b, "}", 1);
    }
    sim_strbuf_put(b, "}", 1);
    if (!b->oom)
        fwrite(b->s, 1, b->len, t->out.f);
}

static void name_meta(sim_trace *t, int pid, int tid, const char *what, const char *name, int sort)
{
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

void sim_trace_name_process(sim_trace *t, int pid, const char *name, int sort)
{
    name_meta(t, pid, -1, "process", name, sort);
}

void sim_trace_name_thread(sim_trace *t, int pid, int tid, const char *name, int sort)
{
    name_meta(t, pid, tid, "thread", name, sort);
}

void sim_trace_slice(sim_trace *t, int pid, int tid, const char *name, const char *cat,
                     int64_t ts_ns, int64_t dur_ns, const sim_targs *args)
{
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

void sim_trace_counter(sim_trace *t, int pid, const char *name, int64_t ts_ns,
                       const sim_targs *args)
{
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

void sim_trace_flow(sim_trace *t, char ph, int pid, int tid, const char *cat, const char *name,
                    int64_t id, int64_t ts_ns)
{
    sim_strbuf *b = begin(t, ph, pid, name);
    put_tid(b, tid);
    put_cat_id_ts(b, cat, id, ts_ns);
    sim_strbuf_put(b, ",\"bp\":\"e\"", 9);
    end(t, NULL);
}

void sim_trace_async(sim_trace *t, char ph, int pid, const char *cat, const char *name, int64_t id,
                     int64_t ts_ns, const sim_targs *args)
{
    sim_strbuf *b = begin(t, ph, pid, name);
    put_cat_id_ts(b, cat, id, ts_ns);
    if (ph == 'n')
        sim_strbuf_put(b, ",\"s\":\"t\"", 8);
    end(t, args);
}
