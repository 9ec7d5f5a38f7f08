package nodeproxy

import (
	"net/url"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/api"
)

// The options of a CONNECT to pods/exec, pods/attach and pods/portforward:
// core/v1 PodExecOptions, PodAttachOptions and PodPortForwardOptions.
// kube-apiserver decodes them from the query (NewConnectOptions) and hands
// them to admission as the request's object: a webhook sees them as
// AdmissionReview's request.object, a ValidatingAdmissionPolicy as
// `object`. They are never stored, so they carry no metadata; the embedded
// ObjectMeta, never encoded, only satisfies api.Object.

// PodExecOptions is the query of pods/NAME/exec.
type PodExecOptions struct {
	corev1.PodExecOptions `json:",inline"`
	metav1.ObjectMeta     `json:"-"`
}

// PodAttachOptions is the query of pods/NAME/attach.
type PodAttachOptions struct {
	corev1.PodAttachOptions `json:",inline"`
	metav1.ObjectMeta       `json:"-"`
}

// PodPortForwardOptions is the query of pods/NAME/portforward.
type PodPortForwardOptions struct {
	corev1.PodPortForwardOptions `json:",inline"`
	metav1.ObjectMeta            `json:"-"`
}

// DeepCopyObject implements api.Object.
func (o *PodExecOptions) DeepCopyObject() runtime.Object {
	return &PodExecOptions{PodExecOptions: *o.PodExecOptions.DeepCopy()}
}

// DeepCopyObject implements api.Object.
func (o *PodAttachOptions) DeepCopyObject() runtime.Object {
	return &PodAttachOptions{PodAttachOptions: *o.PodAttachOptions.DeepCopy()}
}

// DeepCopyObject implements api.Object.
func (o *PodPortForwardOptions) DeepCopyObject() runtime.Object {
	return &PodPortForwardOptions{PodPortForwardOptions: *o.PodPortForwardOptions.DeepCopy()}
}

// queryBool reads a boolean parameter as the query decoder does: absent is
// false, an unparsable value too (streamParams refuses it later, with its
// own message).
func queryBool(q url.Values, name string) bool {
	on, _ := strconv.ParseBool(q.Get(name))
	return on
}

func newExecOptions(q url.Values) (api.Object, error) {
	return &PodExecOptions{PodExecOptions: corev1.PodExecOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodExecOptions"},
		Stdin: queryBool(q, "stdin"), Stdout: queryBool(q, "stdout"), Stderr: queryBool(q, "stderr"), TTY: queryBool(q, "tty"),
		Container: q.Get("container"), Command: q["command"]}}, nil
}

func newAttachOptions(q url.Values) (api.Object, error) {
	return &PodAttachOptions{PodAttachOptions: corev1.PodAttachOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodAttachOptions"},
		Stdin: queryBool(q, "stdin"), Stdout: queryBool(q, "stdout"), Stderr: queryBool(q, "stderr"), TTY: queryBool(q, "tty"),
		Container: q.Get("container")}}, nil
}

func newPortForwardOptions(q url.Values) (api.Object, error) {
	o := &PodPortForwardOptions{PodPortForwardOptions: corev1.PodPortForwardOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodPortForwardOptions"}}}
	for _, p := range q["ports"] {
		for _, one := range strings.Split(p, ",") {
			if n, err := strconv.ParseUint(strings.TrimSpace(one), 10, 16); err == nil {
				o.Ports = append(o.Ports, int32(n))
			}
		}
	}
	return o, nil
}
