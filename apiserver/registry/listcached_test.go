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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// cachedEnv is a configmaps store with objects in three namespaces, some
// changed and deleted after the object cache was filled, and one corrupt
// value. live: the cache is the watch cache's (a Table list started it);
// otherwise it is the reads' own (no stream runs).
type cachedEnv struct {
	s    *Store
	st   store.Interface
	last int64
	live bool
}

// list is the cached list of the env's mode.
func (e *cachedEnv) list(ctx context.Context, ns string, opts ListOptions) (*ListResult, error) {
	if e.live {
		return e.s.ListCached(ctx, ns, opts)
	}
	return e.s.ListShared(ctx, ns, opts)
}

func newCachedEnv(t *testing.T, live bool) *cachedEnv {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", ListKind: "ConfigMapList", Namespaced: true,
		New: func() api.Object { return &corev1.ConfigMap{} },
		Fields: func(obj api.Object) fields.Set {
			return fields.Set{"data.k": obj.(*corev1.ConfigMap).Data["k"]}
		}}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	e := &cachedEnv{s: s, st: st, live: live}
	ctx := context.Background()
	create := func(ns string, i int) {
		app := []string{"web", "db"}[i%2]
		obj, err := s.Create(ctx, ns, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%02d", i), Labels: map[string]string{"app": app}},
			Data: map[string]string{"k": strconv.Itoa(i % 3)}}, CreateOptions{})
		require.NoError(t, err)
		e.last, _ = strconv.ParseInt(api.Meta(obj).ResourceVersion, 10, 64)
	}
	for i := range 12 {
		for _, ns := range []string{"a", "b", "b-x"} {
			create(ns, i)
		}
	}
	// A value that does not decode: both lists leave it out with a warning.
	_, err = st.Create(ctx, "/registry/core/configmaps/b/c05x", []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":`), store.CreateOptions{})
	require.NoError(t, err)
	// The first cached list decodes everything (and, live, starts the
	// cache; then changes arrive through its stream).
	_, err = e.list(ctx, "", ListOptions{})
	require.NoError(t, err)
	for i := 12; i < 16; i++ {
		create("a", i)
	}
	for _, n := range []string{"c01", "c07"} {
		obj, _, err := s.Update(ctx, "b", n, func(cur api.Object) (api.Object, error) {
			cm := cur.(*corev1.ConfigMap)
			cm.Data = map[string]string{"k": "changed"}
			cm.Labels = map[string]string{"app": "web"}
			return cm, nil
		}, UpdateOptions{})
		require.NoError(t, err)
		e.last, _ = strconv.ParseInt(api.Meta(obj).ResourceVersion, 10, 64)
	}
	del, err := s.Delete(ctx, "a", "c02", nil, false)
	require.NoError(t, err)
	e.last, _ = strconv.ParseInt(api.Meta(del.Object).ResourceVersion, 10, 64)
	if live {
		e.waitApplied(t)
	} else {
		require.Equal(t, 36, e.cached(), "the reads' cache: every value that decoded, no stream")
	}
	return e
}

// cached is how many objects the cache holds.
func (e *cachedEnv) cached() int {
	e.s.cacher.objects.mu.RLock()
	defer e.s.cacher.objects.mu.RUnlock()
	return len(e.s.cacher.objects.objs)
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

// A list through the cache's decoded objects answers exactly what the
// store-decoding List answers: the same objects (as JSON, byte for byte),
// resourceVersion, continue tokens page after page, warnings and errors,
// for every namespace, selector and resourceVersion mode; whether the
// cache is the watch cache's (ListCached) or the reads' own, holding
// objects changed or deleted since (ListShared without a stream).
func TestListCachedAnswersAsList(t *testing.T) {
	for _, live := range []bool{true, false} {
		t.Run(map[bool]string{true: "watch cache", false: "reads' cache"}[live], func(t *testing.T) {
			testAnswersAsList(t, newCachedEnv(t, live))
		})
	}
}

func testAnswersAsList(t *testing.T, e *cachedEnv) {
	ctx := context.Background()
	web, err := labels.Parse("app=web")
	require.NoError(t, err)
	notDB, err := labels.Parse("app!=db")
	require.NoError(t, err)
	now := strconv.FormatInt(e.st.Revision(), 10)
	// An entry the cache holds at another revision than the store's (as
	// while an event is on its way) must not be served.
	e.s.cacher.objects.mu.Lock()
	e.s.cacher.objects.objs["/registry/core/configmaps/b/c01"] = cachedObject{obj: &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "c01", Namespace: "b", ResourceVersion: "1"}, Data: map[string]string{"k": "stale"}}, rev: 1}
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
					got, gotErr := e.list(ctx, ns, gotOpts)
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
	a, err := e.list(ctx, "", ListOptions{Limit: 10, Continue: first.Continue})
	require.NoError(t, err)
	b, err := e.s.List(ctx, "", ListOptions{Limit: 10, Continue: first.Continue})
	require.NoError(t, err)
	assert.Equal(t, jsonItems(t, b.Items), jsonItems(t, a.Items))
	assert.Equal(t, b.Continue, a.Continue)
	_, err = e.list(ctx, "", ListOptions{Continue: "not-a-token"})
	assert.True(t, api.IsBadRequest(err), "%v", err)
}

