package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/serving"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cmd/kubesim/app"
	"github.com/kubesim/kubesim/pki"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
)

// newServeCommand is `kubesim serve`: the whole control plane in one
// process, over HTTPS, until interrupted.
func newServeCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "run the API server over HTTPS (kubectl works against it)",
		Long: `Run the API server over HTTPS, with the controllers, the scheduler and
one fake kubelet per node: kubectl works against it. --etcd-servers
URL[,URL] stores in etcd instead of DATA-DIR; --leader-elect runs the
controllers only in the Lease holder.`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	dataDir := fs.String("data-dir", ".data", "directory for the store (unless --etcd-servers), certificates, tokens and kubeconfig")
	addr := fs.String("addr", "127.0.0.1:6443", "address to listen on (port 0 picks a free port)")
	kubeconfig := fs.String("kubeconfig", "", "where to write a kubeconfig for kubectl (default DATA-DIR/kubeconfig)")
	tokenFile := fs.String("token-file", "", "extra users, in kube-apiserver's token CSV format (token,user,uid,\"group1,group2\")")
	noFsync := fs.Bool("unsafe-no-fsync", false, "UNSAFE: do not fsync the store; acknowledged writes can be lost on a crash (demos only)")
	nodes := fs.Int("nodes", 3, "number of fake nodes (one kubelet each)")
	apiOnly := fs.Bool("api-server-only", false, "run the API server alone, without controllers, scheduler or kubelets")
	ctrls := fs.String("controllers", "*", "controllers to run: \"*\" for all, \"-name\" to turn one off ("+strings.Join(cluster.ControllerNames, ", ")+")")
	stageDelay := fs.Duration("stage-delay", time.Second, "how long a pod spends in each kubelet stage (ContainerCreating, Running, Ready, and stopping its containers)")
	maxInFlight := fs.Int("max-requests-inflight", serving.DefaultMaxRequestsInFlight, "the most read-only requests served at once; beyond it clients get 429 with Retry-After (negative: no limit)")
	maxMutatingInFlight := fs.Int("max-mutating-requests-inflight", serving.DefaultMaxMutatingRequestsInFlight, "the most mutating requests served at once; beyond it clients get 429 with Retry-After (negative: no limit)")
	verbose := fs.BoolP("v", "v", false, "log every request")
	auditLogPath := fs.String("audit-log-path", "", "append an audit log to this file: one audit.k8s.io/v1 Event per request, as a JSON line")
	auditPolicyFile := fs.String("audit-policy-file", "", "an audit.k8s.io/v1 Policy choosing each request's level (None, Metadata, Request, RequestResponse); without it every request is logged at Metadata")
	authzMode := fs.String("authorization-mode", authz.ModeNode+","+authz.ModeRBAC, "authorizers asked in order, comma separated: Node (kubelets keep to their own node), RBAC (roles and bindings decide; the admin token is in system:masters), AlwaysAllow")
	anonymous := fs.Bool("anonymous-auth", false, "let requests without credentials in as system:anonymous (group system:unauthenticated); authorization then decides")
	webUI := fs.Bool("ui", true, "serve the web page at /ui/ on the same port, behind the same authentication (a one-time login link is printed)")
	etcd := addEtcdFlags(fs)
	le := addLeaderElectFlags(fs)
	nodeGrace := fs.Duration("node-monitor-grace-period", 40*time.Second, "how long a node's kubelet may be silent before its node is Unknown and tainted unreachable (kube-controller-manager's flag)")
	notReadySeconds := fs.Int64("default-not-ready-toleration-seconds", 300, "the tolerationSeconds every pod gets for the node.kubernetes.io/not-ready:NoExecute taint, unless it tolerates it itself (kube-apiserver's flag)")
	unreachableSeconds := fs.Int64("default-unreachable-toleration-seconds", 300, "the tolerationSeconds every pod gets for the node.kubernetes.io/unreachable:NoExecute taint, unless it tolerates it itself (kube-apiserver's flag)")
	schedulerConfig := fs.String("scheduler-config", "", "a KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1, YAML or JSON, as kube-scheduler's --config): the scheduler's profiles, their plugins, weights and plugin args; a pod naming a scheduler no profile has stays Pending")
	localImages := localImageFlag{}
	cniFlags := addCNIFlags(fs)
	devicePlugins := addDevicePluginFlag(fs)
	memLimit := &memoryLimitFlag{}
	listBudget := &listBudgetFlag{}
	fs.Var(listBudget, "list-memory-budget", "the memory LIST requests may hold at once, a quantity such as 512Mi: a list the budget cannot take is answered 429 with Retry-After, and the control plane's own components keep a quarter for themselves (default: a quarter of --memory-limit, else 512Mi)")
	fs.Var(memLimit, "memory-limit", "Go's soft memory limit, a quantity such as 3.5Gi (as GOMEMLIMIT): the garbage collector works harder as the heap nears it, so the peak stays near it instead of twice the live heap (default: none)")
	fs.Var(localImages, "local-image", "NAME=PATH: a pod whose container image is NAME runs the binary PATH as a process of its kubelet, as `kind load docker-image` makes a locally built image runnable (repeatable; docs/containers.md)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		cniCfg, err := cniFlags.config()
		if err != nil {
			return err
		}
		if *notReadySeconds < 0 || *unreachableSeconds < 0 {
			return errors.New("--default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds must not be negative")
		}
		// A bad scheduler configuration stops serve before anything
		// starts, as it stops kube-scheduler.
		var schedCfg *schedconfig.Config
		if *schedulerConfig != "" {
			if schedCfg, err = schedconfig.Load(*schedulerConfig); err != nil {
				return err
			}
			if _, err := schedCfg.Profiles(schedconfig.NewInTreeRegistry()); err != nil {
				return err
			}
		}
		level := slog.LevelInfo
		if *verbose {
			level = slog.LevelDebug
		}
		logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
		memLimit.apply()

		srv, err := app.Start(ctx, app.Options{
			DataDir: *dataDir, Addr: *addr, Kubeconfig: *kubeconfig, TokenFile: *tokenFile,
			UnsafeNoFsync: *noFsync, Nodes: *nodes, APIServerOnly: *apiOnly, Controllers: *ctrls,
			StageDelay: *stageDelay, MaxRequestsInFlight: *maxInFlight, MaxMutatingRequestsInFlight: *maxMutatingInFlight,
			ListMemoryBudget: listBudget.budget(memLimit),
			ControllerImages: controllerImages(), Logger: logger, AuthorizationMode: *authzMode,
			AuditLogPath: *auditLogPath, AuditPolicyFile: *auditPolicyFile,
			NodeMonitorGracePeriod: *nodeGrace, DefaultNotReadyTolerationSeconds: notReadySeconds, DefaultUnreachableTolerationSeconds: unreachableSeconds,
			Etcd: etcd.options(), AnonymousAuth: *anonymous, NoUI: !*webUI, LeaderElection: le.config(),
			LocalImages: localImages, InProcessImages: schedulerImages(), CNI: cniCfg, DevicePlugins: devicePlugins.config(),
			// Every node's kubelet watches DATA-DIR/kubelet/NODE/plugins_registry
			// for CSI drivers (`kubesim csi-driver`, docs/plugins.md).
			CSI:             &cluster.CSIConfig{},
			SchedulerConfig: schedCfg,
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "kubesim API server listening on %s\n", srv.URL)
		if srv.KubeconfigErr != nil {
			fmt.Fprintf(stdout, "kubeconfig NOT written (%v); reach the server with:\n  kubectl --server %s --certificate-authority %s --token ADMIN_TOKEN get namespaces\n"+
				"where ADMIN_TOKEN is the system:masters token in %s\n",
				srv.KubeconfigErr, srv.URL, filepath.Join(*dataDir, pki.CACertFile), filepath.Join(*dataDir, authn.TokenFileName))
		} else {
			fmt.Fprintf(stdout, "kubeconfig written to %s; try:\n  KUBECONFIG=%s kubectl get namespaces\n", srv.Kubeconfig, srv.Kubeconfig)
		}
		if srv.UILoginURL != "" {
			fmt.Fprintf(stdout, "web page: %s/ui/ (log in with the kubeconfig's token, or once within 10 minutes with %s)\n", srv.URL, srv.UILoginURL)
		}
		select {
		case err := <-srv.Err():
			return errors.Join(err, srv.Shutdown(5*time.Second))
		case <-ctx.Done():
		}
		// Stop the control loops, finish requests in flight (writes complete,
		// watches end), then commit what was queued and close the store.
		logger.Info("shutting down")
		return srv.Shutdown(5 * time.Second)
	}
	return cmd
}

