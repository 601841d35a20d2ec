// SPDX-License-Identifier: GPL-2.0-only
/* A scenario's JSON file parsed and validated into struct scenario; errors name the file and field. */
#include "scenario.h"
#include "util.h"
#include "judge.h"
#include "kernel_model.h"
#include "load.h"
#include "scenario_task.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The suites, and the one each holds besides the scenarios that name it: make mutants' suite
 * is the quick one and the scenarios the mutant kernels' Promises need that it leaves out.
 */
static const struct {
	const char *name, *holds;
} suites[] = { { "quick", NULL }, { "full", NULL }, { "debate", NULL }, { "mutants", "quick" } };

struct parser {
	const char *file;
	char field[96];
};

static bool __attribute__((format(printf, 2, 3))) bad(struct parser *pr, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rtthrottle: %s: %s: ", pr->file, pr->field[0] ? pr->field : "(top level)");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return false;
}

static void at(struct parser *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void at(struct parser *pr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pr->field, sizeof(pr->field), fmt, ap);
	va_end(ap);
}

static bool word_in_list(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == len && !strncmp(p, word, len))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

/* Unknown keys are refused: a misspelt "regimes" must not silently judge every regime. */
static bool only_keys(struct parser *pr, json_object *obj, const char *allowed)
{
	json_object_object_foreach(obj, key, val) {
		(void)val;
		if (!word_in_list(allowed, key))
			return bad(pr, "unknown field \"%s\" (allowed: %s)", key, allowed);
	}
	return true;
}

static bool get_string(struct parser *pr, json_object *obj, const char *key, bool required, char *out, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v)) {
		if (required)
			return bad(pr, "missing field \"%s\"", key);
		return true;
	}
	if (!json_object_is_type(v, json_type_string))
		return bad(pr, "\"%s\" must be a string", key);
	if (strlen(json_object_get_string(v)) >= len)
		return bad(pr, "\"%s\" is longer than %zu characters", key, len - 1);
	if (required && !*json_object_get_string(v))
		return bad(pr, "\"%s\" is empty", key);
	snprintf(out, len, "%s", json_object_get_string(v));
	return true;
}

static bool get_number(struct parser *pr, json_object *obj, const char *key, double min, double max, double *out)
{
	json_object *v;
	double d;

	if (!json_object_object_get_ex(obj, key, &v))
		return true;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return bad(pr, "\"%s\" must be a number", key);
	d = json_object_get_double(v);
	if (!isfinite(d) || d < min || d > max)
		return bad(pr, "\"%s\" = %g is outside %g..%g", key, d, min, max);
	*out = d;
	return true;
}


/* "lead_in": ["default", "unlimited"], "lead_in_ms": 1200: named policies only. */
static bool parse_lead_in(struct parser *pr, json_object *window, struct scenario *s)
{
	json_object *arr;
	size_t n;

	if (!json_object_object_get_ex(window, "lead_in", &arr)) {
		if (json_object_object_get_ex(window, "lead_in_ms", NULL))
			return bad(pr, "\"lead_in_ms\" without \"lead_in\"");
		return true;
	}
	n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
	if (n == 0 || n > SCENARIO_LEAD_IN_MAX)
		return bad(pr, "\"lead_in\" must be an array of 1 to %d policy names", SCENARIO_LEAD_IN_MAX);
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(p, json_type_string) ||
		    !policy_find(json_object_get_string(p), &s->lead_in[s->lead_in_count++]))
			return bad(pr, "lead_in[%zu]: not a known policy name", i);
	}
	s->lead_in_ms = 1000;
	return get_number(pr, window, "lead_in_ms", 100, 60000, &s->lead_in_ms);
}

