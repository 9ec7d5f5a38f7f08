package redis

import (
	_ "embed"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/client"
)

// CRDs is crds.yaml: the CustomResourceDefinitions of RedisCluster and
// RedisBackup.
//
//go:embed crds.yaml
var CRDs []byte

// The API group and version of the operator's kinds.
const (
	Group   = "redis.kubesim.io"
	Version = "v1"
)

// The kinds and resources of the operator.
var (
	RedisClusterGVK       = schema.GroupVersionKind{Group: Group, Version: Version, Kind: "RedisCluster"}
	RedisBackupGVK        = schema.GroupVersionKind{Group: Group, Version: Version, Kind: "RedisBackup"}
	RedisClustersResource = client.ResourceInfo{Group: Group, Version: Version, Resource: "redisclusters", Namespaced: true}
	RedisBackupsResource  = client.ResourceInfo{Group: Group, Version: Version, Resource: "redisbackups", Namespaced: true}
)

// RedisCluster is a Redis Cluster: masters sharing the hash slots, each
// with replicas.
type RedisCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RedisClusterSpec   `json:"spec"`
	Status            RedisClusterStatus `json:"status,omitempty"`
}

// RedisClusterSpec is the desired cluster.
type RedisClusterSpec struct {
	// Masters is the number of masters (shards).
	Masters int32 `json:"masters"`
	// ReplicasPerMaster is the number of replicas of each master (the
	// CRD defaults it to 1 when a manifest leaves it out; always sent from
	// Go, so that 0 means 0).
	ReplicasPerMaster int32 `json:"replicasPerMaster"`
	// Version is the Redis version, the tag of the redis image (7.2).
	Version string `json:"version,omitempty"`
	// RestoreFrom names a RedisBackup (same namespace) whose snapshot the
	// new cluster starts from.
	RestoreFrom string `json:"restoreFrom,omitempty"`
}

// The phases of a RedisCluster.
const (
	PhaseCreating    = "Creating"
	PhaseRestoring   = "Restoring"
	PhaseRebalancing = "Rebalancing"
	PhaseRunning     = "Running"
)

// The member roles.
const (
	RoleMaster  = "master"
	RoleReplica = "replica"
)

// RedisClusterStatus is what the operator observed and did.
type RedisClusterStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Phase is Creating, Restoring, Rebalancing or Running.
	Phase string `json:"phase,omitempty"`
	// Members are the cluster's pods.
	Members []Member `json:"members,omitempty"`
	// Slots are the hash slots each master serves.
	Slots []MasterSlots `json:"slots,omitempty"`
	// RestoredFrom is the backup the cluster started from.
	RestoredFrom string `json:"restoredFrom,omitempty"`
	// LastBackup is the newest completed RedisBackup of the cluster.
	LastBackup string `json:"lastBackup,omitempty"`
	// Conditions Ready, Balanced and (with restoreFrom) Restored.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Member is one pod of the cluster.
type Member struct {
	Name string `json:"name"`
	Role string `json:"role"`
	// Master is the master a replica follows.
	Master string `json:"master,omitempty"`
	Ready  bool   `json:"ready"`
}

// MasterSlots are the slot ranges of one master.
type MasterSlots struct {
	Master string `json:"master"`
	// Ranges in FormatRanges's notation ("0-5461").
	Ranges string `json:"ranges"`
	Count  int    `json:"count"`
}

// DeepCopyObject implements api.Object (deepcopy-gen would write a typed
// copy; a JSON round trip is enough for an example).
func (r *RedisCluster) DeepCopyObject() runtime.Object {
	out := &RedisCluster{}
	jsonCopy(r, out)
	return out
}

// RedisBackup asks for a snapshot of a RedisCluster.
type RedisBackup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RedisBackupSpec   `json:"spec"`
	Status            RedisBackupStatus `json:"status,omitempty"`
}

// RedisBackupSpec names the cluster to back up.
type RedisBackupSpec struct {
	ClusterName string `json:"clusterName"`
}

// The phases of a RedisBackup.
const (
	BackupPending   = "Pending"
	BackupCompleted = "Completed"
)

// RedisBackupStatus records the snapshot.
type RedisBackupStatus struct {
	// Phase is Pending or Completed.
	Phase string `json:"phase,omitempty"`
	// Message says what a pending backup waits for.
	Message  string    `json:"message,omitempty"`
	Snapshot *Snapshot `json:"snapshot,omitempty"`
}

// Snapshot is a simulated dump: the shape of the cluster, not its data.
type Snapshot struct {
	// ID is "<cluster>-<time>".
	ID      string      `json:"id"`
	TakenAt metav1.Time `json:"takenAt"`
	Version string      `json:"version"`
	Masters int32       `json:"masters"`
	// Slots are the ranges of master 0, 1, ... (by position, so that a
	// cluster of another name can start from them).
	Slots []string `json:"slots"`
	// Checksum covers the slot map (FNV-1a), to check a restore.
	Checksum string `json:"checksum"`
}

// DeepCopyObject implements api.Object.
func (b *RedisBackup) DeepCopyObject() runtime.Object {
	out := &RedisBackup{}
	jsonCopy(b, out)
	return out
}

func jsonCopy(in, out any) {
	data, err := json.Marshal(in)
	if err != nil {
		panic(err) // these types always marshal
	}
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
}

// RedisClusters is the typed client of RedisClusters.
func RedisClusters(c *client.Client) *client.Resource[*RedisCluster] {
	return client.For(c, RedisClustersResource, func() *RedisCluster { return &RedisCluster{} })
}

// RedisBackups is the typed client of RedisBackups.
func RedisBackups(c *client.Client) *client.Resource[*RedisBackup] {
	return client.For(c, RedisBackupsResource, func() *RedisBackup { return &RedisBackup{} })
}