// localImageFlag is --local-image NAME=PATH, repeated: the image names
// pods may use to run a binary of the host. Only these run; a pod cannot
// name a host path itself.
type localImageFlag map[string]string

func (f localImageFlag) String() string {
	var out []string
	for name, path := range f {
		out = append(out, name+"="+path)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func (f localImageFlag) Type() string { return "NAME=PATH" }

func (f localImageFlag) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want NAME=PATH, such as localhost/steward-operator:dev=./bin/manager, not %q", v)
	}
	if _, dup := f[name]; dup {
		return fmt.Errorf("image %q is given twice", name)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("image %q: %w", name, err)
	}
	if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("image %q: %s is not an executable file", name, abs)
	}
	f[name] = abs
	return nil
}

// etcdFlags are kube-apiserver's etcd flags, shared by serve and
// store export/import.
type etcdFlags struct {
	servers, prefix, caFile, certFile, keyFile *string
}

func addEtcdFlags(fs *pflag.FlagSet) etcdFlags {
	return etcdFlags{
		servers:  fs.String("etcd-servers", "", "etcd client URLs, comma-separated: the store is etcd instead of the bbolt file in --data-dir"),
		prefix:   fs.String("etcd-prefix", app.DefaultEtcdPrefix, "the prefix of every kubesim key in etcd (several clusters can share one etcd)"),
		caFile:   fs.String("etcd-cafile", "", "CA file that verifies etcd's serving certificate (https:// endpoints)"),
		certFile: fs.String("etcd-certfile", "", "client certificate presented to etcd"),
		keyFile:  fs.String("etcd-keyfile", "", "key of --etcd-certfile"),
	}
}

