package scenario

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/client"
)

// expect checks every expectation of the step; the first that fails
// fails the step with what it expected and what it found.
func (r *Runner) expect(ctx context.Context, st *Step, res *StepResult) error {
	var oks []string
	for _, e := range st.Expects {
		ok, actual, err := r.check(ctx, e)
		if err != nil {
			return err
		}
		if !ok {
			res.OK = false
			res.Expected = e.String()
			res.Actual = actual
			res.Message = fmt.Sprintf("line %d: expected %s\n  actual: %s", e.Line, e.String(), actual)
			return nil
		}
		oks = append(oks, e.String())
	}
	res.Message = strings.Join(oks, "\n")
	return nil
}

// check evaluates one expectation and describes what it found.
func (r *Runner) check(ctx context.Context, e *Expectation) (bool, string, error) {
	if e.Kind == ExpectEvent {
		return r.checkEvent(ctx, e)
	}
	rs, err := r.resolve(e.Object)
	if err != nil {
		return false, err.Error(), nil
	}
	dyn := client.Dynamic(r.cl, infoOf(rs))
	ns := namespaceFor(rs, e.Object.Namespace)
	switch e.Kind {
	case ExpectExists:
		obj, err := dyn.Get(ctx, ns, e.Object.Name)
		switch {
		case api.IsNotFound(err):
			return !e.Exists, "not found", nil
		case err != nil:
			return false, "", err
		}
		found := "exists (resourceVersion " + obj.ResourceVersion + ")"
		if obj.DeletionTimestamp != nil {
			found = "exists, being deleted (resourceVersion " + obj.ResourceVersion + ")"
		}
		return e.Exists, found, nil
	case ExpectField:
		obj, err := dyn.Get(ctx, ns, e.Object.Name)
		if api.IsNotFound(err) {
			return false, kubectlName(rs, e.Object.Name) + " not found", nil
		}
		if err != nil {
			return false, "", err
		}
		m, err := obj.ToMap()
		if err != nil {
			return false, "", err
		}
		segs, err := parseJSONPath(e.Field)
		if err != nil {
			return false, err.Error(), nil
		}
		v, ok := evalJSONPath(m, segs)
		if !ok {
			// equals: null asks for a field that is absent (or null).
			return e.Equals == nil, e.Field + " is not set", nil
		}
		return valuesEqual(v, e.Equals), formatValue(v), nil
	case ExpectCount:
		l, err := dyn.List(ctx, ns, client.ListOptions{LabelSelector: e.Object.Selector, FieldSelector: e.Object.FieldSelector})
		if err != nil {
			return false, "", err
		}
		n := 0
		var seen []string
		for _, o := range l.Items {
			phase := phaseOf(o)
			desc := o.Name
			if phase != "" {
				desc += " " + phase
			}
			if o.DeletionTimestamp != nil {
				desc += " (being deleted)"
			}
			seen = append(seen, desc)
			if e.Phase != "" && (phase != e.Phase || o.DeletionTimestamp != nil) {
				continue
			}
			n++
		}
		actual := fmt.Sprintf("%d", n)
		if len(seen) > 0 {
			actual += ": " + strings.Join(seen, ", ")
		} else {
			actual += " (none found)"
		}
		return n == e.Count, actual, nil
	}
	return false, "", fmt.Errorf("unknown check %s", e.Kind)
}

func phaseOf(o *unstructured.Unstructured) string {
	v, ok := unstructured.NestedField(o.Content, "status", "phase")
	if !ok {
		return ""
	}
	s, _ := v.(string)
	return s
}

