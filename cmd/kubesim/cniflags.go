package main

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kubesim/kubesim/cluster"
)

// cniFlags are the network plugin flags of serve and kubelet: the
// kubelet's former --cni-conf-dir and --cni-bin-dir (today containerd's
// conf_dir and bin_dir). Unset, pods keep the simulated network.
type cniFlags struct {
	confDir, binDir *string
}

func addCNIFlags(fs *pflag.FlagSet) cniFlags {
	return cniFlags{
		confDir: fs.String("cni-conf-dir", "", "directory of CNI network configurations (as /etc/cni/net.d): with --cni-bin-dir, each pod's network is set up by the plugins of its first .conflist (docs/plugins.md); unset, pods get simulated addresses"),
		binDir:  fs.String("cni-bin-dir", "", "directories of CNI plugin binaries, comma-separated (as /opt/cni/bin)"),
	}
}

// config is the cluster's CNI configuration, nil when neither flag is
// set; one without the other is refused.
func (f cniFlags) config() (*cluster.CNIConfig, error) {
	if *f.confDir == "" && *f.binDir == "" {
		return nil, nil
	}
	if *f.confDir == "" || *f.binDir == "" {
		return nil, errors.New("--cni-conf-dir and --cni-bin-dir go together: give both, or neither for the simulated network")
	}
	conf, err := filepath.Abs(*f.confDir)
	if err != nil {
		return nil, err
	}
	cfg := &cluster.CNIConfig{ConfDir: conf}
	for _, d := range strings.Split(*f.binDir, ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		cfg.BinDirs = append(cfg.BinDirs, abs)
	}
	return cfg, nil
}
