package apiservertest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/store"
)

// runningPod is a pod of a ReplicaSet as the fake kubelet leaves it once
// Running: owner, labels, the defaulted spec with its service account
// token volume and tolerations, and a full status. About 3 KiB stored,
// like kubesim's own pods after a live run.
const runningPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","generateName":"web-7d9c5b8f4d-","namespace":"x","uid":"x",
"creationTimestamp":"2026-12-01T10:00:00Z","labels":{"app":"web","pod-template-hash":"7d9c5b8f4d"},
"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9c5b8f4d","uid":"5b7e9c1e-2a6f-4f0e-9d3c-0c1f3a6b8e21","controller":true,"blockOwnerDeletion":true}]},
"spec":{"volumes":[{"name":"kube-api-access-x7k2p","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}}],
"containers":[{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}},
"volumeMounts":[{"name":"kube-api-access-x7k2p","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],
"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default",
"nodeName":"x","securityContext":{},"schedulerName":"default-scheduler",
"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},
"status":{"phase":"Running","conditions":[{"type":"PodReadyToStartContainers","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-12-01T10:00:01Z"},
{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-12-01T10:00:00Z"},
{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-12-01T10:00:02Z"},
{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-12-01T10:00:02Z"},
{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-12-01T10:00:00Z"}],
"hostIP":"x","hostIPs":[{"ip":"x"}],"podIP":"x","podIPs":[{"ip":"x"}],"startTime":"2026-12-01T10:00:00Z",
"containerStatuses":[{"name":"web","state":{"running":{"startedAt":"2026-12-01T10:00:02Z"}},"lastState":{},"ready":true,"restartCount":0,
"image":"docker.io/library/nginx:1.25","imageID":"docker.io/library/nginx@sha256:6db391d1c0cfb30588ba0bf72ea999404f2764febf0f1f196acd5867ac7efa7e","containerID":"containerd://x","started":true}],
"qosClass":"Burstable"}}`

// FillPods writes pods Running pods, spread over namespaces (ns-00 …) and
// bound to nodes (node-0 …), straight into st under the keys and in the
// encoding the pods registry uses, from workers writers at once. It is for
// benchmarks and for building a big data dir (hack/fillpods): creating
// 100,000 pods through the API would take minutes; this takes seconds.
func FillPods(ctx context.Context, st store.Interface, pods, nodes, namespaces, workers int) error {
	var tmpl corev1.Pod
	if err := json.Unmarshal([]byte(runningPod), &tmpl); err != nil {
		return err
	}
	jobs := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				pod := tmpl.DeepCopy()
				ns := fmt.Sprintf("ns-%02d", i%namespaces)
				node := i % nodes
				ip := fmt.Sprintf("10.%d.%d.%d", 64+node/256%64, node%256, 2+i/nodes%250)
				hostIP := fmt.Sprintf("172.18.%d.%d", node/250, 2+node%250)
				pod.Name = fmt.Sprintf("web-7d9c5b8f4d-%06x", i*2654435761%(1<<24))
				pod.Namespace = ns
				pod.UID = types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i))
				pod.Spec.NodeName = fmt.Sprintf("node-%d", node)
				pod.Status.HostIP, pod.Status.HostIPs = hostIP, []corev1.HostIP{{IP: hostIP}}
				pod.Status.PodIP, pod.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
				pod.Status.ContainerStatuses[0].ContainerID = fmt.Sprintf("containerd://%064x", i)
				data, err := json.Marshal(pod)
				if err == nil {
					_, err = st.Create(ctx, "/registry/core/pods/"+ns+"/"+pod.Name, data, store.CreateOptions{UID: string(pod.UID)})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for i := range pods {
		select {
		case jobs <- i:
		case err = <-errs:
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}
