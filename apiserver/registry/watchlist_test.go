package registry

import (
	"context"
	"crypto/rand"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// eventWait bounds how long a test waits for an event that must come; it
// is generous because the machine may be loaded, and never spent when
// things work.
const eventWait = 30 * time.Second

type rvEnv struct {
	t     *testing.T
	st    store.Interface
	s     *Store
	clock *clock.Fake
}

func newRVEnv(t *testing.T) *rvEnv {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	clk := clock.NewFake(time.Unix(0, 0))
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true,
		New: func() api.Object { return &corev1.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clk, IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	return &rvEnv{t: t, st: st, s: s, clock: clk}
}

func (e *rvEnv) create(name, app string) int64 {
	e.t.Helper()
	obj, err := e.s.Create(context.Background(), "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}}}, CreateOptions{})
	require.NoError(e.t, err)
	rv, _ := strconv.ParseInt(api.Meta(obj).ResourceVersion, 10, 64)
	return rv
}

func (e *rvEnv) relabel(name, app string) {
	e.t.Helper()
	_, _, err := e.s.Update(context.Background(), "ns", name, func(cur api.Object) (api.Object, error) {
		api.Meta(cur).Labels = map[string]string{"app": app}
		api.Meta(cur).ResourceVersion = ""
		return cur, nil
	}, UpdateOptions{})
	require.NoError(e.t, err)
}

func (e *rvEnv) watch(opts ListOptions) (<-chan WatchEvent, context.CancelFunc) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	ch, err := e.s.Watch(ctx, "ns", opts)
	require.NoError(e.t, err)
	return ch, cancel
}

func nextEvent(t *testing.T, ch <-chan WatchEvent) WatchEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the watch ended")
		return ev
	case <-time.After(eventWait):
		t.Fatal("no watch event")
	}
	return WatchEvent{}
}

