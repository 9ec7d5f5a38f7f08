// Package images is the fake kubelet's image manager and the registries
// it pulls from. A container starts only once its image is on the node:
// Manager.Ensure applies the container's imagePullPolicy (Always,
// IfNotPresent, Never) to what the node has (Store), waits out the pull
// back-off of an image that failed (10 s, doubling to 5 minutes), and
// otherwise pulls — one pull at a time per node, each taking the time of
// a reference lookup and of the image's size at a fixed bandwidth on the
// kubelet's clock, so step mode stays deterministic. The registries
// (Registry, the table of catalog.go that docs/containers.md lists) know
// the images and tags courses, the repository's examples and the real
// charts kubesim is tested with use; any other tag is not found, a host
// not listed does not resolve, and the private registry
// (registry.kubesim.io) and Docker Hub's kubesim/private-app need the
// account's credentials from one of the pod's image pull secrets
// (Keyring, kubernetes.io/dockerconfigjson or kubernetes.io/dockercfg).
// Image references are read with the distribution project's own parser
// (github.com/distribution/reference), as the kubelet reads them, so an
// InvalidImageName says what the real one says. The events, reasons and
// messages are the kubelet's (Pulling, Pulled, Failed, BackOff; waiting
// reasons ErrImagePull, ImagePullBackOff, InvalidImageName,
// ErrImageNeverPull) and the failures are worded as containerd answers
// them.
//
// It simulates pkg/kubelet/images (image_manager.go's
// EnsureImageExists, puller.go's serialized puller), the image back-off of
// pkg/kubelet (a flowcontrol.Backoff) and pkg/credentialprovider's keyring.
// Left out: layers (an image is pulled whole; a node has an image's
// layers only if it has the image), image garbage collection and disk
// pressure, parallel pulls and pull QPS, credential provider plugins and
// the node's own credentials, the KubeletEnsureSecretPulledImages check,
// signature validation, and what an image runs (the kubelet's program.go
// decides that from the image's name).
package images
