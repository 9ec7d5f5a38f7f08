package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/kubelet/deviceplugin/sample"
)

// newDevicePluginCommand runs the sample device plugin
// (kubelet/deviceplugin/sample) against a kubelet's device plugin
// directory, until interrupted: stopping it is unplugging the devices.
// SIGUSR1 fails one more device and SIGUSR2 heals them all, so that a
// shell (a lab) can change their health.
func newDevicePluginCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "device-plugin --resource example.com/gpu --count 4 --kubelet-dir DIR",
		Short: "run the sample device plugin: register devices with a node's kubelet",
		Long: `Run the sample device plugin (kubelet/deviceplugin/sample): it serves the
DevicePlugin gRPC service on a socket in the kubelet's device plugin
directory and registers its devices with the kubelet there (a node of
` + "`kubesim serve --device-plugins`" + ` has DATA-DIR/kubelet/NODE/device-plugins).
kill -USR1 PID marks the highest-numbered healthy device Unhealthy,
kill -USR2 PID makes every device Healthy again; stopping the plugin
takes its devices away. It exits when the kubelet goes away.`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	res := fs.String("resource", "example.com/gpu", "the extended resource the devices are")
	count := fs.Int("count", 4, "how many devices")
	dir := fs.String("kubelet-dir", "", "the kubelet's device plugin directory, where its kubelet.sock is (required)")
	preStart := fs.Bool("pre-start-required", false, "ask the kubelet to call PreStartContainer before each container with devices starts")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if *dir == "" {
			return errors.New("device-plugin: --kubelet-dir is required")
		}
		p, err := sample.New(sample.Config{Resource: *res, Count: *count, KubeletDir: *dir, PreStartRequired: *preStart})
		if err != nil {
			return err
		}
		ctx := cmd.Context()
		health := make(chan os.Signal, 1)
		signal.Notify(health, syscall.SIGUSR1, syscall.SIGUSR2)
		defer signal.Stop(health)
		if err := p.Start(ctx); err != nil {
			return fmt.Errorf("device-plugin: %w", err)
		}
		defer p.Stop()
		var ids []string
		for _, d := range p.Devices() {
			ids = append(ids, d.ID)
		}
		fmt.Fprintf(stdout, "device plugin %d: registered %s (%s) with the kubelet; serving on %s\n",
			os.Getpid(), *res, strings.Join(ids, " "), p.Socket())
		for {
			select {
			case <-ctx.Done():
				fmt.Fprintln(stdout, "device plugin stopping: its devices go with it")
				return nil
			case <-p.KubeletGone():
				fmt.Fprintln(stdout, "the kubelet closed the stream (it stopped): device plugin exiting")
				return nil
			case sig := <-health:
				if sig == syscall.SIGUSR2 {
					p.HealAll()
					fmt.Fprintln(stdout, "every device is Healthy")
					continue
				}
				if id := p.FailNext(); id != "" {
					fmt.Fprintf(stdout, "%s is Unhealthy\n", id)
				} else {
					fmt.Fprintln(stderr, "no healthy device left")
				}
			}
		}
	}
	return cmd
}
