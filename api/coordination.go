package api

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
)

// This file holds coordination.k8s.io/v1 Lease and autoscaling/v1 Scale.

// Lease is a lock with an expiry: node heartbeats in kube-node-lease and
// leader election use it.
type Lease = coordinationv1.Lease

// LeaseSpec says who holds the lease and until when.
type LeaseSpec = coordinationv1.LeaseSpec

// LeaseList is a list of leases.
type LeaseList = coordinationv1.LeaseList

// Scale is the scale subresource (autoscaling/v1) of Deployments,
// ReplicaSets and StatefulSets: kubectl scale reads and writes it.
type Scale = autoscalingv1.Scale

// ScaleSpec is the desired replica count.
type ScaleSpec = autoscalingv1.ScaleSpec

// ScaleStatus is the observed replica count and the pod selector, in
// label selector string form (app=web).
type ScaleStatus = autoscalingv1.ScaleStatus
