package api

// This file holds coordination.k8s.io/v1 Lease and autoscaling/v1 Scale.

// Lease is a lock with an expiry: node heartbeats in kube-node-lease and
// leader election use it.
type Lease struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec holds the holder and times.
	Spec LeaseSpec `json:"spec,omitempty"`
}

// LeaseSpec says who holds the lease and until when.
type LeaseSpec struct {
	// HolderIdentity is the holder.
	HolderIdentity *string `json:"holderIdentity,omitempty"`
	// LeaseDurationSeconds is how long the lease lasts after RenewTime.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`
	// AcquireTime is when the holder took the lease.
	AcquireTime *MicroTime `json:"acquireTime,omitempty"`
	// RenewTime is the holder's last renewal.
	RenewTime *MicroTime `json:"renewTime,omitempty"`
	// LeaseTransitions counts holder changes.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty"`
}

// LeaseList is a list of leases.
type LeaseList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the leases.
	Items []Lease `json:"items"`
}

// Scale is the scale subresource (autoscaling/v1) of Deployments,
// ReplicaSets and StatefulSets: kubectl scale reads and writes it.
type Scale struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec holds the desired replicas.
	Spec ScaleSpec `json:"spec,omitempty"`
	// Status holds the observed replicas.
	Status ScaleStatus `json:"status,omitempty"`
}

// ScaleSpec is the desired replica count.
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// ScaleStatus is the observed replica count and the pod selector, in
// label selector string form (app=web).
type ScaleStatus struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}
