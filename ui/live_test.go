package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/stepper"
)

// lockedBuffer is an audit log's output, read while it is written.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runningEnv is the page over a running live cluster as `kubesim serve`
// builds it: RBAC, an audit log, the activity feed. alice is in
// system:masters; bob is only authenticated.
type runningEnv struct {
	*liveEnv
	cluster *cluster.Cluster
	audit   *lockedBuffer
}

func newRunning(t *testing.T, nodes int) *runningEnv {
	t.Helper()
	tokens := authn.AuthenticatorFunc(func(r *http.Request) (*authn.UserInfo, bool, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer " + goodToken:
			return &authn.UserInfo{Name: "alice", Groups: []string{authn.SystemPrivilegedGroup, authn.AllAuthenticated}}, true, nil
		case "Bearer bob-token":
			return &authn.UserInfo{Name: "bob", Groups: []string{authn.AllAuthenticated}}, true, nil
		}
		return nil, false, nil
	})
	out := &lockedBuffer{}
	activity := NewActivity(clock.Real{})
	c, err := cluster.New(cluster.Config{NodeCount: nodes, UnsafeNoFsync: true, Authenticator: tokens, AuthorizationMode: "Node,RBAC",
		Audit: &audit.Log{Out: out, Clock: clock.Real{}, NewID: func() string { return "id" }}, OnWrite: activity})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); _ = c.Close() })
	require.NoError(t, c.Start(ctx))
	// Every node registered: a decision weighs them all.
	require.Eventually(t, func() bool {
		l, err := c.Client("test").Nodes().List(ctx, "", client.ListOptions{})
		return err == nil && len(l.Items) == nodes
	}, time.Minute, 20*time.Millisecond)
	env := &runningEnv{liveEnv: &liveEnv{clock: clock.NewFake(time.Now())}, cluster: c, audit: out}
	env.srv, err = New(Config{API: c.Server().Handler(), Cluster: c, Activity: activity, LinkCredential: goodToken,
		Clock: env.clock, Rand: mrand.NewChaCha8([32]byte{3}), SessionTTL: time.Hour})
	require.NoError(t, err)
	return env
}

func (e *runningEnv) login(t *testing.T, token string) string {
	t.Helper()
	rec := e.do("POST", "/ui/login", "token="+token, "Content-Type", "application/x-www-form-urlencoded")
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	return sessionCookie(t, rec)
}

