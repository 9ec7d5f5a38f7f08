// Command kubesim runs the kubesim control plane and its tools:
//
//	kubesim serve [--nodes N] [--controllers LIST] [--api-server-only] ...
//	kubesim demo [--step] [--lang zh]
//	kubesim scenario run|step|trace FILE...
//	kubesim run-controller NAME --kubeconfig FILE
//	kubesim scheduler --kubeconfig FILE [--config FILE]
//	kubesim extension-apiserver ...
//	kubesim help COMMAND | completion SHELL | version
//
// It plays the parts of the Kubernetes binaries, all in one process:
// kube-apiserver with kube-aggregator and the apiextensions-apiserver,
// kube-controller-manager, kube-scheduler and one kubelet per fake node
// (serve); a controller, a second scheduler or an extension API server
// run on its own (run-controller, scheduler, extension-apiserver); and the teaching tools that a real
// cluster has no counterpart for (demo, scenario).
//
// The command line is cobra's (github.com/spf13/cobra, flags by
// github.com/spf13/pflag), as kubectl's, kind's and helm's: each command
// is a cobra.Command with its own flags, `kubesim help COMMAND` and
// `COMMAND -h` print them, `kubesim completion bash|zsh|fish|powershell`
// writes a shell's completion script, flags may stand anywhere on the
// line (`--flag value` or `--flag=value`), and a misspelt command gets
// "Did you mean this?". `kubesim version` prints kubesim's version and
// the Kubernetes version its API server speaks. Left out of kubectl's
// conventions: plugins, and flags shared by every command (each command
// has only its own). A long flag after a single dash (`-nodes 2`), which
// the flag package these commands once used accepted, is still read as
// the long flag. The exit code is 0, 1 when a command fails or is given a
// bad flag or argument, 2 for no command, an unknown one, or a bad flag
// before any.
package main
