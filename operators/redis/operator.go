package redis

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// Name is the operator's name, as `kubesim run-controller` and the
// cluster's Extra know it.
const Name = "rediscluster"

// The labels of everything the operator makes.
const (
	LabelName     = "app.kubernetes.io/name"
	LabelInstance = "app.kubernetes.io/instance"
)

// The ports of a Redis Cluster node: clients, and the cluster bus.
const (
	ClientPort = 6379
	BusPort    = 16379
)

// DefaultVersion is the Redis version when spec.version is empty.
const DefaultVersion = "7.2"

// The condition types of a RedisCluster.
const (
	ConditionReady    = "Ready"
	ConditionBalanced = "Balanced"
	ConditionRestored = "Restored"
)

// Config builds an Operator.
type Config struct {
	// Client is the operator's API client (required).
	Client *client.Client
	// Clock is the injected clock (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Namespace limits the operator to one namespace ("" for all).
	Namespace string
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// Operator is the RedisCluster operator: a cluster controller and a
// backup controller.
type Operator struct {
	clusters *controllers.ObjectController[*RedisCluster]
	backups  *controllers.ObjectController[*RedisBackup]

	services     *controllers.Watched[*corev1.Service]
	statefulSets *controllers.Watched[*appsv1.StatefulSet]
	pods         *controllers.Watched[*corev1.Pod]
	backupsW     *controllers.Watched[*RedisBackup]
	clustersW    *controllers.Watched[*RedisCluster]
}

// New builds the operator and its informers (not yet synced).
func New(cfg Config) (*Operator, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("redis: Client and Clock are required")
	}
	cl := cfg.Client
	op := &Operator{
		services:     controllers.Owns(cl.Services(), "Service"),
		statefulSets: controllers.Owns(cl.StatefulSets(), "StatefulSet"),
	}
	// Pods belong to the StatefulSet; they wake their RedisCluster by label.
	op.pods = controllers.Watches(cl.Pods(), "Pod", func(p *corev1.Pod) []string {
		if p.Labels[LabelName] != "redis" || p.Labels[LabelInstance] == "" {
			return nil
		}
		return []string{p.Namespace + "/" + p.Labels[LabelInstance]}
	})
	// A backup wakes its cluster (lastBackup) and the clusters restoring
	// from it.
	op.backupsW = controllers.Watches(RedisBackups(cl), "RedisBackup", func(b *RedisBackup) []string {
		keys := []string{b.Namespace + "/" + b.Spec.ClusterName}
		for _, rc := range op.clusters.Informer().ByIndex(cache.NamespaceIndex, b.Namespace) {
			if rc.Spec.RestoreFrom == b.Name {
				keys = append(keys, b.Namespace+"/"+rc.Name)
			}
		}
		return keys
	})
	var err error
	op.clusters, err = controllers.NewObjectController(controllers.ObjectConfig[*RedisCluster]{
		Name: Name, Component: "rediscluster-operator", Client: cl, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: RedisClusters(cl), GVK: RedisClusterGVK,
		Owns:      []controllers.Watch{op.services, op.statefulSets, op.pods, op.backupsW},
		Reconcile: op.reconcileCluster, Namespace: cfg.Namespace, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	// A cluster's change wakes its pending backups.
	op.clustersW = controllers.Watches(RedisClusters(cl), "RedisCluster", func(rc *RedisCluster) []string {
		var keys []string
		for _, b := range op.backupsW.Informer().ByIndex(cache.NamespaceIndex, rc.Namespace) {
			if b.Spec.ClusterName == rc.Name && b.Status.Phase != BackupCompleted {
				keys = append(keys, b.Namespace+"/"+b.Name)
			}
		}
		return keys
	})
	op.backups, err = controllers.NewObjectController(controllers.ObjectConfig[*RedisBackup]{
		Name: Name + "-backup", Component: "rediscluster-operator", Client: cl, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: RedisBackups(cl), GVK: RedisBackupGVK, Owns: []controllers.Watch{op.clustersW},
		Reconcile: op.reconcileBackup, Namespace: cfg.Namespace, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	return op, nil
}

// Controllers returns the operator's two loops.
func (op *Operator) Controllers() []*controllers.Controller {
	return append(op.clusters.Controllers(), op.backups.Controllers()...)
}

// Run runs both loops until ctx ends (live mode).
func (op *Operator) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, c := range op.Controllers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Run(ctx)
		}()
	}
	wg.Wait()
}

// Layout is the shape of a cluster: pod k is a master when k is a
// multiple of 1+replicasPerMaster, else a replica of the master before it.
type Layout struct {
	Name              string
	Masters, Replicas int
}

// LayoutOf is the layout rc asks for.
func LayoutOf(rc *RedisCluster) Layout {
	return Layout{Name: rc.Name, Masters: int(rc.Spec.Masters), Replicas: int(rc.Spec.ReplicasPerMaster)}
}

// Pods is the number of pods.
func (l Layout) Pods() int { return l.Masters * (1 + l.Replicas) }

// MasterNames are the masters' pod names, in order.
func (l Layout) MasterNames() []string {
	out := make([]string, l.Masters)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", l.Name, i*(1+l.Replicas))
	}
	return out
}