static bool parse_policies(struct parser *pr, json_object *arr, struct scenario *s)
{
	size_t n = json_object_array_length(arr);

	if (n == 0 || n > SCENARIO_POLICIES_MAX)
		return bad(pr, "needs 1 to %d policies", SCENARIO_POLICIES_MAX);
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(arr, i);
		struct policy *out = &s->policies[s->policy_count];

		at(pr, "policies[%zu]", i);
		if (json_object_is_type(p, json_type_string)) {
			if (!policy_find(json_object_get_string(p), out))
				return bad(pr, "unknown policy \"%s\"", json_object_get_string(p));
		} else if (json_object_is_type(p, json_type_object)) {
			double runtime = 0, period = 0;
			char fair_server[64] = "", fs_why[160];
			const char *why;

			memset(out, 0, sizeof(*out));
			if (!only_keys(pr, p, "name,runtime_us,period_us,fair_server") ||
			    !get_string(pr, p, "name", true, out->name, sizeof(out->name)) ||
			    !get_number(pr, p, "runtime_us", -1, 2147483647, &runtime) ||
			    !get_number(pr, p, "period_us", 1, 2147483647, &period) ||
			    !get_string(pr, p, "fair_server", false, fair_server, sizeof(fair_server)))
				return false;
			out->runtime_us = (int64_t)runtime;
			out->period_us = (int64_t)period;
			why = policy_pair_invalid(out->runtime_us, out->period_us);
			if (why)
				return bad(pr, "%s", why);
			/* As --fair-server takes it: "10ms/1s", or "0" for off. */
			if (fair_server[0] && !policy_fair_server_parse(fair_server, &out->fair_server, fs_why, sizeof(fs_why)))
				return bad(pr, "fair_server \"%s\": %s", fair_server, fs_why);
			out->origin = "defined by the scenario";
		} else {
			return bad(pr, "a policy is a name or {name, runtime_us, period_us[, fair_server]}");
		}
		s->policy_count++;
	}
	return true;
}

static bool parse_params(struct parser *pr, json_object *task, struct scenario_task *t)
{
	json_object *params, *phase, *interval_obj;

	if (!json_object_object_get_ex(task, "params", &params)) {
		t->params = json_object_new_object();
		return true;
	}
	if (!json_object_is_type(params, json_type_object))
		return bad(pr, "\"params\" must be an object");
	json_object_object_foreach(params, key, val) {
		if (!role_param_find(t->role, key)) {
			char takes[128];

			role_params_list(t->role, takes, sizeof(takes));
			return bad(pr, "role %s takes no parameter \"%s\" (it takes: %s)", role_name(t->role), key, takes);
		}
		if (judge_is_quantity(key))
			return bad(pr, "parameter \"%s\" would hide the model quantity of that name", key);
		if (!strcmp(key, "target")) {
			if (!json_object_is_type(val, json_type_string))
				return bad(pr, "params.target must name a task");
			continue;
		}
		if (!json_object_is_type(val, json_type_int) && !json_object_is_type(val, json_type_double))
			return bad(pr, "params.%s must be a number", key);
		if (!isfinite(json_object_get_double(val)) || json_object_get_double(val) < 0 ||
		    json_object_get_double(val) > 1e10)
			return bad(pr, "params.%s = %g is outside 0..1e10", key, json_object_get_double(val));
	}
	if (t->role == ROLE_PROBE && json_object_object_get_ex(params, "phase_us", &phase)) {
		double interval = json_object_object_get_ex(params, "interval_us", &interval_obj)
					  ? json_object_get_double(interval_obj)
					  : role_param_find(ROLE_PROBE, "interval_us")->fallback;

		if (json_object_get_double(phase) >= interval)
			return bad(pr, "params.phase_us = %g must be below interval_us (%g)",
				   json_object_get_double(phase), interval);
	}
	t->params = json_object_get(params);
	return true;
}

