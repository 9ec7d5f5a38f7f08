// Command kubesim runs the kubesim control plane and its tools:
//
//	kubesim serve  --data-dir DIR --addr HOST:PORT --kubeconfig FILE
//	kubesim demo
//
// It plays the parts of the kube-apiserver (and, as later issues add them,
// kube-controller-manager, kube-scheduler and the kubelets) binaries, all
// in one process. Flags are parsed with the standard flag package, one
// FlagSet per subcommand.
package main
