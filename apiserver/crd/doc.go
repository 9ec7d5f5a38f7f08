// Package crd is kubesim's apiextensions-apiserver: it serves
// CustomResourceDefinitions (apiextensions.k8s.io/v1, and v1beta1 converted
// to and from v1 with the deprecation warning Kubernetes gave before 1.22)
// and, for every established CRD, its custom resources through the same
// generic REST storage (package registry) as the built-in kinds.
//
// What it simulates, and where to read the real one in
// https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiextensions-apiserver:
//
//   - pkg/apis/apiextensions/validation: the CRD checks (metadata.name is
//     <plural>.<group>, exactly one storage version, structural schemas,
//     printer columns, subresources), worded as Kubernetes words them;
//   - pkg/apis/apiextensions/v1beta1 defaults and conversion: spec.version,
//     spec.validation, top-level subresources and columns;
//   - pkg/registry/customresourcedefinition: the CRD strategy, storedVersions,
//     and the delete that adds the customresourcecleanup finalizer;
//   - pkg/controller/status (naming controller) and establish: NamesAccepted
//     and Established, computed here synchronously when the CRD is written so
//     that the new resource is served the moment the write returns;
//   - pkg/apiserver/customresource_handler.go and pkg/registry/customresource:
//     the custom resource strategy (prune, default, validate against the
//     version's schema and its x-kubernetes-validations CEL rules through
//     package apiserver/cel, apiVersion and kind checks), status and scale
//     subresources, and the table convertor of additionalPrinterColumns;
//   - pkg/controller/finalizer: the controller that deletes every custom
//     resource of a deleted CRD, then lets the CRD go (package controllers/crdfinalizer, a client of the API server).
//
// Left out: conversion webhooks (strategy Webhook is accepted and stored,
// but versions convert as with None: only apiVersion changes), validation ratcheting of custom resources, selectableFields, the
// NonStructuralSchema condition's detailed messages, and the
// CustomResourceDefinition's own status subresource semantics beyond what
// the naming and establishing controllers write. Names clash only within a
// group, as in Kubernetes. Names are accepted at write time rather than by
// a controller, so two CRDs created at the same instant with the same names
// may both be accepted.
package crd
