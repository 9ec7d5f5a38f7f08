package registry

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

func leaseResource() *Resource {
	return &Resource{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Kind: "Lease", ListKind: "LeaseList", Namespaced: true,
		New: func() api.Object { return &coordinationv1.Lease{} }}
}

// A watcher with a label selector sees an object leave its selection as
// DELETED and come back as ADDED, on a resource without selectable
// fields of its own (a Lease: the watch cache needs only the old object's
// labels, however it comes by them).
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
			api.Meta(cur).Labels = l
			return cur, nil
		}, UpdateOptions{})
		require.NoError(t, err)
	}
	_, err = s.Create(ctx, "x", &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"team": "a"}}}, CreateOptions{})
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
