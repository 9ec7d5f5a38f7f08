package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/scheduler/app"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
)

// TutorialSchedulerImage is the image kubernetes.io's "Configure Multiple
// Schedulers" builds from kube-scheduler's binary and deploys as
// my-scheduler.
const TutorialSchedulerImage = "gcr.io/my-gcp-project/my-kube-scheduler:1.0"

// kubeSchedulerImage is the repository of kube-scheduler's released
// images; schedulerImages runs those of kubesim's Kubernetes minor, 1.32.
const kubeSchedulerImage = "registry.k8s.io/kube-scheduler"

// schedulerImages are the images whose pods run kubesim's scheduler in
// the kubelet's process (kubelet.LocalImages.InProcess): kube-scheduler's
// of v1.32.0 to v1.32.12 and the tutorial's. Such a pod is a second
// scheduler as the tutorial deploys it: its configuration is the file
// --config names in the container (a mounted ConfigMap), it acts as the
// pod's service account (the in-cluster configuration, so RBAC decides
// what it may do), its log is the container's, and a configuration it
// cannot read ends it with kube-scheduler's message (CrashLoopBackOff).
func schedulerImages() map[string]kubelet.InProcessMain {
	images := map[string]kubelet.InProcessMain{TutorialSchedulerImage: kubeSchedulerMain}
	for patch := 0; patch <= 12; patch++ {
		images[fmt.Sprintf("%s:v1.32.%d", kubeSchedulerImage, patch)] = kubeSchedulerMain
	}
	return images
}

// kubeSchedulerMain is kube-scheduler's binary in a pod: its flags, the
// configuration read from the container's files, the scheduler run until
// the container is stopped. Exit code 1 and the "command failed" line of
// kube-scheduler's log (component-base's cli.Run) when it cannot start.
//
// It always uses the in-cluster configuration: a --kubeconfig or
// clientConnection.kubeconfig naming a file in the container is refused,
// rather than silently ignored.
func kubeSchedulerMain(ctx context.Context, r kubelet.InProcessRun) int {
	fail := func(err error) int {
		// klog's header: severity, date, time, thread id, file:line.
		fmt.Fprintf(r.Stdout, "E%s       1 run.go:72] \"command failed\" err=%q\n", time.Now().UTC().Format("0102 15:04:05.000000"), err.Error())
		return 1
	}
	fs := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	configFile := fs.String("config", "", "the path to the configuration file")
	kubeconfig := fs.String("kubeconfig", "", "path to kubeconfig file with authorization and master location information")
	verbosity := fs.IntP("v", "v", 0, "number for the log level verbosity")
	// Flags a manifest commonly gives that change nothing here: kubesim's
	// scheduler serves no health or metrics port and runs no election.
	fs.String("bind-address", "0.0.0.0", "the IP address on which to listen for the --secure-port port")
	fs.Int("secure-port", 10259, "the port on which to serve HTTPS")
	fs.String("authentication-kubeconfig", "", "kubeconfig of the token review API")
	fs.String("authorization-kubeconfig", "", "kubeconfig of the subject access review API")
	fs.Bool("leader-elect", true, "start a leader election client and gain leadership before executing the main loop")
	fs.Bool("profiling", true, "enable profiling via web interface host:port/debug/pprof/")
	if err := fs.Parse(r.Args); err != nil {
		return fail(err)
	}
	if *kubeconfig != "" {
		return fail(errors.New("--kubeconfig: kubesim runs kube-scheduler's image with the pod's in-cluster configuration only"))
	}
	cfg := schedconfig.Default()
	if *configFile != "" {
		data, ok := r.Files.ReadFile(*configFile)
		if !ok {
			return fail(fmt.Errorf("open %s: no such file or directory", *configFile))
		}
		var err error
		if cfg, err = schedconfig.Decode(data, *configFile); err != nil {
			return fail(err)
		}
		if cfg.KubeSchedulerConfiguration.ClientConnection.Kubeconfig != "" {
			return fail(errors.New("clientConnection.kubeconfig: kubesim runs kube-scheduler's image with the pod's in-cluster configuration only"))
		}
	}
	err := app.Run(ctx, app.RunConfig{Kubeconfig: r.Getenv("KUBECONFIG"), Config: cfg, Log: r.Stdout, Verbose: *verbosity >= 4})
	if err != nil {
		return fail(err)
	}
	return 0
}
