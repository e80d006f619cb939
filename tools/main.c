/* SPDX-License-Identifier: MIT */
/*
 * main.c - the hipsvm command: dispatch to the subcommands.
 */
#include "cli.h"

#include <string.h>

static const char main_help[] =
"Usage: hipsvm COMMAND [OPTIONS] [ARGS...]\n"
"\n"
"See what libhipsvm does inside an unmodified HIP program: which context owns\n"
"each allocation, how unmaps of GPU-visible memory are coordinated with the\n"
"checkpoint hook, and what happened to the GPU page faults in flight.\n"
"\n"
"Commands:\n"
"  run [OPTIONS] -- PROGRAM [ARGS...]     run PROGRAM under the shim, then print a report\n"
"  trace [-o OUT.json] -- PROGRAM [ARGS]  run PROGRAM and write a Perfetto trace\n"
"  trace --from EVENTS.jsonl [-o OUT]     convert saved raw events to a Perfetto trace\n"
"  report [--format text|json|csv] FILE   show a saved JSON report\n"
"  report --html OUT.html FILE            the same as one self-contained page of charts\n"
"  check PROGRAM                          can the shim see PROGRAM's HIP calls?\n"
"  options                                every HIPSVM_* option and its value in force\n"
"  help [COMMAND]                         this text, or a command's help\n"
"\n"
"  -h, --help      this text\n"
"  -V, --version   print the version\n"
"\n"
"Without an AMD GPU (no /dev/kfd) run and trace use the simulated 4-GPU runtime.\n"
"Examples:\n"
"  hipsvm run -- ./managed_saxpy\n"
"  hipsvm run --gpus 2 --report out.json -- ./multi_gpu_host\n"
"  hipsvm trace -o trace.json -- ./unmap_race     (open it in ui.perfetto.dev)\n"
"  hipsvm check ./my_app\n"
"\n"
"Documentation: docs/quickstart.md, docs/cli.md, docs/trace.md (installed: man hipsvm).\n";

static const struct {
	const char *name;
	int (*fn)(int, char **);
} cmds[] = {
	{ "run", cmd_run },
	{ "trace", cmd_trace },
	{ "report", cmd_report },
	{ "check", cmd_check },
	{ "options", cmd_options },
};

static int dispatch(const char *name, int argc, char **argv)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmds[i].name, name) == 0)
			return cmds[i].fn(argc, argv);
	return -1;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int rc;

	if (argc < 2)
		return usage_err(NULL, "no command given (run, trace, report, check, options)");
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		fputs(main_help, stdout);
		return 0;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("hipsvm %s\n", HIPSVM_TOOL_VERSION);
		return 0;
	}
	if (strcmp(cmd, "help") == 0) {
		char *hargv[] = { argc > 2 ? argv[2] : NULL, (char *)"--help", NULL };

		if (argc < 3) {
			fputs(main_help, stdout);
			return 0;
		}
		rc = dispatch(argv[2], 2, hargv);
		if (rc < 0)
			return usage_err(NULL, "unknown command '%s'", argv[2]);
		return rc;
	}
	if (cmd[0] == '-')
		return usage_err(NULL, "unknown option '%s' (options go after the command)", cmd);
	rc = dispatch(cmd, argc - 1, argv + 1);
	if (rc < 0) {
		static const char *const names[] = { "run", "trace", "report", "check", "options", "help", NULL };
		const char *s = tool_suggest(cmd, names);

		if (s)
			return usage_err(NULL, "unknown command '%s', did you mean '%s'?", cmd, s);
		return usage_err(NULL, "unknown command '%s' (run, trace, report, check, options)", cmd);
	}
	return rc;
}
