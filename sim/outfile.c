/* outfile.c - see outfile.h. */
#define _GNU_SOURCE /* fopencookie (glibc), realpath */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Whether the symlink at `link` lives in /proc (after resolving its directory): /dev/stdout,
 * /dev/fd/N and /proc/self/fd/N are such links, naming an open file rather than a path (a pipe's
 * is "pipe:[1234]"), so they are opened, never followed by hand. */
static bool proc_link(const char *link)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(link, '/');
    if (!slash)
        return false;
    snprintf(dir, sizeof dir, "%.*s", slash == link ? 1 : (int)(slash - link), link);
    return realpath(dir, real) && strncmp(real, "/proc/", 6) == 0;
}

/* Follows `path` through symlinks (at most 40, as the kernel does) into buf: the file an output
 * lands in. 0, or an errno (ELOOP, ENAMETOOLONG, or lstat's / readlink's). *sb holds lstat of
 * the result and *found whether it exists; at a link in /proc (*opened true) the walk stops and
 * *sb is stat of what the link opens. */
static int resolve_links(const char *path, char *buf, size_t len, struct stat *sb, bool *found,
                         bool *opened)
{
    *opened = false;
    if (strlen(path) >= len)
        return ENAMETOOLONG;
    memcpy(buf, path, strlen(path) + 1);
    for (int hops = 0; hops <= 40; hops++) {
        if (lstat(buf, sb) != 0) {
            *found = false;
            return errno == ENOENT ? 0 : errno;
        }
        *found = true;
        if (!S_ISLNK(sb->st_mode))
            return 0;
        if (proc_link(buf)) {
            *opened = true;
            return stat(buf, sb) == 0 ? 0 : errno;
        }
        char target[PATH_MAX];
        ssize_t n = readlink(buf, target, sizeof target - 1);
        if (n < 0)
            return errno;
        target[n] = '\0';
        char next[PATH_MAX];
        const char *slash = strrchr(buf, '/');
        int w = target[0] == '/' || !slash
                    ? snprintf(next, sizeof next, "%s", target)
                    : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - buf), buf, target);
        if (w < 0 || (size_t)w >= len || (size_t)w >= sizeof next)
            return ENAMETOOLONG;
        memcpy(buf, next, (size_t)w + 1);
    }
    return ELOOP;
}

/* The stream writes through a cookie that keeps the errno of the first failed write: stdio
 * reports that a write failed (ferror) but not why, and a large fprintf that bypasses the buffer
 * leaves nothing for the commit's fflush to retry. */
typedef struct sink {
    int fd;  /* -1: every write fails with EBADF (sim_outfile_fd of a closed descriptor) */
    int err; /* errno of the first failed write or close; 0 when none */
    bool borrowed; /* not ours to close */
} sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    sink *k = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = k->fd < 0 ? (errno = EBADF, -1) : write(k->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!k->err)
                k->err = w < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static int sink_close(void *cookie)
{
    sink *k = cookie;
    if (k->borrowed)
        return 0;
    int rc = close(k->fd);
    if (rc != 0 && !k->err)
        k->err = errno;
    return rc;
}

