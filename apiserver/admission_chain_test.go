package apiserver_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// extraPlugin stands for a plugin given in Config.Admission.
type extraPlugin struct{}

func (extraPlugin) PluginName() string { return "Extra" }
func (extraPlugin) Validate(context.Context, *admission.Attributes) error {
	return nil
}

// chainOf builds a server from cfg (its store, clock and resources
// filled in) and returns the admission chain its stores run, by plugin
// name.
func chainOf(t *testing.T, cfg apiserver.Config) []string {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	cfg.Storage, cfg.Clock, cfg.Rand, cfg.Resources = st, clock.NewFake(apiservertest.Start), rand.NewChaCha8([32]byte{1}), kinds.Builtin()
	srv, err := apiserver.New(cfg)
	require.NoError(t, err)
	pods, ok := srv.Store("", "v1", "pods")
	require.True(t, ok)
	configMaps, ok := srv.Store("", "v1", "configmaps")
	require.True(t, ok)
	assert.Equal(t, pods.Admission().Names(), configMaps.Admission().Names(), "every store runs the one chain")
	return pods.Admission().Names()
}

// TestAdmissionChainOrder pins the order admission_chain.go documents:
// moving a plugin fails here until the documentation and this list say
// the same.
func TestAdmissionChainOrder(t *testing.T) {
	all := chainOf(t, apiserver.Config{AuthorizationMode: "Node,RBAC", ServiceAccountAdmission: true, Admission: []any{extraPlugin{}}})
	assert.Equal(t, []string{
		"NamespaceLifecycle",
		"LimitRanger",
		"ServiceAccount",
		"Priority",
		"DefaultStorageClass",
		"StorageObjectInUseProtection",
		"Extra",
		"ValidatingAdmissionPolicy",
		"NodeRestriction",
		"Escalation",
		"MutatingAdmissionWebhook",
		"ValidatingAdmissionWebhook",
		"ResourceQuota",
	}, all)

	// Without the ServiceAccount plugin, the Node and RBAC modes and
	// extra plugins, the others keep their order.
	bare := chainOf(t, apiserver.Config{})
	assert.Equal(t, []string{
		"NamespaceLifecycle",
		"LimitRanger",
		"Priority",
		"DefaultStorageClass",
		"StorageObjectInUseProtection",
		"ValidatingAdmissionPolicy",
		"MutatingAdmissionWebhook",
		"ValidatingAdmissionWebhook",
		"ResourceQuota",
	}, bare)
}
