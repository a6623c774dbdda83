// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, the worker processes, the members views are made of: their
 * side of the driver's commands, and the driver's side (spawn, command,
 * reap).  See kview-stress.c for what the stress does and stress.h for
 * what the parts share.
 */
#include "stress.h"

char self_exe[PATH_MAX];

int msg_send(int sock, int type, int arg, int pid, int err, int fd)
{
	struct wmsg m = { type, arg, pid, err };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == sizeof(m) ? 0 : -errno;
}

/* 0, -ETIMEDOUT, -EPIPE (the peer is gone) or another -errno. */
int msg_recv(int sock, struct wmsg *m, int timeout_ms, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct pollfd p = { sock, POLLIN, 0 };
	struct cmsghdr *c;
	ssize_t n;
	int r;

	if (fd)
		*fd = -1;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (!r)
		return -ETIMEDOUT;
	if (r < 0)
		return -errno;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (!n || (n < 0 && errno == ECONNRESET))
		return -EPIPE;
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int got;

			memcpy(&got, CMSG_DATA(c), sizeof(int));
			if (fd)
				*fd = got;
			else
				close(got);
		}
	}
	return n == sizeof(*m) ? 0 : -EPROTO;
}

/* The worker's side: its threads and the state they share. */
struct stress_worker_side ws;

void w_reads(long n)
{
	char buf[MARK_SIZE];

	while (n-- > 0)
		if (read(ws.zero_fd, buf, MARK_SIZE) != MARK_SIZE)
			_exit(3);
}

/* What a worker does in a loop: a batch of marked reads, a getppid(). */
void w_batch(void)
{
	w_reads(10);
	syscall(SYS_getppid);
	usleep(2000);
}

void *w_thread(void *arg)
{
	unsigned int gen = (uintptr_t)arg;

	pthread_mutex_lock(&ws.lock);
	for (;;) {
		if (ws.exit_one) {
			ws.exit_one = false;
			ws.nthreads--;
			pthread_cond_broadcast(&ws.cond);
			pthread_mutex_unlock(&ws.lock);
			return NULL;
		}
		if (gen != ws.gen) {
			unsigned int n = ws.count;

			gen = ws.gen;
			pthread_mutex_unlock(&ws.lock);
			w_reads(n);
			pthread_mutex_lock(&ws.lock);
			ws.done++;
			pthread_cond_broadcast(&ws.cond);
			continue;
		}
		if (ws.run) {
			pthread_mutex_unlock(&ws.lock);
			w_batch();
			pthread_mutex_lock(&ws.lock);
			continue;
		}
		ws.parked++;
		pthread_cond_broadcast(&ws.cond);
		pthread_cond_wait(&ws.cond, &ws.lock);
		ws.parked--;
	}
}

void w_reply(int arg, int pid, int err, int fd)
{
	if (msg_send(ws.sock, MSG_ACK, arg, pid, err, fd))
		_exit(4);
}

void w_init(int sock, bool run)
{
	pthread_mutex_init(&ws.lock, NULL);
	pthread_cond_init(&ws.cond, NULL);
	ws.sock = sock;
	ws.run = run;
	ws.exit_one = false;
	ws.gen = ws.count = ws.done = ws.parked = ws.nthreads = 0;
	if (msg_send(sock, MSG_READY, 0, getpid(), 0, -1))
		_exit(4);
}

void w_command(struct wmsg *m)
{
	char fdstr[16];
	pthread_t tid;
	int sv[2];
	pid_t pid;

	switch (m->type) {
	case CMD_RUN:
		pthread_mutex_lock(&ws.lock);
		ws.run = m->arg;
		pthread_cond_broadcast(&ws.cond);
		while (!ws.run && ws.parked < ws.nthreads)
			pthread_cond_wait(&ws.cond, &ws.lock);
		pthread_mutex_unlock(&ws.lock);
		w_reply(ws.nthreads + 1, 0, 0, -1);
		break;
	case CMD_READS:
		pthread_mutex_lock(&ws.lock);
		ws.count = m->arg;
		ws.done = 0;
		ws.gen++;
		pthread_cond_broadcast(&ws.cond);
		pthread_mutex_unlock(&ws.lock);
		w_reads(m->arg);
		pthread_mutex_lock(&ws.lock);
		while (ws.done < ws.nthreads)
			pthread_cond_wait(&ws.cond, &ws.lock);
		pthread_mutex_unlock(&ws.lock);
		w_reply(ws.nthreads + 1, 0, 0, -1);
		break;
	case CMD_THREAD_ADD:
		pthread_mutex_lock(&ws.lock);
		ws.nthreads++;
		if (pthread_create(&tid, NULL, w_thread, (void *)(uintptr_t)ws.gen)) {
			ws.nthreads--;
			pthread_mutex_unlock(&ws.lock);
			w_reply(ws.nthreads + 1, 0, EAGAIN, -1);
			break;
		}
		pthread_detach(tid);
		/* Paused: wait until it parked, so that a pause holds. */
		while (!ws.run && ws.parked < ws.nthreads)
			pthread_cond_wait(&ws.cond, &ws.lock);
		pthread_mutex_unlock(&ws.lock);
		w_reply(ws.nthreads + 1, 0, 0, -1);
		break;
	case CMD_THREAD_DEL:
		pthread_mutex_lock(&ws.lock);
		if (!ws.nthreads) {
			pthread_mutex_unlock(&ws.lock);
			w_reply(1, 0, ENOENT, -1);
			break;
		}
		ws.exit_one = true;
		pthread_cond_broadcast(&ws.cond);
		while (ws.exit_one)
			pthread_cond_wait(&ws.cond, &ws.lock);
		pthread_mutex_unlock(&ws.lock);
		w_reply(ws.nthreads + 1, 0, 0, -1);
		break;
	case CMD_FORK:
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
			w_reply(0, 0, errno, -1);
			break;
		}
		pid = fork();
		if (pid < 0) {
			w_reply(0, 0, errno, -1);
			close(sv[0]);
			close(sv[1]);
			break;
		}
		if (!pid) {
			/* Only this thread came along: a fresh worker. */
			close(sv[0]);
			close(ws.sock);
			w_init(sv[1], ws.run);
			break;
		}
		close(sv[1]);
		w_reply(0, pid, 0, sv[0]);
		close(sv[0]);
		break;
	case CMD_EXEC: {
		char *argv[] = { "kview-stress", "--worker", fdstr,
				 ws.run ? "1" : "0", NULL };

		snprintf(fdstr, sizeof(fdstr), "%d", ws.sock);
		execv(self_exe, argv);
		w_reply(0, 0, errno, -1);
		break;
	}
	case CMD_EXIT:
		_exit(0);
	default:
		w_reply(0, 0, EINVAL, -1);
	}
}

int worker_main(int sock, bool run)
{
	struct pollfd p = { sock, POLLIN, 0 };
	struct wmsg m;
	ssize_t n;

	/* Our children are reaped for us; the driver reaps orphans. */
	signal(SIGCHLD, SIG_IGN);
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0)
		_exit(5);
	ws.zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (ws.zero_fd < 0)
		_exit(5);
	w_init(sock, run);
	for (;;) {
		p.fd = ws.sock;
		if (poll(&p, 1, ws.run ? 0 : -1) > 0) {
			n = recv(ws.sock, &m, sizeof(m), 0);
			if (n <= 0)
				_exit(0);	/* the driver is gone */
			if (n == sizeof(m))
				w_command(&m);
			continue;
		}
		if (ws.run)
			w_batch();
	}
}
