// Package flowcontrol holds the API Priority and Fairness helpers that the
// API server's bootstrap and its config controller share: the Dangling
// condition a FlowSchema carries about its priority level.
//
// It plays the part of k8s.io/apiserver/pkg/util/flowcontrol's
// apf_controller.go that computes that condition (the rest of that
// package — classifying requests, the queues — kubesim leaves out; see
// package apiserver/serving). Read it at
// https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiserver/pkg/util/flowcontrol
package flowcontrol
