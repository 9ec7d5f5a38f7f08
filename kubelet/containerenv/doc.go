// Package containerenv builds what a process sees inside a simulated
// container (a shell.Environment): its environment variables — env with
// value, $(VAR) references and valueFrom (configMapKeyRef, secretKeyRef,
// fieldRef, resourceFieldRef), envFrom with its prefix, HOSTNAME, the
// Services' variables (KUBERNETES_SERVICE_HOST and the other
// KUBERNETES_* always; FOO_SERVICE_HOST, FOO_PORT... for the Services of
// the pod's namespace unless enableServiceLinks is false) — and its
// files: the ConfigMap, Secret, projected (with the service account
// token), downwardAPI and empty volumes mounted by volumeMounts (subPath
// included), plus the /etc/hostname and /etc/hosts the kubelet writes.
// emptyDir and persistentVolumeClaim volumes are mounted writable
// (shell.Mount) when the Sources give their storage (VolumeSource).
//
// Real counterparts: the kubelet's makeEnvironmentVariables,
// getServiceEnvVarMap and makeMounts (kubernetes/pkg/kubelet/kubelet_pods.go),
// pkg/kubelet/envvars, its volume plugins for configmap, secret,
// projected and downwardapi (kubernetes/pkg/volume/...), and the hosts
// file it manages (ensureHostsFile).
//
// The volumes' files have the modes and owners the kubelet gives them
// (defaultMode, items' modes, fsGroup; filemodes.go), and the
// memory-backed ones are tmpfs. A subPathExpr is expanded with the
// container's variables, and a writable volume's subPath directory is
// made when it is missing. The ConfigMap, Secret, projected and downward
// API volumes mounted whole are Environment.Live: the kubelet rewrites
// them as their sources change.
//
// Left out: the image's own files and environment beyond PATH and HOME,
// the ..data symlinks of atomic volume updates; a missing
// ConfigMap or Secret leaves its variables and files out instead of
// failing the container.
package containerenv