// Member describes pod k.
func (l Layout) Member(k int) Member {
	name := fmt.Sprintf("%s-%d", l.Name, k)
	if k%(1+l.Replicas) == 0 {
		return Member{Name: name, Role: RoleMaster}
	}
	return Member{Name: name, Role: RoleReplica, Master: fmt.Sprintf("%s-%d", l.Name, k-k%(1+l.Replicas))}
}

func selectorLabels(rc *RedisCluster) map[string]string {
	return map[string]string{LabelName: "redis", LabelInstance: rc.Name}
}

// reconcileCluster is one sync of a RedisCluster.
func (op *Operator) reconcileCluster(ctx context.Context, rc *RedisCluster) (controllers.Result, error) {
	if rc.DeletionTimestamp != nil {
		return controllers.Result{}, nil // the garbage collector removes what it owns
	}
	if rc.Spec.Version == "" {
		rc.Spec.Version = DefaultVersion
	}
	layout := LayoutOf(rc)
	if layout.Masters < 1 || layout.Replicas < 0 {
		return controllers.Result{}, nil // the CRD schema rejects these
	}
	if err := op.ensureService(ctx, rc); err != nil {
		return controllers.Result{}, err
	}

	// Who holds which slots now (or, for a new cluster restoring, in the
	// backup), and are the masters up?
	current, restoring, restoredFrom, err := op.currentSlots(rc, layout)
	if err != nil {
		return controllers.Result{}, err
	}
	ready := map[string]bool{}
	for _, p := range op.pods.Informer().ByIndex(cache.LabelIndex, LabelInstance+"="+rc.Name) {
		// Running, Ready and not going away: what the StatefulSet
		// controller calls healthy.
		if p.Namespace == rc.Namespace && p.Status.Phase == corev1.PodRunning && api.IsPodReady(p) && p.DeletionTimestamp == nil {
			ready[p.Name] = true
		}
	}
	masters := layout.MasterNames()
	mastersReady := true
	for _, m := range masters {
		mastersReady = mastersReady && ready[m]
	}
	assignment := current
	var plan SlotPlan
	if mastersReady && !restoring {
		if plan, err = PlanSlots(current, masters); err != nil {
			return controllers.Result{}, err
		}
		assignment = plan.Assignment
		if plan.Moved+plan.Assigned > 0 {
			op.clusters.Eventf(ctx, rc, corev1.EventTypeNormal, "SlotsAssigned",
				"assigned %d slots and moved %d slots across %d masters", plan.Assigned, plan.Moved, len(masters))
		}
	}

	// The StatefulSet shrinks only once no slot is left on a leaving
	// master: slots move first, then the pods go.
	replicas := layout.Pods()
	if sts, ok := op.statefulSets.Get(rc.Namespace, rc.Name); ok && sts.Spec.Replicas != nil && int(*sts.Spec.Replicas) > replicas {
		for holder, rs := range assignment {
			if len(rs) > 0 && !contains(masters, holder) {
				replicas = int(*sts.Spec.Replicas)
				break
			}
		}
	}
	if err := op.ensureStatefulSet(ctx, rc, replicas); err != nil {
		return controllers.Result{}, err
	}

	// Status.
	var members []Member
	for k := range replicas {
		m := layout.Member(k)
		if k >= layout.Pods() {
			m.Role, m.Master = "leaving", ""
		}
		m.Ready = ready[m.Name]
		members = append(members, m)
	}
	slots := formatAssignment(assignment, masters)
	balanced := mastersReady && !restoring && onlyOn(assignment, masters)
	allReady := balanced && replicas == layout.Pods()
	for _, m := range members {
		allReady = allReady && m.Ready
	}
	phase := PhaseRunning
	switch {
	case restoring:
		phase = PhaseRestoring
	case len(current) == 0 && !mastersReady:
		phase = PhaseCreating
	case !allReady:
		phase = PhaseRebalancing
	}
	lastBackup := op.lastBackup(rc)
	now := metav1.NewTime(op.clusters.Clock().Now())
	_, err = op.clusters.UpdateStatus(ctx, rc, func(r *RedisCluster) {
		s := &r.Status
		s.ObservedGeneration = r.Generation
		s.Phase = phase
		s.Members = members
		s.Slots = slots
		s.LastBackup = lastBackup
		if restoredFrom != "" {
			s.RestoredFrom = restoredFrom
		}
		setCondition(&s.Conditions, now, r.Generation, ConditionReady, allReady, "AllMembersReady", "MembersNotReady",
			fmt.Sprintf("%d of %d members ready", countReady(members), len(members)))
		setCondition(&s.Conditions, now, r.Generation, ConditionBalanced, balanced, "SlotsBalanced", "Rebalancing",
			fmt.Sprintf("%d slots over %d masters", NumSlots, len(masters)))
		if r.Spec.RestoreFrom != "" {
			msg := fmt.Sprintf("waiting for RedisBackup %q to complete", r.Spec.RestoreFrom)
			if s.RestoredFrom != "" {
				msg = fmt.Sprintf("started from RedisBackup %q", s.RestoredFrom)
			}
			setCondition(&s.Conditions, now, r.Generation, ConditionRestored, s.RestoredFrom != "", "SnapshotLoaded", "BackupNotReady", msg)
		}
	})
	return controllers.Result{}, err
}

