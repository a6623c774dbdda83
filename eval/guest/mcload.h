/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The untraced load of the memcached experiments (eval/guest/memcached.c,
 * eval/guest/tools.c): Debian's memcached, one worker thread on
 * 127.0.0.1:MC_PORT, driven over loopback by Debian's memcaslap
 * (libmemcached-tools) for a number of guest seconds.
 */
#ifndef KVIEW_EVAL_MCLOAD_H
#define KVIEW_EVAL_MCLOAD_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "evalutil.h"

#define MC_PORT 11211

/*
 * The traced processes' own TCP over loopback: a listener on 127.0.0.1
 * (its ephemeral address in *@a), and connections to it (*@c the client
 * end, *@s the accepted one, both TCP_NODELAY).
 */
static inline int loopback_listen(struct sockaddr_in *a)
{
	socklen_t alen = sizeof(*a);
	int lfd;

	*a = (struct sockaddr_in){ .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	check(lfd >= 0 && !bind(lfd, (void *)a, sizeof(*a)) && !listen(lfd, 4) &&
	      !getsockname(lfd, (void *)a, &alen), "traced: listen: %s", strerror(errno));
	return lfd;
}

static inline void loopback_connect(int lfd, const struct sockaddr_in *a, int *c, int *s)
{
	int one = 1;

	*c = socket(AF_INET, SOCK_STREAM, 0);
	check(*c >= 0 && !connect(*c, (const void *)a, sizeof(*a)), "traced: connect: %s",
	      strerror(errno));
	*s = accept(lfd, NULL, NULL);
	check(*s >= 0, "traced: accept: %s", strerror(errno));
	setsockopt(*c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(*s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* memcached's command line (tools.c runs it in a container too). */
#define MC_STR_(x) #x
#define MC_STR(x) MC_STR_(x)
#define MEMCACHED_ARGV { "memcached", "-u", "root", "-l", "127.0.0.1", "-p", MC_STR(MC_PORT), \
			 "-U", "0", "-t", "1", "-m", "64", NULL }

/* Wait until memcached (@pid, for the message) listens on MC_PORT. */
static inline void memcached_wait_listening(pid_t pid)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(MC_PORT) };
	int i, fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < 1000; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		check(fd >= 0, "socket: %s", strerror(errno));
		if (!connect(fd, (void *)&a, sizeof(a))) {
			close(fd);
			return;
		}
		close(fd);
		usleep(10000);
	}
	fail("memcached (pid %d) did not listen on 127.0.0.1:%d in 10 s", pid, MC_PORT);
}

static inline pid_t start_memcached(void)
{
	char *argv[] = MEMCACHED_ARGV;
	pid_t pid;

	pid = fork();
	check(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "exec memcached: %s\n", strerror(errno));
		_exit(127);
	}
	memcached_wait_listening(pid);
	return pid;
}

/*
 * Run memcaslap for @seconds; its reported ops and TPS, its CPU time, and
 * its rusage in @ru.
 */
static inline void run_memcaslap_ru(int seconds, unsigned long long *ops,
				    unsigned long long *tps, long long *cpu_ns,
				    struct rusage *ru)
{
	char server[32], time_arg[16], out[8192];
	char *argv[] = { "memcaslap", "-s", server, "-t", time_arg, "-T", "1",
			 "-c", "8", "-w", "1k", NULL };
	const char *p;
	size_t len = 0;
	ssize_t n;
	int fds[2];
	pid_t pid;

	snprintf(server, sizeof(server), "127.0.0.1:%d", MC_PORT);
	snprintf(time_arg, sizeof(time_arg), "%ds", seconds);
	check(!pipe(fds), "pipe: %s", strerror(errno));
	pid = fork();
	check(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "exec memcaslap: %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fds[0]);
	*cpu_ns = reap_rusage(pid, 0, "memcaslap", ru);
	p = strstr(out, "Run time:");
	check(p && sscanf(p, "Run time: %*fs Ops: %llu TPS: %llu", ops, tps) == 2,
	      "memcaslap printed no result line:\n%s", out);
	check(*ops > 0 && *tps > 0, "memcaslap did no work:\n%s", out);
}

static inline void run_memcaslap(int seconds, unsigned long long *ops,
				 unsigned long long *tps, long long *cpu_ns)
{
	struct rusage ru;

	run_memcaslap_ru(seconds, ops, tps, cpu_ns, &ru);
}

#endif
