// Package userwebhook is a teaching admission webhook for the seed's User
// custom resource (auth.ilinux.io, examples/crd): /mutate defaults
// spec.groups to ["users"] when a User has none, and /validate refuses
// the reserved names (root, admin, system-...); /convert is the
// conversion webhook of a User CRD served at v1beta1 (spec.userID) and v1
// (spec.id). It is written with plain
// net/http and the project's AdmissionReview types, as a webhook author
// would write one without a framework.
//
// It plays the part of a webhook server like the ones kubebuilder's
// `create webhook --defaulting --programmatic-validation` generates
// (controller-runtime's webhook.Server): one HTTPS server, a handler per
// path, an AdmissionReview in and out. It runs as `kubesim webhook` on
// the host (registered with clientConfig.url) or as the in-process image
// kubesim/webhook behind a Service (clientConfig.service). The image, like
// the kube-webhook-certgen jobs that install ingress-nginx, makes its own
// CA and serving certificate for <service>.<namespace>.svc and writes the
// CA into the caBundle of the webhook configurations that name its
// Service (the cluster package does the writing, for the image).
//
// Left out: AdmissionReview v1beta1, certificate rotation, and
// authenticating the API server's calls.
package userwebhook
