// SPDX-License-Identifier: GPL-2.0-only
/* The harness's small helpers: strict number parsing, clocks, small files, atomic writes, trusted folders. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool parse_i64(const char *text, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long value;

	/* strtoll would skip blanks and take a '+': neither belongs in a strict number. */
	if (!text || !(isdigit((unsigned char)*text) || (*text == '-' && isdigit((unsigned char)text[1]))))
		return false;
	errno = 0;
	value = strtoll(text, &end, 10);
	if (errno || *end || value < min || value > max)
		return false;
	*out = value;
	return true;
}

bool parse_double(const char *text, double min, double max, double *out)
{
	char *end;
	double value;

	/* Plain decimal only: no blanks, '+', hex or inf/nan spellings. */
	if (!text || !(isdigit((unsigned char)*text) || *text == '.' || (*text == '-' && text[1])) ||
	    strpbrk(text, "xXpP"))
		return false;
	errno = 0;
	value = strtod(text, &end);
	if (errno || *end || !isfinite(value) || value < min || value > max)
		return false;
	*out = value;
	return true;
}

bool parse_duration_us(const char *text, int64_t *out)
{
	static const struct {
		const char *suffix;
		double us;
	} units[] = { { "us", 1 }, { "ms", 1e3 }, { "s", 1e6 } };
	char number[32];
	size_t digits = strspn(text, "0123456789.");
	double value, us;

	if (digits == 0 || digits >= sizeof(number))
		return false;
	snprintf(number, sizeof(number), "%.*s", (int)digits, text);
	if (!parse_double(number, 0, 1e12, &value))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(text + digits, units[i].suffix))
			continue;
		us = value * units[i].us;
		if (us > INT32_MAX || fabs(us - round(us)) > 1e-6 * us)
			return false;
		*out = (int64_t)llround(us);
		return true;
	}
	return false;
}

void format_duration_us(int64_t us, char *buf, size_t len)
{
	if (us != 0 && us % 1000000 == 0)
		snprintf(buf, len, "%" PRId64 "s", us / 1000000);
	else if (us != 0 && us % 1000 == 0)
		snprintf(buf, len, "%" PRId64 "ms", us / 1000);
	else
		snprintf(buf, len, "%" PRId64 "us", us);
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
uint64_t realtime_ns(void) { return clock_ns(CLOCK_REALTIME); }

void sleep_until_ns(uint64_t monotonic_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(monotonic_ns / 1000000000ull),
		.tv_nsec = (long)(monotonic_ns % 1000000000ull),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void format_utc(uint64_t realtime, char *buf, size_t len, bool compact)
{
	time_t seconds = (time_t)(realtime / 1000000000ull);
	struct tm tm;

	gmtime_r(&seconds, &tm);
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

bool read_text_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return false;
	got = read(fd, buf, len - 1);
	close(fd);
	if (got < 0)
		return false;
	buf[got] = '\0';
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = '\0';
	return true;
}

bool read_i64_file(const char *path, int64_t *out)
{
	char buf[64];

	return read_text_file(path, buf, sizeof(buf)) &&
	       parse_i64(buf, INT64_MIN, INT64_MAX, out);
}

int write_text_file(const char *path, const char *text)
{
	/* O_TRUNC as a shell's '>': kernel files ignore it, a test's plain file loses its longer old value. */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t put;
	int err = 0;

	if (fd < 0)
		return errno;
	put = write(fd, text, len);
	if (put < 0)
		err = errno;
	else if ((size_t)put != len)
		err = EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	int fd, err = 0;
	size_t done = 0;
	mode_t mask;

	/*
	 * A name nobody can guess, created new (mkostemp: O_CREAT|O_EXCL, so never through a
	 * symlink planted beside the target, e.g. for --output in /tmp); rename then replaces
	 * whatever is at path itself, a symlink included, without following it.
	 */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d.XXXXXX", path, (int)getpid()) >= (int)sizeof(tmp))
		return ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return errno;
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask)) {	/* mkostemp makes it 0600: as open(0644) would under the umask */
		err = errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	while (done < len) {
		ssize_t put = write(fd, data + done, len - done);

		if (put < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		if (put == 0) {		/* no progress: never loop forever on a full device */
			err = ENOSPC;
			break;
		}
		done += (size_t)put;
	}
	/* The run's signal handlers have no SA_RESTART: a signal must not cost the file. */
	while (!err && fsync(fd)) {
		if (errno != EINTR)
			err = errno;
	}
	if (close(fd) && !err && errno != EINTR)	/* Linux closes the fd even on EINTR */
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err)
		unlink(tmp);
	return err;
}

int make_dirs(const char *path, unsigned mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf))
		return ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return errno;
	return 0;
}

bool program_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	for (const char *p = path && *path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(dir, sizeof(dir), "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
		if (access(dir, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* prefix, the message and a newline on stderr. */
static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void rtt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("rtthrottle: ", fmt, ap);
	va_end(ap);
}

void rtt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("rtthrottle: warning: ", fmt, ap);
	va_end(ap);
}

static void vcmd_message(const char *command, const char *fmt, va_list ap)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "rtthrottle %s: ", command);
	vmessage(prefix, fmt, ap);
}

void rtt_cmd_err(const char *command, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcmd_message(command, fmt, ap);
	va_end(ap);
}

int usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcmd_message(command, fmt, ap);
	va_end(ap);
	fprintf(stderr, "(see 'rtthrottle %s --help')\n", command);
	return EXIT_USAGE;
}

bool folder_trusted(const char *path, bool sticky_ok)
{
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()))
		return false;
	if (sticky_ok && (st.st_mode & S_ISVTX))
		return true;
	/* Group-writable is fine for root's group or ours (a umask of 002 makes folders so). */
	return !(st.st_mode & S_IWOTH) && (!(st.st_mode & S_IWGRP) || st.st_gid == 0 || st.st_gid == getegid());
}

const char *state_dir(void)
{
	const char *dir = getenv("RTTHROTTLE_STATE_DIR");

	return dir && *dir ? dir : "/run/rtthrottle";
}
