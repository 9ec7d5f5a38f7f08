//go:build !linux

package hostprocess

import "syscall"

// sysProcAttr: other systems have no parent-death signal; a kubesim
// killed with SIGKILL leaves its local-image processes running.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