/* A task's "cpu" by name, or -1. */
static enum cpu_placement placement_find(const char *name)
{
	static const char *const names[] = {
		[CPU_MEASURED] = "measured", [CPU_OTHER] = "other", [CPU_ANY] = "any", [CPU_EACH_BUT_0] = "each-but-0",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (enum cpu_placement)i;
	return (enum cpu_placement)-1;
}

static bool parse_task(struct parser *pr, json_object *obj, struct scenario *s, struct scenario_task *t)
{
	char role[24] = "", cls[16] = "other", cpu[16] = "measured";
	double priority = 0;

	memset(t, 0, sizeof(*t));
	if (!json_object_is_type(obj, json_type_object))
		return bad(pr, "a task is an object");
	if (!only_keys(pr, obj, "name,role,class,priority,nice,cpu,cgroup,params"))
		return false;
	if (!get_string(pr, obj, "name", true, t->name, sizeof(t->name)) ||
	    !get_string(pr, obj, "role", true, role, sizeof(role)) ||
	    !get_string(pr, obj, "class", false, cls, sizeof(cls)) ||
	    !get_string(pr, obj, "cpu", false, cpu, sizeof(cpu)) ||
	    !get_string(pr, obj, "cgroup", false, t->cgroup, sizeof(t->cgroup)))
		return false;
	t->role = role_by_name(role);
	if (t->role == ROLE_COUNT) {
		char names[192];

		role_names_list(names, sizeof(names));
		return bad(pr, "unknown role \"%s\" (%s)", role, names);
	}
	if (!strcmp(cls, "fifo"))
		t->sched_policy = SCHED_FIFO;
	else if (!strcmp(cls, "rr"))
		t->sched_policy = SCHED_RR;
	else if (!strcmp(cls, "other"))
		t->sched_policy = SCHED_OTHER;
	else if (!strcmp(cls, "deadline"))
		t->sched_policy = SCHED_DEADLINE;
	else
		return bad(pr, "unknown class \"%s\" (fifo, rr, other, deadline)", cls);
	if (t->sched_policy == SCHED_FIFO || t->sched_policy == SCHED_RR) {
		priority = 50;
		if (json_object_object_get_ex(obj, "nice", NULL))
			return bad(pr, "\"nice\" is for class other; class %s takes \"priority\"", cls);
		if (!get_number(pr, obj, "priority", 1, 99, &priority))
			return false;
	} else if (json_object_object_get_ex(obj, "priority", NULL)) {
		return bad(pr, "\"priority\" is for classes fifo and rr; class %s takes \"nice\" (other) or params", cls);
	} else if (!get_number(pr, obj, "nice", -20, 19, &priority)) {
		return false;
	}
	t->priority = (int)priority;
	t->cpu = placement_find(cpu);
	if ((int)t->cpu < 0)
		return bad(pr, "cpu must be \"measured\", \"other\", \"any\" or \"each-but-0\", not \"%s\"", cpu);
	if ((t->role == ROLE_CYCLICTEST || t->role == ROLE_TIMERLAT) &&
	    (t->sched_policy == SCHED_DEADLINE || t->cpu == CPU_ANY || t->cpu == CPU_EACH_BUT_0))
		return bad(pr, "%s runs in class fifo, rr or other on one CPU (cpu measured or other)", role_name(t->role));
	if (t->cgroup[0]) {
		bool known = false;

		for (int i = 0; i < s->cgroup_count; i++)
			known |= !strcmp(s->cgroups[i].name, t->cgroup);
		if (!known)
			return bad(pr, "cgroup \"%s\" is not among the scenario's cgroups", t->cgroup);
	}
	return parse_params(pr, obj, t);
}

static bool parse_regimes(struct parser *pr, json_object *obj, unsigned *mask)
{
	json_object *arr;

	*mask = REGIMES_ANY;
	if (!json_object_object_get_ex(obj, "regimes", &arr))
		return true;
	if (!json_object_is_type(arr, json_type_array))
		return bad(pr, "\"regimes\" must be an array of names");
	*mask = 0;
	if (json_object_array_length(arr) == 0)
		return bad(pr, "\"regimes\" is empty: the check would never apply");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(arr, i));
		bool found = false;