// summary is "TYPE name" for objects, "BOOKMARK rv" for bookmarks.
func summary(ev WatchEvent) string {
	if ev.Type == api.WatchEventBookmark {
		return "BOOKMARK " + api.Meta(ev.Object).ResourceVersion
	}
	if ev.Type == api.WatchEventError {
		return "ERROR " + ev.Err.Error()
	}
	return string(ev.Type) + " " + api.Meta(ev.Object).Name
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func webSelector(t *testing.T) labels.Selector {
	sel, err := labels.Parse("app=web")
	require.NoError(t, err)
	return sel
}

// A watch-list sends the current state as ADDED, then a BOOKMARK at the
// revision of that state annotated k8s.io/initial-events-end, then the
// changes, selector transitions included.
func TestWatchListInitialEventsBookmarkThenChanges(t *testing.T) {
	for _, rv := range []string{"", "0", "1"} {
		t.Run("rv="+rv, func(t *testing.T) {
			e := newRVEnv(t)
			e.create("a", "web")
			e.create("b", "db")
			listRV := e.create("c", "web")
			ch, _ := e.watch(ListOptions{Labels: webSelector(t), ResourceVersion: rv, ResourceVersionMatch: ResourceVersionMatchNotOlderThan,
				SendInitialEvents: yes(), AllowWatchBookmarks: true})
			assert.Equal(t, "ADDED a", summary(nextEvent(t, ch)))
			assert.Equal(t, "ADDED c", summary(nextEvent(t, ch)))
			bm := nextEvent(t, ch)
			require.Equal(t, "BOOKMARK "+strconv.FormatInt(listRV, 10), summary(bm))
			cm, ok := bm.Object.(*corev1.ConfigMap)
			require.True(t, ok, "the bookmark is an object of the resource's kind")
			assert.Equal(t, map[string]string{"k8s.io/initial-events-end": "true"}, cm.Annotations)
			assert.Equal(t, "ConfigMap", cm.Kind)
			assert.Equal(t, "v1", cm.APIVersion)
			assert.Empty(t, cm.Name)
			assert.Empty(t, cm.Data)

			e.create("d", "web")
			assert.Equal(t, "ADDED d", summary(nextEvent(t, ch)))
			e.relabel("b", "web")
			assert.Equal(t, "ADDED b", summary(nextEvent(t, ch)), "starts matching")
			e.relabel("a", "db")
			assert.Equal(t, "DELETED a", summary(nextEvent(t, ch)), "stops matching")
		})
	}
}

// Without allowWatchBookmarks a watch-list still sends the state, but no
// bookmark; with sendInitialEvents=false it sends only changes.
func TestWatchListWithoutBookmarksAndWithoutInitialEvents(t *testing.T) {
	e := newRVEnv(t)
	e.create("a", "web")
	noBookmarks, _ := e.watch(ListOptions{ResourceVersionMatch: ResourceVersionMatchNotOlderThan, SendInitialEvents: yes()})
	noInitial, _ := e.watch(ListOptions{ResourceVersionMatch: ResourceVersionMatchNotOlderThan, SendInitialEvents: no(), AllowWatchBookmarks: true})
	e.create("b", "web")
	assert.Equal(t, "ADDED a", summary(nextEvent(t, noBookmarks)))
	assert.Equal(t, "ADDED b", summary(nextEvent(t, noBookmarks)), "no bookmark in between")
	assert.Equal(t, "ADDED b", summary(nextEvent(t, noInitial)), "only what changed after the watch began")
}

// The fallback watch (from before the cacher's window) delivers through the
// same function as the cacher: the same events, selector transitions
// included, for the same history.
func TestFallbackWatchDeliversLikeTheCacher(t *testing.T) {
	e := newRVEnv(t)
	start := e.create("a", "web")
	e.create("b", "db")
	e.relabel("b", "web")
	e.relabel("a", "db")
	e.create("c", "db")
	// The cacher starts now: its window begins after this revision, so
	// a watch from start falls back to a store watch of its own.
	cur := strconv.FormatInt(e.st.Revision(), 10)
	_, _ = e.watch(ListOptions{ResourceVersion: cur})
	fallback, _ := e.watch(ListOptions{Labels: webSelector(t), ResourceVersion: strconv.FormatInt(start, 10)})
	e.s.cacher.mu.Lock()
	assert.Len(t, e.s.cacher.all, 1, "the old watch is not the cacher's")
	e.s.cacher.mu.Unlock()
	e.relabel("c", "web")
	e.relabel("b", "db")
	cached, _ := e.watch(ListOptions{Labels: webSelector(t), ResourceVersion: cur})
	var got []string
	for range 4 {
		got = append(got, summary(nextEvent(t, fallback)))
	}
	assert.Equal(t, []string{"ADDED b", "DELETED a", "ADDED c", "DELETED b"}, got)
	assert.Equal(t, "ADDED c", summary(nextEvent(t, cached)))
	assert.Equal(t, "DELETED b", summary(nextEvent(t, cached)))
}

// A watcher that does not read is ended when its buffer is full, and its
// last event says why: 410 Expired, so that its client lists again.
func TestSlowWatcherGetsExpiredErrorEvent(t *testing.T) {
	for _, name := range []string{"plain", "indexed"} {
		t.Run(name, func(t *testing.T) {
			e := newRVEnv(t)
			e.s.cacher.buffer, e.s.cacher.indexedBuffer = 3, 3
			opts := ListOptions{ResourceVersion: strconv.FormatInt(e.create("x", "web"), 10)}
			if name == "indexed" {
				opts.Fields = fields.OneTermEqualSelector("metadata.name", "x")
			}
			ch, _ := e.watch(opts)
			for i := range 6 {
				e.relabel("x", "v"+strconv.Itoa(i))
			}
			// The cacher dispatches on its own goroutine: wait for it to
			// end the watcher, which then holds its three events and the
			// error.
			require.Eventually(t, func() bool {
				e.s.cacher.mu.Lock()
				defer e.s.cacher.mu.Unlock()
				return len(e.s.cacher.all) == 0
			}, eventWait, time.Millisecond)
			var last WatchEvent
			n := 0
			for ev := range ch {
				last = ev
				n++
			}
			assert.Equal(t, 4, n, "three events, then the error")
			require.Equal(t, api.WatchEventError, last.Type)
			assert.True(t, api.IsResourceExpired(last.Err), "%v", last.Err)
		})
	}
}

func TestValidateListOptions(t *testing.T) {
	cases := []struct {
		name  string
		opts  ListOptions
		watch bool
		want  string
	}{
		{"list match without rv", ListOptions{ResourceVersionMatch: "NotOlderThan"}, false,
			"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"list match with continue", ListOptions{ResourceVersion: "5", ResourceVersionMatch: "Exact", Continue: "x"}, false,
			"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"},
		{"list bogus match", ListOptions{ResourceVersion: "0", ResourceVersionMatch: "foo"}, false,
			`resourceVersionMatch: Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""`},
		{"list exact at 0", ListOptions{ResourceVersion: "0", ResourceVersionMatch: "Exact"}, false,
			`resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"list sendInitialEvents", ListOptions{SendInitialEvents: yes()}, false,
			"sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
		{"list ok", ListOptions{ResourceVersion: "0", ResourceVersionMatch: "NotOlderThan"}, false, ""},
		{"watch plain", ListOptions{}, true, ""},
		{"watch-list", ListOptions{SendInitialEvents: yes(), ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true}, true, ""},
		{"watch-list without bookmarks", ListOptions{SendInitialEvents: yes(), ResourceVersionMatch: "NotOlderThan"}, true, ""},
		{"sendInitialEvents without match", ListOptions{SendInitialEvents: no()}, true,
			"resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"sendInitialEvents with Exact", ListOptions{SendInitialEvents: yes(), ResourceVersionMatch: "Exact"}, true,
			`[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`},
		{"watch match without sendInitialEvents", ListOptions{ResourceVersionMatch: "NotOlderThan"}, true,
			"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
		{"watch-list with continue", ListOptions{SendInitialEvents: yes(), ResourceVersionMatch: "NotOlderThan", Continue: "123"}, true,
			"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, ValidateListOptions(c.opts, c.watch).Error())
		})
	}
}

// A continue token carries its own revision: naming another is refused.
func TestListContinueWithResourceVersion(t *testing.T) {
	e := newRVEnv(t)
	e.create("a", "web")
	rv := e.create("b", "web")
	bg := context.Background()
	page, err := e.s.List(bg, "ns", ListOptions{Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, page.Continue)
	_, err = e.s.List(bg, "ns", ListOptions{Limit: 1, Continue: page.Continue, ResourceVersion: strconv.FormatInt(rv, 10)})
	require.True(t, api.IsBadRequest(err), "%v", err)
	assert.Equal(t, "specifying resource version is not allowed when using continue", err.Error())
	for _, zero := range []string{"", "0"} {
		_, err = e.s.List(bg, "ns", ListOptions{Limit: 1, Continue: page.Continue, ResourceVersion: zero})
		require.NoError(t, err)
	}
}

func TestParseResourceVersion(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "0": 0, "42": 42} {
		got, err := ParseResourceVersion(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	for _, in := range []string{"abc", "-1"} {
		_, err := ParseResourceVersion(in)
		require.True(t, api.IsBadRequest(err), "%v", err)
		assert.Equal(t, `resourceVersion: Invalid value: "`+in+`": strconv.ParseUint: parsing "`+in+`": invalid syntax`, err.Error())
	}
}

// stepWhenWaiting moves the fake clock past the resourceVersion wait once a
// read is waiting on it.
func (e *rvEnv) stepWhenWaiting() {
	e.t.Helper()
	require.Eventually(e.t, func() bool { _, ok := e.clock.NextDeadline(); return ok }, eventWait, time.Millisecond)
	e.clock.Step(DefaultResourceVersionWait)
}

func assertTooLarge(t *testing.T, err error, want, current int64) {
	t.Helper()
	var se *api.StatusError
	require.True(t, errors.As(err, &se), "%v", err)
	st := se.Status()
	assert.Equal(t, int32(504), st.Code)
	assert.Equal(t, metav1.StatusReasonTimeout, st.Reason)
	assert.Equal(t, "Timeout: Too large resource version: "+strconv.FormatInt(want, 10)+", current: "+strconv.FormatInt(current, 10), st.Message)
	require.NotNil(t, st.Details)
	assert.Equal(t, int32(1), st.Details.RetryAfterSeconds)
	assert.Equal(t, []metav1.StatusCause{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}}, st.Details.Causes)
}

// A read of a revision the store has not reached waits (on the injected
// clock) and then fails with 504; a write that reaches it in time ends the
// wait with an answer.
func TestFutureResourceVersionWaitsThen504(t *testing.T) {
	e := newRVEnv(t)
	cur := e.create("a", "web")
	future := strconv.FormatInt(cur+5, 10)

	for _, match := range []string{"", ResourceVersionMatchNotOlderThan, ResourceVersionMatchExact} {
		errc := make(chan error, 1)
		go func() {
			_, err := e.s.List(context.Background(), "ns", ListOptions{ResourceVersion: future, ResourceVersionMatch: match})
			errc <- err
		}()
		e.stepWhenWaiting()
		assertTooLarge(t, <-errc, cur+5, cur)
	}

	// A watch waits before it starts; the 504 is its only event.
	chc := make(chan (<-chan WatchEvent), 1)
	go func() {
		ch, err := e.s.Watch(context.Background(), "ns", ListOptions{ResourceVersion: future})
		assert.NoError(t, err)
		chc <- ch
	}()
	e.stepWhenWaiting()
	var evs []WatchEvent
	for ev := range <-chc {
		evs = append(evs, ev)
	}
	require.Len(t, evs, 1)
	require.Equal(t, api.WatchEventError, evs[0].Type)
	assertTooLarge(t, evs[0].Err, cur+5, cur)

	// Reached while waiting: the list is served.
	target := cur + 2
	res := make(chan *ListResult, 1)
	go func() {
		l, err := e.s.List(context.Background(), "ns", ListOptions{ResourceVersion: strconv.FormatInt(target, 10)})
		assert.NoError(t, err)
		res <- l
	}()
	require.Eventually(t, func() bool { _, ok := e.clock.NextDeadline(); return ok }, eventWait, time.Millisecond)
	e.create("b", "web")
	e.create("c", "web")
	l := <-res
	assert.Len(t, l.Items, 3)
}

// Exact serves the state at that revision while the store's history
// reaches it, and says 410 once it is compacted, as etcd does.
func TestListExact(t *testing.T) {
	e := newRVEnv(t)
	bg := context.Background()
	first := e.create("a", "web")
	l, err := e.s.List(bg, "ns", ListOptions{ResourceVersion: strconv.FormatInt(first, 10), ResourceVersionMatch: ResourceVersionMatchExact})
	require.NoError(t, err)
	assert.Equal(t, strconv.FormatInt(first, 10), l.ResourceVersion)
	assert.Len(t, l.Items, 1)

	// Another resource moves the revision, not this resource's state.
	_, err = e.st.Create(bg, "/registry/core/secrets/ns/s", []byte(`{}`), store.CreateOptions{})
	require.NoError(t, err)
	l, err = e.s.List(bg, "ns", ListOptions{ResourceVersion: strconv.FormatInt(first, 10), ResourceVersionMatch: ResourceVersionMatchExact})
	require.NoError(t, err)
	assert.Equal(t, strconv.FormatInt(first, 10), l.ResourceVersion, "served at the revision asked for")
	assert.Len(t, l.Items, 1)
	// NotOlderThan a past revision: the current state.
	l, err = e.s.List(bg, "ns", ListOptions{ResourceVersion: strconv.FormatInt(first, 10), ResourceVersionMatch: ResourceVersionMatchNotOlderThan})
	require.NoError(t, err)
	assert.Equal(t, strconv.FormatInt(e.st.Revision(), 10), l.ResourceVersion)

	// A deletion since: the state at first still has the object.
	_, err = e.s.Delete(bg, "ns", "a", &metav1.DeleteOptions{}, false)
	require.NoError(t, err)
	l, err = e.s.List(bg, "ns", ListOptions{ResourceVersion: strconv.FormatInt(first, 10), ResourceVersionMatch: ResourceVersionMatchExact})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	assert.Equal(t, strconv.FormatInt(first, 10), api.Meta(l.Items[0]).ResourceVersion, "as it was")

	// Compacted away: gone, even though nothing changed since.
	now := e.create("b", "web")
	kv, err := e.st.Create(bg, "/registry/core/secrets/ns/t", []byte(`{}`), store.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, e.st.Compact(bg, kv.ModRevision))
	_, err = e.s.List(bg, "ns", ListOptions{ResourceVersion: strconv.FormatInt(now, 10), ResourceVersionMatch: ResourceVersionMatchExact})
	require.True(t, api.IsResourceExpired(err), "%v", err)
	assert.Equal(t, "The resourceVersion for the provided list is too old.", err.Error())
}

// A watch-list's initial events carry the watch cache's objects, the ones
// its other watchers (in-process informers) hold, not copies decoded
// again: an informer's relist is a watch-list (client/cache), and a private
// copy of every pod per relisting informer was what a list cost at
// 100,000 pods.
func TestWatchListInitialEventsAreTheCachedObjects(t *testing.T) {
	e := newRVEnv(t)
	rv := e.create("a", "web")
	e.create("b", "web")
	// A watcher keeps the shared stream, and so the object cache, live.
	ch, _ := e.watch(ListOptions{ResourceVersion: strconv.FormatInt(rv, 10)})
	assert.Equal(t, "ADDED b", summary(nextEvent(t, ch)))
	e.relabel("a", "db")
	modified := nextEvent(t, ch)
	require.Equal(t, "MODIFIED a", summary(modified))

	list, _ := e.watch(ListOptions{ResourceVersionMatch: ResourceVersionMatchNotOlderThan, SendInitialEvents: yes(), AllowWatchBookmarks: true})
	got := map[string]api.Object{}
	for range 2 {
		ev := nextEvent(t, list)
		require.Equal(t, api.WatchEventAdded, ev.Type)
		got[api.Meta(ev.Object).Name] = ev.Object
	}
	assert.Same(t, modified.Object, got["a"], "the object the other watcher was handed")
	shared, err := e.s.GetShared(context.Background(), "ns", "b")
	require.NoError(t, err)
	assert.Same(t, shared, got["b"])
	assert.Equal(t, api.WatchEventBookmark, nextEvent(t, list).Type)
}
