/* outfile.h - output files that appear whole or not at all, and never replace what they should not.
 *
 * Every file infersim writes (--out, --save-requests, --chrome-trace) goes through here:
 *   - a regular file (or a path that does not exist yet) is written to a temporary file of its
 *     own next to it, "<path>.XXXXXX.tmp" (six random letters or digits, created exclusively, so
 *     no existing file is ever opened: a user's "<path>.tmp" stays, and two writers of one path
 *     never share a temporary), renamed to <path> only once every write succeeded, so a reader
 *     never sees half a file and a failed run leaves nothing behind; a file it replaces keeps its
 *     permission bits;
 *   - a symlink is followed (relative links, chains, a dangling link) and its target is the file
 *     replaced as above, next to the target: the link stays;
 *   - a character device or a FIFO (/dev/null, a named pipe) is written through, never replaced;
 *     a write error there (ENOSPC on /dev/full) fails the commit;
 *   - a link in /proc (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is opened and written through,
 *     whatever it holds open: a terminal, a pipe, or a file (appended to, as a shell's `> file`);
 *   - anything else (a directory, a socket, a block device) is refused before anything is written.
 * Errors carry the system's reason ("No space left on device").
 *
 * Example (const char *path, sim_err *err):
 *   sim_outfile o;
 *   sim_status st = sim_outfile_open(&o, path, "--out", err);
 *   if (st)
 *       return st;                      // "--out: cannot write x: No such file or directory"
 *   fprintf(o.f, "%d\n", 42);
 *   return sim_outfile_commit(&o, err); // flushes, checks the stream, closes, renames to <path>
 *
 * On an error path before commit, sim_outfile_abort(&o) removes the temporary file.
 * `what` names the flag in messages; it must outlive the sim_outfile (a string literal).
 */
#ifndef SIM_OUTFILE_H
#define SIM_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "status.h"

struct sink;

typedef struct sim_outfile {
    FILE *f;           /* the stream to write; NULL once committed or aborted */
    struct sink *sink; /* under f: keeps the reason a write failed */
    const char *what;
    bool direct;     /* a device or FIFO written through (no temporary file) */
    bool borrowed;   /* sim_outfile_fd's descriptor: written through, never closed */
    char path[1024]; /* the file written: the path given, or a symlink's target */
    char tmp[1100];  /* "<path>.XXXXXX.tmp"; empty when direct */
} sim_outfile;

/* Opens the output. SIM_EINPUT when the path is too long, a symlink cannot be resolved, the path
 * is a directory or other non-regular file, or the file cannot be created. */
sim_status sim_outfile_open(sim_outfile *o, const char *path, const char *what, sim_err *err);

/* A stream over the already open descriptor `fd` (a program's standard output), written through:
 * it keeps the reason of its first failed write for sim_outfile_commit, which flushes it and
 * checks it ("standard output: writing failed: No space left on device") and leaves fd open.
 * A descriptor that is not open (a closed stdout) is held by /dev/null from here on, so no
 * file opened later takes its number, and every write to the stream fails with EBADF: a result
 * written there is an error, one never written (nothing to print) is not. SIM_EINTERNAL only
 * when out of memory. */
sim_status sim_outfile_fd(sim_outfile *o, int fd, const char *what, sim_err *err);

/* Flushes and closes the stream and renames the temporary file to the path. Any write error on
 * the stream, a failed close or a failed rename: SIM_EINPUT with the system's reason, the
 * temporary file removed, <path> untouched. */
sim_status sim_outfile_commit(sim_outfile *o, sim_err *err);

/* Closes and removes the temporary file; a no-op when already committed or aborted. */
void sim_outfile_abort(sim_outfile *o);

/* A command's outputs committed all or none, and `-` as standard output for any of them.
 * Before the command runs, each output path is staged: a regular file or a path that does not
 * exist yet gets an empty placeholder next to the file it lands in (after symlinks), created
 * exclusively under a name of its own ("<path>.XXXXXX.tmp"), and the command writes the
 * placeholder (through sim_outfile_open, as any output); `-` gets a placeholder in $TMPDIR (or
 * /tmp); a device, a FIFO or a /proc link (/dev/stdout) is not staged (written through as it is
 * written: it cannot be taken back). Once the command succeeded every placeholder is published:
 * renamed over its file (which keeps its permission bits), or for `-` copied to the stream given
 * and removed; when it failed, every placeholder is removed and no file is touched.
 *
 * Example (const char *html, FILE *out, sim_err *err):
 *   sim_outfile_stage s;
 *   sim_status st = sim_outfile_stage_open(&s, html, "--html", err);
 *   if (st)
 *       return st;
 *   // ... the command writes its HTML to s.staged (sim_outfile_open) ...
 *   sim_outfile_stage *all[] = {&s};
 *   return sim_outfile_stage_publish(all, 1, out, err); // or sim_outfile_stage_abort(&s)
 */
typedef struct sim_outfile_stage {
    const char *what;
    bool active;      /* a placeholder exists */
    bool to_stream;   /* the path was `-`: published by copying to a stream */
    char path[1024];  /* the file it lands in (a symlink's target) */
    char staged[1100]; /* the path the command writes: the placeholder, or the path itself */
    unsigned long long ino; /* the placeholder's inode: unchanged at publish, nothing was written */
    char backup[1100]; /* while publishing: the replaced file's second name ("" when new) */
    bool published;    /* while publishing: renamed over its file, may still be taken back */
} sim_outfile_stage;

/* Stages `path` (NULL: nothing to stage, s->staged empty). SIM_EINPUT with the system's reason
 * when no placeholder can be made (its directory does not exist or cannot be written). */
sim_status sim_outfile_stage_open(sim_outfile_stage *s, const char *path, const char *what,
                                  sim_err *err);

/* Publishes the n stages together, all or none: the placeholders are renamed over their files
 * (each file replaced is first kept under a second name, a hard link "<path>.XXXXXX.tmp"), then
 * the `-` ones copied to `std` and removed; a placeholder the command never wrote (still the
 * empty file staging made) is removed and its file left as it was. When a rename or the copy
 * fails, every file already renamed is taken back (the old one renamed over it, or a new one
 * removed) and SIM_EINPUT carries the system's reason; on success the second names are removed.
 * What POSIX leaves open (there is no rename of several files at once): between the first
 * rename and a rollback a reader can see the new file, and a process killed in that window
 * leaves the files published so far, and the old ones under their second names; on a file
 * system without hard links a replaced file is renamed away instead, so its path is briefly
 * absent. Bytes copied to `std` before a failed copy cannot be taken back (files are renamed
 * first so that only standard output's own failure reaches it). */
sim_status sim_outfile_stage_publish(sim_outfile_stage *const *s, size_t n, FILE *std,
                                     sim_err *err);

/* Removes the placeholder; a no-op when nothing was staged or it was published. */
void sim_outfile_stage_abort(sim_outfile_stage *s);

/* SIM_EINPUT naming both flags when two of the n outputs (flag[i] writes path[i]; NULL: not
 * given) name one file (sim_outfile_same). */
sim_status sim_outfile_distinct(const char *const *flag, const char *const *path, size_t n,
                                sim_err *err);

/* Whether two output paths name one file (after symlinks, "." and "..", whether or not the file
 * exists yet): two outputs of one command must not. */
bool sim_outfile_same(const char *a, const char *b);

#endif
