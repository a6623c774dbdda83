// SPDX-License-Identifier: GPL-2.0
/*
 * A tracepoint defined in a module (samples/trace_events, loaded by the
 * test): kernel views copy core kernel text only, so kview attach must
 * refuse it in a view (EOPNOTSUPP), never attach it globally instead.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

int hits;

SEC("tracepoint/sample-trace/foo_bar")
int module_tp(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}