		if (!json_object_is_type(json_object_array_get_idx(arr, i), json_type_string))
			return bad(pr, "regimes[%zu] must be a string", i);
		if (!strcmp(name, "limited")) {
			*mask |= REGIMES_LIMITED;
			continue;
		}
		for (int r = REGIME_CLASSIC; r < REGIME_COUNT; r++)
			if (!strcmp(name, regime_name(r))) {
				*mask |= 1u << r;
				found = true;
			}
		if (!found)
			return bad(pr, "unknown regime \"%s\" (limited, classic-throttling, rt-runtime-share, fair-server-only, no-limit, timers-starved)", name);
	}
	return true;
}

static bool parse_check(struct parser *pr, json_object *obj, struct scenario *s, struct scenario_check *c)
{
	char kind[16] = "";

	memset(c, 0, sizeof(*c));
	if (!json_object_is_type(obj, json_type_object))
		return bad(pr, "a check is an object");
	if (!only_keys(pr, obj, "task,metric,fallback,kind,expect,tolerance,if,regimes,why,name,detects,detects_why,tolerance_why"))
		return false;
	if (!get_string(pr, obj, "task", true, c->task, sizeof(c->task)) ||
	    !get_string(pr, obj, "metric", true, c->metric, sizeof(c->metric)) ||
	    !get_string(pr, obj, "fallback", false, c->fallback, sizeof(c->fallback)) ||
	    !get_string(pr, obj, "kind", true, kind, sizeof(kind)) ||
	    !get_string(pr, obj, "expect", true, c->expect, sizeof(c->expect)) ||
	    !get_string(pr, obj, "tolerance", true, c->tolerance, sizeof(c->tolerance)) ||
	    !get_string(pr, obj, "if", false, c->condition, sizeof(c->condition)) ||
	    !get_string(pr, obj, "detects", false, c->detects, sizeof(c->detects)) ||
	    !get_string(pr, obj, "detects_why", false, c->detects_why, sizeof(c->detects_why)) ||
	    !get_string(pr, obj, "tolerance_why", false, c->tolerance_why, sizeof(c->tolerance_why)) ||
	    !get_string(pr, obj, "why", false, c->why, sizeof(c->why)) ||
	    !get_string(pr, obj, "name", false, c->label, sizeof(c->label)) || !parse_regimes(pr, obj, &c->regimes))
		return false;
	/* A detects is read with the regression it stands for: one without the other is refused. */
	if (!c->detects[0] != !c->detects_why[0])
		return bad(pr, "\"detects\" and \"detects_why\" go together: the regression and what it is");
	if (strpbrk(c->label, " #\t"))
		return bad(pr, "name \"%s\" goes into a KTAP line: no spaces or '#'", c->label);
	if (scenario_task_index(s, c->task) < 0)
		return bad(pr, "task \"%s\" is not one of the scenario's tasks", c->task);
	if (!strcmp(kind, "approx"))
		c->kind = CHECK_APPROX;
	else if (!strcmp(kind, "at_least"))
		c->kind = CHECK_AT_LEAST;
	else if (!strcmp(kind, "at_most"))
		c->kind = CHECK_AT_MOST;
	else
		return bad(pr, "kind must be approx, at_least or at_most, not \"%s\"", kind);
	return true;
}

/* Two checks that can apply to one result may not share a KTAP name. */
static bool check_name_unique(struct parser *pr, const struct scenario *s, int i)
{
	const struct scenario_check *c = &s->checks[i];

	for (int j = 0; j < i; j++) {
		const struct scenario_check *o = &s->checks[j];

		if (!strcmp(o->task, c->task) && !strcmp(o->metric, c->metric) && !strcmp(o->label, c->label) &&
		    (o->regimes & c->regimes))
			return bad(pr, "same KTAP name %s.%s%s%s as checks[%d] in a regime both apply to: give one a \"name\"",
				   c->task, c->metric, c->label[0] ? "." : "", c->label, j);
	}
	return true;
}

