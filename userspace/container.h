/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --container NAME|ID: what an OCI runtime (crun, runc) says of its
 * containers, read into the cgroup of one (userspace/container.c).  The
 * pieces that need no runtime, for tests/host/container-match.
 */
#ifndef KVIEW_CONTAINER_H
#define KVIEW_CONTAINER_H

#include <stddef.h>
#include <sys/types.h>

#include "json-read.h"

/* The OCI runtime kview asks unless --runtime or KVIEW_OCI_RUNTIME says. */
#define OCI_RUNTIME_DEFAULT "crun"

/*
 * In @list, what `@runtime list --format json` printed (an array of
 * objects with a string "id"; null for none, as runc prints it): the id
 * that is @name, or else the only one that begins with @name.  0 and *@id
 * (in @list); -1 with a one-line reason in @why: no such container, an
 * ambiguous prefix (the candidates named), not a list of containers.
 */
int container_match(const struct jr_value *list, const char *name, const char *runtime,
		    const char **id, char *why, size_t whysz);

/*
 * From @state, what `@runtime state @id` printed: the init pid of a
 * container that has processes (its status running, paused, or created:
 * made, its process waiting to be started).  0 and *@pid; -1 with a
 * one-line reason in @why (stopped, no pid, not a state).
 */
int container_pid(const struct jr_value *state, const char *id, const char *runtime,
		  pid_t *pid, char *why, size_t whysz);

/*
 * From @proc_cgroup, the text of a /proc/PID/cgroup: the process's cgroup
 * v2 directory (its "0::" line) under @mount (/sys/fs/cgroup), malloc()ed
 * in *@path.  -1 with a reason in @why: no cgroup v2 line (cgroup v1
 * only), a removed cgroup, one outside the reader's cgroup namespace.
 */
int cgroup_v2_path(const char *proc_cgroup, const char *mount, char **path,
		   char *why, size_t whysz);

#endif