func (e *runningEnv) why(t *testing.T, cookie, collection, name string) string {
	t.Helper()
	rec := e.do("GET", "/ui/api/why?path="+collection+"&name="+name, "", "Cookie", cookie)
	require.Equal(t, http.StatusOK, rec.Code)
	var out struct{ Text string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	return out.Text
}

const liveRS = `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web"},"spec":{"replicas":3,
"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`

// In live mode "why does this exist?" follows a pod back as the step
// trace does: created by the ReplicaSet controller, which saw the
// ReplicaSet the user wrote — kubectl's write, or the page's.
func TestLiveWhyFollowsTheCausesBackToTheUser(t *testing.T) {
	e := newRunning(t, 2)
	cookie := e.login(t, goodToken) // the record starts with the first login
	// kubectl's write: a bearer token, no cookie.
	rec := e.do("POST", "/apis/apps/v1/namespaces/default/replicasets", liveRS, "Authorization", "Bearer "+goodToken,
		"Content-Type", "application/json", "User-Agent", "kubectl/v1.32.0 (linux/amd64) kubernetes/abc")
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var rs appsv1.ReplicaSet
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &rs))
	cl := e.cluster.Client("test")
	var pods []*corev1.Pod
	require.Eventually(t, func() bool {
		l, err := cl.Pods().List(context.Background(), "default", client.ListOptions{})
		if err != nil || len(l.Items) != 3 {
			return false
		}
		for _, p := range l.Items {
			if p.Spec.NodeName == "" {
				return false
			}
		}
		pods = l.Items
		return true
	}, time.Minute, 20*time.Millisecond)
	// The controller's write is recorded once its answer is back, which
	// on a busy machine can be after the scheduler has bound the pod (the
	// watch event comes first): wait for it.
	var why string
	require.Eventually(t, func() bool {
		why = e.why(t, cookie, "/api/v1/namespaces/default/pods", pods[0].Name)
		return strings.HasPrefix(why, "It was created by")
	}, time.Minute, 20*time.Millisecond)
	t.Logf("why:\n%s", why)
	assert.Contains(t, why, "It was created by: create /api/v1/namespaces/default/pods 201")
	assert.Contains(t, why, "made by replicaset at ")
	assert.Contains(t, why, "while reconciling default/web")
	assert.Contains(t, why, "resourceVersion "+rs.ResourceVersion+" was written by you: alice, with kubectl/v1.32.0: create /apis/apps/v1/namespaces/default/replicasets 201")

	// The page's own write, a delete: a replacement, whose chain goes back
	// through the ReplicaSet controller's reconciles.
	victim := pods[0].Name
	rec = e.do("DELETE", "/api/v1/namespaces/default/pods/"+victim, "", "Cookie", cookie, Header, "1")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var replacement string
	require.Eventually(t, func() bool {
		l, err := cl.Pods().List(context.Background(), "default", client.ListOptions{})
		if err != nil {
			return false
		}
		for _, p := range l.Items {
			if p.Name != pods[1].Name && p.Name != pods[2].Name && p.Name != victim {
				replacement = p.Name
				return true
			}
		}
		return false
	}, time.Minute, 20*time.Millisecond)
	// The write is recorded once its answer is back: wait for it.
	require.Eventually(t, func() bool {
		why = e.why(t, cookie, "/api/v1/namespaces/default/pods", replacement)
		return strings.HasPrefix(why, "It was created by")
	}, time.Minute, 20*time.Millisecond)
	t.Logf("why %s:\n%s", replacement, why)
	// Which event queued the ReplicaSet first is live timing (the pod's
	// deletion, or a status write before it): the chain follows it.
	assert.Contains(t, why, "made by replicaset")
	assert.Contains(t, why, "while reconciling default/web\n  because replicaset saw the ")

	tr := e.srv.cfg.Activity.trace
	tr.mu.Lock()
	var pageDelete bool
	for _, uw := range tr.users {
		pageDelete = pageDelete || (uw.Title == "alice, with the web page" && uw.Write.Verb == "delete" && strings.HasSuffix(uw.Write.Path, "/"+victim))
	}
	tr.mu.Unlock()
	assert.True(t, pageDelete, "the page's delete is recorded as the user's, where a chain can end")

	// The ReplicaSet itself: kubectl made it.
	assert.Equal(t, "You created it: alice, with kubectl/v1.32.0: create /apis/apps/v1/namespaces/default/replicasets 201 rv="+rs.ResourceVersion+"\n",
		e.why(t, cookie, "/apis/apps/v1/namespaces/default/replicasets", "web"))

	// The scheduler's decision is kept for every pod, not only its last.
	for _, p := range pods[1:] {
		rec = e.do("GET", "/ui/api/decision?pod=default/"+p.Name, "", "Cookie", cookie)
		require.Equal(t, http.StatusOK, rec.Code, "pod %s: %s", p.Name, rec.Body.String())
		var d decision
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &d))
		assert.Equal(t, p.Spec.NodeName, d.Chosen)
		assert.Len(t, d.Nodes, 2)
	}
}

// Before the first login nothing is recorded: a server nobody looks at
// pays nothing.
func TestLiveRecordStartsWithTheFirstLogin(t *testing.T) {
	e := newRunning(t, 1)
	a := e.srv.cfg.Activity
	assert.False(t, a.Observing())
	cl := e.cluster.Client("test")
	_, err := cl.Pods().Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "early", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := cl.Pods().Get(context.Background(), "default", "early")
		return err == nil && p.Status.Phase == corev1.PodRunning
	}, time.Minute, 20*time.Millisecond)
	a.trace.mu.Lock()
	assert.Zero(t, a.trace.n, "no write recorded before a page was opened")
	a.trace.mu.Unlock()
	_, ok := e.srv.decisions.get("default/early")
	assert.False(t, ok)
	e.login(t, goodToken)
	assert.True(t, a.Observing())
}

