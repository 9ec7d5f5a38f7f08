package containerenv

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/programs"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// Sources are where the kubelet reads what a pod refers to (the API
// server, as the real kubelet's ConfigMap and Secret managers do).
type Sources interface {
	ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error)
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	// ServiceAccountToken is a token for the pod's service account (a
	// TokenRequest bound to the pod).
	ServiceAccountToken(ctx context.Context, pod *corev1.Pod, audience string, expirationSeconds *int64) (string, error)
	// Service and Services read the Services whose variables a
	// container gets (the kubelet's service lister).
	Service(ctx context.Context, namespace, name string) (*corev1.Service, error)
	Services(ctx context.Context, namespace string) ([]*corev1.Service, error)
	// NodeAllocatable is the node's allocatable: what a container without
	// a CPU, memory or ephemeral-storage limit may use, and what the
	// downward API says its limit is.
	NodeAllocatable() corev1.ResourceList
}

// VolumeSource gives the storage of a pod's writable volumes (the
// kubelet's volume manager): an emptyDir's, a claim's persistent
// volume's. Sources that are one mount them (shell.Mount); others leave
// them empty directories whose writes stay in the container's layer.
type VolumeSource interface {
	Volume(ctx context.Context, pod *corev1.Pod, vol *corev1.Volume) (shell.Volume, bool)
}

// DefaultPath is the PATH of the images the simulation pretends to run.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Build returns the environment of container c of pod.
func Build(ctx context.Context, pod *corev1.Pod, c *corev1.Container, src Sources) shell.Environment {
	b := builder{ctx: ctx, pod: pod, src: src, files: map[string][]byte{}, meta: map[string]shell.FileMeta{}}
	// What the image has (package programs); an image kubesim does not
	// know is taken to be built on Debian, with bash and without curl.
	bash, curl := true, false
	if img, ok := programs.Lookup(c.Image); ok {
		bash, curl = img.Shell && img.Bash, img.Curl
		// Its own directories (nginx's document root, where a page
		// written through kubectl exec is served from).
		b.dirs = append(b.dirs, img.Dirs...)
	}
	env := b.vars(c)
	vars := map[string]string{}
	for _, v := range env {
		vars[v.Name] = v.Value
	}
	for _, m := range c.VolumeMounts {
		if m.SubPathExpr != "" {
			// The kubelet expands subPathExpr with the container's
			// variables ($(VAR), as in command and args).
			m.SubPath = Expand(m.SubPathExpr, vars)
		}
		b.mount(m)
	}
	host := Hostname(pod)
	b.files["/etc/hostname"] = []byte(host + "\n")
	if _, mounted := b.files["/etc/hosts"]; !mounted {
		// A container that mounts its own /etc/hosts keeps it.
		b.files["/etc/hosts"] = []byte(hostsFile(pod, host))
	}
	return shell.Environment{Env: env, Files: b.files, Dirs: b.dirs, ReadOnly: b.readOnly, Mounts: b.mounts, Hostname: host, WorkingDir: c.WorkingDir,
		Bash: bash, Curl: curl, Meta: b.meta, Tmpfs: b.tmpfs, User: runAs(pod, c),
		ReadOnlyRoot: c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem,
		Writable:     []string{TerminationPath(c)}, Live: b.live}
}

// Hostname is the pod's hostname: the node's name for a pod on the node's
// network (hostNetwork, as kubectl debug node/NAME makes it), else
// spec.hostname, else its name.
func Hostname(pod *corev1.Pod) string {
	if pod.Spec.HostNetwork && pod.Spec.NodeName != "" {
		return pod.Spec.NodeName
	}
	if pod.Spec.Hostname != "" {
		return pod.Spec.Hostname
	}
	return pod.Name
}

// hostsFile is the /etc/hosts the kubelet writes for a pod: on the pod
// network its own, managed one; on the node's network the node's file.
// Both end with the pod's hostAliases (the kubelet's
// hostsEntriesFromHostAliases).
func hostsFile(pod *corev1.Pod, host string) string {
	var b strings.Builder
	if pod.Spec.HostNetwork {
		files, _ := nodeRoot(pod.Spec.NodeName)
		b.Write(files["/etc/hosts"])
	} else {
		managedHostsFile(&b, pod, host)
	}
	if len(pod.Spec.HostAliases) > 0 {
		b.WriteString("\n# Entries added by HostAliases.\n")
		for _, a := range pod.Spec.HostAliases {
			fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
		}
	}
	return b.String()
}

