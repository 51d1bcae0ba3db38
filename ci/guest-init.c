// SPDX-License-Identifier: GPL-2.0
/*
 * The /init of the kselftest guest (ci/kselftest.sh): mount a tmpfs on
 * /tmp, run each program given on the kernel command line as
 * "kselftest=/prog[,/prog...]" in turn, say how each ended, and reboot
 * (QEMU runs with -no-reboot, so it exits).  "kselftest_args=/prog:a:b"
 * runs /prog with the arguments a and b (a benchmark's size).  A program runs as a child,
 * as under kselftest's runner: the test harness forks, and PID 1 must not
 * exit.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 16

/* The arguments kselftest_args= gives @prog, after argv[0]. */
static void prog_args(const char *prog, char **argv)
{
	const char *spec = getenv("kselftest_args");
	size_t len = strlen(prog);
	char *copy, *a;
	int n = 1;

	if (!spec || strncmp(spec, prog, len) || spec[len] != ':')
		return;
	copy = strdup(spec + len + 1);
	for (a = copy ? strtok(copy, ":") : NULL; a && n < MAX_ARGS - 1;
	     a = strtok(NULL, ":"))
		argv[n++] = a;
	argv[n] = NULL;
}

static void run(char *prog)
{
	char *argv[MAX_ARGS] = { prog, NULL };
	int status;
	pid_t pid;

	prog_args(prog, argv);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(prog, argv);
		printf("guest-init: cannot run %s\n", prog);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		printf("guest-init: %s: fork or wait failed\n", prog);
		return;
	}
	if (WIFEXITED(status))
		printf("guest-init: %s exited %d\n", prog, WEXITSTATUS(status));
	else
		printf("guest-init: %s killed by signal %d\n", prog, WTERMSIG(status));
}

int main(int argc, char **argv)
{
	char *progs = getenv("kselftest"), *p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir("/tmp", 01777);
	if (mount("tmpfs", "/tmp", "tmpfs", 0, NULL))
		printf("guest-init: cannot mount /tmp\n");
	if (!progs)
		printf("guest-init: no kselftest= on the command line\n");
	for (p = progs ? strtok(progs, ",") : NULL; p; p = strtok(NULL, ","))
		run(p);
	printf("guest-init: done\n");
	sync();
	reboot(RB_AUTOBOOT);	/* QEMU runs with -no-reboot: it exits */
	return 0;
}
