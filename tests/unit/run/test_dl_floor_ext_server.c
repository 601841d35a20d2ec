// SPDX-License-Identifier: GPL-2.0-only
/*
 * The deadline floor with the sched_ext server: admitted beside the fair server on 7.0 and 7.1
 * and on 7.2+ with a BPF scheduler loaded, not on Debian's 7.2 without one; a policy's fair
 * server replaces only the fair server's part of it.
 */
#include "dl_floor.h"
#include "knob_plan.h"
#include "unit.h"
#include "unit_fixtures.h"

#include <string.h>

TEST(dl_floor_counts_the_ext_server_where_admitted)
{
	struct kernel_facts k = make_kernel_facts_debian_7_2();
	struct kernel_model m;
	struct dl_floor floor;
	char text[240];

	/* 7.2, no BPF scheduler: the fair server alone, 5%. */
	kernel_model_predict(&k, &m);
	floor = dl_floor_from_model(&m);
	CHECK(dl_floor_ext_ratio(&floor) == 0 && dl_floor_ratio(&floor) == knob_ratio(50000, 1000000),
	      "7.2: floor %llu", (unsigned long long)dl_floor_ratio(&floor));
	CHECK(dl_floor_allows(&floor, 60000, 1000000), "6%% refused on 7.2");
	/* 7.0 (or 7.2 with a BPF scheduler): both servers, 10%. */
	k.sched_ext_enabled = 1;
	kernel_model_predict(&k, &m);
	floor = dl_floor_from_model(&m);
	CHECK(dl_floor_ratio(&floor) == 2 * knob_ratio(50000, 1000000), "both servers: floor %llu",
	      (unsigned long long)dl_floor_ratio(&floor));
	CHECK(!dl_floor_allows(&floor, 95000, 1000000) && dl_floor_allows(&floor, 100000, 1000000) &&
	      dl_floor_allows(&floor, -1, 1000000), "9.5%% / 10%% / -1 against a 10%% floor");
	dl_floor_describe(&floor, text, sizeof(text));
	CHECK(strstr(text, "fair server 50000/1000000 + ext server 50000/1000000 = 0.100 per CPU") != NULL, "'%s'", text);
	/* A policy's fair server replaces the fair part only: the ext server keeps its 5%. */
	{
		struct knobs kn = make_knobs(60000, 1000000, -1, 1000000, false);

		kn.has_fair_server = true;
		kn.value[KNOB_FAIR_SERVER_RUNTIME] = 10000000;
		kn.value[KNOB_FAIR_SERVER_PERIOD] = 1000000000;
		CHECK(knobs_admitted_ratio(&kn, &floor) == knob_ratio(10000, 1000000) + knob_ratio(50000, 1000000),
		      "admitted %llu", (unsigned long long)knobs_admitted_ratio(&kn, &floor));
		CHECK(!knobs_invalid_reason(&kn, &floor), "6%% above 1%% + 5%% refused: %s", knobs_invalid_reason(&kn, &floor));
		kn.value[KNOB_SYSCTL_RUNTIME] = 55000;
		CHECK(knobs_invalid_reason(&kn, &floor) != NULL, "5.5%% below 1%% + 5%% accepted");
	}
}
