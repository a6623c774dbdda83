// SPDX-License-Identifier: GPL-2.0
/*
 * workload: deterministic syscall work for the view tests.  Every "marked"
 * read is read(fd, buf, MARK_SIZE) on /dev/zero, a size nothing else uses,
 * so a BPF program can count exactly these.
 *
 *   workload -s MODE ...        stop itself (SIGSTOP) first: whoever
 *                               attaches to it then sends SIGCONT
 *   workload reads N            N marked reads
 *   workload threads T N        T threads, N marked reads each
 *   workload fork N             N marked reads, then fork: parent and child
 *                               N more each (the child exits first)
 *   workload exec N PROG ARG..  N marked reads, then exec PROG ARG..
 *   workload forks N            fork N children that exit at once
 *   workload forkspin           fork a child; both do marked reads forever
 *   workload syscalls N         N getppid() system calls
 *   workload getsid N           N getsid(getpid()) calls (getsid(0) does not
 *                               ask the LSMs); prints how many failed
 *                               and with which errno ("getsid: F failed,
 *                               errno E"), for fmod_ret programs
 *   workload cmdline N          N whole reads of /proc/cmdline (one call of
 *                               cmdline_proc_show() each); prints how many
 *                               said what samples/livepatch's replacement
 *                               says ("cmdline: P of N patched")
 *   workload spin               marked reads until killed
 *   workload trickle            10 marked reads every millisecond until
 *                               killed: a target and a decoy for the tool
 *                               tests, which leave the vCPUs to the tools
 *                               (under TCG two spinning ones took most of
 *                               a bpftrace's or libbpf tool's start-up)
 *   workload openspin           open and close /dev/null every 10 ms until
 *                               killed (for opensnoop-style tools)
 *   workload toolspin           every 10 ms until killed: open and close
 *                               /dev/null, stat it, kill(self, SIGUSR1)
 *                               (ignored), 10 marked reads, a TCP socket
 *                               bound to a loopback port that listens and
 *                               closes, a TCP connect to its own loopback
 *                               listener, accepted; every 10th time fork
 *                               a child that execs /bin/true (the events
 *                               of bcc's opensnoop, sigsnoop, syscount,
 *                               bindsnoop, solisten, tcpconnect, tcptracer,
 *                               execsnoop, exitsnoop)
 *   workload pingpong N         N one-byte TCP round trips over loopback
 *                               with a forked partner (not a thread: not in
 *                               the view without follow-fork), sleeping
 *                               200 us after each, so that the CPUs go idle,
 *                               take timer interrupts and run network
 *                               softirqs while the process sleeps
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MARK_SIZE 7

static int zero_fd;

static void reads(long n)
{
	char buf[MARK_SIZE];

	while (n-- > 0)
		if (read(zero_fd, buf, MARK_SIZE) != MARK_SIZE) {
			perror("workload: read");
			exit(1);
		}
}

/* See "cmdline" above. */
static int cmdline_reads(long n)
{
	char buf[4096];
	long i, patched = 0;
	ssize_t len, r;
	int fd;

	for (i = 0; i < n; i++) {
		fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror("workload: /proc/cmdline");
			return 1;
		}
		len = 0;
		while ((r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += r;
		close(fd);
		if (r < 0) {
			perror("workload: read /proc/cmdline");
			return 1;
		}
		buf[len] = 0;
		if (strstr(buf, "this has been live patched"))
			patched++;
	}
	printf("cmdline: %ld of %ld patched\n", patched, n);
	return 0;
}

static void xfer(int fd, bool send_first)
{
	char c = 'x';

	if (send_first && write(fd, &c, 1) != 1)
		exit(1);
	if (read(fd, &c, 1) != 1)
		exit(1);
	if (!send_first && write(fd, &c, 1) != 1)
		exit(1);
}

static int pingpong(long n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timespec pause = { 0, 200000 };
	socklen_t len = sizeof(sa);
	int ls, fd, one = 1;
	pid_t partner;
	long i;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(ls, 1) || getsockname(ls, (struct sockaddr *)&sa, &len)) {
		perror("workload: listen");
		return 1;
	}
	partner = fork();
	if (partner < 0)
		return 1;
	if (!partner) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			_exit(1);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (;;)
			xfer(fd, false);
	}
	fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		perror("workload: accept");
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = 0; i < n; i++) {
		xfer(fd, true);
		nanosleep(&pause, NULL);
	}
	kill(partner, SIGKILL);
	waitpid(partner, NULL, 0);
	return 0;
}

