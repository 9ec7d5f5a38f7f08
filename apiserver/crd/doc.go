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
//   - pkg/apiserver/conversion/webhook_converter.go: conversion webhooks
//     (strategy Webhook, ConversionReview v1): a CRD with one stores its
//     objects in the storage version and converts what is written to it and
//     what is read from it, one review per object or per list page, through
//     the admission webhooks' clients (caBundle, Service dialing); failures
//     are 500 InternalErrors with the real wording;
//   - pkg/controller/finalizer: the controller that deletes every custom
//     resource of a deleted CRD, then lets the CRD go (package controllers/crdfinalizer, a client of the API server).
//
// Left out: ConversionReview v1beta1 (a webhook is always sent v1), the
// error event a watch gets when an object cannot be converted (kubesim
// passes it on unconverted), converting objects already stored in another
// version when a CRD switches to strategy Webhook (they are converted
// when read), strategy None's conversion beyond rewriting apiVersion
// (kubesim keeps each object in the version it was written in), validation ratcheting of custom resources, selectableFields, the
// NonStructuralSchema condition's detailed messages, and the
// CustomResourceDefinition's own status subresource semantics beyond what
// the naming and establishing controllers write. Names clash only within a
// group, as in Kubernetes. Names are accepted at write time rather than by
// a controller, so two CRDs created at the same instant with the same names
// may both be accepted.
package crd
