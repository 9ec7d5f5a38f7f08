package shell

import "time"

// How long the container's side of a connection waits for an answer that
// never comes (a NetworkPolicy drops the packets): the kernel's, the C
// library's resolver's and busybox's own timeouts. They pass on the
// shell's clock, so a simulated container's run skips them and a test's
// fake clock decides when they end.
const (
	// connectTimeout is how long Linux retries an unanswered TCP
	// connect: 1+2+4+...+64 seconds with net.ipv4.tcp_syn_retries=6,
	// then ETIMEDOUT ("Connection timed out").
	connectTimeout = 127 * time.Second
	// resolverTimeout is how long the resolver waits for an unreachable
	// DNS server: resolv.conf's defaults, timeout:5 and attempts:2.
	resolverTimeout = 10 * time.Second
	// nslookupTimeout is busybox nslookup's own (its default timeout of
	// 5 seconds, over its tries).
	nslookupTimeout = 5 * time.Second
	// wgetDefaultTimeout is busybox wget's -T when not given (900 s);
	// the connect gives up first.
	wgetDefaultTimeout = 900 * time.Second
)