/* A write stream over fd (owned from here on: closed on failure), or NULL with errno set. */
static FILE *sink_open(int fd, sink *k)
{
    *k = (sink){.fd = fd};
    FILE *f =
        fopencookie(k, "w", (cookie_io_functions_t){.write = sink_write, .close = sink_close});
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

static int open_excl(const char *name, const char *arg)
{
    (void)arg;
    return open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

/* A second name of the file `arg` (a hard link): 0, or -1 with errno set. */
static int link_to(const char *name, const char *arg) { return link(arg, name); }

/* Draws "<path>.XXXXXX.tmp" names until make(name, arg) succeeds or fails other than EEXIST;
 * make's result (>= 0), or -1 with errno set. */
static int make_unique(const char *path, char *tmp, size_t len,
                       int (*make)(const char *name, const char *arg), const char *arg)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)tmp ^
                 (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_sec;
    for (int tries = 0; tries < 1000; tries++) {
        /* splitmix64: a fresh draw per try */
        x += 0x9e3779b97f4a7c15ULL;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        char sfx[7];
        for (int i = 0; i < 6; i++, z /= 62)
            sfx[i] = digits[z % 62];
        sfx[6] = '\0';
        if (snprintf(tmp, len, "%s.%s.tmp", path, sfx) >= (int)len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int r = make(tmp, arg);
        if (r >= 0 || errno != EEXIST)
            return r;
    }
    errno = EEXIST;
    return -1;
}

/* Creates the temporary file of `path` under a name no file has: "<path>.XXXXXX.tmp", six
 * letters or digits drawn afresh until an exclusive create succeeds (mkstemp's way, with the
 * 0666 & ~umask mode of a plain create). A file of the user's named like a temporary is never
 * opened, and two writers of one output (threads or processes) each get their own. Returns the
 * descriptor, or -1 with errno set. */
static int open_unique(const char *path, char *tmp, size_t len)
{
    return make_unique(path, tmp, len, open_excl, NULL);
}

static const char *kind_name(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a file";
}

sim_status sim_outfile_open(sim_outfile *o, const char *path, const char *what, sim_err *err)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    size_t n = strlen(path);
    if (n >= sizeof o->path)
        return sim_fail(err, SIM_EINPUT, "%s: path is %zu characters, expected at most %zu", what,
                        n, sizeof o->path - 1);
    struct stat sb;
    bool found = false, opened = false;
    int e = resolve_links(path, o->path, sizeof o->path, &sb, &found, &opened);
    if (e)
        return sim_fail(err, SIM_EINPUT, "%s: cannot write %s: %s", what, path, strerror(e));
    if (found && !S_ISREG(sb.st_mode) && !S_ISCHR(sb.st_mode) && !S_ISFIFO(sb.st_mode))
        return sim_fail(err, SIM_EINPUT,
                        "%s: %s is %s, expected a regular file, a character device or a FIFO", what,
                        o->path, kind_name(sb.st_mode));
    if (!(o->sink = malloc(sizeof *o->sink)))
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", what);
    int fd;
    if (found && (opened || !S_ISREG(sb.st_mode))) {
        /* a device or FIFO, or what a /proc link opens (/dev/stdout): written through; a file
         * behind /dev/stdout (a shell's `> file`) is appended to, as the shell's own writes are */
        o->direct = true;
        fd = open(o->path, O_WRONLY | O_NOCTTY | (S_ISREG(sb.st_mode) ? O_APPEND : 0));
    } else {
        fd = open_unique(o->path, o->tmp, sizeof o->tmp);
        if (fd >= 0 && found)
            (void)fchmod(fd, sb.st_mode & 07777); /* the replaced file's permissions */
    }
    if (fd < 0 || !(o->f = sink_open(fd, o->sink))) {
        e = errno;
        free(o->sink);
        o->sink = NULL;
        if (fd >= 0 && !o->direct)
            remove(o->tmp);
        if (e == ENOMEM)
            return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", what);
        /* the path the user gave, not the temporary's made-up name */
        return sim_fail(err, SIM_EINPUT, "%s: cannot write %s: %s", what, o->path, strerror(e));
    }
    return SIM_OK;
}

sim_status sim_outfile_fd(sim_outfile *o, int fd, const char *what, sim_err *err)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    o->direct = o->borrowed = true;
    snprintf(o->path, sizeof o->path, "%s", what);
    if (!(o->sink = malloc(sizeof *o->sink)))
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", what);
    *o->sink = (sink){.fd = fd, .borrowed = true};
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
        /* closed: hold its number (an open returns the lowest free one) so that no output
         * opened later lands there and is written to as if it were this stream */
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0 && null != fd) {
            (void)dup2(null, fd); /* failing, the number stays free; the writes fail all the same */
            close(null);
        }
        o->sink->fd = -1;
    }
    o->f = fopencookie(o->sink, "w", (cookie_io_functions_t){.write = sink_write,
                                                              .close = sink_close});
    if (!o->f) {
        free(o->sink);
        o->sink = NULL;
        return sim_fail(err, SIM_EINTERNAL, "%s: out of memory", what);
    }
    return SIM_OK;
}

