package ui

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
	scenarios "github.com/kubesim/kubesim/examples/scenarios"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/scenario"
	"github.com/kubesim/kubesim/scheduler"
	"github.com/kubesim/kubesim/stepper"
)

// write is a trace write as the page reads it.
type write struct {
	Verb string `json:"verb"`
	Path string `json:"path"`
	Code int    `json:"code"`
	RV   string `json:"rv,omitempty"`
	Name string `json:"name,omitempty"`
	Text string `json:"text"`
}

// entry is one trace entry as the page reads it; Index is its place in
// the trace (the timeline's position).
type entry struct {
	Index   int    `json:"index"`
	Elapsed string `json:"elapsed"`
	Actor   string `json:"actor,omitempty"`
	Key     string `json:"key,omitempty"`
	Cause   string `json:"cause,omitempty"`
	Err     string `json:"err,omitempty"`
	Note    string `json:"note,omitempty"`
	// NoteZh is Note in Chinese ("time advances": 时间推进); the page shows
	// it when the browser's language is Chinese.
	NoteZh string  `json:"note_zh,omitempty"`
	Writes []write `json:"writes"`
	Text   string  `json:"text"`
	// Bound is the node the scheduler chose in this entry (the timeline
	// rebuilds where pods were from it).
	Bound string `json:"bound,omitempty"`
}

func (s *Server) toEntry(i int, e stepper.Entry) entry {
	out := entry{Index: i, Elapsed: fmt.Sprintf("%.3fs", e.Elapsed.Seconds()), Actor: e.Actor, Key: e.Key,
		Cause: e.Cause, Err: e.Err, Note: e.Note, NoteZh: e.NoteZh, Writes: []write{}, Text: e.String()}
	for _, w := range e.Writes {
		out.Writes = append(out.Writes, write{Verb: w.Verb, Path: w.Path, Code: w.Code, RV: w.ResourceVersion, Name: w.Name, Text: w.String()})
	}
	s.decMu.Lock()
	out.Bound = s.bound[i]
	s.decMu.Unlock()
	return out
}

// scenarioState is where step mode's scenario is.
type scenarioState struct {
	Name string `json:"name"`
	// NameZh is the name in Chinese, if the scenario has one.
	NameZh string   `json:"name_zh,omitempty"`
	Steps  []string `json:"steps"`
	// StepsZh are the steps' titles with the notes in Chinese (as
	// `kubesim scenario step --lang zh` prints them); omitted when no note
	// of the scenario has a Chinese text.
	StepsZh []string `json:"steps_zh,omitempty"`
	Current int      `json:"current"`
	Done    bool     `json:"done"`
	Failed  bool     `json:"failed"`
}

type loopInfo struct {
	Name   string `json:"name"`
	Switch string `json:"switch"`
}

type switchInfo struct {
	Name string `json:"name"`
	On   bool   `json:"on"`
}

// info tells the page what it is looking at.
func (s *Server) info(w http.ResponseWriter, r *http.Request, _ *call) {
	out := map[string]any{"mode": "live"}
	c := s.cfg.Cluster
	loops := []loopInfo{}
	var switchNames []string
	if s.cfg.Runner != nil {
		out["mode"] = "step"
		out["scenario"] = s.scenarioState()
		switchNames = nil
		seen := map[string]bool{}
		for _, l := range c.Stepper().Loops() {
			loops = append(loops, loopInfo{Name: l.Name, Switch: l.Switch})
			if !seen[l.Switch] && !strings.HasPrefix(l.Switch, "kubelet/") && l.Switch != "customresourcecleanup" {
				seen[l.Switch] = true
				switchNames = append(switchNames, l.Switch)
			}
		}
		out["trace"] = len(c.Trace())
		out["clock"] = c.Clock().Now().UTC().Format(time.RFC3339)
	} else if c != nil {
		// Live mode: the components by their clients' user agents, as
		// the activity feed names them; the switches restart them.
		seen := map[string]bool{}
		for _, l := range c.LiveComponents() {
			loops = append(loops, loopInfo{Name: l.Name, Switch: l.Switch})
			if !seen[l.Switch] && !strings.HasPrefix(l.Switch, "kubelet/") && l.Switch != "customresourcecleanup" {
				seen[l.Switch] = true
				switchNames = append(switchNames, l.Switch)
			}
		}
		out["activity"] = s.cfg.Activity != nil
	}
	switches := []switchInfo{}
	if c != nil {
		for _, n := range switchNames {
			switches = append(switches, switchInfo{Name: n, On: c.Enabled(n)})
		}
	}
	out["loops"], out["switches"] = loops, switches
	writeJSON(w, out)
}

