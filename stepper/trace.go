package stepper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kubesim/kubesim/api/handoff"
)

// Write is one API write made during a step.
type Write struct {
	Verb string // create, update, patch, delete
	Path string
	Code int
	// ResourceVersion of the object after the write ("" if none).
	ResourceVersion string
	// Admission lists what the admission chain changed or refused in the
	// write, one step a line (the API server's Kubesim-Admission header).
	Admission []string
	// Name is the written object's name as the answer gives it (a create
	// posts to the collection; the web page's "why" finds a pod's create
	// by it). Not part of the trace's text.
	Name string
	// Call, when set, is a call the actor made outside the API (a
	// kubelet's CNI plugin call, "cni ADD mock default/web"), written as
	// it is in place of a write.
	Call string
}

// AdmissionHeader is the response header the API server lists admission
// steps in (handlers.AdmissionStepHeader).
const AdmissionHeader = "Kubesim-Admission"

// AdmissionTraceHeader asks the API server for every admission step of
// a write, the built-in plugins' patches included (they cost a diff of
// the object per plugin, so the server computes them only when asked).
const AdmissionTraceHeader = "Kubesim-Admission-Trace"

// String renders the write as it appears in the trace: one line, then a
// line per admission step.
func (w Write) String() string {
	if w.Call != "" {
		return w.Call
	}
	s := fmt.Sprintf("%s %s %d", w.Verb, w.Path, w.Code)
	if w.ResourceVersion != "" {
		s += " rv=" + w.ResourceVersion
	}
	for _, step := range w.Admission {
		s += "\n      " + step
	}
	return s
}

// Entry is one line of the trace: one unit of work.
type Entry struct {
	// Time is the fake clock's time; Elapsed is since the cluster started.
	Time    time.Time
	Elapsed time.Duration
	Actor   string
	// Key is what the actor worked on; Cause the event that queued it.
	Key    string
	Cause  string
	Writes []Write
	// User is who made the writes: the authenticated user of the actor's
	// client; "" for the API server's own loopback.
	User string
	// Err is a failed reconcile's error (it will be retried).
	Err string
	// Note explains a step with no actor (time moving on); NoteZh is the
	// same note in Chinese, for a reader who follows the trace in the
	// language of the course. Only Note is in String.
	Note, NoteZh string
}

// String renders the entry in one or more plain lines.
func (e Entry) String() string {
	ts := formatElapsed(e.Elapsed)
	if e.Actor == "" {
		return fmt.Sprintf("%s  %s", ts, e.Note)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-22s %s", ts, e.Actor, e.Key)
	if e.Cause != "" {
		fmt.Fprintf(&b, "  (saw %s)", e.Cause)
	}
	if e.User != "" && len(e.Writes) > 0 {
		fmt.Fprintf(&b, "  as %s", e.User)
	}
	if e.Err != "" {
		fmt.Fprintf(&b, "  error: %s", e.Err)
	}
	pad := strings.Repeat(" ", len(ts))
	for _, w := range e.Writes {
		// A write's admission steps follow it, indented below it.
		fmt.Fprintf(&b, "\n%s    -> %s", pad, strings.ReplaceAll(w.String(), "\n", "\n"+pad+"    "))
	}
	if len(e.Writes) == 0 && e.Err == "" {
		b.WriteString("  (no change)")
	}
	return b.String()
}

func formatElapsed(d time.Duration) string {
	ms := d.Milliseconds()
	return fmt.Sprintf("[%4d.%03ds]", ms/1000, ms%1000)
}

// Recorder captures the writes of one client for the trace: it wraps the
// client's transport and, between Start and Stop, notes every non-GET
// request with its answer. The stepper records each actor's step with one;
// a scenario records its user's writes with another.
type Recorder struct {
	// User is the user the client's requests are made as, for the trace
	// ("" when it is the API server's own loopback).
	User string
	next http.RoundTripper
	mu   sync.Mutex
	// sink receives the writes while recording; nil means not recording.
	sink *[]Write
}

// NewRecorder wraps next, the transport of a client.
func NewRecorder(next http.RoundTripper) *Recorder { return &Recorder{next: next} }

// Start begins recording, forgetting anything recorded before. A nil
// Recorder records nothing.
func (r *Recorder) Start() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sink = &[]Write{}
}

// Stop ends recording and returns the writes since Start, in order.
func (r *Recorder) Stop() []Write {
	if r == nil {
		return []Write{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sink == nil {
		return []Write{}
	}
	w := *r.sink
	r.sink = nil
	return w
}

// RecordCall notes a call the actor made outside the API, in order with
// its writes; nothing while not recording.
func (r *Recorder) RecordCall(call string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sink != nil {
		*r.sink = append(*r.sink, Write{Call: call})
	}
}

var verbs = map[string]string{
	http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete",
}

// RoundTrip implements http.RoundTripper.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	verb, isWrite := verbs[req.Method]
	r.mu.Lock()
	sink := r.sink
	r.mu.Unlock()
	if !isWrite || sink == nil {
		return r.next.RoundTrip(req)
	}
	// A RoundTripper must not change its caller's request. The trace reads
	// the answer's JSON, so an in-process server must not hand the object
	// over decoded instead (api/handoff).
	req = req.Clone(handoff.WithoutAnswer(req.Context()))
	req.Header.Set(AdmissionTraceHeader, "true")
	resp, err := r.next.RoundTrip(req)
	r.mu.Lock()
	sink = r.sink // the step may have ended while the write was in flight
	r.mu.Unlock()
	if err != nil || sink == nil {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil
	}
	var meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name, Namespace, ResourceVersion string
		} `json:"metadata"`
	}
	_ = json.Unmarshal(body, &meta)
	w := Write{Verb: verb, Path: req.URL.Path, Code: resp.StatusCode, Admission: resp.Header.Values(AdmissionHeader)}
	if meta.Kind != "Status" {
		w.ResourceVersion = meta.Metadata.ResourceVersion
		w.Name = meta.Metadata.Name
	}
	r.mu.Lock()
	*sink = append(*sink, w)
	r.mu.Unlock()
	return resp, nil
}
