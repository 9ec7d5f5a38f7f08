package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/kubelet/csi/sample"
)

// newCSIDriverCommand is `kubesim csi-driver`: the sample CSI driver
// (kubelet/csi/sample) as a process of its own, as a driver's node
// plugin runs in a DaemonSet beside each kubelet. It serves the CSI
// services on DIR/plugins/NAME/csi.sock, keeps its volumes as
// directories, and registers with the node's kubelet through
// DIR/plugins_registry, until interrupted.
func newCSIDriverCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "csi-driver",
		Short: "Run the sample CSI driver and register it with a node's kubelet",
		Long: "Run the sample CSI driver: the Identity, Controller and Node services of the Container Storage Interface on a unix socket, " +
			"volumes kept as directories, registered with the kubelet of the node whose directory --kubelet-dir names " +
			"(`kubesim serve` keeps them in DATA-DIR/kubelet/NODE). Each call is logged on stderr. See docs/plugins.md.",
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	name := fs.String("name", "example.csi.kubesim.io", "the driver's name, as a StorageClass's provisioner names it")
	kubeletDir := fs.String("kubelet-dir", "", "the node's kubelet directory (as /var/lib/kubelet), e.g. .data/kubelet/node-1 (required)")
	nodeID := fs.String("node-id", "", "the node's id in the storage system, which NodeGetInfo answers (default: the base name of --kubelet-dir)")
	volumesDir := fs.String("volumes-dir", "", "where the volumes are kept, one directory each (default: KUBELET-DIR/plugins/NAME/volumes); drivers of several nodes share one")
	capacity := fs.Int64("capacity", sample.DefaultCapacity, "the storage offered, in bytes")
	maxVolumes := fs.Int64("max-volumes-per-node", 0, "NodeGetInfo's max_volumes_per_node, the CSINode's allocatable count (0: no limit)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if *kubeletDir == "" {
			return &usageError{cmd: cmd, err: fmt.Errorf("--kubelet-dir is required"), code: 2}
		}
		dir, err := filepath.Abs(*kubeletDir)
		if err != nil {
			return err
		}
		id := *nodeID
		if id == "" {
			id = filepath.Base(dir)
		}
		d, err := sample.New(sample.Config{Name: *name, NodeID: id, KubeletDir: dir, VolumesDir: *volumesDir, Capacity: *capacity,
			MaxVolumesPerNode: *maxVolumes, Logger: slog.New(slog.NewTextHandler(stderr, nil))})
		if err != nil {
			return err
		}
		if err := d.Start(); err != nil {
			return err
		}
		defer d.Stop()
		fmt.Fprintf(stdout, "CSI driver %s serving %s, registering through %s\n", *name, d.Endpoint(), d.RegistrationSocket())
		<-cmd.Context().Done()
		return nil
	}
	return cmd
}
