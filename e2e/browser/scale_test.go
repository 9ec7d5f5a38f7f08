package browser

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/cmd/kubesim/app"
)

// fillCluster writes n pods owned by a ReplicaSet "bulk" (bulk-0000...)
// and events events about them, into a cluster with no control loop.
func fillCluster(t testing.TB, srv *app.Server, n, events int) {
	t.Helper()
	ctx := context.Background()
	cl := srv.Cluster().Client("bench")
	one := int32(n)
	rs, err := cl.ReplicaSets().Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "bulk", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "bulk"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "bulk"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}})
	require.NoError(t, err)
	yes := true
	for i := range n {
		_, err := cl.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bulk-%04d", i), Namespace: "default",
			Labels:          map[string]string{"app": "bulk"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "bulk", UID: rs.UID, Controller: &yes}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
		require.NoError(t, err)
	}
	for i := range events {
		_, err := cl.Events().Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bulk-%04d.e", i), Namespace: "default"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: fmt.Sprintf("bulk-%04d", i)},
			Reason:         "Bulk", Message: fmt.Sprintf("event number %d", i), Type: "Normal"})
		require.NoError(t, err)
	}
}

// focusedName is the focused element's pod name, or its tree row's path,
// or its event's message.
const focused = `(() => { const a = document.activeElement; if (!a) return '';
  if (a.dataset.name) return a.dataset.name;
  const li = a.closest('li'); if (!li) return '';
  return li.dataset.path || li.title || ''; })()`

// TestThousandPodsAreVirtualised: with 1,000 pods (and a ReplicaSet that
// owns them, and 300 events) the page puts in the DOM only the rows in
// view, and the keyboard still reaches every one: Home, End and the
// arrows move the focus over the whole list, Enter opens a pod.
func TestThousandPodsAreVirtualised(t *testing.T) {
	srv := serveLive(t, 0, true)
	fillCluster(t, srv, 1000, 300)
	ctx := newBrowser(t)
	do(t, ctx, chromedp.Navigate(srv.UILoginURL), waitJS(liveShown),
		waitJS(`document.getElementById('pod-count').textContent === '1000 pods' && S.events.size === 300 && wlRows.size === 1001`),
		waitJS(`document.querySelectorAll('.node.unscheduled .pod').length > 0 && document.querySelectorAll('#workloads li').length > 0 && document.querySelectorAll('#events li').length > 0`))
	inDOM := func() (pods, rows, events int) {
		return eval[int](t, ctx, `document.querySelectorAll('#nodes .pod').length`),
			eval[int](t, ctx, `document.querySelectorAll('#workloads li').length`),
			eval[int](t, ctx, `document.querySelectorAll('#events li').length`)
	}
	pods, rows, events := inDOM()
	t.Logf("in the DOM: %d of 1000 pods, %d of 1001 workload rows, %d of 300 events", pods, rows, events)
	require.Less(t, pods, 300, "only the chips in view are drawn")
	require.Less(t, rows, 200, "only the tree's rows in view are drawn")
	require.Less(t, events, 200, "only the events in view are drawn")
	screenshot(t, ctx, "thousand-pods")

	// The pods' chips: Home, End, the arrows, Enter.
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.node.unscheduled .pod').focus()`),
		waitJS(focused+` === 'default/bulk-0000'`),
		chromedp.KeyEvent(kb.End),
		waitJS(focused+` === 'default/bulk-0999'`),
		chromedp.KeyEvent(kb.Home),
		waitJS(focused+` === 'default/bulk-0000'`),
		chromedp.KeyEvent(kb.ArrowRight),
		waitJS(focused+` === 'default/bulk-0001'`),
		chromedp.KeyEvent(kb.ArrowDown),
		waitJS(focused+`.startsWith('default/bulk-') && `+focused+` > 'default/bulk-0001'`),
		chromedp.KeyEvent(kb.ArrowUp),
		waitJS(focused+` === 'default/bulk-0001'`),
		chromedp.KeyEvent(kb.Enter),
		waitJS(`!document.getElementById('drawer').hidden && document.getElementById('drawer-title').textContent === 'Pod default/bulk-0001'`),
		chromedp.KeyEvent(kb.Escape),
		waitJS(`document.getElementById('drawer').hidden`),
	)
	// End scrolled the last chip into view and drew it; the DOM stayed small.
	pods, _, _ = inDOM()
	require.Less(t, pods, 300)

	// The workloads tree: the ReplicaSet, then its 1,000 pods.
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#workloads li button.open').focus()`),
		waitJS(focused+` === 'ReplicaSet/default/bulk'`),
		chromedp.KeyEvent(kb.End),
		waitJS(focused+` === 'ReplicaSet/default/bulk>Pod/default/bulk-0999'`),
		chromedp.KeyEvent(kb.PageUp),
		waitJS(focused+`.startsWith('ReplicaSet/default/bulk>Pod/default/bulk-09')`),
	)
	// The events, the newest first: End reaches the oldest.
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#events li').focus()`),
		waitJS(focused+` === 'event number 299'`),
		chromedp.KeyEvent(kb.End),
		waitJS(focused+` === 'event number 0'`),
	)
	_, rows, events = inDOM()
	require.Less(t, rows, 200)
	require.Less(t, events, 200)
}