func (s *Server) scenarioState() scenarioState {
	rn := s.cfg.Runner
	sc := rn.Scenario()
	st := scenarioState{Name: sc.Name, NameZh: sc.NameZh, Current: rn.Current(), Done: rn.Done(), Failed: rn.Failed()}
	zh := false
	for _, step := range sc.Steps {
		st.Steps = append(st.Steps, step.Title())
		st.StepsZh = append(st.StepsZh, step.TitleIn(scenario.Chinese))
		zh = zh || step.TextZh != ""
	}
	if !zh {
		st.StepsZh = nil
	}
	return st
}

// trace returns the trace's entries from ?from=N (step mode).
func (s *Server) trace(w http.ResponseWriter, r *http.Request, _ *call) {
	if s.cfg.Runner == nil {
		writeJSON(w, map[string]any{"entries": []entry{}})
		return
	}
	from, _ := strconv.Atoi(r.URL.Query().Get("from"))
	tr := s.cfg.Cluster.Trace()
	out := []entry{}
	for i := max(from, 0); i < len(tr); i++ {
		out = append(out, s.toEntry(i, tr[i]))
	}
	writeJSON(w, map[string]any{"entries": out})
}

// step runs one unit: the scenario's next unit while it lasts, then one
// unit of work of the cluster (time moving to the next timer when
// nothing is runnable, as runUntilStable does). The answer carries the
// trace entries the unit added; idle says nothing was left to do.
func (s *Server) step(w http.ResponseWriter, r *http.Request, _ *call) {
	if s.cfg.Runner == nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "step mode only: run kubesim demo --ui or kubesim scenario step FILE --ui")
		return
	}
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	c := s.cfg.Cluster
	before := len(c.Trace())
	idle := false
	var err error
	if !s.cfg.Runner.Done() {
		_, err = s.cfg.Runner.Next(r.Context())
	} else {
		var n int
		n, err = c.RunUntilStable(r.Context(), stepper.Limits{MaxSteps: 1})
		if n == 1 && err != nil {
			err = nil // more to do after this one
		} else if err == nil {
			idle = true
		}
	}
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	s.answerSteps(w, before, idle)
}

// advance lets ?seconds=N of fake time pass.
func (s *Server) advance(w http.ResponseWriter, r *http.Request, _ *call) {
	if s.cfg.Runner == nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "step mode only")
		return
	}
	secs, err := strconv.ParseFloat(r.URL.Query().Get("seconds"), 64)
	if err != nil || secs <= 0 || secs > 3600 {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "seconds must be a number above 0 and at most 3600")
		return
	}
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	before := len(s.cfg.Cluster.Trace())
	if _, err := s.cfg.Cluster.Advance(r.Context(), time.Duration(secs*float64(time.Second)), stepper.Limits{}); err != nil {
		writeStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	s.answerSteps(w, before, false)
}

func (s *Server) answerSteps(w http.ResponseWriter, before int, idle bool) {
	tr := s.cfg.Cluster.Trace()
	out := []entry{}
	for i := before; i < len(tr); i++ {
		s.noteDecision(i, tr[i])
		out = append(out, s.toEntry(i, tr[i]))
	}
	answer := map[string]any{"entries": out, "idle": idle, "scenario": s.scenarioState(), "result": "",
		"clock": s.cfg.Cluster.Clock().Now().UTC().Format(time.RFC3339)}
	if res := s.cfg.Runner.Results(); len(res) > 0 && len(out) == 0 {
		answer["result"] = res[len(res)-1].Message // what a step that ran no loop did
		// A note's text, in English and (if it has one) in Chinese: the
		// page shows the one of the browser's language.
		if st := s.cfg.Runner.Scenario().Steps[len(res)-1]; st.Op == scenario.OpNote {
			answer["note"] = st.NoteText(scenario.English)
			if st.TextZh != "" {
				answer["note_zh"] = st.NoteText(scenario.Chinese)
			}
		}
	}
	writeJSON(w, answer)
}

