package redis_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/operators"
	"github.com/kubesim/kubesim/operators/redis"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

func newCluster(t *testing.T) (*cluster.Cluster, *client.Client) {
	c, err := cluster.New(cluster.Config{Mode: runmode.Step, Seed: 5, NodeCount: 3, Extra: []cluster.ExtraController{{
		Name: redis.Name,
		New: func(x cluster.ControllerContext) (cluster.Component, error) {
			return redis.New(redis.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		},
	}}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	cl := c.Client("test")
	require.NoError(t, operators.InstallCRDs(bg, cl, redis.CRDs))
	settle(t, c)
	return c, cl
}

func settle(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	_, err := c.RunUntilStable(bg, stepper.Limits{MaxSteps: 20000})
	require.NoError(t, err)
}

func newRedis(name string, masters, replicas int32) *redis.RedisCluster {
	return &redis.RedisCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: redis.RedisClusterSpec{Masters: masters, ReplicasPerMaster: replicas}}
}

func get(t *testing.T, cl *client.Client, name string) *redis.RedisCluster {
	t.Helper()
	rc, err := redis.RedisClusters(cl).Get(bg, "default", name)
	require.NoError(t, err)
	return rc
}

// slotOwners reads the slot map from status and checks that every slot is
// held exactly once, by one of masters.
func slotOwners(t *testing.T, rc *redis.RedisCluster, masters []string) []string {
	t.Helper()
	owner := make([]string, redis.NumSlots)
	for _, ms := range rc.Status.Slots {
		require.Contains(t, masters, ms.Master)
		rs, err := redis.ParseRanges(ms.Ranges)
		require.NoError(t, err)
		n := 0
		for _, r := range rs {
			for s := r.Start; s <= r.End; s++ {
				require.Empty(t, owner[s], "slot %d held twice", s)
				owner[s] = ms.Master
			}
			n += r.Len()
		}
		assert.Equal(t, n, ms.Count)
	}
	for s, o := range owner {
		require.NotEmpty(t, o, "slot %d lost", s)
	}
	return owner
}

func runningPods(t *testing.T, cl *client.Client, instance string) map[string]*corev1.Pod {
	t.Helper()
	l, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: redis.LabelInstance + "=" + instance})
	require.NoError(t, err)
	out := map[string]*corev1.Pod{}
	for _, p := range l.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			out[p.Name] = p
		}
	}
	return out
}