// currentSlots reads the slot map from status, or for a new cluster with
// restoreFrom, from the backup (restoring is true while it is not ready).
func (op *Operator) currentSlots(rc *RedisCluster, layout Layout) (current map[string][]SlotRange, restoring bool, restoredFrom string, err error) {
	current = map[string][]SlotRange{}
	for _, ms := range rc.Status.Slots {
		rs, err := ParseRanges(ms.Ranges)
		if err != nil {
			return nil, false, "", fmt.Errorf("status.slots of %s: %w", ms.Master, err)
		}
		current[ms.Master] = rs
	}
	if rc.Spec.RestoreFrom == "" || rc.Status.RestoredFrom != "" || len(rc.Status.Slots) > 0 {
		return current, false, "", nil
	}
	b, ok := op.backupsW.Get(rc.Namespace, rc.Spec.RestoreFrom)
	if !ok || b.Status.Phase != BackupCompleted || b.Status.Snapshot == nil {
		return current, true, "", nil
	}
	// Master i of the snapshot becomes master i here (a smaller cluster's
	// extra holders are rebalanced away by PlanSlots).
	for i, ranges := range b.Status.Snapshot.Slots {
		rs, err := ParseRanges(ranges)
		if err != nil {
			return nil, false, "", fmt.Errorf("snapshot %s: %w", b.Status.Snapshot.ID, err)
		}
		current[fmt.Sprintf("%s-%d", layout.Name, i*(1+layout.Replicas))] = rs
	}
	return current, false, b.Name, nil
}

func (op *Operator) ensureService(ctx context.Context, rc *RedisCluster) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: rc.Name, Namespace: rc.Namespace}}
	_, _, err := controllers.CreateOrUpdate(ctx, op.services.Resource(), rc, RedisClusterGVK, svc, func(s *corev1.Service) error {
		s.Labels = selectorLabels(rc)
		if s.Spec.ClusterIP == "" {
			s.Spec.ClusterIP = "None" // headless: one DNS name per pod
		}
		s.Spec.Selector = selectorLabels(rc)
		s.Spec.PublishNotReadyAddresses = true
		s.Spec.Ports = []corev1.ServicePort{
			{Name: "client", Port: ClientPort, Protocol: corev1.ProtocolTCP},
			{Name: "gossip", Port: BusPort, Protocol: corev1.ProtocolTCP},
		}
		return nil
	})
	return err
}

func (op *Operator) ensureStatefulSet(ctx context.Context, rc *RedisCluster, replicas int) error {
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: rc.Name, Namespace: rc.Namespace}}
	n := int32(replicas)
	_, _, err := controllers.CreateOrUpdate(ctx, op.statefulSets.Resource(), rc, RedisClusterGVK, sts, func(s *appsv1.StatefulSet) error {
		s.Labels = selectorLabels(rc)
		s.Spec.Replicas = &n
		s.Spec.ServiceName = rc.Name
		s.Spec.Selector = &metav1.LabelSelector{MatchLabels: selectorLabels(rc)}
		s.Spec.Template.Labels = selectorLabels(rc)
		s.Spec.Template.Spec.Containers = []corev1.Container{{
			Name:    "redis",
			Image:   "redis:" + rc.Spec.Version,
			Command: []string{"redis-server", "--cluster-enabled", "yes", "--cluster-config-file", "/data/nodes.conf"},
			Ports: []corev1.ContainerPort{
				{Name: "client", ContainerPort: ClientPort, Protocol: corev1.ProtocolTCP},
				{Name: "gossip", ContainerPort: BusPort, Protocol: corev1.ProtocolTCP},
			},
		}}
		return nil
	})
	return err
}

