# rtthrottle: realtime CPU throttling stress and regression suite.
PKGS    := json-c numa zlib
CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Iharness -Iworkloads \
           $(shell pkg-config --cflags $(PKGS))
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -lm
GIT_COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
CFLAGS  += -DRTT_GIT_COMMIT='"$(GIT_COMMIT)"'
BUILD   := build
PYTHON  := /usr/bin/python3

LIB_SRC  := $(filter-out harness/main.c,$(wildcard harness/*.c)) $(wildcard workloads/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)

.PHONY: all deps run test unit clean
all: $(BUILD)/rtthrottle

$(BUILD)/%.o: %.c $(wildcard harness/*.h workloads/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/rtthrottle: $(BUILD)/harness/main.o $(LIB_OBJ)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unit-tests: $(UNIT_OBJ) $(LIB_OBJ)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# Installs what the build, the runs and the tests need (Debian packages; root).
deps:
	ci/install-deps.sh

# The quick suite: results/<time>-<host>.json plus a summary table.
run: deps all
	$(BUILD)/rtthrottle run --suite quick

unit: $(BUILD)/unit-tests
	$(BUILD)/unit-tests

test: deps all $(BUILD)/unit-tests
	$(PYTHON) tests/run_tests.py

clean:
	rm -rf $(BUILD)
