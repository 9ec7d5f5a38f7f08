package nodeproxy

import (
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// Install serves the connect subresources of the core v1 pods and nodes
// among resources through kubelets: the pod and node storage built with a
// kubelet connection, as kube-apiserver's NewStorage(…, k
// client.ConnectionInfoGetter, …). The resources are copied, never changed
// in place.
func Install(resources []*registry.Resource, kubelets ConnectionGetter) []*registry.Resource {
	out := make([]*registry.Resource, len(resources))
	for i, r := range resources {
		var subs map[string]registry.ConnectSubresource
		if r.Group == "" && r.Version == "v1" {
			switch r.Name {
			case "pods":
				subs = PodSubresources(kubelets)
			case "nodes":
				subs = NodeSubresources(kubelets) // nodes.go
			}
		}
		if subs != nil {
			cp := *r
			cp.Connect = maps.Clone(r.Connect)
			if cp.Connect == nil {
				cp.Connect = map[string]registry.ConnectSubresource{}
			}
			maps.Copy(cp.Connect, subs)
			r = &cp
		}
		out[i] = r
	}
	return out
}

// PodSubresources are the pod subresources served by the node's kubelet,
// by name.
func PodSubresources(kubelets ConnectionGetter) map[string]registry.ConnectSubresource {
	subs := map[string]registry.ConnectSubresource{
		"log": logSubresource(kubelets),
	}
	maps.Copy(subs, streamingSubresources(kubelets)) // exec, attach, portforward (streaming.go)
	return subs
}

// ValidateContainer picks the container a request is about: the one named,
// which must be one of the pod's (init, ephemeral or regular containers),
// or the pod's only container (pkg/registry/core/pod/strategy.go).
func ValidateContainer(container string, pod *corev1.Pod) (string, error) {
	if container == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", api.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
		default:
			msg := fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]", pod.Name, containerNames(pod.Spec.Containers))
			if len(pod.Spec.InitContainers) > 0 {
				msg += fmt.Sprintf(" or one of the init containers: [%s]", containerNames(pod.Spec.InitContainers))
			}
			return "", api.NewBadRequest(msg)
		}
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			if c.Name == container {
				return container, nil
			}
		}
	}
	for _, ec := range pod.Spec.EphemeralContainers {
		if ec.Name == container {
			return container, nil
		}
	}
	return "", api.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod.Name))
}

func containerNames(cs []corev1.Container) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, " ")
}
