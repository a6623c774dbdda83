// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, random numbers (splitmix64, one state per actor) and
 * files.  See kview-stress.c for what the stress does and stress.h for
 * what the parts share.
 */
#include "stress.h"

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int rnd(struct rng *r, unsigned int n)
{
	return n ? rng_next(r) % n : 0;
}

void rng_seed(struct rng *r, uint64_t seed, unsigned int idx)
{
	r->s = seed ^ (0xd1b54a32d192ed03ULL * (idx + 1));
	rng_next(r);
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

int write_file(const char *path, const char *s, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* The whole of a (small) file, malloc'ed, or NULL. */
char *read_all(const char *path)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

long read_long(const char *path, long def)
{
	char *s = read_all(path);
	long v = def;

	if (s && sscanf(s, "%ld", &v) != 1)
		v = def;
	free(s);
	return v;
}
