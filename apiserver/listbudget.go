package apiserver

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/nodeauthz"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/apiserver/serving"
)

// listMemoryPerStoredByte is what serving a list holds per byte of the
// stored objects it reads: the bytes read from the store, the copy served
// (the resourceVersion spliced in, or the object decoded), and the garbage
// collector's slack before it takes them back. Under the storms of
// docs/reliability.md ("Lists under a storm") a 17 MB list of ConfigMaps
// cost the server about 40 MB.
const listMemoryPerStoredByte = 3

// withListBudget charges every LIST against the server's list budget
// before it is served and answers 429 when the budget cannot take it, as
// kube-apiserver's API Priority and Fairness charges a list seats by its
// estimated size. The charge is the estimated bytes of the objects the
// list reads (registry.Store.EstimateList, learned from the lists served
// before) times what serving a byte costs; a list nothing tells the size
// of yet is charged the budget's UnknownCharge. It runs after
// authentication and authorization: the user picks the share
// (listPriority), and a request refused anyway costs nothing.
func (s *Server) withListBudget(h http.Handler) http.Handler {
	if s.lists == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := request.InfoOf(r)
		if info.Verb != "list" || !info.IsResourceRequest || info.Subresource != "" {
			h.ServeHTTP(w, r)
			return
		}
		st, ok := s.Store(info.APIGroup, info.APIVersion, info.Resource)
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		limit, _ := strconv.ParseInt(r.URL.Query().Get("limit"), 10, 64)
		charge := s.lists.UnknownCharge()
		if bytes, known := st.EstimateList(info.Namespace, max(limit, 0)); known {
			charge = bytes * listMemoryPerStoredByte
		}
		u, _ := authn.UserFrom(r.Context())
		var release func()
		if listWaits(u) {
			release, ok = s.lists.AcquireWaiting(r.Context(), charge, listPriority(u), s.cfg.Clock, listQueueWait)
		} else {
			release, ok = s.lists.Acquire(charge, listPriority(u))
		}
		if !ok {
			serving.WriteTooManyRequests(w)
			return
		}
		defer release()
		h.ServeHTTP(w, r)
	})
}

// listQueueWait is how long a list that may wait for room waits before it
// is answered 429: APF rejects a queued request after a quarter of the
// request timeout, 15 s of kube-apiserver's default 60 s.
const listQueueWait = 15 * time.Second

// listWaits says whether a user's lists wait for room in the budget rather
// than being refused at once: the control plane's components (system
// priority) and every service account — whose requests APF's default flow
// schemas queue — wait, as their informers list everything at once when
// they start. People's lists (kubectl) are refused at once, so that a
// storm of them costs no memory for waiting.
func listWaits(u *authn.UserInfo) bool {
	return u != nil && (listPriority(u) == serving.PrioritySystem || strings.HasPrefix(u.Name, "system:serviceaccount:"))
}

// listPriority is the share of the list budget a user's lists draw on,
// after the flow schemas of APF's default configuration: the privileged
// loopback (no user) is exempt; the kubelets (system:nodes), the
// scheduler and the controller manager (system:kube-*) and the
// controllers' service accounts in kube-system are system; everyone else
// is a workload. Unlike APF, system:masters is not exempt: kubectl's admin
// credential is every user's in kubesim, and a storm from it is the one
// to bound.
func listPriority(u *authn.UserInfo) serving.Priority {
	switch {
	case u == nil:
		return serving.PriorityExempt
	case slices.Contains(u.Groups, nodeauthz.NodesGroup),
		strings.HasPrefix(u.Name, "system:node:"),
		strings.HasPrefix(u.Name, "system:kube-"),
		strings.HasPrefix(u.Name, "system:serviceaccount:kube-system:"),
		u.Name == "system:apiserver":
		return serving.PrioritySystem
	}
	return serving.PriorityWorkload
}
