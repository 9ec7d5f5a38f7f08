// Package containerenv builds what a process sees inside a simulated
// container (a shell.Environment): its environment variables — env with
// value, $(VAR) references and valueFrom (configMapKeyRef, secretKeyRef,
// fieldRef, resourceFieldRef), envFrom with its prefix, HOSTNAME — and its
// files: the ConfigMap, Secret, projected (with the service account
// token), downwardAPI and empty volumes mounted by volumeMounts (subPath
// included), plus the /etc/hostname and /etc/hosts the kubelet writes.
//
// Real counterparts: the kubelet's makeEnvironmentVariables and
// makeMounts (kubernetes/pkg/kubelet/kubelet_pods.go), its volume plugins
// for configmap, secret, projected and downwardapi
// (kubernetes/pkg/volume/...), and the hosts file it manages
// (ensureHostsFile).
//
// The service links (FOO_SERVICE_HOST, FOO_PORT_80_TCP, ...) are there too,
// for the kubernetes Service and the Services of the pod's namespace
// (kubernetes/pkg/kubelet/envvars), in Service name order.
//
// Left out: the image's own files and environment beyond PATH and HOME,
// file modes and the ..data symlinks of atomic volume updates; a missing
// ConfigMap or Secret leaves its variables and files out instead of
// failing the container.
package containerenv