// managedHostsFile writes the hosts file the kubelet manages for a pod
// on the pod network.
func managedHostsFile(b *strings.Builder, pod *corev1.Pod, host string) {
	b.WriteString("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
		"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n")
	if pod.Status.PodIP != "" {
		name := host
		if pod.Spec.Subdomain != "" {
			name = fmt.Sprintf("%s.%s.%s.svc.cluster.local\t%s", host, pod.Spec.Subdomain, pod.Namespace, host)
		}
		fmt.Fprintf(b, "%s\t%s\n", pod.Status.PodIP, name)
	}
}

type builder struct {
	ctx   context.Context
	pod   *corev1.Pod
	src   Sources
	files map[string][]byte
	dirs  []string
	// readOnly are the mount points of read-only volumes.
	readOnly []string
	// mounts are the writable volumes (VolumeSource).
	mounts []shell.Mount
	// meta are the modes and owners of the volumes' files and mount
	// points (filemodes.go), tmpfs the memory-backed volumes' mount points.
	meta  map[string]shell.FileMeta
	tmpfs []string
	// live are the mount points of the atomic writer's volumes mounted
	// whole: the kubelet rewrites them as their sources change (a subPath
	// mount keeps what it first had).
	live []string
}

// vars are the container's variables: PATH and HOSTNAME as the runtime
// sets them, then envFrom, then env (later ones win, keeping the first
// position), then the Services' variables the container did not set
// itself (which $(VAR) references in env may use), then HOME.
func (b *builder) vars(c *corev1.Container) []shell.Var {
	var order []string
	vals := map[string]string{}
	services := serviceVars(b.ctx, b.pod, c, b.src)
	// scope is what $(VAR) expands from: the container's own variables,
	// else the Services' (expansion.MappingFuncFor(tmpEnv, serviceEnv)).
	scope := make(map[string]string, len(services))
	for _, v := range services {
		scope[v.Name] = v.Value
	}
	set := func(n, v string) {
		if _, ok := vals[n]; !ok {
			order = append(order, n)
		}
		vals[n] = v
		scope[n] = v
	}
	set("PATH", DefaultPath)
	set("HOSTNAME", Hostname(b.pod))
	for _, from := range c.EnvFrom {
		var data map[string]string
		switch {
		case from.ConfigMapRef != nil:
			if cm, err := b.src.ConfigMap(b.ctx, b.pod.Namespace, from.ConfigMapRef.Name); err == nil {
				data = cm.Data
			}
		case from.SecretRef != nil:
			if s, err := b.src.Secret(b.ctx, b.pod.Namespace, from.SecretRef.Name); err == nil {
				data = map[string]string{}
				for k, v := range s.Data {
					data[k] = string(v)
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(data)) {
			set(from.Prefix+k, data[k])
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, Expand(e.Value, scope))
			continue
		}
		if v, ok := b.valueFrom(c, e.ValueFrom); ok {
			set(e.Name, v)
		}
	}
	for _, v := range services {
		if _, ok := vals[v.Name]; !ok {
			set(v.Name, v.Value)
		}
	}
	if _, ok := vals["HOME"]; !ok {
		set("HOME", "/root")
	}
	out := make([]shell.Var, len(order))
	for i, n := range order {
		out[i] = shell.Var{Name: n, Value: vals[n]}
	}
	return out
}

func (b *builder) valueFrom(c *corev1.Container, from *corev1.EnvVarSource) (string, bool) {
	switch {
	case from.ConfigMapKeyRef != nil:
		cm, err := b.src.ConfigMap(b.ctx, b.pod.Namespace, from.ConfigMapKeyRef.Name)
		if err != nil {
			return "", false
		}
		v, ok := cm.Data[from.ConfigMapKeyRef.Key]
		return v, ok
	case from.SecretKeyRef != nil:
		s, err := b.src.Secret(b.ctx, b.pod.Namespace, from.SecretKeyRef.Name)
		if err != nil {
			return "", false
		}
		v, ok := s.Data[from.SecretKeyRef.Key]
		return string(v), ok
	case from.FieldRef != nil:
		return FieldValue(b.pod, from.FieldRef.FieldPath)
	case from.ResourceFieldRef != nil:
		return resourceValue(b.pod, c, from.ResourceFieldRef, b.src.NodeAllocatable())
	}
	return "", false
}

// FieldValue is the value of a downward API field path of the pod.
func FieldValue(pod *corev1.Pod, fieldPath string) (string, bool) {
	switch fieldPath {
	case "metadata.name":
		return pod.Name, true
	case "metadata.namespace":
		return pod.Namespace, true
	case "metadata.uid":
		return string(pod.UID), true
	case "spec.nodeName":
		return pod.Spec.NodeName, true
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, true
	case "status.podIP":
		return pod.Status.PodIP, true
	case "status.hostIP":
		return pod.Status.HostIP, true
	case "metadata.labels", "metadata.annotations":
		m := pod.Labels
		if fieldPath == "metadata.annotations" {
			m = pod.Annotations
		}
		var lines []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			lines = append(lines, fmt.Sprintf("%s=%q", k, m[k]))
		}
		return strings.Join(lines, "\n"), true
	}
	for _, prefix := range []string{"metadata.labels['", "metadata.annotations['"} {
		if key, ok := strings.CutPrefix(fieldPath, prefix); ok && strings.HasSuffix(key, "']") {
			key = strings.TrimSuffix(key, "']")
			if prefix == "metadata.labels['" {
				return pod.Labels[key], true
			}
			return pod.Annotations[key], true
		}
	}
	return "", false
}

