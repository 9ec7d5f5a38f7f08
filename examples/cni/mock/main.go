// Command mock is the course's mock CNI plugin, in Go with libcni's skel
// package: the runtime passes its parameters in CNI_* environment
// variables (CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME,
// CNI_ARGS, CNI_PATH) and the network's configuration on stdin; the
// plugin prints its result on stdout.
//
// It configures nothing (no interface, no route): ADD hands out the
// lowest free address of the configuration's subnet (the .1 is the
// gateway) by creating a file named after it in dataDir, as host-local
// does, and DEL removes it again. Each call is appended to dataDir's
// calls.log, to see what the runtime passed. Build it into a CNI binary
// directory:
//
//	GOBIN=/opt/cni/bin go install ./mock
//
// and give it a configuration such as
//
//	{"cniVersion": "1.0.0", "name": "mocknet", "type": "mock",
//	 "subnet": "10.22.0.0/16", "dataDir": "/tmp/mock-cni"}
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/containernetworking/cni/pkg/skel"
	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
)

// NetConf is the plugin's configuration: the common fields, then its own.
type NetConf struct {
	types.PluginConf
	// Subnet is where addresses are given from.
	Subnet string `json:"subnet"`
	// DataDir keeps the addresses given (default: a directory per
	// network under the system's temporary directory).
	DataDir string `json:"dataDir"`
}

func main() {
	skel.PluginMainFuncs(skel.CNIFuncs{Add: cmdAdd, Del: cmdDel, Check: cmdCheck}, version.All, "mock CNI plugin")
}

// loadConf parses stdin's configuration.
func loadConf(stdin []byte) (*NetConf, netip.Prefix, error) {
	conf := &NetConf{}
	if err := json.Unmarshal(stdin, conf); err != nil {
		return nil, netip.Prefix{}, fmt.Errorf("failed to parse the network configuration: %w", err)
	}
	subnet, err := netip.ParsePrefix(conf.Subnet)
	if err != nil || !subnet.Addr().Is4() || subnet.Bits() > 30 {
		return nil, netip.Prefix{}, fmt.Errorf("subnet %q: want an IPv4 range such as 10.22.0.0/16", conf.Subnet)
	}
	if conf.DataDir == "" {
		conf.DataDir = filepath.Join(os.TempDir(), "mock-cni", conf.Name)
	}
	return conf, subnet.Masked(), os.MkdirAll(conf.DataDir, 0o755)
}

// logCall appends what the runtime passed to dataDir/calls.log.
func logCall(conf *NetConf, args *skel.CmdArgs) {
	f, err := os.OpenFile(filepath.Join(conf.DataDir, "calls.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s netns=%s ifname=%s args=%s\n", os.Getenv("CNI_COMMAND"), args.ContainerID, args.Netns, args.IfName, args.Args)
}

// allocated is the address given to the container, if any.
func allocated(dir, containerID string) (netip.Addr, bool) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		ip, err := netip.ParseAddr(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && strings.TrimSpace(string(b)) == containerID {
			return ip, true
		}
	}
	return netip.Addr{}, false
}

func cmdAdd(args *skel.CmdArgs) error {
	conf, subnet, err := loadConf(args.StdinData)
	if err != nil {
		return err
	}
	logCall(conf, args)
	gateway := subnet.Addr().Next()
	ip, ok := allocated(conf.DataDir, args.ContainerID)
	for cand := gateway.Next(); !ok && subnet.Contains(cand.Next()); cand = cand.Next() {
		// O_EXCL: two ADDs at once never get the same address.
		f, err := os.OpenFile(filepath.Join(conf.DataDir, cand.String()), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.WriteString(args.ContainerID)
		f.Close()
		if err != nil {
			return err
		}
		ip, ok = cand, true
	}
	if !ok {
		return types.NewError(types.ErrTryAgainLater, "no IP addresses available", "range "+subnet.String()+" is full")
	}
	result := &types100.Result{
		CNIVersion: types100.ImplementedSpecVersion,
		Interfaces: []*types100.Interface{{Name: args.IfName, Sandbox: args.Netns}},
		IPs: []*types100.IPConfig{{
			Interface: types100.Int(0),
			Address:   net.IPNet{IP: ip.AsSlice(), Mask: net.CIDRMask(subnet.Bits(), 32)},
			Gateway:   gateway.AsSlice(),
		}},
	}
	return types.PrintResult(result, conf.CNIVersion)
}

func cmdDel(args *skel.CmdArgs) error {
	conf, _, err := loadConf(args.StdinData)
	if err != nil {
		return err
	}
	logCall(conf, args)
	// DEL of what is already gone succeeds, as the specification asks.
	if ip, ok := allocated(conf.DataDir, args.ContainerID); ok {
		return os.Remove(filepath.Join(conf.DataDir, ip.String()))
	}
	return nil
}

func cmdCheck(args *skel.CmdArgs) error {
	conf, _, err := loadConf(args.StdinData)
	if err != nil {
		return err
	}
	logCall(conf, args)
	if _, ok := allocated(conf.DataDir, args.ContainerID); !ok {
		return types.NewError(types.ErrInternal, "no address for the container", args.ContainerID)
	}
	return nil
}
