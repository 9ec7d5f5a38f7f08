package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet/deviceplugin"
	"github.com/kubesim/kubesim/kubelet/deviceplugin/deviceplugintest"
)

// `kubesim device-plugin` registers its devices with a kubelet's device
// manager; SIGUSR1 fails one, SIGUSR2 heals them, and stopping it takes
// them away.
func TestDevicePluginCommand(t *testing.T) {
	dir := deviceplugintest.Dir(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m, err := deviceplugin.New(deviceplugin.Config{Dir: dir, Clock: clk})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	gpus := func(capacity, allocatable int64) {
		t.Helper()
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			cp, al := m.Resources(clk.Now())
			assert.Equal(c, capacity, cp.Name("example.com/gpu", resource.DecimalSI).Value())
			assert.Equal(c, allocatable, al.Name("example.com/gpu", resource.DecimalSI).Value())
		}, 30*time.Second, 5*time.Millisecond)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		root := newRootCommand(strings.NewReader(""), outW, io.Discard)
		root.SetArgs([]string{"device-plugin", "--kubelet-dir", dir, "--count", "2"})
		done <- root.ExecuteContext(ctx)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	require.True(t, lines.Scan())
	assert.Regexp(t, `^device plugin \d+: registered example.com/gpu \(gpu-0 gpu-1\) with the kubelet; serving on .*/example.com_gpu.sock$`, lines.Text())
	gpus(2, 2)

	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGUSR1))
	require.True(t, lines.Scan())
	assert.Equal(t, "gpu-1 is Unhealthy", lines.Text())
	gpus(2, 1)
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGUSR2))
	require.True(t, lines.Scan())
	assert.Equal(t, "every device is Healthy", lines.Text())
	gpus(2, 2)

	cancel()
	require.True(t, lines.Scan())
	assert.Equal(t, "device plugin stopping: its devices go with it", lines.Text())
	require.NoError(t, <-done)
	gpus(2, 0)
}

func TestDevicePluginCommandWithoutAKubelet(t *testing.T) {
	t.Parallel()
	code, _, errOut := kubesim("device-plugin")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--kubelet-dir is required")
	dir := deviceplugintest.Dir(t)
	code, _, errOut = kubesim("device-plugin", "--kubelet-dir", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "device-plugin: registering with the kubelet: rpc error: code = Unavailable")
}

// The plugin exits when its kubelet goes away (its server stopped), so
// that a plugin started in the background does not outlive a lab.
func TestDevicePluginCommandExitsWithItsKubelet(t *testing.T) {
	dir := deviceplugintest.Dir(t)
	m, err := deviceplugin.New(deviceplugin.Config{Dir: dir, Clock: clock.Real{}})
	require.NoError(t, err)
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		root := newRootCommand(strings.NewReader(""), outW, io.Discard)
		root.SetArgs([]string{"device-plugin", "--kubelet-dir", dir})
		done <- root.ExecuteContext(context.Background())
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	require.True(t, lines.Scan())
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		_, al := m.Resources(time.Now())
		assert.Equal(c, int64(4), al.Name("example.com/gpu", resource.DecimalSI).Value())
	}, 30*time.Second, 5*time.Millisecond)
	m.Close()
	require.True(t, lines.Scan())
	assert.Equal(t, "the kubelet closed the stream (it stopped): device plugin exiting", lines.Text())
	require.NoError(t, <-done)
}
