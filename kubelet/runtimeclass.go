package kubelet

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
)

// RuntimeHandlers are the RuntimeClass handlers the fake container
// runtime has: the default (a pod that names no class) and runc, what
// containerd and CRI-O configure out of the box. A pod whose class names
// another handler cannot get a sandbox, as on a node whose runtime lacks
// it (kata, gVisor's runsc...).
var RuntimeHandlers = []string{"", "runc"}

// sandboxError says why the runtime cannot create the pod's sandbox (the
// kubelet's runtimeClassManager.LookupRuntimeHandler, then the CRI's
// RunPodSandbox), or "" when it can. The kubelet reports it as a
// FailedCreatePodSandBox event and tries again after its back-off; the
// pod stays in ContainerCreating.
func (k *Kubelet) sandboxError(ctx context.Context, pod *corev1.Pod) (string, error) {
	name := pod.Spec.RuntimeClassName
	if name == nil || *name == "" {
		return "", nil
	}
	rc, err := k.c.RuntimeClasses().Get(ctx, "", *name)
	switch {
	case api.IsNotFound(err):
		// Admission refuses a pod of a missing class; this one lost its
		// class after it was admitted.
		return "Failed to create pod sandbox: " + err.Error(), nil
	case err != nil:
		return "", err
	case !slices.Contains(RuntimeHandlers, rc.Handler):
		return fmt.Sprintf("Failed to create pod sandbox: rpc error: code = Unknown desc = RuntimeHandler %q not supported", rc.Handler), nil
	}
	return "", nil
}
