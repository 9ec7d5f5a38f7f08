// Package app builds the `kubesim scheduler` command, kubesim's
// kube-scheduler run as its own process against a running API server,
// as an importable package, so that a program can build a scheduler
// binary with plugins of its own: kube-scheduler's cmd/kube-scheduler/app
// and its NewSchedulerCommand(registryOptions ...Option) with
// WithPlugin(name, factory), the way out-of-tree plugins (the
// scheduler-plugins project's coscheduling...) are compiled into a
// scheduler. A plugin added with WithPlugin is known to the
// KubeSchedulerConfiguration (--config) by its name, beside the in-tree
// ones; a configuration that enables a plugin neither has is refused
// with kube-scheduler's message ("PermitPlugin \"X\" does not exist").
//
// Left out: kube-scheduler's other flags (leader election, secure
// serving of /metrics and /healthz, feature gates), and its
// component-base options.
package app
