package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStorageThroughKubectl is storage through kubectl: the
// default class, a StatefulSet's claims provisioned on its pods' nodes, a
// pod deleted and back on its own claim, the tables of pvc, pv and sc,
// and the real refusals and events.
func TestStorageThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "3", "--stage-delay", "20ms")
	k := newKubectl(t, s)

	t.Run("default class", func(t *testing.T) {
		out := k.ok("get", "sc")
		assert.Regexp(t, `^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n`, out)
		assert.Regexp(t, `(?m)^standard \(default\)\s+kubesim.io/hostpath\s+Delete\s+WaitForFirstConsumer\s+false\s+\d+s$`, out)
		assert.Regexp(t, `(?m)^storageclasses\s+sc\s+storage.k8s.io/v1\s+false\s+StorageClass$`, k.ok("api-resources"))
	})

	t.Run("statefulset with volumeClaimTemplates", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/db-sts-storage.yaml")
		k.ok("rollout", "status", "statefulset/db", "--timeout=60s")
		out := k.eventually(func(out string) bool { return strings.Count(out, "Bound") == 2 }, "get", "pvc")
		assert.Regexp(t, `^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\n`, out)
		assert.Regexp(t, `(?m)^data-db-0\s+Bound\s+pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+standard\s+<unset>\s+\d+s$`, out)
		assert.Regexp(t, `(?m)^data-db-1\s+Bound\s+pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+standard\s+<unset>\s+\d+s$`, out)
		pv := k.ok("get", "pv")
		assert.Regexp(t, `^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE\n`, pv)
		assert.Regexp(t, `(?m)^pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+Delete\s+Bound\s+default/data-db-0\s+standard\s+<unset>\s+\d+s$`, pv)
		all := k.ok("get", "pvc,pv,sc", "-o", "name")
		assert.Contains(t, all, "persistentvolumeclaim/data-db-0\n")
		assert.Contains(t, all, "storageclass.storage.k8s.io/standard\n")

		desc := k.ok("describe", "pvc", "data-db-0")
		assert.Regexp(t, `(?m)^Status:\s+Bound$`, desc)
		assert.Regexp(t, `(?m)^StorageClass:\s+standard$`, desc)
		assert.Regexp(t, `(?m)^Used By:\s+db-0$`, desc)
		assert.Regexp(t, `(?m)^Finalizers:\s+\[kubernetes.io/pvc-protection\]$`, desc)
		assert.Contains(t, desc, "ProvisioningSucceeded")

		// The pod's node is its volume's node; deleted, it comes back
		// under its name, on its claim, on that node.
		node := k.ok("get", "pod", "db-0", "-o", "jsonpath={.spec.nodeName}")
		volume := k.ok("get", "pvc", "data-db-0", "-o", "jsonpath={.spec.volumeName}")
		assert.Equal(t, node, k.ok("get", "pv", volume, "-o", "jsonpath={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}"))
		uid := k.ok("get", "pod", "db-0", "-o", "jsonpath={.metadata.uid}")
		k.ok("delete", "pod", "db-0", "--wait=false")
		k.eventually(func(out string) bool {
			f := strings.Fields(out)
			return len(f) == 4 && f[0] != uid && f[1] == "Running"
		}, "get", "pod", "db-0", "-o", "jsonpath={.metadata.uid} {.status.phase} {.spec.nodeName} {.spec.volumes[0].persistentVolumeClaim.claimName}")
		back := strings.Fields(k.ok("get", "pod", "db-0", "-o", "jsonpath={.metadata.uid} {.status.phase} {.spec.nodeName} {.spec.volumes[0].persistentVolumeClaim.claimName}"))
		assert.Equal(t, []string{node, "data-db-0"}, back[2:])
		assert.Equal(t, volume, k.ok("get", "pvc", "data-db-0", "-o", "jsonpath={.spec.volumeName}"))

		// A claim in use is not removed under its pod.
		k.ok("delete", "pvc", "data-db-1", "--wait=false")
		assert.Regexp(t, `(?m)^data-db-1\s+Terminating\s`, k.ok("get", "pvc", "data-db-1"))
		assert.Contains(t, k.ok("get", "pvc", "data-db-1", "-o", "jsonpath={.metadata.finalizers}"), "kubernetes.io/pvc-protection")
	})

	t.Run("bad input", func(t *testing.T) {
		errOut := k.fail("apply", "-f", "testdata/storage-bad.yaml")
		assert.Contains(t, errOut, `The PersistentVolumeClaim "nosize" is invalid: spec.resources[storage]: Required value`)
		k.ok("apply", "-f", "testdata/pvc-unknown-class.yaml")
		out := k.eventually(func(out string) bool { return strings.Contains(out, "ProvisioningFailed") },
			"get", "events", "--field-selector", "involvedObject.name=lost")
		assert.Contains(t, out, `storageclass.storage.k8s.io "x" not found`)
		assert.Regexp(t, `(?m)^lost\s+Pending\s+x\s+<unset>\s+\d+s$`, k.ok("get", "pvc", "lost"))
		errOut = k.fail("patch", "sc", "standard", "-p", `{"provisioner":"other.io/x"}`)
		assert.Contains(t, errOut, "provisioner: Forbidden: updates to provisioner are forbidden.")
	})

	// A pod whose claim is not bound does not start: the scheduler's
	// VolumeBinding keeps it Pending with the real reasons; once the
	// class exists, the claim is provisioned on the node the scheduler
	// picked (WaitForFirstConsumer), the binding waits for it, and the
	// pod runs there.
	t.Run("pod on an unbound claim", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/pod-on-unbound-claims.yaml")
		out := k.eventually(func(out string) bool { return strings.Contains(out, "FailedScheduling") },
			"get", "events", "--field-selector", "involvedObject.name=waits")
		assert.Contains(t, out, "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.")
		assert.Equal(t, "Pending False Unschedulable", k.ok("get", "pod", "waits", "-o",
			`jsonpath={.status.phase} {.status.conditions[?(@.type=="PodScheduled")].status} {.status.conditions[?(@.type=="PodScheduled")].reason}`))
		out = k.eventually(func(out string) bool { return strings.Contains(out, "FailedScheduling") },
			"get", "events", "--field-selector", "involvedObject.name=noclaim")
		assert.Contains(t, out, `0/3 nodes are available: persistentvolumeclaim "nothere" not found.`)
		assert.Regexp(t, `(?m)^waits\s+0/1\s+Pending\s+0\s`, k.ok("get", "pod", "waits"))

		k.ok("apply", "-f", "testdata/sc-x.yaml")
		k.ok("wait", "--for=condition=Ready", "pod/waits", "--timeout=60s")
		node := k.ok("get", "pod", "waits", "-o", "jsonpath={.spec.nodeName}")
		assert.Equal(t, node, k.ok("get", "pvc", "lost", "-o", `jsonpath={.metadata.annotations.volume\.kubernetes\.io/selected-node}`))
		assert.Equal(t, "Bound", k.ok("get", "pvc", "lost", "-o", "jsonpath={.status.phase}"))
		k.ok("delete", "pod", "noclaim", "--wait=false")
	})
}
