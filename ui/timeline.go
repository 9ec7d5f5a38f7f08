package ui

import "net/http"

// userWrite is a user's write as the timeline reads it.
type userWrite struct {
	By    string `json:"by"`
	Write write  `json:"write"`
}

// userWrites lists the users' writes of step mode (the scenario's steps'
// and the page's), by resourceVersion: the trace holds the loops' writes
// only, and the timeline puts these between them to rebuild the objects
// a user made (the ReplicaSet a step applied).
func (s *Server) userWrites(w http.ResponseWriter, _ *http.Request, _ *call) {
	out := []userWrite{}
	if s.cfg.Runner != nil {
		for _, uw := range s.cfg.Runner.UserWrites() {
			x := uw.Write
			out = append(out, userWrite{By: uw.Title, Write: write{Verb: x.Verb, Path: x.Path, Code: x.Code, RV: x.ResourceVersion, Name: x.Name, Text: x.String()}})
		}
	}
	writeJSON(w, map[string]any{"writes": out})
}
