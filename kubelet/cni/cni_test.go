package cni_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet/cni"
	"github.com/kubesim/kubesim/kubelet/cni/cnitest"
)

var pod = cni.Pod{Namespace: "default", Name: "web", UID: "uid-1"}

func newManager(t *testing.T, confDir, binDir string, clk clock.Clock) *cni.Manager {
	t.Helper()
	m, err := cni.New(cni.Config{ConfDir: confDir, BinDirs: []string{binDir}, StateDir: cnitest.StateDir(t), Clock: clk})
	require.NoError(t, err)
	return m
}

// The mock plugin is given the runtimes' environment and configuration;
// its address becomes the sandbox's, the record outlives the call, CHECK
// passes and DEL frees the address.
func TestSetUpCheckTearDown(t *testing.T) {
	t.Parallel()
	binDir := cnitest.BuildMock(t)
	confDir, dataDir := t.TempDir(), t.TempDir()
	cnitest.WriteMockConf(t, confDir, "10-mock.conflist", dataDir)
	var calls []string
	m, err := cni.New(cni.Config{ConfDir: confDir, BinDirs: []string{binDir}, StateDir: cnitest.StateDir(t), Clock: clock.Real{},
		OnCall: func(c string) { calls = append(calls, c) }})
	require.NoError(t, err)
	ctx := context.Background()

	sb, err := m.SetUp(ctx, "sandbox1", pod)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.22.0.2"}, sb.IPs)
	assert.FileExists(t, sb.NetNS)
	log := cnitest.Calls(t, dataDir)
	require.Len(t, log, 1)
	assert.Equal(t, "ADD sandbox1 netns="+sb.NetNS+" ifname=eth0 args=IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web;K8S_POD_INFRA_CONTAINER_ID=sandbox1;K8S_POD_UID=uid-1", log[0])

	recorded, err := m.Sandboxes()
	require.NoError(t, err)
	require.Len(t, recorded, 1)
	assert.Equal(t, sb.ID, recorded[0].ID)
	assert.Equal(t, pod, recorded[0].Pod)
	assert.Equal(t, sb.IPs, recorded[0].IPs)

	require.NoError(t, m.Check(ctx, recorded[0]))
	require.NoError(t, m.TearDown(ctx, recorded[0]))
	assert.NoFileExists(t, sb.NetNS)
	recorded, err = m.Sandboxes()
	require.NoError(t, err)
	assert.Empty(t, recorded)
	assert.NoFileExists(t, filepath.Join(dataDir, "10.22.0.2"), "DEL frees the address")
	assert.Equal(t, []string{"ADD mock default/web", "CHECK mock default/web", "DEL mock default/web"}, calls)
	log = cnitest.Calls(t, dataDir)
	require.Len(t, log, 3)
	assert.True(t, strings.HasPrefix(log[1], "CHECK sandbox1 "), log[1])
	assert.True(t, strings.HasPrefix(log[2], "DEL sandbox1 "), log[2])
}

// The runtimes take the first .conflist in lexical order, a .conf only
// when there is no list.
func TestLoadNetworkPicksAsTheRuntimes(t *testing.T) {
	t.Parallel()
	confDir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(confDir, name), []byte(content), 0o644))
	}
	m := newManager(t, confDir, t.TempDir(), clock.Real{})
	write("05-single.conf", `{"cniVersion": "1.0.0", "name": "single", "type": "a"}`)
	list, err := m.LoadNetwork()
	require.NoError(t, err)
	assert.Equal(t, "single", list.Name)
	assert.Equal(t, "a", list.Plugins[0].Network.Type)

	write("20-b.conflist", `{"cniVersion": "1.0.0", "name": "b", "plugins": [{"type": "b"}]}`)
	write("10-a.conflist", `{"cniVersion": "1.0.0", "name": "a", "plugins": [{"type": "a1"}, {"type": "a2"}]}`)
	list, err = m.LoadNetwork()
	require.NoError(t, err)
	assert.Equal(t, "a", list.Name)
	assert.Len(t, list.Plugins, 2)
}

