// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, notes, violations and their recap at the end, the clock.
 * See kview-stress.c for what the stress does and stress.h for what the
 * parts share.
 */
#include "stress.h"

pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
bool verbose;
long violations;
double t_start;

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void vsay(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&out_lock);
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
	pthread_mutex_unlock(&out_lock);
}

__attribute__((format(printf, 1, 2)))
void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(stdout, "", fmt, ap);
	va_end(ap);
}

/* A note (stderr, TAP's "# "). */
__attribute__((format(printf, 1, 2)))
void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(stderr, "# ", fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 1, 2)))
void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vsay(stdout, "", fmt, ap);
	va_end(ap);
}

char *recap[RECAP];

__attribute__((format(printf, 1, 2)))
void violation(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	pthread_mutex_lock(&out_lock);
	if (violations < RECAP && msg)
		recap[violations] = strdup(msg);
	violations++;
	printf("# VIOLATION: %s\n", msg ? msg : fmt);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	free(msg);
}

const char *err_name(int err)
{
	static __thread char buf[32];

	switch (err) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENOSPC: return "ENOSPC";
	case ENOMEM: return "ENOMEM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EILSEQ: return "EILSEQ";
	case ENODEV: return "ENODEV";
	case EPIPE: return "EPIPE";
	case ETIMEDOUT: return "ETIMEDOUT";
	case E2BIG: return "E2BIG";
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* The command name of @pid, for the violation lines. */
const char *comm_of(pid_t pid)
{
	static __thread char buf[64];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "(gone)";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return "(?)";
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}