// The users' writes are recorded from the server's start, not from the
// first login: kubectl's ReplicaSet, applied before anyone opened the
// page, is "yours" when the page asks why it exists afterwards. The
// control loops' writes from before the login are not in the record, and
// the chain of a pod made then says so instead of blaming the API server.
func TestLiveRecordsTheUsersWritesFromTheStart(t *testing.T) {
	e := newRunning(t, 1)
	a := e.srv.cfg.Activity
	rec := e.do("POST", "/apis/apps/v1/namespaces/default/replicasets", liveRS, "Authorization", "Bearer "+goodToken,
		"Content-Type", "application/json", "User-Agent", "kubectl/v1.32.0 (linux/amd64) kubernetes/abc")
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var rs appsv1.ReplicaSet
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &rs))
	cl := e.cluster.Client("test")
	var pods []*corev1.Pod
	require.Eventually(t, func() bool {
		l, err := cl.Pods().List(context.Background(), "default", client.ListOptions{})
		pods = nil
		if err == nil {
			pods = l.Items
		}
		return len(pods) == 3
	}, time.Minute, 20*time.Millisecond)
	assert.False(t, a.Observing(), "no page was opened: the loops' writes cost nothing more")
	a.trace.mu.Lock()
	assert.Zero(t, a.trace.n, "no loop's write recorded before a page was opened")
	assert.Len(t, a.trace.users, 1, "kubectl's write is recorded")
	a.trace.mu.Unlock()

	cookie := e.login(t, goodToken)
	assert.Equal(t, "You created it: alice, with kubectl/v1.32.0: create /apis/apps/v1/namespaces/default/replicasets 201 rv="+rs.ResourceVersion+"\n",
		e.why(t, cookie, "/apis/apps/v1/namespaces/default/replicasets", "web"))
	why := e.why(t, cookie, "/api/v1/namespaces/default/pods", pods[0].Name)
	assert.True(t, strings.HasPrefix(why, "No recorded write created "+pods[0].Name+" in /api/v1/namespaces/default/pods: "+
		"a control loop made it before the page was first opened"), why)

	// The user is the one the write was made as: impersonated (kubectl
	// --as=carol), or authenticated; a client may send no user agent.
	for _, c := range []struct{ name, want string }{
		{"as-carol", "carol, with kubectl/v1.32.0"},
		{"no-agent", "alice, with a client with no user agent"},
	} {
		hdr := []string{"Authorization", "Bearer " + goodToken, "Content-Type", "application/json"}
		if c.name == "as-carol" {
			hdr = append(hdr, "Impersonate-User", "carol", "Impersonate-Group", "system:masters", "User-Agent", "kubectl/v1.32.0 (linux/amd64) kubernetes/abc")
		}
		rec := e.do("POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"`+c.name+`"}}`, hdr...)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		var cm corev1.ConfigMap
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &cm))
		assert.Equal(t, "You created it: "+c.want+": create /api/v1/namespaces/default/configmaps 201 rv="+cm.ResourceVersion+"\n",
			e.why(t, cookie, "/api/v1/namespaces/default/configmaps", c.name))
	}
}