func condition(rc *redis.RedisCluster, typ string) metav1.ConditionStatus {
	for _, c := range rc.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

func TestRedisClusterLifecycle(t *testing.T) {
	c, cl := newCluster(t)
	_, err := redis.RedisClusters(cl).Create(bg, newRedis("cache", 3, 1))
	require.NoError(t, err)
	settle(t, c)

	t.Run("three masters: a headless Service, a StatefulSet, Running pods, every slot once", func(t *testing.T) {
		svc, err := cl.Services().Get(bg, "default", "cache")
		require.NoError(t, err)
		assert.Equal(t, "None", svc.Spec.ClusterIP)
		sts, err := cl.StatefulSets().Get(bg, "default", "cache")
		require.NoError(t, err)
		assert.Equal(t, int32(6), *sts.Spec.Replicas)
		assert.Equal(t, "cache", sts.Spec.ServiceName)
		assert.Equal(t, "redis:7.2", sts.Spec.Template.Spec.Containers[0].Image)
		assert.Len(t, runningPods(t, cl, "cache"), 6)

		rc := get(t, cl, "cache")
		assert.Equal(t, redis.PhaseRunning, rc.Status.Phase)
		assert.Equal(t, metav1.ConditionTrue, condition(rc, redis.ConditionReady))
		assert.Equal(t, metav1.ConditionTrue, condition(rc, redis.ConditionBalanced))
		assert.Equal(t, rc.Generation, rc.Status.ObservedGeneration)
		slotOwners(t, rc, []string{"cache-0", "cache-2", "cache-4"})
		assert.Equal(t, []redis.MasterSlots{{Master: "cache-0", Ranges: "0-5461", Count: 5462},
			{Master: "cache-2", Ranges: "5462-10922", Count: 5461}, {Master: "cache-4", Ranges: "10923-16383", Count: 5461}}, rc.Status.Slots)
		require.Len(t, rc.Status.Members, 6)
		assert.Equal(t, redis.Member{Name: "cache-1", Role: redis.RoleReplica, Master: "cache-0", Ready: true}, rc.Status.Members[1])
		assert.Equal(t, redis.Member{Name: "cache-2", Role: redis.RoleMaster, Ready: true}, rc.Status.Members[2])
	})

	t.Run("five masters: rebalanced, nothing lost or doubled, only the surplus moved", func(t *testing.T) {
		before := slotOwners(t, get(t, cl, "cache"), []string{"cache-0", "cache-2", "cache-4"})
		_, err := redis.RedisClusters(cl).Patch(bg, "default", "cache", client.MergePatch, []byte(`{"spec":{"masters":5}}`))
		require.NoError(t, err)
		settle(t, c)
		rc := get(t, cl, "cache")
		assert.Equal(t, redis.PhaseRunning, rc.Status.Phase)
		after := slotOwners(t, rc, []string{"cache-0", "cache-2", "cache-4", "cache-6", "cache-8"})
		moved := 0
		for s := range before {
			if before[s] != after[s] {
				moved++
			}
		}
		assert.Equal(t, redis.NumSlots-3*3277, moved)
		for _, ms := range rc.Status.Slots {
			assert.Contains(t, []int{3276, 3277}, ms.Count)
		}
		assert.Len(t, runningPods(t, cl, "cache"), 10)
	})

	t.Run("a deleted member pod comes back with its name", func(t *testing.T) {
		old := runningPods(t, cl, "cache")["cache-2"]
		require.NoError(t, cl.Pods().Delete(bg, "default", "cache-2", nil))
		settle(t, c)
		p := runningPods(t, cl, "cache")["cache-2"]
		require.NotNil(t, p)
		assert.NotEqual(t, old.UID, p.UID)
		rc := get(t, cl, "cache")
		assert.Equal(t, redis.PhaseRunning, rc.Status.Phase)
		slotOwners(t, rc, []string{"cache-0", "cache-2", "cache-4", "cache-6", "cache-8"})
	})

	t.Run("a backup is recorded in status", func(t *testing.T) {
		_, err := redis.RedisBackups(cl).Create(bg, &redis.RedisBackup{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "default"},
			Spec: redis.RedisBackupSpec{ClusterName: "cache"}})
		require.NoError(t, err)
		settle(t, c)
		b, err := redis.RedisBackups(cl).Get(bg, "default", "nightly")
		require.NoError(t, err)
		assert.Equal(t, redis.BackupCompleted, b.Status.Phase)
		require.NotNil(t, b.Status.Snapshot)
		rc := get(t, cl, "cache")
		assert.Equal(t, int32(5), b.Status.Snapshot.Masters)
		assert.Regexp(t, `^cache-\d{8}-\d{6}$`, b.Status.Snapshot.ID)
		for i, ms := range rc.Status.Slots {
			assert.Equal(t, ms.Ranges, b.Status.Snapshot.Slots[i])
		}
		assert.Equal(t, redis.Checksum(b.Status.Snapshot.Slots), b.Status.Snapshot.Checksum)
		assert.Equal(t, "nightly", rc.Status.LastBackup)
	})

	t.Run("a new cluster restores from the backup", func(t *testing.T) {
		restored := newRedis("copy", 5, 0)
		restored.Spec.RestoreFrom = "nightly"
		_, err := redis.RedisClusters(cl).Create(bg, restored)
		require.NoError(t, err)
		settle(t, c)
		rc := get(t, cl, "copy")
		assert.Equal(t, redis.PhaseRunning, rc.Status.Phase)
		assert.Equal(t, "nightly", rc.Status.RestoredFrom)
		assert.Equal(t, metav1.ConditionTrue, condition(rc, redis.ConditionRestored))
		b, err := redis.RedisBackups(cl).Get(bg, "default", "nightly")
		require.NoError(t, err)
		var ranges []string
		for _, ms := range rc.Status.Slots {
			ranges = append(ranges, ms.Ranges)
		}
		assert.Equal(t, b.Status.Snapshot.Slots, ranges, "the same slot map, master by master")
		assert.Equal(t, b.Status.Snapshot.Checksum, redis.Checksum(ranges))
	})

	t.Run("back to three masters: slots leave before the pods", func(t *testing.T) {
		_, err := redis.RedisClusters(cl).Patch(bg, "default", "cache", client.MergePatch, []byte(`{"spec":{"masters":3}}`))
		require.NoError(t, err)
		// While cache-6 or cache-8 still hold slots, their pods stay.
		for range 20000 {
			_, did, err := c.Step(bg)
			require.NoError(t, err)
			rc := get(t, cl, "cache")
			holders := map[string]bool{}
			for _, ms := range rc.Status.Slots {
				holders[ms.Master] = true
			}
			pods := runningPods(t, cl, "cache")
			for _, m := range []string{"cache-6", "cache-8"} {
				if holders[m] {
					assert.Contains(t, pods, m, "%s holds slots, so it must still run", m)
				}
			}
			if !did {
				break
			}
		}
		settle(t, c)
		rc := get(t, cl, "cache")
		slotOwners(t, rc, []string{"cache-0", "cache-2", "cache-4"})
		assert.Equal(t, redis.PhaseRunning, rc.Status.Phase)
		assert.Len(t, runningPods(t, cl, "cache"), 6)
	})

	t.Run("deleting the RedisCluster removes what it owns", func(t *testing.T) {
		require.NoError(t, redis.RedisClusters(cl).Delete(bg, "default", "cache", nil))
		settle(t, c)
		_, err := cl.StatefulSets().Get(bg, "default", "cache")
		assert.True(t, api.IsNotFound(err), "%v", err)
		_, err = cl.Services().Get(bg, "default", "cache")
		assert.True(t, api.IsNotFound(err), "%v", err)
		l, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: redis.LabelInstance + "=cache"})
		require.NoError(t, err)
		assert.Empty(t, l.Items)
		_, err = redis.RedisBackups(cl).Get(bg, "default", "nightly")
		assert.NoError(t, err, "a backup outlives its cluster")
	})
}