// lastBackup is the newest completed backup of rc (by time, then name).
func (op *Operator) lastBackup(rc *RedisCluster) string {
	var best *RedisBackup
	for _, b := range op.backupsW.Informer().ByIndex(cache.NamespaceIndex, rc.Namespace) {
		if b.Spec.ClusterName != rc.Name || b.Status.Phase != BackupCompleted || b.Status.Snapshot == nil {
			continue
		}
		if best == nil || !b.Status.Snapshot.TakenAt.Before(&best.Status.Snapshot.TakenAt) {
			best = b
		}
	}
	if best == nil {
		return ""
	}
	return best.Name
}

// reconcileBackup takes the snapshot once the cluster is Running.
func (op *Operator) reconcileBackup(ctx context.Context, b *RedisBackup) (controllers.Result, error) {
	if b.Status.Phase == BackupCompleted {
		return controllers.Result{}, nil // a snapshot is taken once
	}
	rc, ok := op.clusters.Informer().Get(b.Namespace, b.Spec.ClusterName)
	var msg string
	switch {
	case !ok:
		msg = fmt.Sprintf("RedisCluster %q not found", b.Spec.ClusterName)
	case rc.Status.Phase != PhaseRunning:
		msg = fmt.Sprintf("waiting for RedisCluster %q to be Running", b.Spec.ClusterName)
	}
	if msg != "" {
		_, err := op.backups.UpdateStatus(ctx, b, func(b *RedisBackup) {
			b.Status.Phase, b.Status.Message = BackupPending, msg
		})
		return controllers.Result{}, err
	}
	snap := TakeSnapshot(rc, op.backups.Clock().Now())
	_, err := op.backups.UpdateStatus(ctx, b, func(b *RedisBackup) {
		b.Status.Phase, b.Status.Message, b.Status.Snapshot = BackupCompleted, "", snap
	})
	if err == nil {
		op.backups.Eventf(ctx, b, corev1.EventTypeNormal, "SnapshotTaken", "took snapshot %s of RedisCluster %s (%d masters)", snap.ID, rc.Name, snap.Masters)
	}
	return controllers.Result{}, err
}

// TakeSnapshot records the shape of a running cluster: its version and
// the slot ranges of each master, by position.
func TakeSnapshot(rc *RedisCluster, now time.Time) *Snapshot {
	version := rc.Spec.Version
	if version == "" {
		version = DefaultVersion
	}
	snap := &Snapshot{ID: rc.Name + "-" + now.UTC().Format("20060102-150405"), TakenAt: metav1.NewTime(now),
		Version: version, Masters: int32(len(rc.Status.Slots))}
	for _, ms := range rc.Status.Slots {
		snap.Slots = append(snap.Slots, ms.Ranges)
	}
	snap.Checksum = Checksum(snap.Slots)
	return snap
}

// Checksum is the FNV-1a hash of a slot map, hex.
func Checksum(slots []string) string {
	h := fnv.New64a()
	for _, s := range slots {
		h.Write([]byte(s))
		h.Write([]byte{'\n'})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

func formatAssignment(a map[string][]SlotRange, masters []string) []MasterSlots {
	names := make([]string, 0, len(a))
	for m, rs := range a {
		if len(rs) > 0 {
			names = append(names, m)
		}
	}
	// Masters in layout order, then any leaving holder by name.
	sort.Slice(names, func(i, j int) bool {
		oi, oj := indexOf(masters, names[i]), indexOf(masters, names[j])
		if oi != oj {
			return oi < oj
		}
		return names[i] < names[j]
	})
	var out []MasterSlots
	for _, m := range names {
		n := 0
		for _, r := range a[m] {
			n += r.Len()
		}
		out = append(out, MasterSlots{Master: m, Ranges: FormatRanges(a[m]), Count: n})
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}

func contains(list []string, s string) bool { return indexOf(list, s) < len(list) }

// onlyOn reports whether every slot is held, by the listed masters only.
func onlyOn(a map[string][]SlotRange, masters []string) bool {
	n := 0
	for m, rs := range a {
		for _, r := range rs {
			if !contains(masters, m) {
				return false
			}
			n += r.Len()
		}
	}
	return n == NumSlots
}

func countReady(ms []Member) int {
	n := 0
	for _, m := range ms {
		if m.Ready {
			n++
		}
	}
	return n
}

// setCondition sets a condition, keeping its transition time unless its
// status changes (meta.SetStatusCondition).
func setCondition(conds *[]metav1.Condition, now metav1.Time, gen int64, typ string, ok bool, yes, no, msg string) {
	c := metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: no, Message: msg, ObservedGeneration: gen, LastTransitionTime: now}
	if ok {
		c.Status, c.Reason = metav1.ConditionTrue, yes
	}
	for i := range *conds {
		if (*conds)[i].Type == typ {
			if (*conds)[i].Status == c.Status {
				c.LastTransitionTime = (*conds)[i].LastTransitionTime
			}
			(*conds)[i] = c
			return
		}
	}
	*conds = append(*conds, c)
}
