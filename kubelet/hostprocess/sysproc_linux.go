package hostprocess

import "syscall"

// sysProcAttr makes the child die with the kubelet's process (a kubesim
// killed with SIGKILL leaves no operator running): Linux's parent-death
// signal. (Linux sends it when the thread that started the child ends;
// the Go runtime ends threads only under LockOSThread, which the
// kubelet does not use.) The child also gets its own process group, so that a ^C at the
// terminal reaches kubesim, which stops it in order, not the child
// directly.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
