package api

// This file holds coordination.k8s.io/v1 Lease and autoscaling/v1 Scale.

// Lease is a lock with an expiry: node heartbeats in kube-node-lease and
// leader election use it.
type Lease struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec holds the holder and times.
	Spec LeaseSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// LeaseSpec says who holds the lease and until when.
type LeaseSpec struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ struct{} `json:"-" protobuf:"bytes,6,opt,name=strategy"`
	_ struct{} `json:"-" protobuf:"bytes,7,opt,name=preferredHolder"`
	// HolderIdentity is the holder.
	HolderIdentity *string `json:"holderIdentity,omitempty" protobuf:"bytes,1,opt,name=holderIdentity"`
	// LeaseDurationSeconds is how long the lease lasts after RenewTime.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty" protobuf:"varint,2,opt,name=leaseDurationSeconds"`
	// AcquireTime is when the holder took the lease.
	AcquireTime *MicroTime `json:"acquireTime,omitempty" protobuf:"bytes,3,opt,name=acquireTime"`
	// RenewTime is the holder's last renewal.
	RenewTime *MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`
	// LeaseTransitions counts holder changes.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty" protobuf:"varint,5,opt,name=leaseTransitions"`
}

// LeaseList is a list of leases.
type LeaseList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the leases.
	Items []Lease `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Scale is the scale subresource (autoscaling/v1) of Deployments,
// ReplicaSets and StatefulSets: kubectl scale reads and writes it.
type Scale struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec holds the desired replicas.
	Spec ScaleSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status holds the observed replicas.
	Status ScaleStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ScaleSpec is the desired replica count.
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
}

// ScaleStatus is the observed replica count and the pod selector, in
// label selector string form (app=web).
type ScaleStatus struct {
	Replicas int32  `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	Selector string `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}
