// Command kubesim runs the kubesim control plane and its tools:
//
//	kubesim serve [--nodes N] [--controllers LIST] [--api-server-only] ...
//	kubesim demo [--step] [--lang zh]
//	kubesim scenario run|step|trace FILE...
//	kubesim run-controller NAME --kubeconfig FILE
//	kubesim extension-apiserver ...
//
// It plays the parts of the Kubernetes binaries, all in one process:
// kube-apiserver with kube-aggregator and the apiextensions-apiserver,
// kube-controller-manager, kube-scheduler and one kubelet per fake node
// (serve); a controller or an extension API server run on its own
// (run-controller, extension-apiserver); and the teaching tools that a real
// cluster has no counterpart for (demo, scenario). Flags are parsed with
// the standard flag package, one FlagSet per subcommand.
package main
