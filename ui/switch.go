package ui

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/kubesim/kubesim/apiserver/audit"
)

// setSwitch turns a controller on or off: {"name": "garbagecollector", "on": false}.
// In live mode the request goes through the API server's own filters
// with the session's token (authentication, the audit log, RBAC: the
// non-resource path /ui/api/switch, verb post, which only cluster-admin
// — system:masters — has by default), then switchController; step mode's
// cluster has no authentication, and the session is its gate.
func (s *Server) setSwitch(w http.ResponseWriter, r *http.Request, sess *session) {
	if s.cfg.Cluster == nil {
		writeStatus(w, http.StatusNotFound, "NotFound", "no cluster to switch controllers of")
		return
	}
	if s.cfg.Runner != nil {
		s.switchController(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	req := httptest.NewRequestWithContext(r.Context(), http.MethodPost, "/ui/api/switch", bytes.NewReader(body))
	req.RemoteAddr = r.RemoteAddr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", r.UserAgent())
	if sess.token != "" {
		req.Header.Set("Authorization", "Bearer "+sess.token)
	}
	s.guardedSwitch.ServeHTTP(w, req)
}

// switchController applies a switch; in live mode the audit log's event
// of the request names it.
func (s *Server) switchController(w http.ResponseWriter, r *http.Request) {
	var body switchInfo
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	state := "off"
	if body.On {
		state = "on"
	}
	audit.AddAnnotations(r.Context(), map[string]string{"kubesim.io/controller-switch": body.Name + "=" + state})
	if err := s.cfg.Cluster.SetEnabled(body.Name, body.On); err != nil {
		writeStatus(w, http.StatusNotFound, "NotFound", err.Error())
		return
	}
	writeJSON(w, body)
}