func TestBackupWaitsForARunningCluster(t *testing.T) {
	c, cl := newCluster(t)
	_, err := redis.RedisBackups(cl).Create(bg, &redis.RedisBackup{ObjectMeta: metav1.ObjectMeta{Name: "early", Namespace: "default"},
		Spec: redis.RedisBackupSpec{ClusterName: "later"}})
	require.NoError(t, err)
	settle(t, c)
	b, err := redis.RedisBackups(cl).Get(bg, "default", "early")
	require.NoError(t, err)
	assert.Equal(t, redis.BackupPending, b.Status.Phase)
	assert.Equal(t, `RedisCluster "later" not found`, b.Status.Message)

	restored := newRedis("restored", 2, 0)
	restored.Spec.RestoreFrom = "early"
	_, err = redis.RedisClusters(cl).Create(bg, restored)
	require.NoError(t, err)
	settle(t, c)
	rc := get(t, cl, "restored")
	assert.Equal(t, redis.PhaseRestoring, rc.Status.Phase, "a restore waits for its backup")
	assert.Equal(t, metav1.ConditionFalse, condition(rc, redis.ConditionRestored))
	assert.Empty(t, rc.Status.Slots)

	_, err = redis.RedisClusters(cl).Create(bg, newRedis("later", 2, 0))
	require.NoError(t, err)
	settle(t, c)
	b, err = redis.RedisBackups(cl).Get(bg, "default", "early")
	require.NoError(t, err)
	assert.Equal(t, redis.BackupCompleted, b.Status.Phase)
	rc = get(t, cl, "restored")
	assert.Equal(t, redis.PhaseRunning, rc.Status.Phase)
	assert.Equal(t, "early", rc.Status.RestoredFrom)
	slotOwners(t, rc, []string{"restored-0", "restored-1"})
}

func TestRedisTraceIsDeterministic(t *testing.T) {
	run := func() string {
		c, cl := newCluster(t)
		_, err := redis.RedisClusters(cl).Create(bg, newRedis("cache", 2, 1))
		require.NoError(t, err)
		settle(t, c)
		var s string
		for _, e := range c.Trace() {
			s += e.String() + "\n"
		}
		return s
	}
	a := run()
	assert.Contains(t, a, redis.Name)
	assert.Equal(t, a, run())
}
