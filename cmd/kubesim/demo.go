package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
)

// demo tells the seed's story in process, in step mode: a ReplicaSet of 3,
// its pods scheduled and running, one deleted and replaced by the control
// loop (和解循环), scaled up and down, then deleted with its pods. Every
// unit of work is printed as a line of the trace.
func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	color := fs.String("color", "auto", "colour the trace: auto (on a terminal), always, never")
	full := fs.Bool("full", false, "show every write, events included")
	if err := fs.Parse(args); err != nil {
		return err
	}
	useColor := *color == "always" || (*color == "auto" && isTerminal(stdout))
	return runDemo(ctx, stdout, demoOptions{color: useColor, full: *full})
}

type demoOptions struct {
	color bool
	full  bool
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// actorColors give each kind of component its colour on a terminal.
var actorColors = []struct{ prefix, code string }{
	{"replicaset", "32"}, {"deployment", "32"}, {"garbagecollector", "35"}, {"namespace", "35"},
	{"nodelifecycle", "33"}, {"scheduler", "36"}, {"kubelet", "34"},
}

func paint(on bool, code, s string) string {
	if !on {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// renderEntry prints one trace entry for a reader: event writes are
// summarised unless full.
func renderEntry(e cluster.Entry, o demoOptions) string {
	if !o.full {
		var kept []cluster.Write
		events := 0
		for _, w := range e.Writes {
			if strings.Contains(w.Path, "/events") {
				if w.Code < 300 {
					events++
				}
				continue
			}
			kept = append(kept, w)
		}
		e.Writes = kept
		s := e.String()
		if events > 0 {
			s = strings.Replace(s, "  (no change)", "", 1)
			first, rest, _ := strings.Cut(s, "\n")
			s = first + fmt.Sprintf("  [+%d event(s)]", events)
			if rest != "" {
				s += "\n" + rest
			}
		}
		return colorize(s, e, o)
	}
	return colorize(e.String(), e, o)
}

func colorize(s string, e cluster.Entry, o demoOptions) string {
	if !o.color {
		return s
	}
	if e.Actor == "" {
		return paint(true, "2", s)
	}
	for _, c := range actorColors {
		if strings.HasPrefix(e.Actor, c.prefix) {
			return strings.Replace(s, e.Actor, paint(true, c.code, e.Actor), 1)
		}
	}
	return s
}

func runDemo(ctx context.Context, out io.Writer, o demoOptions) error {
	c, err := cluster.New(cluster.Config{StepMode: true, Seed: 1, NodeCount: 3,
		Stages: kubelet.Stages{ContainerCreating: time.Second, Running: time.Second, Ready: time.Second}})
	if err != nil {
		return err
	}
	defer c.Close()
	c.OnEntry(func(e cluster.Entry) { fmt.Fprintln(out, renderEntry(e, o)) })
	cl := c.Client("demo")
	say := func(format string, args ...any) {
		fmt.Fprintln(out)
		fmt.Fprintln(out, paint(o.color, "1", "== "+fmt.Sprintf(format, args...)))
	}
	settle := func() error {
		_, err := c.RunUntilStable(ctx, cluster.Limits{})
		return err
	}

	say("Three fake kubelets register their nodes and start heartbeats")
	if err := settle(); err != nil {
		return err
	}
	say("We apply a ReplicaSet of 3: the API server stores it; the ReplicaSet controller creates pods, the scheduler binds them, the kubelets run them")
	replicas := int32(3)
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.25"}}},
			},
		},
	}
	if _, err := cl.ReplicaSets().Create(ctx, rs); err != nil {
		return err
	}
	if err := settle(); err != nil {
		return err
	}
	if err := printPods(ctx, out, cl); err != nil {
		return err
	}

	pods, err := cl.Pods().List(ctx, "default", client.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return err
	}
	victim := pods.Items[0].Name
	say("We delete pod %s: the kubelet stops it, and the control loop sees 2 < 3 and creates a replacement", victim)
	if err := cl.Pods().Delete(ctx, "default", victim, nil); err != nil {
		return err
	}
	if err := settle(); err != nil {
		return err
	}
	if err := printPods(ctx, out, cl); err != nil {
		return err
	}

	for _, n := range []int32{5, 1} {
		say("We scale the ReplicaSet to %d", n)
		if _, err := cl.ReplicaSets().Patch(ctx, "default", "web", client.MergePatch,
			[]byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)), "scale"); err != nil {
			return err
		}
		if err := settle(); err != nil {
			return err
		}
		if err := printPods(ctx, out, cl); err != nil {
			return err
		}
	}

	say("We delete the ReplicaSet: the garbage collector deletes the pods it owned")
	if err := cl.ReplicaSets().Delete(ctx, "default", "web", nil); err != nil {
		return err
	}
	if err := settle(); err != nil {
		return err
	}
	if err := printPods(ctx, out, cl); err != nil {
		return err
	}
	fmt.Fprintf(out, "\n%d steps. Run `kubesim serve` and use kubectl to try it yourself.\n", len(c.Trace()))
	return nil
}

func printPods(ctx context.Context, out io.Writer, cl *client.Client) error {
	l, err := cl.Pods().List(ctx, "default", client.ListOptions{})
	if err != nil {
		return err
	}
	sort.Slice(l.Items, func(i, j int) bool { return l.Items[i].Name < l.Items[j].Name })
	fmt.Fprintf(out, "\n  %-12s %-10s %-8s %s\n", "POD", "PHASE", "NODE", "IP")
	if len(l.Items) == 0 {
		fmt.Fprintln(out, "  (no pods)")
	}
	for _, p := range l.Items {
		fmt.Fprintf(out, "  %-12s %-10s %-8s %s\n", p.Name, p.Status.Phase, p.Spec.NodeName, p.Status.PodIP)
	}
	return nil
}