// Each fault reads as containerd reports it, and leaves no sandbox.
func TestSetUpFaults(t *testing.T) {
	t.Parallel()
	const id = "sb"
	for _, tc := range []struct {
		name   string
		plugin string // the shell script of the plugin "bad"; "" none
		mode   os.FileMode
		noConf bool
		want   string
	}{
		{name: "no configuration", noConf: true,
			want: `failed to setup network for sandbox "sb": no network config found in CONFDIR: cni plugin not initialized`},
		{name: "missing binary",
			want: `failed to setup network for sandbox "sb": plugin type="bad" failed (add): failed to find plugin "bad" in path [BINDIR]`},
		{name: "not executable", plugin: "#!/bin/sh\nexit 0\n", mode: 0o644,
			want: `failed to setup network for sandbox "sb": plugin type="bad" failed (add): netplugin failed with no error message: fork/exec BINDIR/bad: permission denied`},
		{name: "CNI error", plugin: "#!/bin/sh\necho '{\"cniVersion\": \"1.0.0\", \"code\": 11, \"msg\": \"no IP addresses available\", \"details\": \"range is full\"}'\nexit 1\n", mode: 0o755,
			want: `failed to setup network for sandbox "sb": plugin type="bad" failed (add): no IP addresses available; range is full`},
		{name: "malformed output", plugin: "#!/bin/sh\necho 'this is not json'\n", mode: 0o755,
			want: `failed to setup network for sandbox "sb": plugin type="bad" failed (add): failed to unmarshal raw result: invalid character 'h' in literal true (expecting 'r')`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			confDir, binDir := t.TempDir(), t.TempDir()
			if !tc.noConf {
				require.NoError(t, os.WriteFile(filepath.Join(confDir, "10-bad.conflist"),
					[]byte(`{"cniVersion": "1.0.0", "name": "badnet", "plugins": [{"type": "bad"}]}`), 0o644))
			}
			if tc.plugin != "" {
				require.NoError(t, os.WriteFile(filepath.Join(binDir, "bad"), []byte(tc.plugin), tc.mode))
			}
			m := newManager(t, confDir, binDir, clock.Real{})
			_, err := m.SetUp(context.Background(), id, pod)
			require.Error(t, err)
			want := strings.NewReplacer("CONFDIR", confDir, "BINDIR", binDir).Replace(tc.want)
			assert.Equal(t, want, err.Error())
			recorded, err := m.Sandboxes()
			require.NoError(t, err)
			assert.Empty(t, recorded)
		})
	}
}

// A plugin that never answers is killed when the sandbox's 4 minutes are
// over on the kubelet's clock, and the kubelet sees its call's deadline.
func TestSetUpTimesOutOnTheClock(t *testing.T) {
	t.Parallel()
	confDir, binDir := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(confDir, "10-hang.conflist"),
		[]byte(`{"cniVersion": "1.0.0", "name": "hangnet", "plugins": [{"type": "hang"}]}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(binDir, "hang"), []byte("#!/bin/sh\nexec sleep 600\n"), 0o755))
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := newManager(t, confDir, binDir, clk)
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err = m.SetUp(context.Background(), "sb", pod)
	}()
	// Wait for the call's timer, then move the clock to it.
	require.Eventually(t, func() bool {
		at, ok := clk.NextDeadline()
		return ok && at.Equal(clk.Now().Add(cni.SandboxTimeout))
	}, time.Minute, 5*time.Millisecond)
	clk.Step(cni.SandboxTimeout)
	wg.Wait()
	require.ErrorIs(t, err, cni.ErrDeadlineExceeded)
	assert.Equal(t, "rpc error: code = DeadlineExceeded desc = context deadline exceeded", err.Error())
}

// Bad configuration of the manager is refused.
func TestNewRefusesMissingFields(t *testing.T) {
	t.Parallel()
	_, err := cni.New(cni.Config{ConfDir: t.TempDir()})
	require.Error(t, err)
}
