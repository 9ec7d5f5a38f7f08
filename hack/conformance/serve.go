package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// server is a `kubesim serve` built from this tree, run for one suite.
type server struct {
	cmd        *exec.Cmd
	Kubeconfig string
	exited     chan error
}

// startServer builds kubesim from the repository at root into dir and
// starts `kubesim serve --nodes N` on a free port with a fresh data
// directory under dir. Its output goes to dir/kubesim.log. It returns once
// the server has written its kubeconfig and answers /readyz.
func startServer(ctx context.Context, root, dir string, nodes int, log io.Writer) (*server, error) {
	bin := filepath.Join(dir, "kubesim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kubesim")
	build.Dir = root
	build.Stdout, build.Stderr = log, log
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/kubesim: %w", err)
	}
	logFile, err := os.Create(filepath.Join(dir, "kubesim.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--nodes", fmt.Sprint(nodes), "--addr", "127.0.0.1:0",
		"--data-dir", filepath.Join(dir, "data"), "--ui=false")
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, exited: make(chan error, 1)}
	written := make(chan string, 1)
	go func() {
		// Copy stdout to the log, noting the kubeconfig line on the way.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if rest, ok := strings.CutPrefix(line, "kubeconfig written to "); ok {
				path, _, _ := strings.Cut(rest, ";")
				written <- path
			}
		}
		s.exited <- cmd.Wait()
		logFile.Close()
	}()
	select {
	case s.Kubeconfig = <-written:
	case err := <-s.exited:
		return nil, fmt.Errorf("kubesim serve exited before it was ready (%v): see %s", err, logFile.Name())
	case <-ctx.Done():
		s.Stop()
		return nil, ctx.Err()
	}
	// kubectl reads the kubeconfig the way e2e.test will; a fresh
	// discovery cache keeps an old server's answers out.
	for {
		ready := exec.CommandContext(ctx, "kubectl", "--kubeconfig", s.Kubeconfig, "--cache-dir", filepath.Join(dir, "kubectl-cache"), "get", "--raw", "/readyz")
		if err := ready.Run(); err == nil {
			return s, nil
		}
		select {
		case err := <-s.exited:
			return nil, fmt.Errorf("kubesim serve exited before it was ready (%v): see %s", err, logFile.Name())
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Stop ends the server as Ctrl-C would, and kills it if it has not
// finished shutting down within a minute.
func (s *server) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}
