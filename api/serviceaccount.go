package api

// This file holds core/v1 ServiceAccount and authentication.k8s.io/v1
// TokenRequest (k8s.io/api/core/v1 and authentication/v1 types.go): a
// pod's identity and the request that mints a token for it. The protobuf
// field numbers are those of k8s.io/api's generated.proto.

// ServiceAccount is an identity for processes that run in pods: the
// API server's tokens name it (system:serviceaccount:NAMESPACE:NAME).
type ServiceAccount struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Secrets are the legacy token Secrets of the account (kubesim never
	// creates them: tokens come from TokenRequest).
	Secrets []ObjectReference `json:"secrets,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=secrets"`
	// ImagePullSecrets are added to every pod using the account.
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,3,rep,name=imagePullSecrets"`
	// AutomountServiceAccountToken false keeps the token volume out of
	// pods using the account (unless the pod asks for it).
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty" protobuf:"varint,4,opt,name=automountServiceAccountToken"`
}

// ServiceAccountList is a list of ServiceAccounts.
type ServiceAccountList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the ServiceAccounts.
	Items []ServiceAccount `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// TokenRequest asks for a token of a service account: POST
// serviceaccounts/NAME/token (kubectl create token).
type TokenRequest struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       TokenRequestSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status     TokenRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenRequestSpec is what the client asks for.
type TokenRequestSpec struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them.
	_ struct{} `json:"-" protobuf:"bytes,5,rep,name=attestations"`
	// Audiences the token is meant for; empty means the API server's own.
	Audiences []string `json:"audiences" protobuf:"bytes,1,rep,name=audiences"`
	// ExpirationSeconds is the wanted lifetime (default 3600, at least 600).
	ExpirationSeconds *int64 `json:"expirationSeconds" protobuf:"varint,4,opt,name=expirationSeconds"`
	// BoundObjectRef ties the token to a Pod or Secret: it is valid only
	// while that object exists.
	BoundObjectRef *BoundObjectReference `json:"boundObjectRef" protobuf:"bytes,3,opt,name=boundObjectRef"`
}

// TokenRequestStatus is the minted token.
type TokenRequestStatus struct {
	Token               string `json:"token" protobuf:"bytes,1,opt,name=token"`
	ExpirationTimestamp Time   `json:"expirationTimestamp" protobuf:"bytes,2,opt,name=expirationTimestamp"`
}

// BoundObjectReference names the object a token is bound to.
type BoundObjectReference struct {
	Kind       string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
	Name       string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	UID        string `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uID,casttype=k8s.io/apimachinery/pkg/types.UID"`
}