func (f etcdFlags) options() app.EtcdOptions {
	o := app.EtcdOptions{Prefix: *f.prefix, CAFile: *f.caFile, CertFile: *f.certFile, KeyFile: *f.keyFile}
	for _, u := range strings.Split(*f.servers, ",") {
		if u = strings.TrimSpace(u); u != "" {
			o.Servers = append(o.Servers, u)
		}
	}
	return o
}

// leaderElectFlags are kube-controller-manager's and kube-scheduler's
// leader election flags (multi.go).
type leaderElectFlags struct {
	on                  *bool
	lease, renew, retry *time.Duration
}

func addLeaderElectFlags(fs *pflag.FlagSet) leaderElectFlags {
	return leaderElectFlags{
		on:    fs.Bool("leader-elect", false, "run the controllers and the scheduler only while this server holds their Leases (kube-system/kube-controller-manager, kube-system/kube-scheduler): for several servers over one etcd"),
		lease: fs.Duration("leader-elect-lease-duration", 15*time.Second, "how long the other servers wait after the leader's last renewal before taking over"),
		renew: fs.Duration("leader-elect-renew-deadline", 10*time.Second, "how long the leader keeps trying to renew before it stops leading"),
		retry: fs.Duration("leader-elect-retry-period", 2*time.Second, "the time between attempts to acquire or renew"),
	}
}

func (f leaderElectFlags) config() *cluster.LeaderElection {
	if !*f.on {
		return nil
	}
	return &cluster.LeaderElection{Identity: app.LeaderIdentity(), LeaseDuration: *f.lease, RenewDeadline: *f.renew, RetryPeriod: *f.retry}
}
