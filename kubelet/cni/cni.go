package cni

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"

	"github.com/kubesim/kubesim/clock"
)

// RuntimeRequestTimeout is the kubelet's --runtime-request-timeout (2
// minutes); a sandbox is given twice that, as the kubelet's
// RunPodSandbox does, before the call is abandoned and the plugin killed.
const RuntimeRequestTimeout = 2 * time.Minute

// SandboxTimeout is how long a sandbox's network may take.
const SandboxTimeout = 2 * RuntimeRequestTimeout

// DefaultInterface is the name the runtimes give the pod's interface.
const DefaultInterface = "eth0"

// ErrNotInitialized is containerd's answer while the configuration
// directory holds no network: no sandbox can be made.
var ErrNotInitialized = errors.New("cni plugin not initialized")

// ErrDeadlineExceeded is what the kubelet sees when a plugin has not
// answered within SandboxTimeout: its CRI call's deadline.
var ErrDeadlineExceeded = errors.New("rpc error: code = DeadlineExceeded desc = context deadline exceeded")

// Config builds a Manager.
type Config struct {
	// ConfDir holds the network configurations (the runtimes'
	// conf_dir, /etc/cni/net.d). Required.
	ConfDir string
	// BinDirs are searched for plugins, in order (bin_dir, /opt/cni/bin);
	// they are also the plugins' CNI_PATH. Required.
	BinDirs []string
	// StateDir is the node's directory: the sandbox records, the
	// placeholder network namespaces and libcni's result cache live
	// under it. Required.
	StateDir string
	// Clock times SandboxTimeout (required).
	Clock clock.Clock
	// Exec runs the plugins (nil: libcni's DefaultExec, a child process).
	Exec invoke.Exec
	// OnCall, when set, is told of each call before it is made, as
	// "ADD mock default/web": the step trace shows it.
	OnCall func(call string)
}

// Manager sets up and tears down the networks of a node's sandboxes.
type Manager struct {
	cfg Config
	cni *libcni.CNIConfig
	// realNS: each sandbox gets a real network namespace (as root on
	// Linux, netns_linux.go), else a placeholder file.
	realNS bool
}

// Pod names the pod a sandbox is for (the CNI_ARGS the runtimes pass).
type Pod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
}

func (p Pod) String() string { return p.Namespace + "/" + p.Name }

// Sandbox is the record of one sandbox whose network ADD set up.
type Sandbox struct {
	// ID is the sandbox's container id (CNI_CONTAINERID).
	ID  string `json:"id"`
	Pod Pod    `json:"pod"`
	// NetNS is the path given as CNI_NETNS.
	NetNS string `json:"netns"`
	// Config is the network configuration list ADD was given: DEL and
	// CHECK are given the same, whatever the directory holds since.
	Config json.RawMessage `json:"config"`
	// Result is the plugin chain's answer to ADD.
	Result json.RawMessage `json:"result"`
	// IPs are the result's addresses, IPv4 first.
	IPs []string `json:"ips"`
}

// New checks cfg and makes the node's directories.
func New(cfg Config) (*Manager, error) {
	if cfg.ConfDir == "" || len(cfg.BinDirs) == 0 || cfg.StateDir == "" || cfg.Clock == nil {
		return nil, errors.New("cni: ConfDir, BinDirs, StateDir and Clock are required")
	}
	for _, d := range []string{"sandboxes", "netns", "cache"} {
		if err := os.MkdirAll(filepath.Join(cfg.StateDir, d), 0o755); err != nil {
			return nil, fmt.Errorf("cni: %w", err)
		}
	}
	if cfg.Exec == nil {
		// What a plugin prints on stderr is not kept: containerd logs it.
		cfg.Exec = &invoke.DefaultExec{RawExec: &invoke.RawExec{}}
	}
	return &Manager{cfg: cfg, cni: libcni.NewCNIConfigWithCacheDir(cfg.BinDirs, filepath.Join(cfg.StateDir, "cache"), cfg.Exec), realNS: realNetNS()}, nil
}

// RealNetNS tells whether the sandboxes get real network namespaces
// (the kubelet runs as root on Linux) rather than placeholder files.
func (m *Manager) RealNetNS() bool { return m.realNS }

// createNetNS makes the sandbox's network namespace at path: a real one
// when the Manager can, else an empty placeholder file.
func (m *Manager) createNetNS(path string) error {
	if m.realNS {
		return createNetNS(path)
	}
	return os.WriteFile(path, nil, 0o644)
}

