// Package deployment is the Deployment controller: it turns a Deployment
// into ReplicaSets, one per pod template (named <deployment>-<hash>, the
// hash also a pod-template-hash label that keeps their pods apart), and
// rolls from the old ones to the new one with the RollingUpdate strategy
// (at most replicas+maxSurge pods, at least replicas-maxUnavailable
// available) or the Recreate strategy (old pods gone before new ones
// start). It numbers rollouts with the deployment.kubernetes.io/revision
// annotation, deletes old empty ReplicaSets past revisionHistoryLimit, and
// reports status and the Available and Progressing conditions, worded as
// Kubernetes words them, that `kubectl rollout status` and `kubectl rollout
// undo` read.
//
// It simulates kubernetes/pkg/controller/deployment (deployment_controller.go,
// sync.go, rolling.go, recreate.go, progress.go) and
// pkg/controller/deployment/util/deployment_util.go; the function names here
// match theirs, so read them side by side.
//
// What it leaves out or simplifies:
//   - Proportional scaling: when a Deployment is resized in the middle of a
//     rollout, kubesim adds the difference to the newest ReplicaSet (or takes
//     it from the oldest first) instead of spreading it by size.
//   - The pod-template-hash is FNV-32a over the template's JSON (Kubernetes
//     hashes a spew dump), rendered with the same safe alphabet: stable, but
//     not Kubernetes' values.
//   - Rollback through spec.rollbackTo (extensions/v1beta1) is gone from
//     apps/v1; `kubectl rollout undo` patches the template, which works here.
//   - kubesim's deployments/status subresource keeps metadata unchanged, so the
//     revision annotation is written with a metadata-only merge patch instead
//     of riding along in the status update as in Kubernetes.
//   - Counting is conservative where the ReplicaSet controller may lag: an
//     old ReplicaSet whose status still shows more pods than its spec counts
//     those pods against maxSurge, and a ReplicaSet counts at most
//     spec.replicas available pods. Kubernetes reads spec and status as they
//     are and can briefly overshoot; kubesim's step-mode tests check the
//     bounds after every step.
package deployment
