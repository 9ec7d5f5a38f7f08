// Package leaderelection elects one leader among several copies of a
// component through a coordination.k8s.io/v1 Lease, as
// k8s.io/client-go/tools/leaderelection does for kube-controller-manager
// and kube-scheduler (the LeaseLock): the holder writes its identity and
// renew time into the Lease every RetryPeriod; another candidate takes the
// Lease over only when it has seen no renewal for LeaseDuration; every
// write carries the resourceVersion it read, so of two candidates racing
// for an expired Lease exactly one wins (the other gets a 409 Conflict).
//
// Left out: the ConfigMap and Endpoints locks, multilock, jitter on the
// retry period (kubesim's runs repeat), the health-check adaptor,
// coordinated leader election (LeaseCandidate objects) and the
// preferredHolder/strategy fields.
package leaderelection