// decision is a scheduling decision as the page shows it.
type decision struct {
	Pod    string         `json:"pod"`
	Chosen string         `json:"chosen"`
	Ties   int            `json:"ties"`
	Nodes  []decisionNode `json:"nodes"`
	// PreFilter is why no node was tried (a PreFilter plugin's
	// rejection of every node at once).
	PreFilter string `json:"preFilter,omitempty"`
	// Error is why the cycle failed with an error instead of a verdict
	// on the nodes (an extender that failed and is not ignorable).
	Error string `json:"error,omitempty"`
	// Permit is what the Permit plugins said when one held the pod.
	Permit string `json:"permit,omitempty"`
	Live   bool   `json:"live,omitempty"`
	raw    scheduler.Decision
}

type decisionNode struct {
	Node    string   `json:"node"`
	Passed  bool     `json:"passed"`
	Filter  string   `json:"filter,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
	// Extender is the scheduler extender that refused the node (its
	// urlPrefix), when Filter is scheduler.ExtenderName.
	Extender string `json:"extender,omitempty"`
	Score    int64  `json:"score"`
	// ExtenderScore is the extenders' part of Score.
	ExtenderScore int64 `json:"extenderScore,omitempty"`
	// Plugins are the score plugins' parts of Score, weighted, by name.
	Plugins map[string]int64 `json:"plugins,omitempty"`
}

func toDecision(d scheduler.Decision) decision {
	out := decision{Pod: d.Pod, Chosen: d.Chosen, Ties: d.Ties, Nodes: []decisionNode{}, PreFilter: d.PreFilterMsg, Error: d.Err, Permit: d.Permit}
	for i, n := range d.Nodes {
		dn := decisionNode{Node: n.Node, Passed: n.Feasible(), Filter: n.Filter, Reasons: n.Reasons,
			Extender: n.Extender, Score: n.Score, ExtenderScore: n.ExtenderScore}
		if ps := d.PluginScores(i); ps != nil {
			dn.Plugins = make(map[string]int64, len(ps))
			for k, name := range d.ScorePlugins {
				dn.Plugins[name] = ps[k]
			}
		}
		out.Nodes = append(out.Nodes, dn)
	}
	return out
}

// noteDecision keeps the scheduler's decision after a step of its: the
// scheduler remembers only its last one.
func (s *Server) noteDecision(i int, e stepper.Entry) {
	if e.Actor != scheduler.ControllerName {
		return
	}
	d, ok := s.cfg.Cluster.LastSchedulingDecision()
	if !ok || d.Pod == "" || d.Pod != e.Key {
		return // a decision of a later step (advance runs many)
	}
	s.decisions.put(toDecision(d))
	s.decMu.Lock()
	defer s.decMu.Unlock()
	if d.Chosen != "" {
		s.bound[i] = d.Chosen
	}
}

// decision returns the scheduler's latest decision for
// ?pod=NAMESPACE/NAME, as kept for every pod (decisionStore), or the
// scheduler's last one if it was about this pod; only to a user who may
// get the pod.
func (s *Server) decision(w http.ResponseWriter, r *http.Request, c *call) {
	pod := r.URL.Query().Get("pod")
	ns, name, _ := strings.Cut(pod, "/")
	if ns == "" || name == "" {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "pod must be NAMESPACE/NAME")
		return
	}
	if err := s.mayGet(r.Context(), c, "/api/v1/namespaces/"+ns+"/pods", name); err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	d, ok := s.decisions.get(pod)
	if !ok && s.cfg.Cluster != nil {
		if last, found := s.cfg.Cluster.LastSchedulingDecision(); found && last.Pod == pod {
			d, ok = toDecision(last), true
			d.Live = true
		}
	}
	if !ok {
		writeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("no scheduling decision recorded for pod %q", pod))
		return
	}
	writeJSON(w, d)
}

// examples lists the example manifests (examples/scenarios/manifests),
// or with ?name= returns one, for the apply box's picker.
func (s *Server) examples(w http.ResponseWriter, r *http.Request, _ *call) {
	fsys := scenarios.FS()
	if name := r.URL.Query().Get("name"); name != "" {
		b, err := fs.ReadFile(fsys, path.Join("manifests", path.Base(name)))
		if err != nil {
			writeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("no example %q", name))
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(b)
		return
	}
	names, err := fs.Glob(fsys, "manifests/*.yaml")
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	for i, n := range names {
		names[i] = path.Base(n)
	}
	writeJSON(w, map[string]any{"examples": names})
}

// why answers "why does this exist?" for ?path=COLLECTION&name=NAME from
// the trace (step mode) or live mode's record of the writes since the
// first login (liveTrace): the same chain either way; only to a user who
// may get the object. The chain names the objects that made it — its
// owners, whose names its ownerReferences show already.
func (s *Server) why(w http.ResponseWriter, r *http.Request, c *call) {
	q := r.URL.Query()
	if err := s.mayGet(r.Context(), c, q.Get("path"), q.Get("name")); err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	switch {
	case s.cfg.Runner != nil:
		writeJSON(w, map[string]string{"text": s.cfg.Runner.ExplainObject(q.Get("path"), q.Get("name"))})
	case s.cfg.Activity != nil:
		writeJSON(w, map[string]string{"text": s.cfg.Activity.trace.explainObject(q.Get("path"), q.Get("name")), "live": "true"})
	default:
		writeJSON(w, map[string]string{"text": "This server keeps no record of its writes: its ownerReferences above say who owns it."})
	}
}

// node stops or starts a node's kubelet (?name=&action=stop|start): the
// node "fails", as in the node-failure lab. No API call does this in
// Kubernetes either: it is the machine going away. So it is authorized
// as the controller switch is, by RBAC on its non-resource path (post
// /ui/api/node, which only cluster-admin holds by default: grant it with
// a ClusterRole's nonResourceURLs), and its audit event says what it did
// (kubesim.io/node-kubelet: node-2=stop).
func (s *Server) node(w http.ResponseWriter, r *http.Request, c *call) {
	q := r.URL.Query()
	name, action := q.Get("name"), q.Get("action")
	if action != "stop" && action != "start" {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "action must be stop or start")
		return
	}
	var k *kubelet.Kubelet
	ok := false
	if s.cfg.Cluster != nil {
		k, ok = s.cfg.Cluster.Kubelet(name)
	}
	if !ok {
		writeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("nodes %q not found", name))
		return
	}
	audit.AddAnnotations(c.audited, map[string]string{"kubesim.io/node-kubelet": name + "=" + action})
	if action == "stop" {
		k.Stop()
	} else {
		k.Start()
	}
	writeJSON(w, map[string]any{"name": name, "stopped": k.Stopped()})
}

// yaml shows an object (?path=/api/...) as YAML, read through the API
// with the session's credentials. A Secret's data is hidden unless
// ?reveal=true asks for it.
func (s *Server) yaml(w http.ResponseWriter, r *http.Request, c *call) {
	path := r.URL.Query().Get("path")
	if !strings.HasPrefix(path, "/api/") && !strings.HasPrefix(path, "/apis/") {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "path must be an API path")
		return
	}
	code, body := s.apiCall(r.Context(), c.sess, http.MethodGet, path, "", nil)
	if code != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write(body)
		return
	}
	out, err := toYAML(body, r.URL.Query().Get("reveal") == "true")
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(out)
}

// toYAML turns a JSON object into block-style YAML, keys in the server's
// order; a Secret's data and stringData values are replaced unless reveal.
func toYAML(body []byte, reveal bool) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(body, &n); err != nil {
		return nil, err
	}
	blockStyle(&n)
	if len(n.Content) == 1 && n.Content[0].Kind == yaml.MappingNode && !reveal {
		root := n.Content[0]
		if v := mapValue(root, "kind"); v != nil && v.Value == "Secret" {
			for _, key := range []string{"data", "stringData"} {
				if m := mapValue(root, key); m != nil && m.Kind == yaml.MappingNode {
					for i := 1; i < len(m.Content); i += 2 {
						m.Content[i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "(hidden: reveal to show)"}
					}
				}
			}
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2) // as kubectl prints
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

func blockStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle
	if n.Kind == yaml.ScalarNode && n.Style&(yaml.DoubleQuotedStyle) != 0 {
		n.Style &^= yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// apiCall makes a request to the API server with the session's
// credentials, as the page's own requests go.
func (s *Server) apiCall(ctx context.Context, sess *session, method, path, contentType string, body []byte) (int, []byte) {
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(string(body)))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if sess.token != "" {
		req.Header.Set("Authorization", "Bearer "+sess.token)
	}
	rec := httptest.NewRecorder()
	if method != http.MethodGet && s.recordsUsers() {
		s.recordWrite(rec, req, "the web page", "the web page")
	} else {
		s.cfg.API.ServeHTTP(rec, req)
	}
	return rec.Code, rec.Body.Bytes()
}
