package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet/cni"
	csisample "github.com/kubesim/kubesim/kubelet/csi/sample"
	dpsample "github.com/kubesim/kubesim/kubelet/deviceplugin/sample"
)

// The node's extension points in a scenario: the project's sample device
// plugin and CSI driver run in this process, and a CNI plugin is built
// from its Go source, as the labs run them beside `kubesim serve`. They
// register with the kubelets the way they do there — over the kubelet's
// device plugin socket and its plugins_registry, with gRPC — so the trace
// shows the kubelet's and the sidecars' calls to them as lines of their
// units of work.

// DevicePluginSpec is a sample device plugin (kubelet/deviceplugin/sample)
// on one node: cluster.devicePlugins.
type DevicePluginSpec struct {
	Node, Resource string
	// Count devices, named after the resource's base: gpu-0, gpu-1...
	Count            int
	PreStartRequired bool
	Line             int
}

// deviceIDs are the devices' names, as the sample names them.
func (d DevicePluginSpec) deviceIDs() []string {
	ids := make([]string, d.Count)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%d", path.Base(d.Resource), i)
	}
	return ids
}

// CSIDriverSpec is the sample CSI driver (kubelet/csi/sample) on some
// nodes: cluster.csiDrivers.
type CSIDriverSpec struct {
	Name              string
	Nodes             []string
	MaxVolumesPerNode int64
	Line              int
}

// DefaultCSIDriverName is the sample driver's name, as `kubesim
// csi-driver` gives it.
const DefaultCSIDriverName = "example.csi.kubesim.io"

// CNISpec is the network plugin of every kubelet: cluster.cni.
type CNISpec struct {
	// Plugin is the directory of the plugin's Go main package, relative
	// to the scenario file (or absolute); it is built (go build) into the nodes' binary
	// directory under its base name, which the configuration's type
	// names.
	Plugin string
	// Subnet is the configuration's subnet.
	Subnet string
	Line   int
}

// DefaultCNISubnet is the subnet lab 17 gives the mock plugin.
const DefaultCNISubnet = "10.22.0.0/16"

// plugins are a runner's plugins and the temporary directory they live
// in: the nodes' kubelet directories (sockets, sandboxes), the CNI
// binary, its configuration and its data.
type plugins struct {
	file    string
	dir     string
	devices map[string]*dpsample.Plugin // by node and resource (pluginKey)
	drivers []*csisample.Driver
}

func pluginKey(node, resource string) string { return node + " " + resource }

// startPlugins builds the CNI plugin and starts the CSI drivers, before
// the cluster exists: the kubelets find the drivers' registration
// sockets at their first scan of plugins_registry, a unit of work like
// any other. nil when the scenario asks for no plugin.
func startPlugins(s *Scenario) (*plugins, error) {
	c := s.Cluster
	if len(c.DevicePlugins) == 0 && len(c.CSIDrivers) == 0 && c.CNI == nil {
		return nil, nil
	}
	// Directly under the temporary directory: a unix socket's path may
	// not be longer than 107 bytes.
	dir, err := os.MkdirTemp("", "ksc")
	if err != nil {
		return nil, err
	}
	p := &plugins{file: s.File, dir: dir, devices: map[string]*dpsample.Plugin{}}
	if err := p.start(c); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *plugins) errf(line int, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *plugins) kubeletRoot() string { return filepath.Join(p.dir, "kubelet") }

func (p *plugins) start(c ClusterSpec) error {
	if c.CNI != nil {
		src := filepath.FromSlash(c.CNI.Plugin)
		if !filepath.IsAbs(src) {
			src = filepath.Join(filepath.Dir(p.file), src)
		}
		bin, conf := filepath.Join(p.dir, "cni", "bin"), filepath.Join(p.dir, "cni", "net.d")
		for _, d := range []string{bin, conf} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		name := filepath.Base(src)
		if err := cni.BuildPlugin(context.Background(), src, filepath.Join(bin, name)); err != nil {
			return p.errf(c.CNI.Line, "cluster.cni.plugin: %v", err)
		}
		// The configuration lab 17 writes for the mock plugin, its data
		// in this run's directory: a fresh one gives the same addresses
		// every run.
		list, err := json.Marshal(map[string]any{"cniVersion": "1.0.0", "name": name + "net", "plugins": []map[string]any{{
			"type": name, "subnet": c.CNI.Subnet, "dataDir": filepath.Join(p.dir, "cni", "data")}}})
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(conf, "10-"+name+".conflist"), list, 0o644); err != nil {
			return err
		}
	}
	for _, d := range c.CSIDrivers {
		for _, node := range d.Nodes {
			drv, err := csisample.New(csisample.Config{Name: d.Name, NodeID: node, KubeletDir: filepath.Join(p.kubeletRoot(), node),
				VolumesDir: filepath.Join(p.dir, "storage", d.Name), MaxVolumesPerNode: d.MaxVolumesPerNode})
			if err == nil {
				err = drv.Start()
			}
			if err != nil {
				return p.errf(d.Line, "cluster.csiDrivers: starting %s on %s: %v", d.Name, node, err)
			}
			p.drivers = append(p.drivers, drv)
		}
	}
	return nil
}