static bool parse_cgroups(struct parser *pr, json_object *arr, struct scenario *s)
{
	size_t n = json_object_array_length(arr);

	if (n > SCENARIO_CGROUPS_MAX)
		return bad(pr, "at most %d cgroups", SCENARIO_CGROUPS_MAX);
	for (size_t i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(arr, i);
		struct scenario_cgroup *out = &s->cgroups[i];
		double runtime = -2, period = 1000000;

		at(pr, "cgroups[%zu]", i);
		if (!json_object_is_type(g, json_type_object))
			return bad(pr, "a cgroup is an object");
		if (!only_keys(pr, g, "name,rt_runtime_us,rt_period_us"))
			return false;
		if (!get_string(pr, g, "name", true, out->name, sizeof(out->name)) ||
		    !get_number(pr, g, "rt_runtime_us", 1, 2147483647, &runtime) ||
		    !get_number(pr, g, "rt_period_us", 1, 2147483647, &period))
			return false;
		if (runtime < 0)
			return bad(pr, "missing field \"rt_runtime_us\"");
		if (runtime > period)
			return bad(pr, "rt_runtime_us exceeds rt_period_us");
		if (strpbrk(out->name, "/.") || !out->name[0])
			return bad(pr, "cgroup name \"%s\" must be a plain name", out->name);
		out->rt_runtime_us = (int64_t)runtime;
		out->rt_period_us = (int64_t)period;
		s->cgroup_count++;
	}
	s->needs_rt_groups = n > 0;
	return true;
}

static bool parse_sweep(struct parser *pr, json_object *obj, struct scenario *s)
{
	json_object *values;
	int t;

	at(pr, "sweep");
	if (!only_keys(pr, obj, "task,param,values"))
		return false;
	if (!get_string(pr, obj, "task", true, s->sweep_task, sizeof(s->sweep_task)) ||
	    !get_string(pr, obj, "param", true, s->sweep_param, sizeof(s->sweep_param)))
		return false;
	t = scenario_task_index(s, s->sweep_task);
	if (t < 0)
		return bad(pr, "task \"%s\" is not one of the scenario's tasks", s->sweep_task);
	if (!role_param_find(s->tasks[t].role, s->sweep_param))
		return bad(pr, "role %s takes no parameter \"%s\"", role_name(s->tasks[t].role), s->sweep_param);
	if (!json_object_object_get_ex(obj, "values", &values) || !json_object_is_type(values, json_type_array) ||
	    json_object_array_length(values) == 0 || json_object_array_length(values) > SCENARIO_SWEEP_MAX)
		return bad(pr, "\"values\" must be an array of 1 to %d numbers", SCENARIO_SWEEP_MAX);
	for (size_t i = 0; i < json_object_array_length(values); i++) {
		json_object *v = json_object_array_get_idx(values, i);

		if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
			return bad(pr, "values[%zu] must be a number", i);
		if (!isfinite(json_object_get_double(v)) || json_object_get_double(v) < 0 ||
		    json_object_get_double(v) > 1e10)
			return bad(pr, "values[%zu] = %g is outside 0..1e10", i, json_object_get_double(v));
		s->sweep_values[s->sweep_count++] = json_object_get_double(v);
	}
	return true;
}

static bool parse_suites(struct parser *pr, json_object *arr, struct scenario *s)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *v = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(v, json_type_string) || !suite_known(json_object_get_string(v)))
			return bad(pr, "suites[%zu] must be one of %s", i, SUITES_KNOWN);
		if (strlen(s->suites) + strlen(json_object_get_string(v)) + 2 > sizeof(s->suites))
			return bad(pr, "too many suites");
		if (s->suites[0])
			strcat(s->suites, ",");
		strcat(s->suites, json_object_get_string(v));
	}
	return true;
}

