package containerenv

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// The modes and owners of a volume's files, as the kubelet leaves them:
// the atomic writer's volumes (ConfigMap, Secret, downward API,
// projected) write each file with its item's mode or the volume's
// defaultMode (0644 when unset); an emptyDir is a directory anyone may
// write (0777). A pod's fsGroup then gives every file and directory of
// the volume to that group, read-only volumes' files with at least
// 0440, directories setgid (SetVolumeOwnership in
// kubernetes/pkg/volume/volume_linux.go). Secret and projected volumes,
// and an emptyDir of medium Memory, are tmpfs.

// defaultFileMode is the atomic writer's volumes' mode when neither the
// item nor the volume says one (corev1.ConfigMapVolumeSourceDefaultMode).
const defaultFileMode fs.FileMode = 0o644

// volumeContent collects a volume's files and their modes, with the mode
// a file gets when its item names none.
type volumeContent struct {
	files       map[string][]byte
	modes       map[string]fs.FileMode
	defaultMode fs.FileMode
}

// withMode is out giving files mode (nil: 0644) when their items name none.
func (out volumeContent) withMode(mode *int32) volumeContent {
	out.defaultMode = defaultFileMode
	if mode != nil {
		out.defaultMode = fs.FileMode(*mode) & fs.ModePerm
	}
	return out
}

// add puts a file at p (relative to the volume), with mode or the default.
func (out volumeContent) add(p string, data []byte, mode *int32) {
	p = path.Clean(p)
	out.files[p] = data
	out.modes[p] = out.defaultMode
	if mode != nil {
		out.modes[p] = fs.FileMode(*mode) & fs.ModePerm
	}
}

// atomicWriter says the volume is one the kubelet writes whole and mounts
// read-only.
func atomicWriter(vol *corev1.Volume) bool {
	return vol.ConfigMap != nil || vol.Secret != nil || vol.DownwardAPI != nil || vol.Projected != nil
}

// mountMeta records the mode and owner of the volume's mount point, and
// whether it is tmpfs.
func (b *builder) mountMeta(vol *corev1.Volume, mountPath string) {
	if !atomicWriter(vol) && vol.EmptyDir == nil {
		return
	}
	if vol.Secret != nil || vol.Projected != nil || vol.EmptyDir != nil && vol.EmptyDir.Medium == corev1.StorageMediumMemory {
		b.tmpfs = append(b.tmpfs, mountPath)
	}
	meta := shell.FileMeta{Mode: 0o777}
	if g := b.fsGroup(); g != nil {
		meta.Mode |= fs.ModeSetgid
		meta.GID = *g
	}
	b.meta[mountPath] = meta
}

// fileMeta records the mode and owner of a file of an atomic writer's
// volume at p.
func (b *builder) fileMeta(vol *corev1.Volume, p string, mode fs.FileMode) {
	if !atomicWriter(vol) {
		return
	}
	meta := shell.FileMeta{Mode: mode}
	if g := b.fsGroup(); g != nil {
		meta.Mode |= 0o440
		meta.GID = *g
	}
	b.meta[p] = meta
}

// fsGroup is the pod's fsGroup, if it has one.
func (b *builder) fsGroup() *int64 {
	if sc := b.pod.Spec.SecurityContext; sc != nil {
		return sc.FSGroup
	}
	return nil
}

// DefaultTerminationPath is where the API server's defaults point a
// container's terminationMessagePath.
const DefaultTerminationPath = "/dev/termination-log"

// TerminationPath is the file container c writes its termination message
// to: the kubelet mounts it writable, even under a read-only root.
func TerminationPath(c *corev1.Container) string {
	if c.TerminationMessagePath != "" {
		return path.Clean(c.TerminationMessagePath)
	}
	return DefaultTerminationPath
}

// runAs is who container c's processes run as: its securityContext's
// runAsUser and runAsGroup, else the pod's, else root.
func runAs(pod *corev1.Pod, c *corev1.Container) shell.Owner {
	var o shell.Owner
	if sc := pod.Spec.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			o.UID = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			o.GID = *sc.RunAsGroup
		}
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			o.UID = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			o.GID = *sc.RunAsGroup
		}
	}
	return o
}

// CheckSubPaths is the kubelet's check of container c's volume mounts
// before it creates the container (makeMounts in
// kubernetes/pkg/kubelet/kubelet_pods.go): a subPath, or a subPathExpr
// expanded with the container's variables env, must be relative and must
// not step out of its volume with "..". The error is the container's
// CreateContainerConfigError message.
func CheckSubPaths(c *corev1.Container, env []shell.Var) error {
	vars := map[string]string{}
	for _, v := range env {
		vars[v.Name] = v.Value
	}
	for _, m := range c.VolumeMounts {
		sub := m.SubPath
		if m.SubPathExpr != "" {
			sub = Expand(m.SubPathExpr, vars)
		}
		if sub == "" {
			continue
		}
		if path.IsAbs(sub) {
			return fmt.Errorf("error SubPath `%s` must not be an absolute path", sub)
		}
		for _, part := range strings.Split(sub, "/") {
			if part == ".." {
				return fmt.Errorf("unable to provision SubPath `%s`: must not contain '..'", sub)
			}
		}
	}
	return nil
}
