// Package intstr holds IntOrString, a field that is either a number or a
// string on the wire: a Service's targetPort (8080 or "http") and a
// Deployment's maxSurge/maxUnavailable (1 or "25%").
//
// It simulates k8s.io/apimachinery/pkg/util/intstr, with the same JSON
// form and the same percentage arithmetic and error wording.
//
// Left out: the protobuf encoding and the deprecated FromInt.
//
// Read the real one at
// https://github.com/kubernetes/apimachinery/blob/master/pkg/util/intstr/intstr.go
package intstr