// The cache holds the very objects the watch stream hands to watchers
// (and, through api/handoff, to in-process informers), not copies: a list
// after a change returns the pointer the watcher received. Objects a list
// decoded are kept too, and served again without decoding.
func TestListCachedSharesTheWatchersObjects(t *testing.T) {
	e := newCachedEnv(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := e.s.Watch(ctx, "b", ListOptions{ResourceVersion: strconv.FormatInt(e.last, 10)})
	require.NoError(t, err)
	obj, _, err := e.s.Update(ctx, "b", "c03", func(cur api.Object) (api.Object, error) {
		cm := cur.(*corev1.ConfigMap)
		cm.Data = map[string]string{"k": "again"}
		return cm, nil
	}, UpdateOptions{})
	require.NoError(t, err)
	ev := <-ch
	require.Equal(t, api.WatchEventModified, ev.Type)
	require.Equal(t, api.Meta(obj).ResourceVersion, api.Meta(ev.Object).ResourceVersion)
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

// A read from before the cache applied a change must not put its older
// object back; an event older than what the cache holds changes nothing.
// Without a stream the cache is the reads' own: it keeps what they
// decoded, and drops what they found gone.
func TestObjectCacheKeepsTheNewest(t *testing.T) {
	var c objectCache
	c.reset(true, 10)
	newer, older := &corev1.ConfigMap{}, &corev1.ConfigMap{}
	c.apply("k", store.Modified, newer, 12)
	c.add(11, decoded{key: "k", obj: older, rev: 11})
	assert.Same(t, newer, c.get("k", 12), "a read from before the last applied event adds nothing")
	c.add(12, decoded{key: "k", obj: older, rev: 11})
	assert.Same(t, newer, c.get("k", 12), "an older object never replaces a newer one")
	assert.Nil(t, c.get("k", 11))
	c.apply("k", store.Modified, older, 11)
	assert.Same(t, newer, c.get("k", 12), "an older event never replaces a newer object")
	c.forget("k")
	c.forgetUnder("", map[string]bool{})
	assert.Same(t, newer, c.get("k", 12), "a live cache hears of deletions from its stream only")
	c.apply("k", store.Deleted, newer, 13)
	assert.Nil(t, c.get("k", 12), "deleted")
	c.add(13, decoded{key: "j", obj: older, rev: 13})
	assert.Same(t, older, c.get("j", 13))

	c.reset(false, 0)
	assert.Nil(t, c.get("j", 13), "a stopped stream's objects are let go")
	c.apply("j", store.Added, newer, 14)
	assert.Nil(t, c.get("j", 14), "no stream, no events")
	c.add(0, decoded{key: "j", obj: older, rev: 13}, decoded{key: "a/x", obj: newer, rev: 15}, decoded{key: "b/y", obj: newer, rev: 16})
	assert.Same(t, older, c.get("j", 13), "the reads' cache keeps what they decoded")
	c.add(0, decoded{key: "j", obj: newer, rev: 12})
	assert.Same(t, older, c.get("j", 13), "and never goes back to an older revision")
	c.forget("j")
	assert.Nil(t, c.get("j", 13), "a read found it gone")
	c.forgetUnder("a/", map[string]bool{})
	assert.Nil(t, c.get("a/x", 15), "a whole list under a/ did not find it")
	assert.Same(t, newer, c.get("b/y", 16), "not under a/")
}

// One cache serves GetShared, ListShared and ListCached: a namespace read
// for admission is the object a list returns; without a stream (the
// reads' cache) and with one (the watch cache, whose objects are the
// watchers'). It is never stale: a changed, deleted, re-created object is
// read as it is now, and an entry at another revision is not served.
func TestGetSharedReadsTheOneCache(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	res := &Resource{Version: "v1", Name: "namespaces", Kind: "Namespace", New: func() api.Object { return &corev1.Namespace{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	create := func(name, label string) {
		t.Helper()
		_, err := s.Create(ctx, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"v": label}}}, CreateOptions{})
		require.NoError(t, err)
	}
	get := func(name string) *corev1.Namespace {
		t.Helper()
		obj, err := s.GetShared(ctx, "", name)
		require.NoError(t, err)
		plain, err := s.Get(ctx, "", name)
		require.NoError(t, err)
		assert.Equal(t, plain, obj, "what Get decodes")
		return obj.(*corev1.Namespace)
	}
	held := func() int {
		s.cacher.objects.mu.RLock()
		defer s.cacher.objects.mu.RUnlock()
		return len(s.cacher.objects.objs)
	}
	create("team", "1")
	create("other", "1")

	one := get("team")
	assert.Same(t, one, get("team"), "decoded once")
	list, err := s.ListShared(ctx, "", ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 2)
	assert.Same(t, one, list.Items[1], "the list takes GetShared's object")
	assert.Same(t, list.Items[0], get("other"), "and GetShared the list's")

	_, _, err = s.Update(ctx, "", "team", func(cur api.Object) (api.Object, error) {
		api.Meta(cur).Labels = map[string]string{"v": "2"}
		return cur, nil
	}, UpdateOptions{})
	require.NoError(t, err)
	two := get("team")
	assert.Equal(t, "2", two.Labels["v"], "the change is seen at the next read")
	assert.Equal(t, "1", one.Labels["v"], "the object handed out before is not changed")

	_, err = s.Delete(ctx, "", "team", nil, false)
	require.NoError(t, err)
	_, err = s.GetShared(ctx, "", "team")
	assert.True(t, api.IsNotFound(err), "%v", err)
	assert.Equal(t, 1, held(), "a key found gone is dropped")
	create("team", "3")
	assert.Equal(t, "3", get("team").Labels["v"], "re-created")
	_, err = s.Delete(ctx, "", "other", nil, false)
	require.NoError(t, err)
	_, err = s.ListShared(ctx, "", ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, held(), "a key a whole list did not find is dropped")

	// The Table list starts the watch cache: from now on its stream keeps
	// the entries, and GetShared serves the watchers' objects.
	_, err = s.ListCached(ctx, "", ListOptions{})
	require.NoError(t, err)
	ch, err := s.Watch(ctx, "", ListOptions{ResourceVersion: strconv.FormatInt(st.Revision(), 10)})
	require.NoError(t, err)
	_, _, err = s.Update(ctx, "", "team", func(cur api.Object) (api.Object, error) {
		api.Meta(cur).Labels = map[string]string{"v": "4"}
		return cur, nil
	}, UpdateOptions{})
	require.NoError(t, err)
	ev := <-ch
	require.Equal(t, api.WatchEventModified, ev.Type)
	four := get("team")
	assert.Equal(t, "4", four.Labels["v"])
	assert.Same(t, ev.Object, four, "the watcher's object")

	// An entry at another revision than the store's is never served.
	key := s.key("", "team")
	s.cacher.objects.mu.Lock()
	s.cacher.objects.objs[key] = cachedObject{obj: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", Labels: map[string]string{"v": "stale"}}}, rev: 1}
	s.cacher.objects.mu.Unlock()
	assert.Equal(t, "4", get("team").Labels["v"])

	_, err = s.Delete(ctx, "", "team", nil, false)
	require.NoError(t, err)
	require.Equal(t, api.WatchEventDeleted, (<-ch).Type)
	_, err = s.GetShared(ctx, "", "team")
	assert.True(t, api.IsNotFound(err), "%v", err)
	create("team", "5")
	assert.Equal(t, "5", get("team").Labels["v"], "deleted and re-created while watched")
}

// A watched resource's cache keeps the objects its stream hands the
// watchers from the stream's start (no copy: the watchers hold the same),
// so that the first cached list takes them instead of decoding; objects
// only a list decoded are added then.
func TestObjectCacheKeepsTheStreamsObjects(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true, New: func() api.Object { return &corev1.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := func() int {
		s.cacher.objects.mu.RLock()
		defer s.cacher.objects.mu.RUnlock()
		return len(s.cacher.objects.objs)
	}
	before, err := s.Create(ctx, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, CreateOptions{})
	require.NoError(t, err)
	ch, err := s.Watch(ctx, "ns", ListOptions{ResourceVersion: api.Meta(before).ResourceVersion})
	require.NoError(t, err)
	_, err = s.Create(ctx, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}}, CreateOptions{})
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
	e := newCachedEnv(t, true)
	ctx := context.Background()
	kv, err := e.st.Get(ctx, "/registry/core/configmaps/a/c03")
	require.NoError(t, err)
	planted := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "c03", Namespace: "a", ResourceVersion: strconv.FormatInt(kv.ModRevision, 10),
			UID: "planted", Labels: map[string]string{"from": "cache"}},
		Data: map[string]string{"k": "0"}}
	snapshot := planted.DeepCopy()
	e.s.cacher.objects.mu.Lock()
	e.s.cacher.objects.objs["/registry/core/configmaps/a/c03"] = cachedObject{obj: planted, rev: kv.ModRevision}
	e.s.cacher.objects.objs["/registry/core/configmaps/a/c04"] = cachedObject{obj: planted, rev: 1}
	e.s.cacher.objects.mu.Unlock()

	change := func(cur api.Object) (api.Object, error) {
		cm := cur.(*corev1.ConfigMap)
		cm.Labels["changed"] = "yes"
		cm.Data["k"] = "changed"
		return cm, nil
	}
	out, _, err := e.s.Update(ctx, "a", "c03", change, UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"from": "cache", "changed": "yes"}, api.Meta(out).Labels, "started from the cached object")
	assert.Equal(t, snapshot, planted, "the cache's object is unchanged")

	out, _, err = e.s.Update(ctx, "a", "c04", change, UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "web", api.Meta(out).Labels["app"], "an entry at another revision is not used")
	assert.NotContains(t, api.Meta(out).Labels, "from")
	assert.Equal(t, snapshot, planted)
}

