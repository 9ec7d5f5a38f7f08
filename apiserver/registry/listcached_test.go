package registry

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// cachedEnv is a configmaps store with objects in three namespaces, some
// changed and deleted after the watch cache started, and one corrupt value.
type cachedEnv struct {
	s    *Store
	st   store.Interface
	last int64
}

func newCachedEnv(t *testing.T) *cachedEnv {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", ListKind: "ConfigMapList", Namespaced: true,
		New: func() api.Object { return &api.ConfigMap{} },
		Fields: func(obj api.Object) fields.Set {
			return fields.Set{"data.k": obj.(*api.ConfigMap).Data["k"]}
		}}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	e := &cachedEnv{s: s, st: st}
	ctx := context.Background()
	create := func(ns string, i int) {
		app := []string{"web", "db"}[i%2]
		obj, err := s.Create(ctx, ns, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("c%02d", i), Labels: map[string]string{"app": app}},
			Data: map[string]string{"k": strconv.Itoa(i % 3)}}, CreateOptions{})
		require.NoError(t, err)
		e.last, _ = strconv.ParseInt(obj.GetObjectMeta().ResourceVersion, 10, 64)
	}
	for i := range 12 {
		for _, ns := range []string{"a", "b", "b-x"} {
			create(ns, i)
		}
	}
	// A value that does not decode: both lists leave it out with a warning.
	_, err = st.Create(ctx, "/registry/core/configmaps/b/c05x", []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":`), store.CreateOptions{})
	require.NoError(t, err)
	// The first cached list decodes everything and starts the cache; then
	// changes arrive through its stream.
	_, err = s.ListCached(ctx, "", ListOptions{})
	require.NoError(t, err)
	for i := 12; i < 16; i++ {
		create("a", i)
	}
	for _, n := range []string{"c01", "c07"} {
		obj, _, err := s.Update(ctx, "b", n, func(cur api.Object) (api.Object, error) {
			cm := cur.(*api.ConfigMap)
			cm.Data = map[string]string{"k": "changed"}
			cm.Labels = map[string]string{"app": "web"}
			return cm, nil
		}, UpdateOptions{})
		require.NoError(t, err)
		e.last, _ = strconv.ParseInt(obj.GetObjectMeta().ResourceVersion, 10, 64)
	}
	del, err := s.Delete(ctx, "a", "c02", nil, false)
	require.NoError(t, err)
	e.last, _ = strconv.ParseInt(del.Object.GetObjectMeta().ResourceVersion, 10, 64)
	e.waitApplied(t)
	return e
}

// waitApplied waits until the cache's stream has applied the last write.
func (e *cachedEnv) waitApplied(t *testing.T) {
	require.Eventually(t, func() bool {
		e.s.cacher.objects.mu.RLock()
		defer e.s.cacher.objects.mu.RUnlock()
		return e.s.cacher.objects.applied >= e.last
	}, 10*time.Second, time.Millisecond)
}

// jsonItems encodes a page's objects, as a client would see them.
func jsonItems(t *testing.T, items []api.Object) []string {
	out := make([]string, len(items))
	for i, obj := range items {
		data, err := json.Marshal(obj)
		require.NoError(t, err)
		out[i] = string(data)
	}
	return out
}