// LoadNetwork reads the network the runtimes would use: the first
// .conflist of ConfDir in lexical order, else the first .conf or .json
// (a single plugin, made a list of one).
func (m *Manager) LoadNetwork() (*libcni.NetworkConfigList, error) {
	files, err := libcni.ConfFiles(m.cfg.ConfDir, []string{".conflist", ".conf", ".json"})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b string) int {
		// .conflist files before the others, each kind in lexical order.
		la, lb := filepath.Ext(a) == ".conflist", filepath.Ext(b) == ".conflist"
		switch {
		case la && !lb:
			return -1
		case lb && !la:
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(files) == 0 {
		return nil, fmt.Errorf("no network config found in %s: %w", m.cfg.ConfDir, ErrNotInitialized)
	}
	f := files[0]
	if filepath.Ext(f) == ".conflist" {
		list, err := libcni.ConfListFromFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to load CNI config list file %s: %w", f, err)
		}
		return list, nil
	}
	conf, err := libcni.ConfFromFile(f)
	if err != nil {
		return nil, fmt.Errorf("failed to load CNI config file %s: %w", f, err)
	}
	list, err := libcni.ConfListFromConf(conf)
	if err != nil {
		return nil, fmt.Errorf("failed to convert CNI config file %s to a list: %w", f, err)
	}
	return list, nil
}