/* "load": {"tool": NAME, "cpu": "other" | "measured" | "any"}, a background load for every window. */
static bool parse_background(struct parser *pr, json_object *obj, struct scenario *s)
{
	char tool[16] = "", cpu[16] = "other";

	at(pr, "load");
	if (!json_object_is_type(obj, json_type_object))
		return bad(pr, "\"load\" must be an object {tool, cpu}");
	if (!only_keys(pr, obj, "tool,cpu") || !get_string(pr, obj, "tool", true, tool, sizeof(tool)) ||
	    !get_string(pr, obj, "cpu", false, cpu, sizeof(cpu)))
		return false;
	s->load_tool = load_tool_find(tool);
	if (s->load_tool < 0)
		return bad(pr, "unknown load tool \"%s\" (%s)", tool, load_tool_names());
	s->load_cpu = placement_find(cpu);
	if ((int)s->load_cpu < 0 || s->load_cpu == CPU_EACH_BUT_0)
		return bad(pr, "cpu must be \"other\", \"measured\" or \"any\", not \"%s\"", cpu);
	return true;
}

/*
 * "grid": {"ratios": [...] or "runtimes_us": [...], "periods_us": [...][, "fair_server_us": [...]]},
 * by the rules of --grid (fair-server runtimes against its 1 s period, 0: off).
 */
static bool parse_grid(struct parser *pr, json_object *obj, struct scenario *s)
{
	static const char *const axes[] = { "ratios", "runtimes_us", "periods_us", "fair_server_us" };
	struct policy cells[GRID_CELLS_MAX];
	char why[200];
	int n;

	at(pr, "grid");
	if (!json_object_is_type(obj, json_type_object))
		return bad(pr, "\"grid\" must be an object {ratios or runtimes_us, periods_us}");
	if (!only_keys(pr, obj, "ratios,runtimes_us,periods_us,fair_server_us"))
		return false;
	for (size_t a = 0; a < sizeof(axes) / sizeof(axes[0]); a++) {
		json_object *values;

		if (!json_object_object_get_ex(obj, axes[a], &values))
			continue;
		at(pr, "grid.%s", axes[a]);
		if (!json_object_is_type(values, json_type_array) || json_object_array_length(values) == 0)
			return bad(pr, "must be an array of 1 to %d numbers", GRID_AXIS_MAX);
		for (size_t i = 0; i < json_object_array_length(values); i++) {
			json_object *v = json_object_array_get_idx(values, i);
			double d = json_object_get_double(v);
			bool ok;

			at(pr, "grid.%s[%zu]", axes[a], i);
			if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
				return bad(pr, "must be a number");
			if (a > 0 && (d != floor(d) || d < (a == 3 ? 0 : 1) || d > 2147483647))
				return bad(pr, "%g is not a whole number of microseconds from %d to 2147483647", d, a == 3 ? 0 : 1);
			ok = a == 0 ? grid_add_ratio(&s->grid, d, why, sizeof(why))
			   : a == 1 ? grid_add_runtime(&s->grid, (int64_t)d, why, sizeof(why))
			   : a == 2 ? grid_add_period(&s->grid, (int64_t)d, why, sizeof(why))
				    : grid_add_fair_server(&s->grid, (int64_t)d, why, sizeof(why));
			if (!ok)
				return bad(pr, "%s", why);
		}
	}
	at(pr, "grid");
	if (!grid_complete(&s->grid, why, sizeof(why)))
		return bad(pr, "%s", why);
	/* Cells are named after their values: a named policy must not take one's name. */
	n = grid_policies(&s->grid, cells);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < s->policy_count; k++)
			if (!strcmp(cells[i].name, s->policies[k].name))
				return bad(pr, "cell %s has the name of policies[%d]", cells[i].name, k);
	return true;
}

