// SPDX-License-Identifier: GPL-2.0
/*
 * The /init of the kselftest guest (ci/kselftest.sh): mount a tmpfs on
 * /tmp, run each program given on the kernel command line as
 * "kselftest=/prog[,/prog...]" in turn, say how each ended, and reboot
 * (QEMU runs with -no-reboot, so it exits).  A program runs as a child,
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

static void run(char *prog)
{
	char *argv[] = { prog, NULL };
	int status;
	pid_t pid;

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
