/* SPDX-License-Identifier: GPL-2.0-only */
/* A minimal unit-test registry: each TEST registers itself; the runner prints KTAP lines. */
#ifndef RTT_UNIT_H
#define RTT_UNIT_H

#include <stdio.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

void unit_register(const char *name, void (*fn)(void));
void unit_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define TEST(name)                                                        \
	static void test_##name(void);                                    \
	__attribute__((constructor)) static void register_##name(void)    \
	{                                                                 \
		unit_register(#name, test_##name);                        \
	}                                                                 \
	static void test_##name(void)

/* Records a failure with a message and continues the test. */
#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond))                                              \
			unit_fail(__FILE__, __LINE__, __VA_ARGS__);        \
	} while (0)

#endif
