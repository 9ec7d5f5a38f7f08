package api

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// This file holds apiextensions.k8s.io/v1 ConversionReview
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1): what the API
// server sends a CRD's conversion webhook and what the webhook answers. It
// is never stored.

// ConversionReview carries a conversion request to a webhook and its
// response back.
type ConversionReview = apiextensionsv1.ConversionReview

// ConversionRequest asks for objects in another version.
type ConversionRequest = apiextensionsv1.ConversionRequest

// ConversionResponse is the webhook's answer.
type ConversionResponse = apiextensionsv1.ConversionResponse
