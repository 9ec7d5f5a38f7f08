package sample

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// Config says what the extender looks at.
type Config struct {
	// PreferLabel is KEY=VALUE: nodes with that label get the highest
	// priority ("" prefers none).
	PreferLabel string
	// RefuseAnnotation is an annotation key: nodes that carry it are
	// refused ("" refuses none).
	RefuseAnnotation string
}

// Extender serves the filter and prioritize verbs.
type Extender struct {
	preferKey, preferValue string
	refuse                 string
}

// New checks cfg and returns the extender.
func New(cfg Config) (*Extender, error) {
	e := &Extender{refuse: cfg.RefuseAnnotation}
	if cfg.PreferLabel != "" {
		k, v, ok := strings.Cut(cfg.PreferLabel, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("prefer-label %q: want KEY=VALUE", cfg.PreferLabel)
		}
		e.preferKey, e.preferValue = k, v
	}
	return e, nil
}

// Handler routes POST /filter and POST /prioritize; the extender's
// urlPrefix is wherever it is mounted.
func (e *Extender) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /filter", e.serveFilter)
	mux.HandleFunc("POST /prioritize", e.servePrioritize)
	return mux
}

// decodeArgs reads ExtenderArgs; a body that is not one is a 400, and
// args that carry only node names (nodeCacheCapable) are refused: the
// extender has no nodes of its own to look them up in.
func decodeArgs(w http.ResponseWriter, r *http.Request) (*extenderv1.ExtenderArgs, bool) {
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		http.Error(w, "decoding ExtenderArgs: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	if args.Nodes == nil {
		http.Error(w, "this extender needs whole nodes: configure it without nodeCacheCapable", http.StatusBadRequest)
		return nil, false
	}
	return &args, true
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Filter refuses the nodes with the annotation.
func (e *Extender) Filter(args *extenderv1.ExtenderArgs) *extenderv1.ExtenderFilterResult {
	res := &extenderv1.ExtenderFilterResult{Nodes: &corev1.NodeList{}, FailedNodes: extenderv1.FailedNodesMap{}}
	for _, n := range args.Nodes.Items {
		if _, refused := n.Annotations[e.refuse]; e.refuse != "" && refused {
			res.FailedNodes[n.Name] = "node(s) had annotation " + e.refuse
			continue
		}
		res.Nodes.Items = append(res.Nodes.Items, n)
	}
	return res
}

// Prioritize scores the nodes with the label MaxExtenderPriority, the
// others 0.
func (e *Extender) Prioritize(args *extenderv1.ExtenderArgs) extenderv1.HostPriorityList {
	list := make(extenderv1.HostPriorityList, 0, len(args.Nodes.Items))
	for _, n := range args.Nodes.Items {
		hp := extenderv1.HostPriority{Host: n.Name}
		if v, ok := n.Labels[e.preferKey]; e.preferKey != "" && ok && v == e.preferValue {
			hp.Score = extenderv1.MaxExtenderPriority
		}
		list = append(list, hp)
	}
	return list
}

func (e *Extender) serveFilter(w http.ResponseWriter, r *http.Request) {
	if args, ok := decodeArgs(w, r); ok {
		reply(w, e.Filter(args))
	}
}

func (e *Extender) servePrioritize(w http.ResponseWriter, r *http.Request) {
	if args, ok := decodeArgs(w, r); ok {
		reply(w, e.Prioritize(args))
	}
}
