package main

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/scheduler"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
)

// newSchedulerCommand is `kubesim scheduler`: the scheduler alone, as its
// own process against a running API server, as kube-scheduler runs with
// --kubeconfig and --config. It is how the second scheduler of
// kubernetes.io's "Configure Multiple Schedulers" runs beside serve's:
// each binds only the pods whose schedulerName its profiles have, and when
// both have one, the API server lets one binding in and answers the other
// 409 Conflict, which the loser takes as "bound by someone else" (no
// event, no retry), so a pod is never bound twice. It runs no leader
// election (kube-scheduler's leaderElection): run one process per
// scheduler name, as the tutorial's second scheduler runs with
// leaderElect: false.
func newSchedulerCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scheduler --kubeconfig FILE [--config FILE]",
		Short: "run a scheduler as its own process against a running API server (kube-scheduler)",
		Long: `Run a scheduler as its own process against a running API server, as
kube-scheduler runs: its profiles come from a KubeSchedulerConfiguration
(--config), each binding the pods that name it in spec.schedulerName.
No leader election: run one process per scheduler name.`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the API server (default $KUBECONFIG)")
	configFile := fs.String("config", "", "a KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1, YAML or JSON); without it, one default-scheduler profile")
	verbose := fs.BoolP("v", "v", false, "log every decision's failures and conflicts")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if *kubeconfig == "" {
			return errors.New("scheduler: --kubeconfig (or $KUBECONFIG) is required")
		}
		cfg := schedconfig.Default()
		if *configFile != "" {
			var err error
			if cfg, err = schedconfig.Load(*configFile); err != nil {
				return err
			}
		}
		return runScheduler(cmd.Context(), schedulerRun{Kubeconfig: *kubeconfig, Config: cfg, Stdout: stdout, Log: stderr, Verbose: *verbose})
	}
	return cmd
}

// schedulerRun is one scheduler process: `kubesim scheduler`, or a pod of
// kube-scheduler's image (schedulerimage.go).
type schedulerRun struct {
	// Kubeconfig reaches the API server; Config holds the profiles and
	// extenders.
	Kubeconfig string
	Config     *schedconfig.Config
	// Stdout, when set, gets the line saying it runs; Log its log, at
	// debug level when Verbose.
	Stdout, Log io.Writer
	Verbose     bool
}

// runScheduler builds the scheduler of r's profiles and extenders and
// runs it until ctx ends.
func runScheduler(ctx context.Context, r schedulerRun) error {
	cfg := r.Config
	profiles, err := cfg.Profiles(schedconfig.NewInTreeRegistry())
	if err != nil {
		return err
	}
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.SchedulerName
	}
	cl, kc, _, err := kubeconfigClient("scheduler", r.Kubeconfig, "kube-scheduler/"+names[0])
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if r.Verbose {
		level = slog.LevelDebug
	}
	// Live mode: tie-breaks need not repeat, so the seed is random.
	var seed [16]byte
	_, _ = crand.Read(seed[:])
	exts, err := scheduler.NewExtenders(cfg.Extenders, scheduler.ExtenderOptions{Clock: clock.Real{}})
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	s, err := scheduler.New(scheduler.Config{Client: cl, Clock: clock.Real{}, Mode: runmode.Live, Extenders: exts,
		Rand:   mrand.New(mrand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))),
		Logger: slog.New(slog.NewTextHandler(r.Log, &slog.HandlerOptions{Level: level})), Profiles: profiles})
	if err != nil {
		return err
	}
	if r.Stdout != nil {
		fmt.Fprintf(r.Stdout, "scheduler running against %s with profiles %s; stop with Ctrl-C\n", kc.Server, strings.Join(names, ", "))
	}
	s.Run(ctx)
	return nil
}
