package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startKubesimProcess runs this test binary as `kubesim ARGS...` in a child
// process and waits for the first line it prints, which it returns with a
// stop function (Ctrl-C, then a kill after 10 s); the test's end stops it
// too. A process that exits or prints nothing within 30 s fails the test.
func startKubesimProcess(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsKubesimEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	started := make(chan string, 1)
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			if first {
				started <- sc.Text()
				first = false
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
	}
	t.Cleanup(stop)
	select {
	case line := <-started:
		return line, stop
	case <-exited:
		t.Fatalf("kubesim %s ended: %s", strings.Join(args, " "), stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("kubesim %s did not start: %s", strings.Join(args, " "), stderr.String())
	}
	return "", stop
}
