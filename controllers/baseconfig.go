package controllers

import (
	"errors"
	"log/slog"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
)

// BaseConfig is what a controller of the controller manager is built
// from when it needs nothing of its own: its API client, the shared
// informer factory, the clock and the run mode — what
// kube-controller-manager's ControllerContext hands a controller's
// InitFunc. Such a controller's Config is this type (type Config =
// controllers.BaseConfig), or NamespacedConfig when it can be limited to
// one namespace; one with settings of its own has a Config of its own,
// with these fields first.
type BaseConfig struct {
	// Client is the controller's API client (required).
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	// Clock is the injected clock (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// NewController checks cfg (Client and Clock are required) and returns
// the Controller named name that runs rec, with no sources yet:
// InformerFor gives it the informers it watches, from cfg.Informers.
func (cfg BaseConfig) NewController(name string, rec Reconciler) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New(name + ": Client and Clock are required")
	}
	return New(Config{Name: name, Reconciler: rec, Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
}

// NamespacedConfig is BaseConfig for a controller that can be limited to
// one namespace and needs nothing else of its own: such a controller's
// Config is this type (type Config = controllers.NamespacedConfig).
type NamespacedConfig struct {
	BaseConfig
	// Namespace limits the controller to one namespace ("" for all).
	Namespace string
}
