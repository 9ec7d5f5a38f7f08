package apiserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkLeaseUpdateInProcess is a node's heartbeat as the API server
// alone sees it: a PUT of a Lease naming its resourceVersion, through the
// handler in process, with no other loop running — so its allocs/op are
// the request path's own and do not move with the machine's load (the
// whole cluster's figure is BenchmarkLeaseRenewal in cluster/).
func BenchmarkLeaseUpdateInProcess(b *testing.B) {
	h := inProcessServer(b)
	const path = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
	body := func(rv string, at time.Time) string {
		meta := `"name":"node-1","namespace":"kube-node-lease"`
		if rv != "" {
			meta += `,"resourceVersion":"` + rv + `"`
		}
		return fmt.Sprintf(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{%s},`+
			`"spec":{"holderIdentity":"node-1","leaseDurationSeconds":40,"renewTime":%q}}`, meta, at.UTC().Format("2006-01-02T15:04:05.000000Z"))
	}
	send := func(method, url, data string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, url, strings.NewReader(data))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := send(http.MethodPost, path, body("", time.Now())); rec.Code != http.StatusCreated {
		b.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	rv := 0
	if rec := send(http.MethodGet, path+"/node-1", ""); rec.Code == http.StatusOK {
		fmt.Sscanf(rec.Body.String()[strings.Index(rec.Body.String(), `"resourceVersion":"`)+len(`"resourceVersion":"`):], "%d", &rv)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		rec := send(http.MethodPut, path+"/node-1", body(fmt.Sprint(rv), at.Add(time.Duration(i+1)*time.Second)))
		if rec.Code != http.StatusOK {
			b.Fatalf("update: %d %s", rec.Code, rec.Body)
		}
		s := rec.Body.String()
		fmt.Sscanf(s[strings.Index(s, `"resourceVersion":"`)+len(`"resourceVersion":"`):], "%d", &rv)
	}
}