// A list through the watch cache's decoded objects answers exactly what
// the store-decoding List answers: the same objects (as JSON, byte for
// byte), resourceVersion, continue tokens page after page, warnings and
// errors, for every namespace, selector and resourceVersion mode.
func TestListCachedAnswersAsList(t *testing.T) {
	e := newCachedEnv(t)
	ctx := context.Background()
	web, err := labels.Parse("app=web")
	require.NoError(t, err)
	notDB, err := labels.Parse("app!=db")
	require.NoError(t, err)
	now := strconv.FormatInt(e.st.Revision(), 10)
	// An entry the cache holds at another revision than the store's (as
	// while an event is on its way) must not be served.
	e.s.cacher.objects.mu.Lock()
	e.s.cacher.objects.objs["/registry/core/configmaps/b/c01"] = cachedObject{obj: &api.ConfigMap{
		ObjectMeta: api.ObjectMeta{Name: "c01", Namespace: "b", ResourceVersion: "1"}, Data: map[string]string{"k": "stale"}}, rev: 1}
	e.s.cacher.objects.mu.Unlock()
	cases := map[string]ListOptions{
		"all":                    {},
		"labels":                 {Labels: web},
		"labels, paged":          {Labels: notDB, Limit: 3},
		"field name":             {Fields: fields.OneTermEqualSelector("metadata.name", "c07")},
		"field data.k":           {Fields: fields.OneTermEqualSelector("data.k", "changed")},
		"field !=, paged":        {Fields: fields.OneTermNotEqualSelector("data.k", "1"), Limit: 4},
		"paged by 5":             {Limit: 5},
		"paged by 1":             {Limit: 1},
		"resourceVersion 0":      {ResourceVersion: "0", Limit: 7},
		"not older than now":     {ResourceVersion: now},
		"exact now":              {ResourceVersion: now, ResourceVersionMatch: ResourceVersionMatchExact},
		"exact, since changed":   {ResourceVersion: "20", ResourceVersionMatch: ResourceVersionMatchExact},
		"not older than, paged":  {ResourceVersion: "3", ResourceVersionMatch: ResourceVersionMatchNotOlderThan, Limit: 6},
		"labels and fields, one": {Labels: web, Fields: fields.OneTermEqualSelector("data.k", "0"), Limit: 1},
	}
	for name, opts := range cases {
		for _, ns := range []string{"", "a", "b", "nope"} {
			t.Run(name+" in "+ns, func(t *testing.T) {
				wantOpts, gotOpts := opts, opts
				for page := 0; ; page++ {
					want, wantErr := e.s.List(ctx, ns, wantOpts)
					got, gotErr := e.s.ListCached(ctx, ns, gotOpts)
					if wantErr != nil {
						require.Error(t, gotErr)
						assert.Equal(t, wantErr.Error(), gotErr.Error())
						return
					}
					require.NoError(t, gotErr)
					assert.Equal(t, jsonItems(t, want.Items), jsonItems(t, got.Items), "page %d", page)
					assert.Equal(t, want.ResourceVersion, got.ResourceVersion)
					assert.Equal(t, want.Continue, got.Continue)
					assert.Equal(t, want.Warnings, got.Warnings)
					if want.Continue == "" {
						return
					}
					wantOpts.Continue, gotOpts.Continue = want.Continue, got.Continue
					wantOpts.ResourceVersion, gotOpts.ResourceVersion = "", ""
					wantOpts.ResourceVersionMatch, gotOpts.ResourceVersionMatch = "", ""
				}
			})
		}
	}
	// Continue tokens are interchangeable: a page cached after a page
	// decoded, and the other way round.
	first, err := e.s.List(ctx, "", ListOptions{Limit: 10})
	require.NoError(t, err)
	a, err := e.s.ListCached(ctx, "", ListOptions{Limit: 10, Continue: first.Continue})
	require.NoError(t, err)
	b, err := e.s.List(ctx, "", ListOptions{Limit: 10, Continue: first.Continue})
	require.NoError(t, err)
	assert.Equal(t, jsonItems(t, b.Items), jsonItems(t, a.Items))
	assert.Equal(t, b.Continue, a.Continue)
	_, err = e.s.ListCached(ctx, "", ListOptions{Continue: "not-a-token"})
	assert.True(t, api.IsBadRequest(err), "%v", err)
}

