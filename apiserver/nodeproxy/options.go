package nodeproxy

import (
	"k8s.io/apimachinery/pkg/runtime"
	"net/url"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/api"
)

// The options of a CONNECT to pods/exec, pods/attach and pods/portforward,
// with the JSON of core/v1 PodExecOptions, PodAttachOptions and
// PodPortForwardOptions. kube-apiserver decodes them from the query
// (NewConnectOptions) and hands them to admission as the request's object:
// a webhook sees them as AdmissionReview's request.object, a
// ValidatingAdmissionPolicy as `object`. They are never stored, so they
// carry no metadata; the unexported meta only satisfies api.Object.

// PodExecOptions is the query of pods/NAME/exec.
type PodExecOptions struct {
	api.TypeMeta `json:",inline"`
	Stdin        bool     `json:"stdin,omitempty"`
	Stdout       bool     `json:"stdout,omitempty"`
	Stderr       bool     `json:"stderr,omitempty"`
	TTY          bool     `json:"tty,omitempty"`
	Container    string   `json:"container,omitempty"`
	Command      []string `json:"command"`
	meta         api.ObjectMeta
}

// PodAttachOptions is the query of pods/NAME/attach.
type PodAttachOptions struct {
	api.TypeMeta `json:",inline"`
	Stdin        bool   `json:"stdin,omitempty"`
	Stdout       bool   `json:"stdout,omitempty"`
	Stderr       bool   `json:"stderr,omitempty"`
	TTY          bool   `json:"tty,omitempty"`
	Container    string `json:"container,omitempty"`
	meta         api.ObjectMeta
}

// PodPortForwardOptions is the query of pods/NAME/portforward.
type PodPortForwardOptions struct {
	api.TypeMeta `json:",inline"`
	Ports        []int32 `json:"ports,omitempty"`
	meta         api.ObjectMeta
}

// GetObjectMeta implements api.Object.
func (o *PodExecOptions) GetObjectMeta() *api.ObjectMeta { return &o.meta }

// GetObjectMeta implements api.Object.
func (o *PodAttachOptions) GetObjectMeta() *api.ObjectMeta { return &o.meta }

// GetObjectMeta implements api.Object.
func (o *PodPortForwardOptions) GetObjectMeta() *api.ObjectMeta { return &o.meta }

// DeepCopyObject implements api.Object.
func (o *PodExecOptions) DeepCopyObject() runtime.Object {
	out := *o
	out.Command = append([]string(nil), o.Command...)
	return &out
}

// DeepCopyObject implements api.Object.
func (o *PodAttachOptions) DeepCopyObject() runtime.Object {
	out := *o
	return &out
}

// DeepCopyObject implements api.Object.
func (o *PodPortForwardOptions) DeepCopyObject() runtime.Object {
	out := *o
	out.Ports = append([]int32(nil), o.Ports...)
	return &out
}

// queryBool reads a boolean parameter as the query decoder does: absent is
// false, an unparsable value too (streamParams refuses it later, with its
// own message).
func queryBool(q url.Values, name string) bool {
	on, _ := strconv.ParseBool(q.Get(name))
	return on
}

func newExecOptions(q url.Values) (api.Object, error) {
	return &PodExecOptions{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "PodExecOptions"},
		Stdin: queryBool(q, "stdin"), Stdout: queryBool(q, "stdout"), Stderr: queryBool(q, "stderr"), TTY: queryBool(q, "tty"),
		Container: q.Get("container"), Command: q["command"]}, nil
}

func newAttachOptions(q url.Values) (api.Object, error) {
	return &PodAttachOptions{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "PodAttachOptions"},
		Stdin: queryBool(q, "stdin"), Stdout: queryBool(q, "stdout"), Stderr: queryBool(q, "stderr"), TTY: queryBool(q, "tty"),
		Container: q.Get("container")}, nil
}

func newPortForwardOptions(q url.Values) (api.Object, error) {
	o := &PodPortForwardOptions{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "PodPortForwardOptions"}}
	for _, p := range q["ports"] {
		for _, one := range strings.Split(p, ",") {
			if n, err := strconv.ParseUint(strings.TrimSpace(one), 10, 16); err == nil {
				o.Ports = append(o.Ports, int32(n))
			}
		}
	}
	return o, nil
}