// A write asked for its decoded object (an in-process client's answer)
// leaves the object it decoded for its own event, which takes it instead
// of decoding the bytes again, and hands the caller a copy of its own.
func TestDecodedWriteIsTakenByItsEvent(t *testing.T) {
	e := newCachedEnv(t, true)
	ctx := context.Background()
	var decoded api.Object
	out, err := e.s.Create(ctx, "a", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}, Data: map[string]string{"k": "v"}},
		CreateOptions{Decoded: &decoded})
	require.NoError(t, err)
	assert.Equal(t, api.Meta(out).ResourceVersion, api.Meta(decoded).ResourceVersion)
	rev, _ := strconv.ParseInt(api.Meta(out).ResourceVersion, 10, 64)
	e.last = rev
	e.waitApplied(t)
	cached := e.s.cacher.objects.get("/registry/core/configmaps/a/new", rev)
	require.NotNil(t, cached)
	assert.Equal(t, cached, decoded, "the event's object is the answer's")
	assert.NotSame(t, cached, decoded, "the caller's object is its own")
	assert.Empty(t, e.s.written.m, "the event took the write's object")

	var updated api.Object
	out, _, err = e.s.Update(ctx, "a", "new", func(cur api.Object) (api.Object, error) {
		cur.(*corev1.ConfigMap).Data["k"] = "w"
		return cur, nil
	}, UpdateOptions{Decoded: &updated})
	require.NoError(t, err)
	rev, _ = strconv.ParseInt(api.Meta(out).ResourceVersion, 10, 64)
	e.last = rev
	e.waitApplied(t)
	cached = e.s.cacher.objects.get("/registry/core/configmaps/a/new", rev)
	require.NotNil(t, cached)
	assert.Equal(t, "w", cached.(*corev1.ConfigMap).Data["k"])
	assert.Equal(t, cached, updated)
	assert.NotSame(t, cached, updated)
	assert.Empty(t, e.s.written.m)
	assert.Empty(t, e.s.prevs.m, "the update's event took the object before the change")
	decoded.(*corev1.ConfigMap).Data["k"] = "changed by the caller"
	updated.(*corev1.ConfigMap).Data["k"] = "changed by the caller"
	assert.Equal(t, "w", cached.(*corev1.ConfigMap).Data["k"])
}

