package etcdtest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Etcd is a running etcd started by Start.
type Etcd struct {
	// URL is etcd's client URL (the --etcd-servers of an API server).
	URL string

	cmd    *exec.Cmd
	exited chan struct{}
	dir    string
	// args start this member again on the same ports and data (Restart).
	bin  string
	args []string
}

// Stop kills etcd, waits for it to exit and removes its data directory.
func (e *Etcd) Stop() {
	_ = e.cmd.Process.Kill()
	<-e.exited
	_ = os.RemoveAll(e.dir)
}

// Kill kills etcd (SIGKILL) and waits for it to exit, keeping its data:
// etcd is lost, connections are refused, until Restart.
func (e *Etcd) Kill() {
	_ = e.cmd.Process.Kill()
	<-e.exited
}

// Restart starts the killed member again on the same ports and data
// directory, and returns once it answers /health: what was written before
// Kill is there, at the same revisions.
func (e *Etcd) Restart() error {
	cmd := exec.Command(e.bin, e.args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	e.cmd, e.exited = cmd, make(chan struct{})
	exited := e.exited
	go func() { _ = cmd.Wait(); close(exited) }()
	if err := e.waitHealthy(); err != nil {
		return fmt.Errorf("restarting etcd: %w", err)
	}
	return nil
}

// waitHealthy waits until etcd answers /health, or exits.
func (e *Etcd) waitHealthy() error {
	// A generous bound: a loaded machine starts etcd slowly, and a
	// healthy etcd ends the wait at once.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-e.exited:
			return errExited
		default:
		}
		if resp, err := http.Get(e.URL + "/health"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = e.cmd.Process.Kill()
	<-e.exited
	return fmt.Errorf("etcd at %s did not become healthy", e.URL)
}

var errExited = errors.New("etcd exited at start")

// Pause stops etcd without killing it (SIGSTOP): connections stay open
// and requests hang, as when etcd's machine is cut off; Resume lets it go
// on (SIGCONT).
func (e *Etcd) Pause() error { return e.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume undoes Pause.
func (e *Etcd) Resume() error { return e.cmd.Process.Signal(syscall.SIGCONT) }

// FreePort returns a loopback port that nothing listened on a moment ago
// (a URL that refuses connections, or one for etcd to take).
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Start runs a one-member etcd on free loopback ports and returns once it
// answers /health. Another process can take a port between FreePort and
// etcd's bind: etcd then exits, and Start tries other ports.
func Start() (*Etcd, error) {
	bin, err := exec.LookPath("etcd")
	if err != nil {
		return nil, fmt.Errorf("no etcd binary on PATH (apt-get install etcd-server; .ci/run does): %w", err)
	}
	dir, err := os.MkdirTemp("", "kubesim-etcd-")
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < 5; attempt++ {
		e, retry, err := startOnce(bin, dir, attempt)
		if err == nil {
			return e, nil
		}
		if !retry {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	_ = os.RemoveAll(dir)
	return nil, fmt.Errorf("etcd could not start")
}

// startOnce starts etcd on two fresh ports; retry reports that etcd exited
// at once (most likely a port taken meanwhile).
func startOnce(bin, dir string, attempt int) (e *Etcd, retry bool, err error) {
	cport, err1 := FreePort()
	pport, err2 := FreePort()
	if err1 != nil || err2 != nil {
		return nil, false, fmt.Errorf("no free port: %v %v", err1, err2)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", cport)
	peer := fmt.Sprintf("http://127.0.0.1:%d", pport)
	args := []string{"--name", "kubesim-test", "--data-dir", filepath.Join(dir, fmt.Sprint(attempt)),
		"--listen-client-urls", url, "--advertise-client-urls", url,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "kubesim-test=" + peer, "--log-level", "error"}
	cmd := exec.Command(bin, args...)
	// etcd dies with the test binary, even one killed by a timeout, rather
	// than outlive it holding ports and a temporary directory.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	e = &Etcd{URL: url, cmd: cmd, exited: make(chan struct{}), dir: dir, bin: bin, args: args}
	go func() { _ = cmd.Wait(); close(e.exited) }()
	if err := e.waitHealthy(); err != nil {
		return nil, errors.Is(err, errExited), err
	}
	return e, false, nil
}
