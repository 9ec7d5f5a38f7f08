// Package client is kubesim's client-go: a small REST client for the API
// server with typed access to built-in kinds (generics over api.Object) and
// dynamic access to any kind (unstructured objects), over HTTPS or through
// the in-process transport.
//
// It simulates k8s.io/client-go (rest, kubernetes typed clientsets,
// dynamic). Left out: protobuf, client-side rate limiting and retries, the
// discovery and REST-mapper layers (callers name the resource), and
// authentication other than bearer tokens.
package client