// resourceValue is a container's request or limit divided by the
// divisor and rounded up, as the kubelet exposes it. An unset CPU, memory
// or ephemeral-storage limit is the node's allocatable
// (MergeContainerResourceLimits); another unset value is left out.
func resourceValue(pod *corev1.Pod, c *corev1.Container, sel *corev1.ResourceFieldSelector, allocatable corev1.ResourceList) (string, bool) {
	target := c
	if sel.ContainerName != "" {
		target = nil
		for i := range pod.Spec.Containers {
			if pod.Spec.Containers[i].Name == sel.ContainerName {
				target = &pod.Spec.Containers[i]
			}
		}
		if target == nil {
			return "", false
		}
	}
	kind, name, ok := strings.Cut(sel.Resource, ".")
	if !ok {
		return "", false
	}
	list := target.Resources.Limits
	if kind == "requests" {
		list = target.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok && kind == "limits" {
		switch corev1.ResourceName(name) {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
			q, ok = allocatable[corev1.ResourceName(name)]
		}
	}
	if !ok {
		return "", false
	}
	div := sel.Divisor
	if div.IsZero() {
		if name == "cpu" {
			return strconv.FormatInt((q.MilliValue()+999)/1000, 10), true
		}
		return strconv.FormatInt(q.Value(), 10), true
	}
	m, d := q.MilliValue(), div.MilliValue()
	return strconv.FormatInt((m+d-1)/d, 10), true
}

// ExpandCommand is argv (container c's command and args) as the kubelet
// starts it: $(VAR) replaced by the container's variables, those of its
// env and envFrom (ExpandContainerCommandAndArgs in
// kubernetes/pkg/kubelet/container/helpers.go). The variables the runtime
// sets, PATH, HOSTNAME and HOME, are not the kubelet's to expand: a
// $(HOSTNAME) stays as written unless env names it.
func ExpandCommand(argv []string, c *corev1.Container, env []shell.Var) []string {
	vars := map[string]string{}
	for _, v := range env {
		vars[v.Name] = v.Value
	}
	for _, runtime := range []string{"PATH", "HOSTNAME", "HOME"} {
		if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == runtime }) {
			delete(vars, runtime)
		}
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Expand(a, vars)
	}
	return out
}

// Expand replaces $(VAR) references to variables already defined; $$ is
// a literal $ and an unknown reference stays as written (the kubelet's
// expansion rules).
func Expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// mount puts the files of the volume m names under m.MountPath.
func (b *builder) mount(m corev1.VolumeMount) {
	var vol *corev1.Volume
	for i := range b.pod.Spec.Volumes {
		if b.pod.Spec.Volumes[i].Name == m.Name {
			vol = &b.pod.Spec.Volumes[i]
		}
	}
	mountPath := path.Clean(m.MountPath)
	if vol == nil {
		return
	}
	content, modes := b.volumeFiles(vol)
	b.mountMeta(vol, mountPath)
	if atomicWriter(vol) && m.SubPath == "" {
		b.live = append(b.live, mountPath)
	}
	if m.ReadOnly || vol.ConfigMap != nil || vol.Secret != nil || vol.DownwardAPI != nil || vol.Projected != nil ||
		vol.PersistentVolumeClaim != nil && vol.PersistentVolumeClaim.ReadOnly {
		// The kubelet always mounts these read-only (the atomic
		// writer's volumes); others when the mount or the claim's
		// volume source says so.
		b.readOnly = append(b.readOnly, mountPath)
	}
	if vs, ok := b.src.(VolumeSource); ok && (vol.EmptyDir != nil || vol.PersistentVolumeClaim != nil) {
		if v, ok := vs.Volume(b.ctx, b.pod, vol); ok {
			if m.SubPath != "" {
				// The kubelet makes the subPath's directory in the
				// volume when it is not there.
				sub := "/" + path.Clean(m.SubPath)
				if !v.IsDir(sub) {
					if _, isFile := v.ReadFile(sub); !isFile {
						_ = v.MkdirAll(sub)
					}
				}
				v = shell.SubVolume(v, m.SubPath)
			}
			b.mounts = append(b.mounts, shell.Mount{Path: mountPath, Volume: v})
			b.dirs = append(b.dirs, mountPath)
			return
		}
	}
	if m.SubPath != "" {
		sub := path.Clean(m.SubPath)
		if data, ok := content[sub]; ok {
			b.files[mountPath] = data
			b.fileMeta(vol, mountPath, modes[sub])
			return
		}
		inner, innerModes := map[string][]byte{}, map[string]fs.FileMode{}
		for p, data := range content {
			if rest, ok := strings.CutPrefix(p, sub+"/"); ok {
				inner[rest], innerModes[rest] = data, modes[p]
			}
		}
		content, modes = inner, innerModes
	}
	if vol.HostPath != nil {
		if data, ok := hostPathFile(b.pod.Spec.NodeName, vol.HostPath); ok {
			b.files[mountPath] = data
			return
		}
	}
	b.dirs = append(b.dirs, mountPath)
	if vol.HostPath != nil {
		files, dirs := hostPathContent(b.pod.Spec.NodeName, vol.HostPath.Path)
		content = files
		for _, d := range dirs {
			b.dirs = append(b.dirs, path.Join(mountPath, d))
		}
	}
	for p, data := range content {
		b.files[path.Join(mountPath, p)] = data
		b.fileMeta(vol, path.Join(mountPath, p), modes[p])
	}
}