// The cache holds the very objects the watch stream hands to watchers
// (and, through api/handoff, to in-process informers), not copies: a list
// after a change returns the pointer the watcher received. Objects a list
// decoded are kept too, and served again without decoding.
func TestListCachedSharesTheWatchersObjects(t *testing.T) {
	e := newCachedEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := e.s.Watch(ctx, "b", ListOptions{ResourceVersion: strconv.FormatInt(e.last, 10)})
	require.NoError(t, err)
	obj, _, err := e.s.Update(ctx, "b", "c03", func(cur api.Object) (api.Object, error) {
		cm := cur.(*api.ConfigMap)
		cm.Data = map[string]string{"k": "again"}
		return cm, nil
	}, UpdateOptions{})
	require.NoError(t, err)
	ev := <-ch
	require.Equal(t, api.WatchEventModified, ev.Type)
	require.Equal(t, obj.GetObjectMeta().ResourceVersion, ev.Object.GetObjectMeta().ResourceVersion)
	list, err := e.s.ListCached(ctx, "b", ListOptions{Fields: fields.OneTermEqualSelector("metadata.name", "c03")})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Same(t, ev.Object, list.Items[0], "the list serves the watcher's object itself")

	one, err := e.s.ListCached(ctx, "a", ListOptions{})
	require.NoError(t, err)
	two, err := e.s.ListCached(ctx, "a", ListOptions{})
	require.NoError(t, err)
	require.Equal(t, len(one.Items), len(two.Items))
	for i := range one.Items {
		assert.Same(t, one.Items[i], two.Items[i], "decoded once, then served from the cache")
	}
	plain, err := e.s.List(ctx, "a", ListOptions{})
	require.NoError(t, err)
	assert.NotSame(t, plain.Items[0], one.Items[0], "List still decodes its own objects, which its callers may change")
}

// A list read before the cache applied a change must not put its older
// object back; an event older than what the cache holds changes nothing.
func TestObjectCacheKeepsTheNewest(t *testing.T) {
	var c objectCache
	c.reset(true, 10)
	newer, older := &api.ConfigMap{}, &api.ConfigMap{}
	c.apply("k", store.Modified, newer, 12)
	c.add([]decoded{{key: "k", obj: older, rev: 11}}, 11)
	assert.Same(t, newer, c.get("k", 12), "a list read before the last applied event adds nothing")
	c.add([]decoded{{key: "k", obj: older, rev: 11}}, 12)
	assert.Same(t, newer, c.get("k", 12), "an older object never replaces a newer one")
	assert.Nil(t, c.get("k", 11))
	c.apply("k", store.Modified, older, 11)
	assert.Same(t, newer, c.get("k", 12), "an older event never replaces a newer object")
	c.apply("k", store.Deleted, newer, 13)
	assert.Nil(t, c.get("k", 12), "deleted")
	c.add([]decoded{{key: "j", obj: older, rev: 13}}, 13)
	assert.Same(t, older, c.get("j", 13))
	c.reset(false, 0)
	c.add([]decoded{{key: "j", obj: older, rev: 13}}, 13)
	assert.Nil(t, c.get("j", 13), "a stopped cache keeps nothing")
}

// A watched resource's cache keeps the objects its stream hands the
// watchers from the stream's start (no copy: the watchers hold the same),
// so that the first cached list takes them instead of decoding; objects
// only a list decoded are added then.
func TestObjectCacheKeepsTheStreamsObjects(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true, New: func() api.Object { return &api.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := func() int {
		s.cacher.objects.mu.RLock()
		defer s.cacher.objects.mu.RUnlock()
		return len(s.cacher.objects.objs)
	}
	before, err := s.Create(ctx, "ns", &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "before"}}, CreateOptions{})
	require.NoError(t, err)
	ch, err := s.Watch(ctx, "ns", ListOptions{ResourceVersion: before.GetObjectMeta().ResourceVersion})
	require.NoError(t, err)
	_, err = s.Create(ctx, "ns", &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "watched"}}, CreateOptions{})
	require.NoError(t, err)
	ev := <-ch
	assert.Equal(t, 1, held(), "the object the watcher was handed")
	list, err := s.ListCached(ctx, "ns", ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 2)
	assert.Same(t, ev.Object, list.Items[1], "the watcher's object, not a copy")
	assert.Equal(t, 2, held(), "and what the list decoded")
	cancel()
	for range ch {
	}
	assert.Equal(t, 2, held(), "the stream runs on without watchers once lists use it")
}

