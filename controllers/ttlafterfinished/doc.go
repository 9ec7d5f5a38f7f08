// Package ttlafterfinished deletes a finished Job once its
// spec.ttlSecondsAfterFinished has passed, on the injected clock.
//
// It simulates kube-controller-manager's ttl-after-finished controller
// (pkg/controller/ttlafterfinished): the Job's finish time is the
// transition time of its Complete or Failed condition; the Job is deleted
// with propagationPolicy Foreground, so its pods go first, and with a uid
// precondition, so that a new Job of the same name is never the one
// deleted. A Job not yet expired is looked at again when it expires (no
// polling).
//
// Left out: the re-read of the Job from the API server just before the
// delete (the uid precondition covers the case that matters, and step
// mode's cache is exact). Read the real one at
// https://github.com/kubernetes/kubernetes/tree/master/pkg/controller/ttlafterfinished.
package ttlafterfinished
