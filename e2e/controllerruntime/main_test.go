package controllerruntime

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestMain turns client-go's WatchListClient gate on (the default in
// client-go v0.37, said explicitly) and gives controller-runtime's
// package logger a sink, as an operator's main does; the manager's own
// logs go to the test through its Logger option.
func TestMain(m *testing.M) {
	if err := os.Setenv("KUBE_FEATURE_WatchListClient", "true"); err != nil {
		panic(err)
	}
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
