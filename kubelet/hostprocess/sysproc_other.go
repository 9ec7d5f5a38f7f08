//go:build !linux

package hostprocess

import (
	"errors"
	"os/exec"
	"syscall"
)

// sysProcAttr: other systems have no parent-death signal; a kubesim
// killed with SIGKILL leaves its local-image processes running.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// startIn starts cmd; network namespaces are Linux's alone, so a path
// is refused (the kubelet gives one only where the CNI manager made real
// namespaces, as root on Linux).
func startIn(cmd *exec.Cmd, path string, done <-chan struct{}) (nsErr, err error) {
	if path != "" {
		return errors.New("network namespaces exist only on Linux"), nil
	}
	return nil, cmd.Start()
}