// SetUp runs ADD for a new sandbox of pod and records it. The error reads
// as containerd's RunPodSandbox reports it (without the kubelet's
// "Failed to create pod sandbox: " and the gRPC status in front).
func (m *Manager) SetUp(ctx context.Context, id string, pod Pod) (*Sandbox, error) {
	list, err := m.LoadNetwork()
	if err != nil {
		return nil, fmt.Errorf("failed to setup network for sandbox %q: %w", id, err)
	}
	sb := &Sandbox{ID: id, Pod: pod, NetNS: filepath.Join(m.cfg.StateDir, "netns", id), Config: list.Bytes}
	if err := m.createNetNS(sb.NetNS); err != nil {
		return nil, fmt.Errorf("failed to create network namespace for sandbox %q: %w", id, err)
	}
	m.called("ADD", list, pod)
	res, err := m.withTimeout(ctx, func(ctx context.Context) (types.Result, error) {
		return m.cni.AddNetworkList(ctx, list, m.runtimeConf(sb))
	})
	if err == nil {
		sb.Result, sb.IPs, err = resultIPs(res)
	}
	if err != nil {
		if !errors.Is(err, ErrDeadlineExceeded) {
			// containerd tears down what a failed setup may have left
			// (sandbox_run.go's deferred cleanup); a plugin that did not
			// answer is not asked again.
			m.called("DEL", list, pod)
			_, _ = m.withTimeout(ctx, func(ctx context.Context) (types.Result, error) {
				return nil, m.cni.DelNetworkList(ctx, list, m.runtimeConf(sb))
			})
		}
		_ = removeNetNS(sb.NetNS)
		if errors.Is(err, ErrDeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("failed to setup network for sandbox %q: %w", id, err)
	}
	if err := m.write(sb); err != nil {
		return nil, err
	}
	return sb, nil
}

// Check runs CHECK on a recorded sandbox.
func (m *Manager) Check(ctx context.Context, sb *Sandbox) error {
	list, err := libcni.ConfListFromBytes(sb.Config)
	if err != nil {
		return fmt.Errorf("sandbox %q: %w", sb.ID, err)
	}
	m.called("CHECK", list, sb.Pod)
	_, err = m.withTimeout(ctx, func(ctx context.Context) (types.Result, error) {
		return nil, m.cni.CheckNetworkList(ctx, list, m.runtimeConf(sb))
	})
	if err != nil {
		return fmt.Errorf("failed to check network for sandbox %q: %w", sb.ID, err)
	}
	return nil
}

// TearDown runs DEL on a recorded sandbox and forgets it; after an error
// the record stays, for the next attempt.
func (m *Manager) TearDown(ctx context.Context, sb *Sandbox) error {
	list, err := libcni.ConfListFromBytes(sb.Config)
	if err == nil {
		m.called("DEL", list, sb.Pod)
		_, err = m.withTimeout(ctx, func(ctx context.Context) (types.Result, error) {
			return nil, m.cni.DelNetworkList(ctx, list, m.runtimeConf(sb))
		})
	}
	if err != nil {
		return fmt.Errorf("failed to destroy network for sandbox %q: %w", sb.ID, err)
	}
	// The namespace goes after DEL, as containerd removes it after
	// teardownPodNetwork: the plugins still enter it to delete eth0.
	if err := removeNetNS(sb.NetNS); err != nil {
		return fmt.Errorf("failed to remove network namespace of sandbox %q: %w", sb.ID, err)
	}
	if err := os.Remove(m.recordPath(sb.ID)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// ReleaseNetNS unpins the network namespaces left under a node's
// directory, without DEL: what a reboot does to them, since they live in
// the kernel rather than on disk. A pinned namespace's file cannot be
// removed, so whoever removes a node's directory (a test's cleanup) calls
// this first; placeholders are simply removed.
func ReleaseNetNS(stateDir string) error {
	entries, err := os.ReadDir(filepath.Join(stateDir, "netns"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, removeNetNS(filepath.Join(stateDir, "netns", e.Name())))
	}
	return errors.Join(errs...)
}

// Sandboxes are the recorded sandboxes, by id order.
func (m *Manager) Sandboxes() ([]*Sandbox, error) {
	entries, err := os.ReadDir(filepath.Join(m.cfg.StateDir, "sandboxes"))
	if err != nil {
		return nil, err
	}
	var out []*Sandbox
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(m.cfg.StateDir, "sandboxes", e.Name()))
		if err != nil {
			return nil, err
		}
		sb := &Sandbox{}
		if err := json.Unmarshal(b, sb); err != nil {
			return nil, fmt.Errorf("sandbox record %s: %w", e.Name(), err)
		}
		out = append(out, sb)
	}
	return out, nil
}

// runtimeConf is what the runtimes pass for a sandbox: its id, network
// namespace, eth0 and the pod in CNI_ARGS.
func (m *Manager) runtimeConf(sb *Sandbox) *libcni.RuntimeConf {
	return &libcni.RuntimeConf{ContainerID: sb.ID, NetNS: sb.NetNS, IfName: DefaultInterface, Args: [][2]string{
		{"IgnoreUnknown", "1"},
		{"K8S_POD_NAMESPACE", sb.Pod.Namespace},
		{"K8S_POD_NAME", sb.Pod.Name},
		{"K8S_POD_INFRA_CONTAINER_ID", sb.ID},
		{"K8S_POD_UID", sb.Pod.UID},
	}}
}

// withTimeout runs call with a context that ends after SandboxTimeout on
// the injected clock (the plugin is then killed, as exec.CommandContext
// kills it), and reports that end as the kubelet sees it.
func (m *Manager) withTimeout(ctx context.Context, call func(context.Context) (types.Result, error)) (types.Result, error) {
	ctx, cancel := clock.WithTimeout(ctx, m.cfg.Clock, SandboxTimeout, ErrDeadlineExceeded)
	defer cancel()
	res, err := call(ctx)
	if err != nil && errors.Is(context.Cause(ctx), ErrDeadlineExceeded) {
		return nil, ErrDeadlineExceeded
	}
	return res, err
}

func (m *Manager) called(verb string, list *libcni.NetworkConfigList, pod Pod) {
	if m.cfg.OnCall == nil {
		return
	}
	var plugins []string
	for _, p := range list.Plugins {
		plugins = append(plugins, p.Network.Type)
	}
	m.cfg.OnCall(verb + " " + strings.Join(plugins, ",") + " " + pod.String())
}

func (m *Manager) recordPath(id string) string {
	return filepath.Join(m.cfg.StateDir, "sandboxes", id+".json")
}

// write records sb; a partial file never stands for a sandbox (written
// aside, then renamed).
func (m *Manager) write(sb *Sandbox) error {
	b, err := json.MarshalIndent(sb, "", "  ")
	if err != nil {
		return err
	}
	tmp := m.recordPath(sb.ID) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, m.recordPath(sb.ID))
}

// resultIPs reads the addresses of a result of any CNI version.
func resultIPs(res types.Result) (json.RawMessage, []string, error) {
	r, err := types100.NewResultFromResult(res)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to convert the CNI result: %w", err)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	var v4, v6 []string
	for _, ip := range r.IPs {
		a, ok := netip.AddrFromSlice(ip.Address.IP)
		if !ok {
			continue
		}
		if a = a.Unmap(); a.Is4() {
			v4 = append(v4, a.String())
		} else {
			v6 = append(v6, a.String())
		}
	}
	ips := append(v4, v6...)
	if len(ips) == 0 {
		return nil, nil, errors.New("the CNI result has no IP address")
	}
	return raw, ips, nil
}