// Live components hear their answers in whatever order their goroutines
// run, not in the order the store made the writes: the store publishes a
// write's watch event before it answers the writer, so the ReplicaSet
// controller can create a pod for a new ReplicaSet, and report it, before
// the deployment controller has reported that ReplicaSet's create. The
// chain still goes from the pod back through the ReplicaSet to the
// Deployment and the page's apply.
func TestLiveTraceFollowsRevisionsNotArrivalOrder(t *testing.T) {
	tr := newLiveTrace(clock.NewFake(time.Now()))
	tr.addUser("the web page", stepper.Write{Verb: "patch", Path: "/apis/apps/v1/namespaces/default/deployments/shop", Code: 201, ResourceVersion: "49", Name: "shop"})
	deploy := &controllers.Reconciling{Controller: "deployment", Key: "default/shop",
		Cause: controllers.Cause{Event: "ADDED", Kind: "Deployment", Namespace: "default", Name: "shop", ResourceVersion: "49"}}
	rs := &controllers.Reconciling{Controller: "replicaset", Key: "default/shop-1",
		Cause: controllers.Cause{Event: "ADDED", Kind: "ReplicaSet", Namespace: "default", Name: "shop-1", ResourceVersion: "50"}}
	// The pod's create is heard first, then the ReplicaSet's.
	tr.add("replicaset-controller", rs, stepper.Write{Verb: "create", Path: "/api/v1/namespaces/default/pods", Code: 201, ResourceVersion: "51", Name: "shop-1-a"})
	tr.add("deployment-controller", deploy, stepper.Write{Verb: "create", Path: "/apis/apps/v1/namespaces/default/replicasets", Code: 201, ResourceVersion: "50", Name: "shop-1"})
	tr.add("replicaset-controller", rs, stepper.Write{Verb: "create", Path: "/api/v1/namespaces/default/pods", Code: 201, ResourceVersion: "52", Name: "shop-1-b"})

	for _, pod := range []string{"shop-1-a", "shop-1-b"} {
		why := tr.explainObject("/api/v1/namespaces/default/pods", pod)
		assert.Contains(t, why, "made by replicaset", pod)
		assert.Contains(t, why, "resourceVersion 50 was written by deployment", pod)
		assert.Contains(t, why, "resourceVersion 49 was written by you: the web page", pod)
	}
}

// The record is a ring: old entries go, a reconcile's writes join its
// entry, and the users' writes are bounded too.
func TestLiveTraceIsBounded(t *testing.T) {
	tr := newLiveTrace(clock.NewFake(time.Now()))
	for i := range liveTraceEntries + 10 {
		tr.add("c", nil, stepperWrite(fmt.Sprint(i+1)))
	}
	assert.Equal(t, liveTraceEntries+10, tr.n)
	assert.Equal(t, "No recorded write created p1 in /api/v1/namespaces/default/pods: a control loop made it before the page was first opened "+
		"or longer ago than the record keeps (the loops' last 4096 reconciles; your writes since the server started), or the API server did.\n",
		tr.explainObject("/api/v1/namespaces/default/pods", "p1"), "the oldest entries are gone")
	assert.Contains(t, tr.explainObject("/api/v1/namespaces/default/pods", fmt.Sprint("p", liveTraceEntries+10)), "It was created by")
	for i := range liveUserWrites + 5 {
		tr.addUser("u", stepperWrite(fmt.Sprint(100000+i)))
	}
	assert.Len(t, tr.users, liveUserWrites)
	assert.Len(t, tr.userOrder, liveUserWrites)
}

