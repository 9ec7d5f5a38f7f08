package api

import (
	runtime "k8s.io/apimachinery/pkg/runtime"
)

// RawExtension is runtime.RawExtension where Kubernetes holds it by value
// (a ControllerRevision's data): an embedded document kept as it came. In
// JSON it is the document itself; in protobuf a message {bytes raw = 1},
// written even when empty, as generated code writes a non-pointer message
// field. (Where Kubernetes holds one by pointer, or the document is always
// there, kubesim's types use json.RawMessage, which the codec writes only
// when set.)
type RawExtension = runtime.RawExtension
