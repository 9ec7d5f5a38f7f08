// Package etcdtest starts a real, one-member etcd for tests: Debian's
// etcd-server binary (/usr/bin/etcd, which .ci/run and `make test`
// install) on free loopback ports, in a temporary data directory. Tests of
// kubesim's etcd backend and of `kubesim serve --etcd-servers` use a real
// etcd, never a mock.
//
// It simulates nothing of Kubernetes; its counterpart there is the
// integration framework's etcd starter (k8s.io/kubernetes/test/integration/
// framework). Left out: TLS, several members, authentication.
package etcdtest
