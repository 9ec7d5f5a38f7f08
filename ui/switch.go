package ui

import (
	"encoding/json"
	"net/http"

	"github.com/kubesim/kubesim/apiserver/audit"
)

// setSwitch turns a controller on or off: {"name": "garbagecollector",
// "on": false}. In live mode the request has come through the API
// server's own filters with the session's token (authed): authentication,
// the audit log, and RBAC on the non-resource path /ui/api/switch (verb
// post), which only cluster-admin — system:masters — has by default; the
// audit event names the switch. Step mode's cluster has no
// authentication, and the session is its gate.
func (s *Server) setSwitch(w http.ResponseWriter, r *http.Request, c *call) {
	if s.cfg.Cluster == nil {
		writeStatus(w, http.StatusNotFound, "NotFound", "no cluster to switch controllers of")
		return
	}
	var body switchInfo
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	state := "off"
	if body.On {
		state = "on"
	}
	audit.AddAnnotations(c.audited, map[string]string{"kubesim.io/controller-switch": body.Name + "=" + state})
	if err := s.cfg.Cluster.SetEnabled(body.Name, body.On); err != nil {
		writeStatus(w, http.StatusNotFound, "NotFound", err.Error())
		return
	}
	writeJSON(w, body)
}