/* The parts in dependency order: cgroups before tasks, tasks before checks and sweep. */
static bool parse_object(struct parser *pr, json_object *root, struct scenario *s)
{
	json_object *v;

	if (!json_object_is_type(root, json_type_object))
		return bad(pr, "the file must hold one JSON object");
	if (!only_keys(pr, root, "name,summary,suites,policies,grid,window,cgroups,tasks,checks,sweep,load"))
		return false;
	if (!get_string(pr, root, "name", true, s->name, sizeof(s->name)) ||
	    !get_string(pr, root, "summary", true, s->summary, sizeof(s->summary)))
		return false;
	if (strpbrk(s->name, " ./,"))
		return bad(pr, "name \"%s\" may not contain spaces, dots, slashes or commas", s->name);
	if (json_object_object_get_ex(root, "suites", &v)) {
		at(pr, "suites");
		if (!json_object_is_type(v, json_type_array))
			return bad(pr, "\"suites\" must be an array");
		if (!parse_suites(pr, v, s))
			return false;
	}
	at(pr, "policies");
	if (json_object_object_get_ex(root, "policies", &v)) {
		if (!json_object_is_type(v, json_type_array))
			return bad(pr, "\"policies\" must be an array");
		if (!parse_policies(pr, v, s))
			return false;
	} else if (!json_object_object_get_ex(root, "grid", NULL)) {
		return bad(pr, "missing array \"policies\" (or a \"grid\")");
	}
	if (json_object_object_get_ex(root, "grid", &v) && !parse_grid(pr, v, s))
		return false;
	at(pr, "window");
	if (json_object_object_get_ex(root, "window", &v)) {
		if (!json_object_is_type(v, json_type_object))
			return bad(pr, "\"window\" must be an object {seconds, min_periods, lead_in, lead_in_ms}");
		if (!only_keys(pr, v, "seconds,min_periods,lead_in,lead_in_ms"))
			return false;
		if (!get_number(pr, v, "seconds", 0.1, 3600, &s->window_s) ||
		    !get_number(pr, v, "min_periods", 0, 100, &s->min_periods) || !parse_lead_in(pr, v, s))
			return false;
	}
	if (json_object_object_get_ex(root, "cgroups", &v)) {
		at(pr, "cgroups");
		if (!json_object_is_type(v, json_type_array))
			return bad(pr, "\"cgroups\" must be an array");
		if (!parse_cgroups(pr, v, s))
			return false;
	}
	at(pr, "tasks");
	if (!json_object_object_get_ex(root, "tasks", &v) || !json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) == 0 || json_object_array_length(v) > TASKS_MAX - 1)
		return bad(pr, "\"tasks\" must be an array of 1 to %d tasks", TASKS_MAX - 1);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		at(pr, "tasks[%zu]", i);
		if (!parse_task(pr, json_object_array_get_idx(v, i), s, &s->tasks[s->task_count]))
			return false;
		/* Counted before the check, so a refused file still frees this task's params. */
		s->task_count++;
		for (int k = 0; k < s->task_count - 1; k++)
			if (!strcmp(s->tasks[k].name, s->tasks[s->task_count - 1].name))
				return bad(pr, "task name \"%s\" used twice", s->tasks[k].name);
	}
	for (int i = 0; i < s->task_count && s->lead_in_count; i++) {
		at(pr, "tasks[%d].role", i);
		if (s->tasks[i].role != ROLE_HOG && s->tasks[i].role != ROLE_VICTIM)
			return bad(pr, "a scenario with a lead-in takes hogs and victims only (they run through it)");
	}
	for (int i = 0; i < s->task_count; i++) {
		json_object *target;

		at(pr, "tasks[%d].params.target", i);
		if (json_object_object_get_ex(s->tasks[i].params, "target", &target) &&
		    scenario_task_index(s, json_object_get_string(target)) < 0)
			return bad(pr, "no task named \"%s\"", json_object_get_string(target));
	}
	at(pr, "checks");
	if (json_object_object_get_ex(root, "checks", &v)) {
		if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) > SCENARIO_CHECKS_MAX)
			return bad(pr, "\"checks\" must be an array of at most %d checks", SCENARIO_CHECKS_MAX);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			at(pr, "checks[%zu]", i);
			if (!parse_check(pr, json_object_array_get_idx(v, i), s, &s->checks[s->check_count++]) ||
			    !check_name_unique(pr, s, (int)i))
				return false;
		}
	}
	if (json_object_object_get_ex(root, "load", &v) && !parse_background(pr, v, s))
		return false;
	if (json_object_object_get_ex(root, "sweep", &v)) {
		if (!json_object_is_type(v, json_type_object))
			return bad(pr, "\"sweep\" must be an object {task, param, values}");
		if (!parse_sweep(pr, v, s))
			return false;
	}
	{
		char why[200];

		pr->field[0] = '\0';
		if (!judge_validate(s, why, sizeof(why)))
			return bad(pr, "%s", why);
	}
	return true;
}

