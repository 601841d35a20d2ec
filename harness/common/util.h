/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers shared by the harness: strict number parsing, time, files. */
#ifndef RTT_UTIL_H
#define RTT_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* The version every output names (results, rt-tests JSON, --version). */
#define RTT_VERSION "0.1.0"

/* Exit statuses of every subcommand. */
enum {
	EXIT_ALL_PASSED = 0,
	EXIT_CHECK_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_ALL_SKIPPED = 4,
	EXIT_NOT_JUDGED = 125,	/* git bisect run's "skip": nothing failed, but not all was judged */
};

/* "rtthrottle: <message>" and a newline on stderr. */
void rtt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "rtthrottle: warning: <message>" and a newline on stderr. */
void rtt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "rtthrottle COMMAND: <message>" and a newline on stderr. */
void rtt_cmd_err(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "rtthrottle COMMAND: <message>" and where to read more, on stderr; returns EXIT_USAGE. */
int usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse a whole string as a base-10 integer in [min, max]; false on any junk or overflow. */
bool parse_i64(const char *text, int64_t min, int64_t max, int64_t *out);
/* Parse a whole string as a finite double in [min, max]. */
bool parse_double(const char *text, double min, double max, double *out);

/*
 * "50ms", "1.5s", "1500us": a whole number of microseconds from 0 to INT32_MAX with its unit;
 * false on anything else.
 */
bool parse_duration_us(const char *text, int64_t *out);
/* "2s", "100ms", "1500us": the largest unit that keeps the value whole (parse_duration_us reads it). */
void format_duration_us(int64_t us, char *buf, size_t len);

uint64_t now_ns(void);           /* CLOCK_MONOTONIC */
uint64_t realtime_ns(void);      /* CLOCK_REALTIME */
void sleep_until_ns(uint64_t monotonic_ns);
/* ISO 8601 UTC of a CLOCK_REALTIME value, e.g. 2026-12-03T08:40:00Z. */
void format_utc(uint64_t realtime, char *buf, size_t len, bool compact);

/* Read a small file into buf (NUL terminated, trailing newline stripped). */
bool read_text_file(const char *path, char *buf, size_t len);
bool read_i64_file(const char *path, int64_t *out);
/* Write text to an existing file (sysfs/procfs style); returns 0 or errno. */
int write_text_file(const char *path, const char *text);
/*
 * Write data atomically: a new temp file PATH.tmp.<pid>.XXXXXX (O_EXCL) in the same folder,
 * fsync, rename; the file ends 0644. Returns 0 or errno.
 */
int write_file_atomic(const char *path, const char *data, size_t len);
/* mkdir -p */
int make_dirs(const char *path, unsigned mode);
/*
 * A folder only root or the caller can change: one of them owns it, and nobody else may write
 * in it (its group may, when that is root's group or the caller's), or (sticky_ok) it is sticky
 * as /tmp is, so others cannot rename or remove our names.
 */
bool folder_trusted(const char *path, bool sticky_ok);
/* An executable `name` in a folder of $PATH (as execvp would find it). */
bool program_on_path(const char *name);
/*
 * The run's state folder, /run/rtthrottle or $RTTHROTTLE_STATE_DIR: the run lock and saved knobs
 * (run/state.c) and the tracefs mount marker (measure/trace.c) live there.
 */
const char *state_dir(void);

#endif
