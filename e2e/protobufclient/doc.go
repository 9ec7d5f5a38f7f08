// Package protobufclient proves kubesim's request decoding and response
// negotiation against client-go configured as Kubernetes' own components
// are (ContentType application/vnd.kubernetes.protobuf): create, get,
// list, watch, update, status, scale, pods/binding and delete with
// DeleteOptions, all in protobuf, through kubesim's real handlers.
package protobufclient