sim_status sim_outfile_commit(sim_outfile *o, sim_err *err)
{
    if (!o->f)
        return sim_fail(err, SIM_EINTERNAL, "%s: %s was already closed", o->what,
                        o->direct ? o->path : o->tmp);
    bool bad = fflush(o->f) != 0 || ferror(o->f) != 0;
    bad |= fclose(o->f) != 0;
    int e = o->sink->err;
    free(o->sink);
    o->sink = NULL;
    o->f = NULL;
    const char *name = o->direct ? o->path : o->tmp;
    if (bad) {
        if (!o->direct)
            remove(o->tmp);
        if (o->borrowed)
            return sim_fail(err, SIM_EINPUT, "%s: writing failed%s%s", o->what, e ? ": " : "",
                            e ? strerror(e) : "");
        return sim_fail(err, SIM_EINPUT, "%s: writing %s failed%s%s", o->what, name, e ? ": " : "",
                        e ? strerror(e) : "");
    }
    if (!o->direct && rename(o->tmp, o->path) != 0) {
        e = errno;
        remove(o->tmp);
        return sim_fail(err, SIM_EINPUT, "%s: cannot rename %s to %s: %s", o->what, o->tmp, o->path,
                        strerror(e));
    }
    return SIM_OK;
}

void sim_outfile_abort(sim_outfile *o)
{
    if (o->f) {
        fclose(o->f);
        free(o->sink);
        o->sink = NULL;
        o->f = NULL;
        if (!o->direct)
            remove(o->tmp);
    }
}

sim_status sim_outfile_stage_open(sim_outfile_stage *s, const char *path, const char *what,
                                  sim_err *err)
{
    memset(s, 0, sizeof *s);
    s->what = what;
    if (!path)
        return SIM_OK;
    if (strcmp(path, "-") == 0) {
        const char *dir = getenv("TMPDIR");
        s->to_stream = true;
        snprintf(s->path, sizeof s->path, "%s/infersim-stdout", dir && *dir ? dir : "/tmp");
    } else {
        size_t n = strlen(path);
        if (n >= sizeof s->path)
            return sim_fail(err, SIM_EINPUT, "%s: path is %zu characters, expected at most %zu",
                            what, n, sizeof s->path - 1);
        struct stat sb;
        bool found = false, opened = false;
        int e = resolve_links(path, s->path, sizeof s->path, &sb, &found, &opened);
        if (e)
            return sim_fail(err, SIM_EINPUT, "%s: cannot write %s: %s", what, path, strerror(e));
        if (found && (opened || !S_ISREG(sb.st_mode))) {
            /* a device, a FIFO, /dev/stdout (written through), or what sim_outfile_open refuses */
            snprintf(s->staged, sizeof s->staged, "%s", path);
            return SIM_OK;
        }
    }
    int fd = open_unique(s->path, s->staged, sizeof s->staged);
    if (fd < 0) {
        int e = errno;
        s->staged[0] = '\0';
        return sim_fail(err, e == ENOMEM ? SIM_EINTERNAL : SIM_EINPUT, "%s: cannot write %s: %s",
                        what, s->to_stream ? "a temporary file for standard output" : s->path,
                        strerror(e));
    }
    struct stat pb;
    s->ino = fstat(fd, &pb) == 0 ? (unsigned long long)pb.st_ino : 0;
    close(fd);
    s->active = true;
    return SIM_OK;
}

/* Copies the file at `path` to `f`; 0 or an errno. */
static int copy_to(const char *path, FILE *f)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    char buf[65536];
    int e = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            e = errno;
        if (n <= 0)
            break;
        if (fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
            e = EIO;
            break;
        }
    }
    close(fd);
    return e;
}

/* Renames the placeholder over its file. A file it replaces is first given a second name (a hard
 * link "<path>.XXXXXX.tmp", s->backup), so that it can be put back; on a file system without hard
 * links it is renamed to that name instead (the path is then briefly absent). */
