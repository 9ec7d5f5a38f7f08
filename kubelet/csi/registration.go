package csi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// RegistryDir is the directory under a kubelet's root where plugins put
// their registration sockets (/var/lib/kubelet/plugins_registry).
const RegistryDir = "plugins_registry"

// RegistrationTimeout bounds GetInfo and NotifyRegistrationStatus, as the
// plugin manager's operation executor does (one second each).
const RegistrationTimeout = time.Second

// Plugin is what a registration socket answered to GetInfo.
type Plugin struct {
	// Socket is the registration socket's path.
	Socket string
	// Name is the driver's name (PluginInfo.name).
	Name string
	// Endpoint is the driver's CSI socket (the registration socket when
	// the plugin gave none).
	Endpoint string
	// Versions are the CSI versions the driver supports.
	Versions []string
	// modTime is the socket's, as the watcher saw it.
	modTime time.Time
}

// Handler is the CSI plugin handler of the kubelet: told of each driver
// registered and gone (RegistrationHandler's RegisterPlugin and
// DeRegisterPlugin).
type Handler interface {
	RegisterPlugin(ctx context.Context, p Plugin) error
	DeRegisterPlugin(ctx context.Context, p Plugin)
}

// Watcher finds the registration sockets of a directory and registers
// their plugins: the plugin manager's desired and actual states of the
// world, reconciled by Scan.
type Watcher struct {
	// Dir is the registration directory (RegistryDir under the node's).
	Dir string
	// Caller times the registration calls and names them for the trace.
	Caller Caller
	// known are the registered plugins, by socket path.
	known map[string]Plugin
}

// Scan registers the plugins of the sockets that appeared (or were made
// again) since the last scan and deregisters those whose socket went. A
// socket that cannot be registered is tried again at the next scan, as
// the reconciler does; the errors are returned together.
func (w *Watcher) Scan(ctx context.Context, h Handler) error {
	if w.known == nil {
		w.known = map[string]Plugin{}
	}
	if err := os.MkdirAll(w.Dir, 0o750); err != nil {
		return err
	}
	entries, err := os.ReadDir(w.Dir)
	if err != nil {
		return err
	}
	present := map[string]time.Time{}
	for _, e := range entries {
		if e.Type()&os.ModeSocket == 0 {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		present[filepath.Join(w.Dir, e.Name())] = fi.ModTime()
	}
	// In order of path: the step trace shows the calls.
	for _, sock := range slices.Sorted(maps.Keys(w.known)) {
		p := w.known[sock]
		if t, ok := present[sock]; ok && t.Equal(p.modTime) {
			continue
		}
		h.DeRegisterPlugin(ctx, p)
		delete(w.known, sock)
	}
	var errs []error
	for _, sock := range slices.Sorted(maps.Keys(present)) {
		if _, ok := w.known[sock]; ok {
			continue
		}
		p, err := w.register(ctx, sock, h)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.modTime = present[sock]
		w.known[sock] = p
	}
	return errors.Join(errs...)
}

// register is the operation executor's RegisterPlugin: GetInfo, the
// handler's validation and registration, then NotifyRegistrationStatus
// with the outcome.
func (w *Watcher) register(ctx context.Context, sock string, h Handler) (Plugin, error) {
	cc, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return Plugin{}, err
	}
	defer cc.Close()
	client := registerapi.NewRegistrationClient(cc)
	c := w.Caller
	c.Timeout = RegistrationTimeout
	info, err := Call(ctx, c, "GetInfo "+filepath.Base(sock), func(ctx context.Context) (*registerapi.PluginInfo, error) {
		return client.GetInfo(ctx, &registerapi.InfoRequest{})
	})
	if err != nil {
		return Plugin{}, fmt.Errorf("RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket %s, err: %w", sock, err)
	}
	p := Plugin{Socket: sock, Name: info.Name, Endpoint: info.Endpoint, Versions: info.SupportedVersions}
	if p.Endpoint == "" {
		p.Endpoint = sock
	}
	switch {
	case info.Type != registerapi.CSIPlugin:
		err = fmt.Errorf("RegisterPlugin error -- no handler registered for plugin type: %s at socket %s", info.Type, sock)
	default:
		if err = ValidateVersions(p.Name, p.Versions); err == nil {
			err = h.RegisterPlugin(ctx, p)
		}
		if err != nil {
			err = fmt.Errorf("RegisterPlugin error -- plugin registration failed with err: %w", err)
		}
	}
	status := &registerapi.RegistrationStatus{PluginRegistered: err == nil}
	if err != nil {
		status.Error = err.Error()
	}
	_, nerr := Call(ctx, c, "NotifyRegistrationStatus "+p.Name, func(ctx context.Context) (*registerapi.RegistrationStatusResponse, error) {
		return client.NotifyRegistrationStatus(ctx, status)
	})
	if err == nil && nerr != nil {
		// The plugin did not hear that it is registered: undo it, so
		// that the next scan registers it again.
		h.DeRegisterPlugin(ctx, p)
		err = fmt.Errorf("RegisterPlugin error -- failed to send registration status at socket %s, err: %w", sock, nerr)
	}
	return p, err
}

// ValidateVersions is the CSI handler's check of the versions a driver
// supports: one of them has major version 1 (highestSupportedVersion).
func ValidateVersions(name string, versions []string) error {
	if len(versions) == 0 {
		return fmt.Errorf("kubernetes.io/csi: ValidatePlugin for CSI driver %q failed. Plugin returned an empty list for supported versions", name)
	}
	if name == "" {
		return errors.New("kubernetes.io/csi: ValidatePlugin failed: the plugin gave no driver name")
	}
	for _, v := range versions {
		major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
		if n, err := strconv.Atoi(major); err == nil && n == 1 {
			return nil
		}
	}
	return fmt.Errorf("kubernetes.io/csi: ValidatePlugin for CSI driver %q failed. None of the versions specified %q are supported. err=none of the CSI versions reported by this driver are supported", name, versions)
}

// Forget drops the record of every plugin without deregistering it: a
// kubelet that stops forgets its plugins, and registers them again when
// it starts.
func (w *Watcher) Forget() { w.known = nil }
