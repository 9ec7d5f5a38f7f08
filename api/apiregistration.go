package api

import (
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// This file holds apiregistration.k8s.io/v1 APIService: the aggregator's
// routing table (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1).

// APIService says which server serves one group-version: the API server
// itself ("Local", spec.service unset) or the Service of an extension API
// server. Its name is "<version>.<group>" ("v1.apps", "v1." for core).
type APIService = apiregistrationv1.APIService

// APIServiceSpec describes the route of one group-version.
type APIServiceSpec = apiregistrationv1.APIServiceSpec

// APIServiceReference points at a Service and one of its ports
// (apiregistration's ServiceReference; the name is taken by the webhooks').
type APIServiceReference = apiregistrationv1.ServiceReference

// APIServiceConditionType names a condition of an APIService.
type APIServiceConditionType = apiregistrationv1.APIServiceConditionType

// Available says the backend answers discovery.
const Available APIServiceConditionType = "Available"

// APIServiceCondition is one condition of an APIService.
type APIServiceCondition = apiregistrationv1.APIServiceCondition

// APIServiceStatus holds the conditions.
type APIServiceStatus = apiregistrationv1.APIServiceStatus

// APIServiceList is a list of APIServices.
type APIServiceList = apiregistrationv1.APIServiceList