// checkEvent looks for Events with a reason (and a message substring) about
// an object.
func (r *Runner) checkEvent(ctx context.Context, e *Expectation) (bool, string, error) {
	l, err := r.cl.Events().List(ctx, e.Object.Namespace, client.ListOptions{})
	if err != nil {
		return false, "", err
	}
	matches := 0
	var sameReason []string
	var reasons []string
	seenReason := map[string]bool{}
	for _, ev := range l.Items {
		if e.Object.Kind != "" && !strings.EqualFold(ev.InvolvedObject.Kind, e.Object.Kind) {
			continue
		}
		if e.Object.Name != "" && ev.InvolvedObject.Name != e.Object.Name {
			continue
		}
		if !seenReason[ev.Reason] {
			seenReason[ev.Reason] = true
			reasons = append(reasons, ev.Reason)
		}
		if ev.Reason != e.Reason {
			continue
		}
		sameReason = append(sameReason, fmt.Sprintf("%s %s: %s", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Message))
		if strings.Contains(ev.Message, e.Message) {
			matches++
		}
	}
	ok := matches > 0
	if e.Count >= 0 {
		ok = matches == e.Count
	}
	var actual string
	switch {
	case len(sameReason) > 0:
		actual = fmt.Sprintf("%d matching; events with reason %s: %s", matches, e.Reason, strings.Join(sameReason, " | "))
	case len(reasons) > 0:
		sort.Strings(reasons)
		actual = fmt.Sprintf("no event with reason %s; reasons seen: %s", e.Reason, strings.Join(reasons, ", "))
	default:
		actual = "no events"
	}
	return ok, actual, nil
}

// show prints the objects of a kind as a small table.
func (r *Runner) show(ctx context.Context, st *Step, res *StepResult) error {
	rs, err := r.resolve(st.Target)
	if err != nil {
		res.OK = false
		res.Message = err.Error()
		return nil
	}
	l, err := client.Dynamic(r.cl, infoOf(rs)).List(ctx, namespaceFor(rs, st.Target.Namespace),
		client.ListOptions{LabelSelector: st.Target.Selector})
	if err != nil {
		return err
	}
	sort.Slice(l.Items, func(i, j int) bool { return l.Items[i].Name < l.Items[j].Name })
	var b strings.Builder
	switch rs.Kind {
	case "Pod":
		fmt.Fprintf(&b, "%-12s %-12s %-8s %s", "POD", "PHASE", "NODE", "IP")
		for _, o := range l.Items {
			node, _ := unstructured.NestedField(o.Content, "spec", "nodeName")
			ip, _ := unstructured.NestedField(o.Content, "status", "podIP")
			phase := phaseOf(o)
			if o.DeletionTimestamp != nil {
				phase = "Terminating"
			}
			fmt.Fprintf(&b, "\n%-12s %-12s %-8s %s", o.Name, phase, str(node), str(ip))
		}
	case "Node":
		fmt.Fprintf(&b, "%-12s %s", "NODE", "READY")
		for _, o := range l.Items {
			ready := "Unknown"
			if conds, ok := unstructured.NestedField(o.Content, "status", "conditions"); ok {
				if v, ok := evalJSONPath(conds, []pathSegment{{isFilter: true, filterField: []string{"type"}, filterValue: "Ready"}, {field: "status"}}); ok {
					ready = str(v)
				}
			}
			fmt.Fprintf(&b, "\n%-12s %s", o.Name, ready)
		}
	default:
		_, scalable := unstructured.NestedField(firstContent(l.Items), "spec", "replicas")
		if !scalable {
			fmt.Fprintf(&b, "%s", strings.ToUpper(rs.Kind))
			for _, o := range l.Items {
				fmt.Fprintf(&b, "\n%s", o.Name)
			}
			break
		}
		fmt.Fprintf(&b, "%-20s %-8s %s", strings.ToUpper(rs.Kind), "DESIRED", "READY")
		for _, o := range l.Items {
			desired, _ := unstructured.NestedField(o.Content, "spec", "replicas")
			ready, _ := unstructured.NestedField(o.Content, "status", "readyReplicas")
			if ready == nil {
				ready = int64(0)
			}
			fmt.Fprintf(&b, "\n%-20s %-8s %s", o.Name, formatValue(desired), formatValue(ready))
		}
	}
	if len(l.Items) == 0 {
		fmt.Fprintf(&b, "\n(no %s)", rs.Name)
	}
	res.Message = b.String()
	return nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func firstContent(items []*unstructured.Unstructured) map[string]any {
	if len(items) == 0 {
		return nil
	}
	return items[0].Content
}