static int toolspin(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in any = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timespec pause = { 0, 10000000 };
	socklen_t len = sizeof(addr);
	struct stat st;
	long round;
	int lfd, c;
	pid_t child;

	signal(SIGUSR1, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(lfd, 8) || getsockname(lfd, (struct sockaddr *)&addr, &len)) {
		perror("workload: listen");
		return 1;
	}
	for (round = 0;; round++) {
		close(open("/dev/null", O_RDONLY | O_CLOEXEC));
		stat("/dev/null", &st);
		kill(getpid(), SIGUSR1);
		reads(10);
		c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c >= 0 && !bind(c, (struct sockaddr *)&any, sizeof(any)))
			listen(c, 1);
		if (c >= 0)
			close(c);
		c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c >= 0 && !connect(c, (struct sockaddr *)&addr, sizeof(addr)))
			close(accept4(lfd, NULL, NULL, SOCK_CLOEXEC));
		if (c >= 0)
			close(c);
		if (round % 10 == 0) {
			child = fork();
			if (!child) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			if (child > 0)
				waitpid(child, NULL, 0);
		}
		nanosleep(&pause, NULL);
	}
}

static void *thread_main(void *arg)
{
	reads((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tids[64];
	long i, t, n;
	pid_t child;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		raise(SIGSTOP);
		argv++;
		argc--;
	}
	n = argc > 2 ? atol(argv[argc > 3 && !strcmp(argv[1], "threads") ? 3 : 2]) : 0;

	zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (zero_fd < 0 || argc < 2) {
		fprintf(stderr, "usage: workload reads|threads|fork|exec|spin ...\n");
		return 2;
	}
	if (!strcmp(argv[1], "reads") && argc == 3) {
		reads(n);
	} else if (!strcmp(argv[1], "threads") && argc == 4) {
		t = atol(argv[2]);
		if (t < 1 || t > 64)
			return 2;
		for (i = 0; i < t; i++)
			if (pthread_create(&tids[i], NULL, thread_main, (void *)n))
				return 1;
		for (i = 0; i < t; i++)
			pthread_join(tids[i], NULL);
	} else if (!strcmp(argv[1], "fork") && argc == 3) {
		reads(n);
		child = fork();
		if (child < 0)
			return 1;
		reads(n);
		if (!child)
			_exit(0);
		waitpid(child, NULL, 0);
	} else if (!strcmp(argv[1], "exec") && argc >= 4) {
		reads(n);
		execv(argv[3], argv + 3);
		perror("workload: exec");
		return 1;
	} else if (!strcmp(argv[1], "forks") && argc == 3) {
		for (i = 0; i < n; i++) {
			child = fork();
			if (child < 0)
				return 1;
			if (!child)
				_exit(0);
			waitpid(child, NULL, 0);
		}
	} else if (!strcmp(argv[1], "forkspin") && argc == 2) {
		if (fork() < 0)
			return 1;
		for (;;)
			reads(1000);
	} else if (!strcmp(argv[1], "syscalls") && argc == 3) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "getsid") && argc == 3) {
		long failed = 0;
		int err = 0;

		for (i = 0; i < n; i++) {
			if (getsid(getpid()) < 0) {
				failed++;
				err = errno;
			}
		}
		printf("getsid: %ld failed, errno %d\n", failed, err);
	} else if (!strcmp(argv[1], "cmdline") && argc == 3) {
		return cmdline_reads(n);
	} else if (!strcmp(argv[1], "spin") && argc == 2) {
		for (;;)
			reads(1000);
	} else if (!strcmp(argv[1], "trickle") && argc == 2) {
		struct timespec pause = { 0, 1000000 };

		for (;;) {
			reads(10);
			nanosleep(&pause, NULL);
		}
	} else if (!strcmp(argv[1], "openspin") && argc == 2) {
		struct timespec pause = { 0, 10000000 };

		for (;;) {
			close(open("/dev/null", O_RDONLY | O_CLOEXEC));
			nanosleep(&pause, NULL);
		}
	} else if (!strcmp(argv[1], "toolspin") && argc == 2) {
		return toolspin();
	} else if (!strcmp(argv[1], "pingpong") && argc == 3) {
		return pingpong(n);
	} else {
		fprintf(stderr, "workload: bad arguments\n");
		return 2;
	}
	return 0;
}
