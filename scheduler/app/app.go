package app

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/scheduler"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
)

// Option changes what NewSchedulerCommand builds (kube-scheduler's
// app.Option).
type Option func(*options) error

type options struct {
	registry       schedconfig.Registry
	stdout, stderr io.Writer
	args           cobra.PositionalArgs
}

// WithPlugin adds an out-of-tree plugin to the registry, by the name a
// configuration enables it with (kube-scheduler's app.WithPlugin). A
// name already taken is an error when the command runs.
func WithPlugin(name string, factory schedconfig.PluginFactory) Option {
	return func(o *options) error { return o.registry.Register(name, factory) }
}

// WithOutput sends the command's messages to stdout and its log to
// stderr (os.Stdout and os.Stderr by default).
func WithOutput(stdout, stderr io.Writer) Option {
	return func(o *options) error {
		o.stdout, o.stderr = stdout, stderr
		return nil
	}
}

// WithArgs checks the command's arguments (cobra.NoArgs by default): a
// program that words its usage errors its own way passes its check.
func WithArgs(args cobra.PositionalArgs) Option {
	return func(o *options) error {
		o.args = args
		return nil
	}
}

// NewSchedulerCommand is `scheduler --kubeconfig FILE [--config FILE]`:
// the scheduler alone, as its own process against a running API server,
// as kube-scheduler runs with --kubeconfig and --config, with the in-tree
// plugins and those of opts. It is how the second scheduler of
// kubernetes.io's "Configure Multiple Schedulers" runs beside serve's:
// each binds only the pods whose schedulerName its profiles have, and when
// both have one, the API server lets one binding in and answers the other
// 409 Conflict, which the loser takes as "bound by someone else" (no
// event, no retry), so a pod is never bound twice. It runs no leader
// election (kube-scheduler's leaderElection): run one process per
// scheduler name, as the tutorial's second scheduler runs with
// leaderElect: false.
func NewSchedulerCommand(opts ...Option) *cobra.Command {
	o := &options{registry: schedconfig.NewInTreeRegistry(), stdout: os.Stdout, stderr: os.Stderr, args: cobra.NoArgs}
	var optErr error
	for _, opt := range opts {
		if err := opt(o); err != nil && optErr == nil {
			optErr = err
		}
	}
	cmd := &cobra.Command{
		Use:   "scheduler --kubeconfig FILE [--config FILE]",
		Short: "run a scheduler as its own process against a running API server (kube-scheduler)",
		Long: `Run a scheduler as its own process against a running API server, as
kube-scheduler runs: its profiles come from a KubeSchedulerConfiguration
(--config), each binding the pods that name it in spec.schedulerName.
No leader election: run one process per scheduler name.`,
		Args: o.args,
	}
	fs := cmd.Flags()
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the API server (default $KUBECONFIG)")
	configFile := fs.String("config", "", "a KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1, YAML or JSON); without it, one default-scheduler profile")
	verbose := fs.BoolP("v", "v", false, "log every decision's failures and conflicts")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if optErr != nil {
			return fmt.Errorf("scheduler: %w", optErr)
		}
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
		return Run(cmd.Context(), RunConfig{Kubeconfig: *kubeconfig, Config: cfg, Registry: o.registry,
			Stdout: o.stdout, Log: o.stderr, Verbose: *verbose})
	}
	return cmd
}

// RunConfig is one scheduler process: the command's, or a pod of
// kube-scheduler's image run by the kubelet in process.
type RunConfig struct {
	// Kubeconfig reaches the API server; Config holds the profiles and
	// extenders; Registry the plugins they may name (nil: the in-tree
	// ones).
	Kubeconfig string
	Config     *schedconfig.Config
	Registry   schedconfig.Registry
	// Stdout, when set, gets the line saying it runs; Log its log, at
	// debug level when Verbose.
	Stdout, Log io.Writer
	Verbose     bool
}

// Run builds the scheduler of r's profiles and extenders and runs it
// until ctx ends.
func Run(ctx context.Context, r RunConfig) error {
	reg := r.Registry
	if reg == nil {
		reg = schedconfig.NewInTreeRegistry()
	}
	profiles, err := r.Config.Profiles(reg)
	if err != nil {
		return err
	}
	kc, err := pki.LoadKubeconfig(r.Kubeconfig)
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	tlsCfg, err := kc.TLSConfig()
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.SchedulerName
	}
	cl, err := client.New(client.Config{Server: kc.Server, Token: kc.Token, Transport: &http.Transport{TLSClientConfig: tlsCfg},
		UserAgent: "kube-scheduler/" + names[0]})
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	level := slog.LevelInfo
	if r.Verbose {
		level = slog.LevelDebug
	}
	// Live mode: tie-breaks need not repeat, so the seed is random.
	var seed [16]byte
	_, _ = crand.Read(seed[:])
	exts, err := scheduler.NewExtenders(r.Config.Extenders, scheduler.ExtenderOptions{Clock: clock.Real{}})
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	logOut := r.Log
	if logOut == nil {
		logOut = io.Discard
	}
	s, err := scheduler.New(scheduler.Config{Client: cl, Clock: clock.Real{}, Mode: runmode.Live, Extenders: exts,
		Rand:   mrand.New(mrand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))),
		Logger: slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level})), Profiles: profiles})
	if err != nil {
		return err
	}
	if r.Stdout != nil {
		fmt.Fprintf(r.Stdout, "scheduler running against %s with profiles %s; stop with Ctrl-C\n", kc.Server, strings.Join(names, ", "))
	}
	s.Run(ctx)
	return nil
}