// configure turns on the kubelets' side of the plugins asked for.
func (p *plugins) configure(cfg *cluster.Config, c ClusterSpec) {
	if p == nil {
		return
	}
	root := p.kubeletRoot()
	if len(c.DevicePlugins) > 0 {
		cfg.DevicePlugins = &cluster.DevicePluginsConfig{RootDir: root}
	}
	if len(c.CSIDrivers) > 0 {
		cfg.CSI = &cluster.CSIConfig{RootDir: root}
	}
	if c.CNI != nil {
		cfg.CNI = &cluster.CNIConfig{ConfDir: filepath.Join(p.dir, "cni", "net.d"), BinDirs: []string{filepath.Join(p.dir, "cni", "bin")}, RootDir: root}
	}
}

// registrationTimeout bounds the wait for a device plugin's registration
// and its first list, in real time: they are gRPC calls between
// goroutines of this process.
const registrationTimeout = time.Minute

// startDevicePlugins starts the device plugins once the kubelets serve
// their registration sockets, and waits until each kubelet has heard its
// plugin's devices, so that the heartbeat that posts them is queued
// before the first step, every run.
func (p *plugins) startDevicePlugins(c *cluster.Cluster, specs []DevicePluginSpec) error {
	if p == nil {
		return nil
	}
	for _, d := range specs {
		dp, err := dpsample.New(dpsample.Config{Resource: d.Resource, Count: d.Count, PreStartRequired: d.PreStartRequired,
			KubeletDir: cluster.DevicePluginDir(p.kubeletRoot(), d.Node)})
		if err != nil {
			return p.errf(d.Line, "cluster.devicePlugins: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), registrationTimeout)
		err = dp.Start(ctx)
		cancel()
		if err != nil {
			return p.errf(d.Line, "cluster.devicePlugins: %s on %s: %v", d.Resource, d.Node, err)
		}
		p.devices[pluginKey(d.Node, d.Resource)] = dp
		if err := p.waitHeard(c, d.Node, d.Resource, dp); err != nil {
			return p.errf(d.Line, "cluster.devicePlugins: %v", err)
		}
	}
	return nil
}

// waitHeard waits until node's kubelet has heard the plugin's devices as
// they are now (and woken its heartbeat for them).
func (p *plugins) waitHeard(c *cluster.Cluster, node, res string, dp *dpsample.Plugin) error {
	kl, ok := c.Kubelet(node)
	if !ok {
		return fmt.Errorf("no kubelet for node %s", node)
	}
	want := dp.Devices()
	deadline := time.Now().Add(registrationTimeout)
	for !sameDevices(kl.AnnouncedDevices(res), want) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the kubelet of %s did not hear the devices of %s within %s", node, res, registrationTimeout)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

func sameDevices(a, b []*pluginapi.Device) bool {
	return slices.EqualFunc(a, b, func(x, y *pluginapi.Device) bool { return x.ID == y.ID && x.Health == y.Health })
}

// setHealth marks a device of a node's plugin healthy or not, with the
// sample's health switch (what `kubesim device-plugin` does on SIGUSR1),
// and waits until the kubelet has heard it on ListAndWatch.
func (p *plugins) setHealth(c *cluster.Cluster, node, resource, device string, healthy bool) error {
	var dp *dpsample.Plugin
	if p != nil {
		dp = p.devices[pluginKey(node, resource)]
	}
	if dp == nil {
		return fmt.Errorf("no device plugin of %s on %s", resource, node)
	}
	if err := dp.SetHealth(device, healthy); err != nil {
		return err
	}
	return p.waitHeard(c, node, resource, dp)
}

// close stops the plugins and removes their directory; the cluster is
// closed first, so no kubelet sees its plugins go.
func (p *plugins) close() {
	if p == nil {
		return
	}
	for _, dp := range p.devices {
		dp.Stop()
	}
	for _, d := range p.drivers {
		d.Stop()
	}
	// As root on Linux the sandboxes are network namespaces pinned by a
	// bind mount: unpin them, or their files cannot be removed.
	nodes, _ := filepath.Glob(filepath.Join(p.kubeletRoot(), "*", "cni"))
	for _, n := range nodes {
		_ = cni.ReleaseNetNS(n)
	}
	_ = os.RemoveAll(p.dir)
}

// plugins reads cluster.devicePlugins, csiDrivers and cni, once the
// cluster's nodes are known.
func (p *parser) plugins(f map[string]*yaml.Node, c *ClusterSpec) error {
	nodes := nodeNames(c)
	node := func(n *yaml.Node, what string) (string, error) {
		name, err := p.str(n, what)
		if err == nil && !slices.Contains(nodes, name) {
			err = p.errf(n, "%s: no node %q in this cluster (nodes: %s)", what, name, strings.Join(nodes, ", "))
		}
		return name, err
	}
	if v, ok := f["devicePlugins"]; ok {
		if v.Kind != yaml.SequenceNode {
			return p.errf(v, "cluster.devicePlugins: expected a list of {node, resource, count}, got %s", kindName(v))
		}
		for _, item := range v.Content {
			df, err := p.fields(item, "cluster.devicePlugins", "node", "resource", "count", "preStartRequired")
			if err != nil {
				return err
			}
			d := DevicePluginSpec{Line: item.Line}
			for _, key := range []string{"node", "resource", "count"} {
				if _, ok := df[key]; !ok {
					return p.errf(item, "cluster.devicePlugins: %s is required", key)
				}
			}
			if d.Node, err = node(df["node"], "cluster.devicePlugins.node"); err != nil {
				return err
			}
			if d.Resource, err = p.str(df["resource"], "cluster.devicePlugins.resource"); err != nil {
				return err
			}
			if !api.IsExtendedResourceName(corev1.ResourceName(d.Resource)) {
				return p.errf(df["resource"], "cluster.devicePlugins.resource: %q is not an extended resource name (a domain outside kubernetes.io and a name: example.com/gpu)", d.Resource)
			}
			n, err := p.integer(df["count"], "cluster.devicePlugins.count")
			if err != nil {
				return err
			}
			if n < 1 || n > maxDevices {
				return p.errf(df["count"], "cluster.devicePlugins.count: expected 1 to %d devices, got %d", maxDevices, n)
			}
			d.Count = int(n)
			if b, ok := df["preStartRequired"]; ok {
				if d.PreStartRequired, err = p.boolean(b, "cluster.devicePlugins.preStartRequired"); err != nil {
					return err
				}
			}
			for _, o := range c.DevicePlugins {
				if o.Node == d.Node && o.Resource == d.Resource {
					return p.errf(item, "cluster.devicePlugins: %s has a plugin of %s already (line %d): one plugin per resource and node", d.Node, d.Resource, o.Line)
				}
			}
			c.DevicePlugins = append(c.DevicePlugins, d)
		}
		p.devicePlugins = c.DevicePlugins
	}
	if v, ok := f["csiDrivers"]; ok {
		if v.Kind != yaml.SequenceNode {
			return p.errf(v, "cluster.csiDrivers: expected a list of {name, nodes}, got %s", kindName(v))
		}
		for _, item := range v.Content {
			df, err := p.fields(item, "cluster.csiDrivers", "name", "nodes", "maxVolumesPerNode")
			if err != nil {
				return err
			}
			d := CSIDriverSpec{Name: DefaultCSIDriverName, Nodes: nodes, Line: item.Line}
			if n, ok := df["name"]; ok {
				if d.Name, err = p.str(n, "cluster.csiDrivers.name"); err != nil {
					return err
				}
				if errs := validation.IsDNS1123Subdomain(d.Name); len(errs) > 0 {
					return p.errf(n, "cluster.csiDrivers.name: %q: %s", d.Name, strings.Join(errs, "; "))
				}
			}
			if n, ok := df["nodes"]; ok {
				if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
					return p.errf(n, "cluster.csiDrivers.nodes: expected a list of node names, got %s", kindName(n))
				}
				d.Nodes = nil
				for _, nn := range n.Content {
					name, err := node(nn, "cluster.csiDrivers.nodes")
					if err != nil {
						return err
					}
					if slices.Contains(d.Nodes, name) {
						return p.errf(nn, "cluster.csiDrivers.nodes: node %q given twice", name)
					}
					d.Nodes = append(d.Nodes, name)
				}
			}
			if n, ok := df["maxVolumesPerNode"]; ok {
				if d.MaxVolumesPerNode, err = p.integer(n, "cluster.csiDrivers.maxVolumesPerNode"); err != nil {
					return err
				}
				if d.MaxVolumesPerNode < 0 {
					return p.errf(n, "cluster.csiDrivers.maxVolumesPerNode: must not be negative, got %d", d.MaxVolumesPerNode)
				}
			}
			for _, o := range c.CSIDrivers {
				if o.Name == d.Name {
					return p.errf(item, "cluster.csiDrivers: driver %q given twice (line %d): list its nodes once", d.Name, o.Line)
				}
			}
			c.CSIDrivers = append(c.CSIDrivers, d)
		}
	}
	if v, ok := f["cni"]; ok {
		cf, err := p.fields(v, "cluster.cni", "plugin", "subnet")
		if err != nil {
			return err
		}
		c.CNI = &CNISpec{Subnet: DefaultCNISubnet, Line: v.Line}
		pn, ok := cf["plugin"]
		if !ok {
			return p.errf(v, "cluster.cni: plugin is required (the directory of the plugin's Go source, relative to this file: ../cni/mock)")
		}
		if c.CNI.Plugin, err = p.str(pn, "cluster.cni.plugin"); err != nil {
			return err
		}
		if sn, ok := cf["subnet"]; ok {
			if c.CNI.Subnet, err = p.str(sn, "cluster.cni.subnet"); err != nil {
				return err
			}
			if pr, err := netip.ParsePrefix(c.CNI.Subnet); err != nil || !pr.Addr().Is4() {
				return p.errf(sn, "cluster.cni.subnet: expected an IPv4 range such as %s, got %q", DefaultCNISubnet, c.CNI.Subnet)
			}
		}
	}
	return nil
}

// maxDevices bounds a sample device plugin's devices.
const maxDevices = 64

// devicePluginStep reads devicePlugin: {node, resource, unhealthy: ID} or
// {node, resource, healthy: ID}.
func (p *parser) devicePluginStep(n *yaml.Node, s *Step) error {
	f, err := p.fields(n, "devicePlugin", "node", "resource", "unhealthy", "healthy")
	if err != nil {
		return err
	}
	for _, key := range []string{"node", "resource"} {
		if _, ok := f[key]; !ok {
			return p.errf(n, "devicePlugin: %s is required", key)
		}
	}
	if s.Name, err = p.str(f["node"], "devicePlugin.node"); err != nil {
		return err
	}
	if s.Resource, err = p.str(f["resource"], "devicePlugin.resource"); err != nil {
		return err
	}
	i := slices.IndexFunc(p.devicePlugins, func(d DevicePluginSpec) bool { return d.Node == s.Name && d.Resource == s.Resource })
	if i < 0 {
		var have []string
		for _, d := range p.devicePlugins {
			have = append(have, d.Resource+" on "+d.Node)
		}
		if len(have) == 0 {
			have = []string{"none"}
		}
		return p.errf(n, "devicePlugin: no device plugin of %s on %s in cluster.devicePlugins (there: %s)", s.Resource, s.Name, strings.Join(have, ", "))
	}
	un, hasUn := f["unhealthy"]
	he, hasHe := f["healthy"]
	var dn *yaml.Node
	switch {
	case hasUn == hasHe:
		return p.errf(n, "devicePlugin: give one of unhealthy: DEVICE or healthy: DEVICE")
	case hasUn:
		dn = un
	default:
		dn, s.Healthy = he, true
	}
	if s.Device, err = p.str(dn, "devicePlugin"); err != nil {
		return err
	}
	if ids := p.devicePlugins[i].deviceIDs(); !slices.Contains(ids, s.Device) {
		return p.errf(dn, "devicePlugin: the plugin of %s on %s has no device %q (devices: %s)", s.Resource, s.Name, s.Device, strings.Join(ids, ", "))
	}
	return nil
}