// volumeFiles are a volume's files by path inside it, and their modes
// (defaultMode or an item's mode, before fsGroup).
func (b *builder) volumeFiles(vol *corev1.Volume) (map[string][]byte, map[string]fs.FileMode) {
	out := volumeContent{files: map[string][]byte{}, modes: map[string]fs.FileMode{}}
	switch {
	case vol.ConfigMap != nil:
		b.configMapFiles(out.withMode(vol.ConfigMap.DefaultMode), vol.ConfigMap.Name, vol.ConfigMap.Items)
	case vol.Secret != nil:
		b.secretFiles(out.withMode(vol.Secret.DefaultMode), vol.Secret.SecretName, vol.Secret.Items)
	case vol.DownwardAPI != nil:
		b.downwardFiles(out.withMode(vol.DownwardAPI.DefaultMode), vol.DownwardAPI.Items)
	case vol.Projected != nil:
		out := out.withMode(vol.Projected.DefaultMode)
		for _, s := range vol.Projected.Sources {
			switch {
			case s.ConfigMap != nil:
				b.configMapFiles(out, s.ConfigMap.Name, s.ConfigMap.Items)
			case s.Secret != nil:
				b.secretFiles(out, s.Secret.Name, s.Secret.Items)
			case s.DownwardAPI != nil:
				b.downwardFiles(out, s.DownwardAPI.Items)
			case s.ServiceAccountToken != nil:
				tok, err := b.src.ServiceAccountToken(b.ctx, b.pod, s.ServiceAccountToken.Audience, s.ServiceAccountToken.ExpirationSeconds)
				if err == nil {
					out.add(s.ServiceAccountToken.Path, []byte(tok), nil)
				}
			}
		}
	}
	return out.files, out.modes
}

// keyFiles maps keys to files: every key, or only the items' keys at
// their paths (with their modes).
func keyFiles(out volumeContent, data map[string][]byte, items []corev1.KeyToPath) {
	if len(items) == 0 {
		for k, v := range data {
			out.add(k, v, nil)
		}
		return
	}
	for _, it := range items {
		if v, ok := data[it.Key]; ok {
			out.add(it.Path, v, it.Mode)
		}
	}
}

func (b *builder) configMapFiles(out volumeContent, name string, items []corev1.KeyToPath) {
	cm, err := b.src.ConfigMap(b.ctx, b.pod.Namespace, name)
	if err != nil {
		return
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	maps.Copy(data, cm.BinaryData)
	keyFiles(out, data, items)
}

func (b *builder) secretFiles(out volumeContent, name string, items []corev1.KeyToPath) {
	s, err := b.src.Secret(b.ctx, b.pod.Namespace, name)
	if err != nil {
		return
	}
	keyFiles(out, s.Data, items)
}

// downwardFiles are the downward API's items: a field of the pod, or a
// container's request or limit (whose container a volume must name).
func (b *builder) downwardFiles(out volumeContent, items []corev1.DownwardAPIVolumeFile) {
	for _, it := range items {
		var v string
		var ok bool
		switch {
		case it.FieldRef != nil:
			v, ok = FieldValue(b.pod, it.FieldRef.FieldPath)
		case it.ResourceFieldRef != nil && it.ResourceFieldRef.ContainerName != "":
			v, ok = resourceValue(b.pod, nil, it.ResourceFieldRef, b.src.NodeAllocatable())
		}
		if ok {
			out.add(it.Path, []byte(v), it.Mode)
		}
	}
}