// An entry is taken by an event of its key whose bytes are the ones it was
// decoded from, and by no other.
func TestDecodedWritesMatchByBytes(t *testing.T) {
	var w decodedWrites
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
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
	e := newCachedEnv(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sel, err := labels.Parse("from=cache")
	require.NoError(t, err)
	ch, err := e.s.Watch(ctx, "a", ListOptions{Labels: sel, ResourceVersion: strconv.FormatInt(e.last, 10)})
	require.NoError(t, err)

	kv, err := e.st.Get(ctx, "/registry/core/configmaps/a/c03")
	require.NoError(t, err)
	planted := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "c03", Namespace: "a", ResourceVersion: strconv.FormatInt(kv.ModRevision, 10),
			Labels: map[string]string{"from": "cache"}},
		Data: map[string]string{"k": "0"}}
	e.s.cacher.objects.mu.Lock()
	e.s.cacher.objects.objs["/registry/core/configmaps/a/c03"] = cachedObject{obj: planted, rev: kv.ModRevision}
	e.s.cacher.objects.mu.Unlock()
	unlabel := func(cur api.Object) (api.Object, error) {
		api.Meta(cur).Labels = map[string]string{"app": "other"}
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
		assert.Equal(t, "c03", api.Meta(ev.Object).Name)
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	// A marker written after both: nothing came for c05 before it.
	marker, err := e.s.Create(ctx, "a", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "marker", Labels: map[string]string{"from": "cache"}}}, CreateOptions{})
	require.NoError(t, err)
	select {
	case ev := <-ch:
		assert.Equal(t, api.WatchEventAdded, ev.Type)
		assert.Equal(t, api.Meta(marker).Name, api.Meta(ev.Object).Name)
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	assert.Empty(t, e.s.prevs.m, "the entry was taken")
}
