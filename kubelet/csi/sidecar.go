package csi

import (
	"errors"
	"time"
)

// DefaultSidecarTimeout is the deadline of one call of a sidecar
// (external-provisioner's and external-attacher's --timeout).
const DefaultSidecarTimeout = 15 * time.Second

// SidecarConfig is what the sidecars kubesim plays (the external-provisioner
// and the external-attacher) need beside their controller's: where the
// drivers are, how long a call may take, and who hears of each call.
type SidecarConfig struct {
	// Drivers finds a driver's socket by name (required).
	Drivers *Drivers
	// Timeout bounds each call (DefaultSidecarTimeout).
	Timeout time.Duration
	// OnCall, when set, is told of each gRPC call (the step trace).
	OnCall func(call string)
}

// Defaulted checks c for the sidecar named name and fills in its
// defaults.
func (c SidecarConfig) Defaulted(name string) (SidecarConfig, error) {
	if c.Drivers == nil {
		return c, errors.New(name + ": Drivers is required")
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultSidecarTimeout
	}
	return c, nil
}