// An update starts from the watch cache's object when the cache holds the
// key at the stored revision (a planted entry shows it was used), from the
// stored bytes otherwise (an entry at another revision is not used), and
// never changes the cache's object, which watchers share.
func TestUpdateStartsFromACopyOfTheCachedObject(t *testing.T) {
	e := newCachedEnv(t)
	ctx := context.Background()
	kv, err := e.st.Get(ctx, "/registry/core/configmaps/a/c03")
	require.NoError(t, err)
	planted := &api.ConfigMap{TypeMeta: api.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: "c03", Namespace: "a", ResourceVersion: strconv.FormatInt(kv.ModRevision, 10),
			UID: "planted", Labels: map[string]string{"from": "cache"}},
		Data: map[string]string{"k": "0"}}
	snapshot := planted.DeepCopy()
	e.s.cacher.objects.mu.Lock()
	e.s.cacher.objects.objs["/registry/core/configmaps/a/c03"] = cachedObject{obj: planted, rev: kv.ModRevision}
	e.s.cacher.objects.objs["/registry/core/configmaps/a/c04"] = cachedObject{obj: planted, rev: 1}
	e.s.cacher.objects.mu.Unlock()

	change := func(cur api.Object) (api.Object, error) {
		cm := cur.(*api.ConfigMap)
		cm.Labels["changed"] = "yes"
		cm.Data["k"] = "changed"
		return cm, nil
	}
	out, _, err := e.s.Update(ctx, "a", "c03", change, UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"from": "cache", "changed": "yes"}, out.GetObjectMeta().Labels, "started from the cached object")
	assert.Equal(t, snapshot, planted, "the cache's object is unchanged")

	out, _, err = e.s.Update(ctx, "a", "c04", change, UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "web", out.GetObjectMeta().Labels["app"], "an entry at another revision is not used")
	assert.NotContains(t, out.GetObjectMeta().Labels, "from")
	assert.Equal(t, snapshot, planted)
}

// A write asked for its decoded object (an in-process client's answer)
// leaves the object it decoded for its own event, which takes it instead
// of decoding the bytes again, and hands the caller a copy of its own.
func TestDecodedWriteIsTakenByItsEvent(t *testing.T) {
	e := newCachedEnv(t)
	ctx := context.Background()
	var decoded api.Object
	out, err := e.s.Create(ctx, "a", &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "new"}, Data: map[string]string{"k": "v"}},
		CreateOptions{Decoded: &decoded})
	require.NoError(t, err)
	assert.Equal(t, out.GetObjectMeta().ResourceVersion, decoded.GetObjectMeta().ResourceVersion)
	rev, _ := strconv.ParseInt(out.GetObjectMeta().ResourceVersion, 10, 64)
	e.last = rev
	e.waitApplied(t)
	cached := e.s.cacher.objects.get("/registry/core/configmaps/a/new", rev)
	require.NotNil(t, cached)
	assert.Equal(t, cached, decoded, "the event's object is the answer's")
	assert.NotSame(t, cached, decoded, "the caller's object is its own")
	assert.Empty(t, e.s.written.m, "the event took the write's object")

	var updated api.Object
	out, _, err = e.s.Update(ctx, "a", "new", func(cur api.Object) (api.Object, error) {
		cur.(*api.ConfigMap).Data["k"] = "w"
		return cur, nil
	}, UpdateOptions{Decoded: &updated})
	require.NoError(t, err)
	rev, _ = strconv.ParseInt(out.GetObjectMeta().ResourceVersion, 10, 64)
	e.last = rev
	e.waitApplied(t)
	cached = e.s.cacher.objects.get("/registry/core/configmaps/a/new", rev)
	require.NotNil(t, cached)
	assert.Equal(t, "w", cached.(*api.ConfigMap).Data["k"])
	assert.Equal(t, cached, updated)
	assert.NotSame(t, cached, updated)
	assert.Empty(t, e.s.written.m)
	assert.Empty(t, e.s.prevs.m, "the update's event took the object before the change")
	decoded.(*api.ConfigMap).Data["k"] = "changed by the caller"
	updated.(*api.ConfigMap).Data["k"] = "changed by the caller"
	assert.Equal(t, "w", cached.(*api.ConfigMap).Data["k"])
}

