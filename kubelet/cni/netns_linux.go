package cni

import (
	"fmt"
	"os"
	"runtime"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// realNetNS tells whether sandboxes get real network namespaces: only
// root may make them.
func realNetNS() bool { return os.Geteuid() == 0 }

// createNetNS makes a new network namespace and pins it at path, as
// `ip netns add` pins one under /run/netns and the runtimes under
// /var/run/netns: a bind mount of the namespace's file keeps it alive with
// no process in it, so that the plugins can enter it by path (CNI_NETNS).
func createNetNS(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDONLY, 0o444)
	if err != nil {
		return err
	}
	f.Close()
	errc := make(chan error, 1)
	go func() {
		// The namespace is entered by this thread only (unshare), locked
		// to it, and the thread comes back to the kubelet's namespace
		// before it goes back to the runtime's pool. It must not end
		// instead (a goroutine that exits locked ends its thread): Linux
		// sends the parent-death signal of the local images' processes
		// (kubelet/hostprocess) when the thread that started one ends,
		// and any thread of the pool may have. Only a thread that cannot
		// come back ends.
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("reading the kubelet's network namespace: %w", err)
			return
		}
		defer orig.Close()
		created, err := netns.New()
		if err != nil {
			// unshare failed: the thread is where it was.
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("unshare: %w", err)
			return
		}
		defer created.Close()
		src := fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid())
		err = unix.Mount(src, path, "none", unix.MS_BIND, "")
		if err != nil {
			err = fmt.Errorf("mount %s on %s: %w", src, path, err)
		}
		if netns.Set(orig) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	if err := <-errc; err != nil {
		_ = os.Remove(path)
		return err
	}
	return nil
}

// removeNetNS unpins the namespace at path (it ends when nothing else
// holds it) and removes the file; a placeholder file, or none, is fine.
func removeNetNS(path string) error {
	// Only a pinned namespace is a file of nsfs; a placeholder is not
	// unmounted (which needs root even to fail).
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err == nil && st.Type == unix.NSFS_MAGIC {
		if err := unix.Unmount(path, unix.MNT_DETACH); err != nil {
			return fmt.Errorf("unmount %s: %w", path, err)
		}
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
