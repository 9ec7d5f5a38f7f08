package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/scheduler"
)

// permitAll is an out-of-tree Permit plugin.
type permitAll struct{}

func (permitAll) Name() string { return "PermitAll" }

func (permitAll) Permit(context.Context, *scheduler.CycleState, *scheduler.PodInfo, string) (*scheduler.Status, time.Duration) {
	return nil, 0
}

func factory(runtime.Object, scheduler.Handle) (scheduler.Plugin, error) { return permitAll{}, nil }

// run executes the command with args and returns its error.
func run(t *testing.T, args []string, opts ...Option) error {
	var out bytes.Buffer
	cmd := NewSchedulerCommand(append([]Option{WithOutput(&out, &out)}, opts...)...)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	return cmd.ExecuteContext(t.Context())
}

// A configuration that enables a plugin: without WithPlugin it does not
// exist (kube-scheduler's message); with it the configuration is built
// and the command goes on to the kubeconfig. A name the in-tree registry
// has cannot be taken.
func TestWithPlugin(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(conf, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    permit:
      enabled:
      - name: PermitAll
`), 0o600))
	missing := filepath.Join(dir, "missing.kubeconfig")
	args := []string{"--config", conf, "--kubeconfig", missing}

	err := run(t, args)
	assert.ErrorContains(t, err, `PermitPlugin "PermitAll" does not exist`)

	err = run(t, args, WithPlugin("PermitAll", factory))
	require.Error(t, err)
	assert.ErrorContains(t, err, "missing.kubeconfig", "past the profiles, to the kubeconfig")

	err = run(t, args, WithPlugin("NodeName", factory))
	assert.EqualError(t, err, "scheduler: a plugin named NodeName already exists")
}