// An entry is taken by an event of its key whose bytes are the ones it was
// decoded from, and by no other.
func TestDecodedWritesMatchByBytes(t *testing.T) {
	var w decodedWrites
	obj := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c"}}
	w.put("k", []byte(`{"a":1}`), obj)
	assert.Nil(t, w.take("other", []byte(`{"a":1}`)))
	assert.Nil(t, w.take("k", []byte(`{"a":2}`)))
	assert.Same(t, obj, w.take("k", []byte(`{"a":1}`)))
	assert.Nil(t, w.take("k", []byte(`{"a":1}`)), "taken once")
	for i := range maxDecodedWrites + 1 {
		w.put(strconv.Itoa(i), nil, obj)
	}
	assert.LessOrEqual(t, len(w.m), maxDecodedWrites, "bounded")
}

// An update that started from the watch cache's object leaves it for its
// MODIFIED event as the object before the change (a planted entry shows it
// was used: by its labels, a watcher selecting them sees the object stop
// matching); an update that decoded the current object leaves nothing.
func TestModifiedEventTakesThePreviousObjectFromTheUpdate(t *testing.T) {
	e := newCachedEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sel, err := labels.Parse("from=cache")
	require.NoError(t, err)
	ch, err := e.s.Watch(ctx, "a", ListOptions{Labels: sel, ResourceVersion: strconv.FormatInt(e.last, 10)})
	require.NoError(t, err)

	kv, err := e.st.Get(ctx, "/registry/core/configmaps/a/c03")
	require.NoError(t, err)
	planted := &api.ConfigMap{TypeMeta: api.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: "c03", Namespace: "a", ResourceVersion: strconv.FormatInt(kv.ModRevision, 10),
			Labels: map[string]string{"from": "cache"}},
		Data: map[string]string{"k": "0"}}
	e.s.cacher.objects.mu.Lock()
	e.s.cacher.objects.objs["/registry/core/configmaps/a/c03"] = cachedObject{obj: planted, rev: kv.ModRevision}
	e.s.cacher.objects.mu.Unlock()
	unlabel := func(cur api.Object) (api.Object, error) {
		cur.GetObjectMeta().Labels = map[string]string{"app": "other"}
		return cur, nil
	}
	_, _, err = e.s.Update(ctx, "a", "c03", unlabel, UpdateOptions{})
	require.NoError(t, err)
	// c05 starts from its stored bytes (no "from" label): no event.
	_, _, err = e.s.Update(ctx, "a", "c05", unlabel, UpdateOptions{})
	require.NoError(t, err)
	select {
	case ev := <-ch:
		assert.Equal(t, api.WatchEventDeleted, ev.Type, "the object before the change matched")
		assert.Equal(t, "c03", ev.Object.GetObjectMeta().Name)
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	// A marker written after both: nothing came for c05 before it.
	marker, err := e.s.Create(ctx, "a", &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "marker", Labels: map[string]string{"from": "cache"}}}, CreateOptions{})
	require.NoError(t, err)
	select {
	case ev := <-ch:
		assert.Equal(t, api.WatchEventAdded, ev.Type)
		assert.Equal(t, marker.GetObjectMeta().Name, ev.Object.GetObjectMeta().Name)
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	assert.Empty(t, e.s.prevs.m, "the entry was taken")
}
