package containerenv

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A hostPath volume mounts a directory of the node. The simulated node has
// no disk of its own, so it is given the few files a student looks for in
// it — `kubectl debug node/NAME -it --image=busybox` mounts the node's
// root at /host, and the tutorial reads /host/etc/hostname or lists
// /host/var/log — as a kind node (Debian 12) has them. Left out: the
// node's real contents (logs, the kubelet's state, other pods' volumes);
// what a container writes under a hostPath mount stays in its own layer.

// nodeRoot is the simulated node's root: its files by absolute path, and
// its directories.
func nodeRoot(nodeName string) (map[string][]byte, []string) {
	files := map[string][]byte{
		"/etc/hostname": []byte(nodeName + "\n"),
		"/etc/hosts": []byte("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\n" +
			"ff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n"),
		"/etc/os-release": []byte("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n" +
			"VERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n"),
	}
	dirs := []string{"/bin", "/boot", "/dev", "/etc", "/etc/kubernetes", "/etc/kubernetes/manifests", "/home", "/lib",
		"/opt", "/proc", "/root", "/run", "/sbin", "/sys", "/tmp", "/usr", "/var", "/var/lib", "/var/lib/kubelet",
		"/var/log", "/var/log/containers", "/var/log/pods"}
	return files, dirs
}

// hostPathFile is the node's file a hostPath volume names, when it names
// a file: one of the node's, or an empty one it creates (type
// FileOrCreate).
func hostPathFile(nodeName string, src *corev1.HostPathVolumeSource) ([]byte, bool) {
	files, _ := nodeRoot(nodeName)
	if data, ok := files[path.Clean("/"+src.Path)]; ok {
		return data, true
	}
	if src.Type != nil && *src.Type == corev1.HostPathFileOrCreate {
		return []byte{}, true
	}
	return nil, false
}

// hostPathContent is what a hostPath volume of dir shows: the node's files
// and directories below dir, by path relative to it.
func hostPathContent(nodeName, dir string) (map[string][]byte, []string) {
	files, dirs := nodeRoot(nodeName)
	dir = path.Clean("/" + dir)
	prefix := strings.TrimSuffix(dir, "/") + "/"
	outFiles := map[string][]byte{}
	for p, data := range files {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			outFiles[rest] = data
		}
	}
	var outDirs []string
	for _, d := range dirs {
		if rest, ok := strings.CutPrefix(d, prefix); ok {
			outDirs = append(outDirs, rest)
		}
	}
	return outFiles, outDirs
}
