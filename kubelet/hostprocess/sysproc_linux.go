package hostprocess

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/vishvananda/netns"
)

// sysProcAttr makes the child die with the kubelet's process (a kubesim
// killed with SIGKILL leaves no operator running): Linux's parent-death
// signal. (Linux sends it when the thread that started the child ends;
// the Go runtime ends a thread only when a goroutine exits locked to it,
// which the kubelet's goroutines that enter a network namespace — here
// and in kubelet/cni — do only when they cannot come back out.) The
// child also gets its own process group, so that a ^C at the terminal
// reaches kubesim, which stops it in order, not the child directly.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// startIn starts cmd inside the network namespace pinned at path (the
// pod sandbox's, from the CNI manager), or in the kubelet's own when
// path is empty. done is closed once the child has ended.
//
// Why it works: a namespace belongs to a thread, not to the process, and
// fork/exec clones the calling thread, so a child started by a thread
// that has entered a namespace (setns) is born in it, with its eth0 and
// the pod's address. The goroutine is locked to its thread for the
// length of that, and the thread goes back to the runtime's pool only
// once it is back in the kubelet's namespace; if it cannot come back it
// is held until the child ends (Pdeathsig would kill the child were the
// thread to end), then ends with the goroutine — a rare failure, in
// which a child started earlier from the same thread goes too.
//
// What it does not do: only the network is the pod's. There are no mount,
// PID, UTS or user namespaces, as runc would make: the process still
// sees the host's file system, processes and users.
func startIn(cmd *exec.Cmd, path string, done <-chan struct{}) (nsErr, err error) {
	if path == "" {
		return nil, cmd.Start()
	}
	type result struct{ nsErr, err error }
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			res <- result{nsErr: fmt.Errorf("reading the kubelet's network namespace: %w", err)}
			return
		}
		defer orig.Close()
		target, err := netns.GetFromPath(path)
		if err != nil {
			runtime.UnlockOSThread()
			res <- result{nsErr: fmt.Errorf("opening network namespace %s: %w", path, err)}
			return
		}
		defer target.Close()
		if err := netns.Set(target); err != nil {
			// setns failed: the thread is still in the kubelet's.
			runtime.UnlockOSThread()
			res <- result{nsErr: fmt.Errorf("joining network namespace %s: %w", path, err)}
			return
		}
		res <- result{err: cmd.Start()}
		if netns.Set(orig) == nil {
			runtime.UnlockOSThread()
			return
		}
		<-done
	}()
	r := <-res
	return r.nsErr, r.err
}
