package etcdtest

import (
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
}

// Stop kills etcd, waits for it to exit and removes its data directory.
func (e *Etcd) Stop() {
	_ = e.cmd.Process.Kill()
	<-e.exited
	_ = os.RemoveAll(e.dir)
}

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
	cmd := exec.Command(bin, "--name", "kubesim-test", "--data-dir", filepath.Join(dir, fmt.Sprint(attempt)),
		"--listen-client-urls", url, "--advertise-client-urls", url,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "kubesim-test="+peer, "--log-level", "error")
	// etcd dies with the test binary, even one killed by a timeout, rather
	// than outlive it holding ports and a temporary directory.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	e = &Etcd{URL: url, cmd: cmd, exited: make(chan struct{}), dir: dir}
	go func() { _ = cmd.Wait(); close(e.exited) }()
	// A generous bound: a loaded machine starts etcd slowly, and a
	// healthy etcd ends the wait at once.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-e.exited:
			return nil, true, fmt.Errorf("etcd exited at start")
		default:
		}
		if resp, err := http.Get(url + "/health"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return e, false, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-e.exited
	return nil, false, fmt.Errorf("etcd at %s did not become healthy", url)
}
