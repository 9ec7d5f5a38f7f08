package api

// Affinity is a pod's scheduling constraints (k8s.io/api/core/v1's
// Affinity). kubesim models node affinity; pod (anti-)affinity is read
// past in protobuf and not served.
type Affinity struct {
	_ struct{} `json:"-" protobuf:"bytes,2,opt,name=podAffinity"`
	_ struct{} `json:"-" protobuf:"bytes,3,opt,name=podAntiAffinity"`
	// NodeAffinity constrains the nodes the pod may run on.
	NodeAffinity *NodeAffinity `json:"nodeAffinity,omitempty" protobuf:"bytes,1,opt,name=nodeAffinity"`
}

// NodeAffinity is required and preferred node selection.
type NodeAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution must match for the pod
	// to be scheduled on a node.
	RequiredDuringSchedulingIgnoredDuringExecution *NodeSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,1,opt,name=requiredDuringSchedulingIgnoredDuringExecution"`
	// PreferredDuringSchedulingIgnoredDuringExecution weighs nodes (kubesim
	// stores it; its scorer does not use it).
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,2,rep,name=preferredDuringSchedulingIgnoredDuringExecution"`
}

// PreferredSchedulingTerm is a weighted node selector term.
type PreferredSchedulingTerm struct {
	Weight     int32            `json:"weight" protobuf:"varint,1,opt,name=weight"`
	Preference NodeSelectorTerm `json:"preference" protobuf:"bytes,2,opt,name=preference"`
}