static void scenario_free(struct scenario *s)
{
	for (int i = 0; i < s->task_count; i++)
		json_object_put(s->tasks[i].params);
	s->task_count = 0;
}

void scenario_release(struct scenario *s)
{
	scenario_free(s);
}

/* One JSON value and nothing after it but blanks; the error names the byte. */
static json_object *read_json_strict(struct parser *pr, const char *path)
{
	struct json_tokener *tok;
	json_object *root;
	char *text = NULL;
	size_t len = 0, end;
	ssize_t got;
	FILE *f = fopen(path, "re");

	if (!f)
		return bad(pr, "cannot read: %s", strerror(errno)), NULL;
	if ((got = getdelim(&text, &len, '\0', f)) < 0 && ferror(f)) {
		fclose(f);
		free(text);
		return bad(pr, "cannot read: %s", strerror(errno)), NULL;
	}
	fclose(f);
	if (got < 0) {	/* glibc may allocate text at EOF without terminating it */
		free(text);
		return bad(pr, "empty file"), NULL;
	}
	len = strlen(text);
	if ((size_t)got != len) {	/* getdelim stopped at a NUL byte: no text file has one */
		free(text);
		return bad(pr, "NUL byte at offset %zu: not a text file", len), NULL;
	}
	tok = json_tokener_new();
	root = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!root) {
		enum json_tokener_error err = json_tokener_get_error(tok);

		bad(pr, "not valid JSON: %s near byte %zu",
		    err == json_tokener_continue ? "unexpected end of file" : json_tokener_error_desc(err), end);
	} else {
		while (end < len && isspace((unsigned char)text[end]))
			end++;
		if (end < len) {
			bad(pr, "text after the JSON object at byte %zu", end);
			json_object_put(root);
			root = NULL;
		}
	}
	json_tokener_free(tok);
	free(text);
	return root;
}

bool scenario_parse_file(const char *path, struct scenario *out)
{
	struct parser pr = { .file = path };
	json_object *root;
	bool ok;

	memset(out, 0, sizeof(*out));
	snprintf(out->source, sizeof(out->source), "%s", path);
	root = read_json_strict(&pr, path);
	if (!root)
		return false;
	ok = parse_object(&pr, root, out);
	json_object_put(root);
	if (!ok)
		scenario_free(out);
	return ok;
}

bool suite_known(const char *suite)
{
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		if (!strcmp(suites[i].name, suite))
			return true;
	return false;
}

bool scenario_in_suite(const struct scenario *s, const char *suite)
{
	if (word_in_list(s->suites, suite))
		return true;
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		if (!strcmp(suites[i].name, suite) && suites[i].holds)
			return word_in_list(s->suites, suites[i].holds);
	return false;
}
