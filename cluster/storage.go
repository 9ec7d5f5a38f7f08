package cluster

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/controllers/volume/persistentvolume"
)

// DefaultStorageClassName is the default StorageClass every cluster starts
// with.
const DefaultStorageClassName = "standard"

// DefaultStorageClass is the class a cluster installs at start, as kind
// installs its "standard" class: the simulated hostpath provisioner,
// volumes deleted with their claims, and WaitForFirstConsumer binding.
// kind binds late because its hostPath volumes live on one node and a
// cluster has several: the scheduler picks the pod's node first, then the
// volume is made there. (minikube's Immediate suits its single node only.)
func DefaultStorageClass() *storagev1.StorageClass {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	del := corev1.PersistentVolumeReclaimDelete
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: DefaultStorageClassName,
			Annotations: map[string]string{api.AnnDefaultStorageClass: "true"}},
		Provisioner: persistentvolume.Provisioner, ReclaimPolicy: &del, VolumeBindingMode: &wffc,
	}
}

// volumesDir is where the PersistentVolumes keep what is written to them,
// under the cluster's data directory (so a restart on the same directory
// finds it); "" keeps them in memory, with a store given by the caller.
func (c *Cluster) volumesDir() string {
	if c.dataDir == "" {
		return ""
	}
	return filepath.Join(c.dataDir, "volumes")
}

// installDefaultStorageClass creates the default class unless a class by
// that name is stored already (a cluster restarted on its store).
func (c *Cluster) installDefaultStorageClass(ctx context.Context) error {
	// The storage add-on is part of the cluster set-up: the privileged
	// loopback, as kube-apiserver's own bootstrap writes are.
	cl, _ := c.client("kubesim-storage-addon", apiserver.FixedIdentity(nil))
	if _, err := cl.StorageClasses().Create(ctx, DefaultStorageClass()); err != nil && !api.IsAlreadyExists(err) {
		return fmt.Errorf("creating the default StorageClass: %w", err)
	}
	return nil
}
