package registry

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// What the watch cache reads of the object before a change, from the
// labels alone, is what decoding the whole object gives: for typed and
// unstructured objects, with labels, without, and empty.
func TestSelectableBeforeAsWholeDecode(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *Resource
		obj  string
	}{
		{"typed", leaseResource(), `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"n","namespace":"x","labels":{"a":"1","b":""}},"spec":{"holderIdentity":"n"}}`},
		{"typed without labels", leaseResource(), `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"n","namespace":"x"}}`},
		{"typed, empty labels", leaseResource(), `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"n","namespace":"x","labels":{}}}`},
		{"unstructured", widgetResource(), `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"n","namespace":"x","labels":{"a":"1"}},"spec":{"labels":{"not":"these"}}}`},
		{"unstructured, a label that is not a string", widgetResource(), `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"n","namespace":"x","labels":{"a":1}}}`},
		{"unstructured, labels null", widgetResource(), `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"n","namespace":"x","labels":null}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Store{res: tc.res}
			whole, err := s.decode([]byte(tc.obj), 0)
			if err != nil {
				_, _, berr := s.selectableBefore([]byte(tc.obj), nil)
				assert.Equal(t, err, berr, "the same error as the whole decode")
				return
			}
			after := s.FieldSet(whole)
			fs, ls, err := s.selectableBefore([]byte(tc.obj), after)
			require.NoError(t, err)
			assert.Equal(t, s.FieldSet(whole), fs)
			assert.Equal(t, labels.Set(whole.GetObjectMeta().Labels), ls)
		})
	}
	_, _, err := (&Store{res: leaseResource()}).selectableBefore([]byte(`{"metadata":`), nil)
	require.Error(t, err, "a value that does not decode")
}

func leaseResource() *Resource {
	return &Resource{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Kind: "Lease", ListKind: "LeaseList", Namespaced: true,
		New: func() api.Object { return &api.Lease{} }}
}

func widgetResource() *Resource {
	return &Resource{Group: "example.com", Version: "v1", Name: "widgets", Kind: "Widget", ListKind: "WidgetList", Namespaced: true,
		New: func() api.Object { return &unstructured.Unstructured{} }}
}

// A watcher with a label selector sees an object leave its selection as
// DELETED and come back as ADDED, on a resource whose old objects are
// read for their labels only.
func TestWatchSelectionFollowsTheLabelsBefore(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	s, err := NewStore(Config{Resource: leaseResource(), Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sel, err := labels.Parse("team=a")
	require.NoError(t, err)
	events, err := s.Watch(ctx, "x", ListOptions{Labels: sel})
	require.NoError(t, err)
	setLabels := func(l map[string]string) {
		_, _, err := s.Update(ctx, "x", "n", func(cur api.Object) (api.Object, error) {
			cur.GetObjectMeta().Labels = l
			return cur, nil
		}, UpdateOptions{})
		require.NoError(t, err)
	}
	_, err = s.Create(ctx, "x", &api.Lease{ObjectMeta: api.ObjectMeta{Name: "n", Labels: map[string]string{"team": "a"}}}, CreateOptions{})
	require.NoError(t, err)
	setLabels(map[string]string{"team": "a", "more": "x"})
	setLabels(map[string]string{"team": "b"})
	setLabels(map[string]string{"team": "c"}) // not seen: outside before and after
	setLabels(map[string]string{"team": "a"})
	var got []api.WatchEventType
	for len(got) < 4 {
		select {
		case ev := <-events:
			got = append(got, ev.Type)
		case <-time.After(30 * time.Second):
			t.Fatalf("events so far: %v", got)
		}
	}
	assert.Equal(t, []api.WatchEventType{api.WatchEventAdded, api.WatchEventModified, api.WatchEventDeleted, api.WatchEventAdded}, got)
}