// Live controller switches go through the API server's filters: alice
// (system:masters) turns the garbage collector off — a ReplicaSet deleted
// then leaves its pods — and on again, a new collector that removes
// them; bob may not, in RBAC's words; the audit log names both.
func TestLiveSwitchIsAuthorizedAndAudited(t *testing.T) {
	e := newRunning(t, 1)
	alice := e.login(t, goodToken)
	bob := e.login(t, "bob-token")
	sw := func(cookie, body string) *httptest.ResponseRecorder {
		return e.do("POST", "/ui/api/switch", body, "Cookie", cookie, Header, "1", "Content-Type", "application/json")
	}
	rec := sw(bob, `{"name":"garbagecollector","on":false}`)
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `forbidden: User \"bob\" cannot post path \"/ui/api/switch\"`)
	assert.True(t, e.cluster.Enabled("garbagecollector"))

	rec = sw(alice, `{"name":"garbagecollector","on":false}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.False(t, e.cluster.Enabled("garbagecollector"))
	rec = e.do("GET", "/ui/api/info", "", "Cookie", alice)
	assert.Contains(t, rec.Body.String(), `{"name":"garbagecollector","on":false}`, "the page lists the live switches")

	cl := e.cluster.Client("test")
	ctx := context.Background()
	rec = e.do("POST", "/apis/apps/v1/namespaces/default/replicasets", strings.Replace(liveRS, `"replicas":3`, `"replicas":2`, 1),
		"Cookie", alice, Header, "1", "Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Eventually(t, func() bool {
		l, err := cl.Pods().List(ctx, "default", client.ListOptions{})
		return err == nil && len(l.Items) == 2
	}, time.Minute, 20*time.Millisecond)
	require.NoError(t, cl.ReplicaSets().Delete(ctx, "default", "web", nil))
	// A barrier: a pod created after the delete is scheduled, so the
	// controllers have seen the delete; the collector, off, did nothing.
	_, err := cl.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "barrier", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := cl.Pods().Get(ctx, "default", "barrier")
		return err == nil && p.Spec.NodeName != ""
	}, time.Minute, 20*time.Millisecond)
	l, err := cl.Pods().List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, l.Items, 3, "without the garbage collector the ReplicaSet's pods outlive it")

	rec = sw(alice, `{"name":"garbagecollector","on":true}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Eventually(t, func() bool {
		l, err := cl.Pods().List(ctx, "default", client.ListOptions{})
		return err == nil && len(l.Items) == 1 && l.Items[0].Name == "barrier"
	}, time.Minute, 20*time.Millisecond, "a new collector removes the orphans")

	rec = sw(alice, `{"name":"nosuch","on":true}`)
	assert.Equal(t, http.StatusNotFound, rec.Code)

	log := e.audit.String()
	var allowed, denied bool
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var ev audit.Event
		require.NoError(t, json.Unmarshal([]byte(line), &ev))
		if ev.RequestURI != "/ui/api/switch" || ev.Stage != "ResponseComplete" {
			continue
		}
		assert.Equal(t, "post", ev.Verb)
		switch ev.User.Username {
		case "alice":
			if ev.ResponseStatus.Code == http.StatusOK && ev.Annotations["kubesim.io/controller-switch"] == "garbagecollector=off" {
				allowed = true
			}
		case "bob":
			denied = denied || ev.ResponseStatus.Code == http.StatusForbidden
		}
	}
	assert.True(t, allowed, "alice's switch is in the audit log:\n%s", log)
	assert.True(t, denied, "bob's refused switch is in the audit log")
}

// stepperWrite is a pod's create at resourceVersion rv, named p+rv.
func stepperWrite(rv string) stepper.Write {
	return stepper.Write{Verb: "create", Path: "/api/v1/namespaces/default/pods", Code: 201, ResourceVersion: rv, Name: "p" + rv}
}

// A stream (exec, attach, port-forward, a proxy, any upgrade) is never
// recorded: its connection goes to the API server as it came, hijackable.
func TestStreamsAreNotRecorded(t *testing.T) {
	for _, c := range []struct {
		method, path, upgrade string
		want                  bool
	}{
		{"POST", "/api/v1/namespaces/default/pods", "", true},
		{"PATCH", "/apis/apps/v1/namespaces/default/deployments/web/scale", "", true},
		{"DELETE", "/api/v1/namespaces/default/pods/web", "", true},
		{"GET", "/api/v1/pods", "", false},
		{"POST", "/api/v1/namespaces/default/pods/web/exec", "", false},
		{"POST", "/api/v1/namespaces/default/pods/web/attach", "", false},
		{"POST", "/api/v1/namespaces/default/pods/web/portforward", "", false},
		{"POST", "/api/v1/namespaces/default/services/web/proxy/x", "", false},
		{"POST", "/api/v1/namespaces/default/pods/web/status", "websocket", false},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		if c.upgrade != "" {
			r.Header.Set("Upgrade", c.upgrade)
		}
		assert.Equal(t, c.want, recordable(r), "%s %s", c.method, c.path)
	}
}
