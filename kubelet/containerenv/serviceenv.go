package containerenv

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// masterService is the Service whose variables every container gets,
// whatever its pod's enableServiceLinks: the API server's.
const masterService = "kubernetes"

// serviceVars are the Docker-link style variables of the Services a
// container of pod sees (the kubelet's getServiceEnvVarMap): those of
// default/kubernetes always, and, unless the pod sets enableServiceLinks
// to false, those of every Service of its own namespace. A Service
// without a cluster IP (headless, ExternalName) has none. They come in
// Service name order, each Service's in envvars.FromServices's order.
// A container's environment is made when it starts: once its pod's status
// says it runs, a Service made after its start is not in it (a pod older
// than the Service has no variables of it until it is made again).
func serviceVars(ctx context.Context, pod *corev1.Pod, c *corev1.Container, src Sources) []shell.Var {
	var started *metav1.Time
	for _, st := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses) {
		if st.Name == c.Name && st.State.Running != nil {
			started = &st.State.Running.StartedAt
		}
	}
	existed := func(s *corev1.Service) bool { return started == nil || !s.CreationTimestamp.After(started.Time) }
	byName := map[string]*corev1.Service{}
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	if !links || pod.Namespace != metav1.NamespaceDefault {
		if svc, err := src.Service(ctx, metav1.NamespaceDefault, masterService); err == nil && serviceIPSet(svc) && existed(svc) {
			byName[masterService] = svc
		}
	}
	if links {
		if list, err := src.Services(ctx, pod.Namespace); err == nil {
			for i := range list {
				if serviceIPSet(list[i]) && existed(list[i]) {
					byName[list[i].Name] = list[i]
				}
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []shell.Var
	for _, n := range names {
		out = append(out, fromService(byName[n])...)
	}
	return out
}

// serviceIPSet is v1helper.IsServiceIPSet: a cluster IP that is not None.
func serviceIPSet(s *corev1.Service) bool {
	return s.Spec.ClusterIP != "" && s.Spec.ClusterIP != corev1.ClusterIPNone && len(s.Spec.Ports) > 0
}

// fromService is envvars.FromServices for one Service: NAME_SERVICE_HOST,
// NAME_SERVICE_PORT (the first port) and NAME_SERVICE_PORT_PORTNAME for
// each named port, then the Docker link variables: NAME_PORT (the first
// port's URL) and, for each port, NAME_PORT_N_PROTO with its _PROTO,
// _PORT and _ADDR.
func fromService(s *corev1.Service) []shell.Var {
	prefix := envName(s.Name)
	ip := s.Spec.ClusterIP
	out := []shell.Var{
		{Name: prefix + "_SERVICE_HOST", Value: ip},
		{Name: prefix + "_SERVICE_PORT", Value: strconv.Itoa(int(s.Spec.Ports[0].Port))},
	}
	for _, p := range s.Spec.Ports {
		if p.Name != "" {
			out = append(out, shell.Var{Name: prefix + "_SERVICE_PORT_" + envName(p.Name), Value: strconv.Itoa(int(p.Port))})
		}
	}
	for i, p := range s.Spec.Ports {
		proto := string(p.Protocol)
		if proto == "" {
			proto = string(corev1.ProtocolTCP)
		}
		url := fmt.Sprintf("%s://%s", strings.ToLower(proto), net.JoinHostPort(ip, strconv.Itoa(int(p.Port))))
		if i == 0 {
			out = append(out, shell.Var{Name: prefix + "_PORT", Value: url})
		}
		pp := fmt.Sprintf("%s_PORT_%d_%s", prefix, p.Port, strings.ToUpper(proto))
		out = append(out,
			shell.Var{Name: pp, Value: url},
			shell.Var{Name: pp + "_PROTO", Value: strings.ToLower(proto)},
			shell.Var{Name: pp + "_PORT", Value: strconv.Itoa(int(p.Port))},
			shell.Var{Name: pp + "_ADDR", Value: ip})
	}
	return out
}

// envName is makeEnvVariableName: upper case, dashes as underscores.
func envName(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "-", "_")) }
