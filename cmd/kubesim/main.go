package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func usage(w io.Writer) {
	fmt.Fprintln(w, `kubesim — a Kubernetes control plane small enough to read

Usage:
  kubesim serve [flags]   run the API server over HTTPS (kubectl works against it);
                          --etcd-servers URL[,URL] stores in etcd instead of DATA-DIR,
                          --leader-elect runs the controllers only in the Lease holder
  kubesim demo [--step]   tell the ReplicaSet story in process, step by step
                          (--lang zh: the notes in Chinese)
  kubesim scenario run|step|trace FILE...
                          run a scenario file as a test, step through it, or print its trace
  kubesim run-controller NAME --kubeconfig FILE
                          run one controller as its own process against an API server
  kubesim kubelet --nodes N --kubeconfig FILE [--server URL[,URL]] [--address IP] [--port P]
                          run fake kubelets as their own process (nodes outlive an API server),
                          each serving the kubelet API (logs, exec) on its own port
  kubesim extension-apiserver --requestheader-client-ca-file FILE [flags]
                          run the sample extension API server (wardle.example.com) on its own
  kubesim webhook [--cert-dir DIR] [--port PORT]
                          run the User CRD's admission webhook (defaulting, validation) over HTTPS
  kubesim kubeconfig --user NAME [--group GROUP]... [--data-dir DIR] [--out FILE]
                          write a kubeconfig with a client certificate for a user
  kubesim audit --log FILE [--user NAME] [--code N]
                          read serve's audit log: who did what, and the answer
  kubesim store check [--accept-meta-rollback] DATA_DIR
                          check a data file (pages, records, values) without changing it
  kubesim store export [--skip-damaged] DATA_DIR|--etcd-servers URL[,URL] FILE
                          snapshot every key of a data dir or of etcd to FILE (JSON lines);
                          --skip-damaged: every key of a damaged data dir that can still be read
  kubesim store import FILE DATA_DIR|--etcd-servers URL[,URL]
                          copy a snapshot into an empty data dir or etcd prefix

Run "kubesim COMMAND -h" for the flags of a command.`)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runWithInput(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process and with nothing on stdin: tests call
// it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWithInput(ctx, args, strings.NewReader(""), stdout, stderr)
}

// runWithInput is main without the process; stdin feeds the interactive
// commands (scenario step, demo --step).
func runWithInput(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stdout, stderr)
	case "demo":
		err = demo(ctx, args[1:], stdin, stdout, stderr)
	case "scenario":
		err = scenarioCmd(ctx, args[1:], stdin, stdout, stderr)
	case "run-controller":
		err = runController(ctx, args[1:], stdout, stderr)
	case "kubelet":
		err = kubeletCmd(ctx, args[1:], stdout, stderr)
	case "extension-apiserver":
		err = extensionAPIServer(ctx, args[1:], stdout, stderr)
	case "webhook":
		err = webhookCmd(ctx, args[1:], stdout, stderr)
	case "store":
		err = storeCmd(ctx, args[1:], stdout, stderr)
	case "kubeconfig":
		err = kubeconfigCmd(ctx, args[1:], stdout, stderr)
	case "audit":
		err = auditCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "kubesim: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if errors.Is(err, errFailed) {
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "kubesim:", err)
		return 1
	}
	return 0
}
