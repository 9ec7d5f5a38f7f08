package cluster

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/kubesim/kubesim/stepper"
)

// activityTransport tells Config.OnWrite of a live component's writes,
// as the stepper's Recorder notes them for the trace in step mode.
type activityTransport struct {
	next      http.RoundTripper
	component string
	onWrite   func(string, stepper.Write)
}

var writeVerbs = map[string]string{
	http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete",
}

// RoundTrip implements http.RoundTripper.
func (a *activityTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(req)
	verb, isWrite := writeVerbs[req.Method]
	if err != nil || !isWrite {
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
			Name, ResourceVersion string
		} `json:"metadata"`
	}
	_ = json.Unmarshal(body, &meta)
	w := stepper.Write{Verb: verb, Path: req.URL.Path, Code: resp.StatusCode}
	if meta.Kind != "Status" {
		w.ResourceVersion, w.Name = meta.Metadata.ResourceVersion, meta.Metadata.Name
	}
	a.onWrite(a.component, w)
	return resp, nil
}

// Components lists the user agents of the components' clients in the
// stepper's order (the web page's row of loops in live mode).
func (c *Cluster) Components() []string {
	out := make([]string, 0, len(c.components))
	for _, b := range c.components {
		out = append(out, b.userAgent)
	}
	return out
}
