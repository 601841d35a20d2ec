/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the fuzz targets: the loaders take paths, so each input goes into one memfd that the
 * target reaches as /proc/self/fd/N. The loaders' "FILE: FIELD: reason" lines go to /dev/null, set
 * once, so refused inputs cost nothing: the stdio stream `stderr` is pointed at /dev/null, not
 * fd 2, so libFuzzer's and the sanitizers' reports (written to fd 2) still show.
 * RTT_FUZZ_STDERR=1 keeps the loaders' messages (to see why an input is refused).
 */
#ifndef RTT_FUZZ_INPUT_H
#define RTT_FUZZ_INPUT_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int fuzz_fd = -1;
static char fuzz_path[64];

static void fuzz_init(void)
{
	if (fuzz_fd >= 0)
		return;
	fuzz_fd = memfd_create("rtt-fuzz", MFD_CLOEXEC);
	if (fuzz_fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
	if (!getenv("RTT_FUZZ_STDERR")) {
		FILE *null = fopen("/dev/null", "we");

		if (null)
			stderr = null;	/* glibc: stderr is an assignable FILE * */
	}
}

/* The path that reads exactly data[0..size). */
static const char *fuzz_write(const uint8_t *data, size_t size)
{
	size_t done = 0;

	fuzz_init();
	if (ftruncate(fuzz_fd, 0) || lseek(fuzz_fd, 0, SEEK_SET))
		abort();
	while (done < size) {
		ssize_t n = pwrite(fuzz_fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return fuzz_path;
}

#endif
