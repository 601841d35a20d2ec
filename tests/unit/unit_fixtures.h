/* Helpers several unit tests share: temp folders and hand-made knob states. */
#ifndef RTT_UNIT_FIXTURES_H
#define RTT_UNIT_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knobs.h"

/* A fresh folder /tmp/rtt-unit-XXXXXX in buf; NULL (after a failed check) when it cannot be made. */
char *make_temp_dir(char *buf, size_t len);
/* Removes a flat temp folder and what is in it. */
void remove_temp_dir(const char *dir);
/* tests/fixtures/NAME, found from the binary's folder (or $RTT_FIXTURES). */
const char *fixture_path(const char *name);
struct knobs make_knobs(int64_t srt, int64_t sper, int64_t crt, int64_t cper, bool has_cgroup);

#endif