static sim_status publish_file(sim_outfile_stage *s, sim_err *err)
{
    struct stat sb;
    s->backup[0] = '\0';
    /* only a regular file is kept: rename refuses a directory, and a link() of one would fail */
    if (lstat(s->path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        (void)chmod(s->staged, sb.st_mode & 07777); /* the replaced file's permissions */
        if (make_unique(s->path, s->backup, sizeof s->backup, link_to, s->path) != 0) {
            int e = errno;
            bool no_links = e == EPERM || e == EMLINK || e == ENOTSUP;
            int fd = no_links ? open_unique(s->path, s->backup, sizeof s->backup) : -1;
            if (fd >= 0)
                close(fd);
            if (fd < 0 || rename(s->path, s->backup) != 0) {
                e = fd < 0 && !no_links ? e : errno;
                if (fd >= 0)
                    remove(s->backup);
                s->backup[0] = '\0';
                return sim_fail(err, SIM_EINPUT, "%s: cannot replace %s: %s", s->what, s->path,
                                strerror(e));
            }
        }
    }
    if (rename(s->staged, s->path) != 0) {
        int e = errno;
        if (s->backup[0] && access(s->path, F_OK) != 0) /* the fallback moved it away */
            (void)rename(s->backup, s->path);
        else if (s->backup[0])
            remove(s->backup);
        s->backup[0] = '\0';
        return sim_fail(err, SIM_EINPUT, "%s: cannot rename %s to %s: %s", s->what, s->staged,
                        s->path, strerror(e));
    }
    s->published = true;
    return SIM_OK;
}

/* Takes a published file back: its old content renamed over it, or it removed when it was new. */
static bool unpublish(sim_outfile_stage *s)
{
    bool ok = s->backup[0] ? rename(s->backup, s->path) == 0 : remove(s->path) == 0;
    s->published = false;
    s->backup[0] = '\0';
    return ok;
}

sim_status sim_outfile_stage_publish(sim_outfile_stage *const *s, size_t n, FILE *std,
                                     sim_err *err)
{
    sim_status st = SIM_OK;
    for (size_t i = 0; i < n; i++) {
        s[i]->published = false;
        s[i]->backup[0] = '\0';
        struct stat pb;
        if (s[i]->active && stat(s[i]->staged, &pb) == 0 &&
            (unsigned long long)pb.st_ino == s[i]->ino) {
            remove(s[i]->staged); /* never written (an output the command did not produce) */
            s[i]->active = false;
        }
    }
    /* the files first, each old file kept under a second name until every one is in place */
    for (size_t i = 0; i < n && !st; i++)
        if (s[i]->active && !s[i]->to_stream) {
            st = publish_file(s[i], err);
            if (!s[i]->published)
                remove(s[i]->staged);
            s[i]->active = false;
        }
    /* then standard output, which cannot be taken back */
    for (size_t i = 0; i < n && !st; i++)
        if (s[i]->active && s[i]->to_stream) {
            int e = copy_to(s[i]->staged, std);
            if (e)
                st = sim_fail(err, SIM_EINPUT, "%s: writing to standard output failed: %s",
                              s[i]->what, strerror(e));
        }
    for (size_t i = 0; i < n; i++) {
        sim_outfile_stage_abort(s[i]);
        if (st && s[i]->published && !unpublish(s[i]) && err) {
            char first[SIM_ERR_LEN];
            snprintf(first, sizeof first, "%s", err->msg);
            sim_failf(err, "%s; %s: cannot restore %s: %s", first, s[i]->what, s[i]->path,
                      strerror(errno));
        }
        else if (!st && s[i]->backup[0])
            remove(s[i]->backup);
    }
    return st;
}

void sim_outfile_stage_abort(sim_outfile_stage *s)
{
    if (s->active)
        remove(s->staged);
    s->active = false;
}

/* The canonical name of an output path: realpath of the file after links, or of its directory
 * plus its name when the file does not exist yet. False when neither resolves. */
static bool canonical(const char *path, char *out)
{
    char file[PATH_MAX];
    struct stat sb;
    bool found = false, opened = false;
    if (resolve_links(path, file, sizeof file, &sb, &found, &opened))
        return false;
    if (found)
        return realpath(file, out) != NULL;
    char *slash = strrchr(file, '/');
    const char *base = slash ? slash + 1 : file;
    char dir[PATH_MAX];
    if (slash == file)
        snprintf(dir, sizeof dir, "/");
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
    else
        snprintf(dir, sizeof dir, ".");
    char rdir[PATH_MAX];
    if (!realpath(dir, rdir))
        return false;
    int w = snprintf(out, PATH_MAX, "%s/%s", strcmp(rdir, "/") == 0 ? "" : rdir, base);
    return w > 0 && w < PATH_MAX;
}

sim_status sim_outfile_distinct(const char *const *flag, const char *const *path, size_t n,
                                sim_err *err)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; path[i] && j < n; j++)
            if (path[j] && sim_outfile_same(path[i], path[j]))
                return sim_fail(err, SIM_EINPUT,
                                "%s and %s: both name %s, expected two different files", flag[i],
                                flag[j], path[i]);
    return SIM_OK;
}

bool sim_outfile_same(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    char ca[PATH_MAX], cb[PATH_MAX];
    return canonical(a, ca) && canonical(b, cb) && strcmp(ca, cb) == 0;
}
